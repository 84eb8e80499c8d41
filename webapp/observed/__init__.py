"""Observed schemas.

Each tool's shapes learnt from its traffic, per stage, and the drift from them (pure Python).

`facts_of(document)` reads what one snapshot shows per JSON Pointer; `learn(shape, facts, ts)` folds
it into the stage's shape (bounded: a field budget, rare paths folded); `drift_findings(...)` names
how a call departs from a shape with enough history; `observed_schema(shape)` writes a shape as JSON
Schema 2020-12, a contract draft.
"""

from .drift import drift_findings
from .facts import facts_of
from .schema import observed_schema
from .shapes import MIN_HISTORY, STAGES, empty_shape, learn

__all__ = [
    "MIN_HISTORY",
    "STAGES",
    "drift_findings",
    "empty_shape",
    "facts_of",
    "learn",
    "observed_schema",
]
