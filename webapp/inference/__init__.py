"""Inferred mappings.

Learn which argument feeds which request field from a tool's own traffic.

Pure Python (no Flask, no database): the pipeline hands it the leaves of each call and the
counts stored so far, and stores what it returns.
"""

from .decide import Inferred, infer
from .evidence import observe
from .hints import hint_renames
from .leaves import leaves

__all__ = ["Inferred", "infer", "observe", "hint_renames", "leaves"]
