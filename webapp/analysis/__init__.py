"""The analysis of one tool call: the package's face.

The only names code outside this package imports.

Pure functions, no Flask, no database, no file I/O. `analyze_call` (engine.py) validates a call's
snapshots and names every mapping bug; below it each subpackage holds one concern: `values/`,
`schemas/`, `snapshots/`, `findings/`, `wire/`, `pairing/`, `rules/` and `alignment/`.
"""

from .alignment.result_column import result_document, with_result_column
from .alignment.rows import (
    MAX_ROWS,
    add_forced_rows,
    expanded_rows,
    full_alignment,
    result_documents,
    row_marks,
    seen_ends,
)
from .budget import wall_clock
from .checks import CheckError, call_snapshots, check_call, checked_url, fails_check
from .engine import analyze_call, not_analysed
from .findings.fold import FOLD_AT, occurrences
from .findings.kinds import (
    DEFAULT_ERROR_SCHEMA,
    FINDING_KINDS,
    KIND_NAMES,
    SEVERITIES,
    end,
    finding,
    rank,
    sort_findings,
    worst,
)
from .pairing.plucks import each_field
from .pairing.walk import pair_by_id
from .rules.response_checks import error_body, error_schema_for, is_the_envelope
from .rules.result_checks import WORD_MAPPED
from .schemas.validation import is_valid, metaschema_problems, validate
from .snapshots.documents import json_error, status_code
from .values import learnt
from .values.classify import classify
from .values.json_values import (
    REDACTED,
    canonical,
    is_number,
    norm_key,
    norm_text,
    same,
    show,
    type_name,
)
from .values.names import (
    ERROR_FIELD_NAMES,
    ERROR_TEXT_NAMES,
    error_field_name,
    error_text_name,
    meaning,
    mentions,
    name_score,
)
from .values.readings import power_of_ten, read_number, read_truth
from .values.transforms import transform_problem
from .wire.locations import (
    LOCATIONS,
    external,
    is_located_path,
    is_request_path,
    request_document,
    resolve_request,
    split_request_path,
    unread_parts,
)
from .wire.parameters import parameters, path_variables, template_of
from .wire.request import segments, url_path

__all__ = [
    # value relations learnt from a tool's history (templates, joins, bounds)
    "learnt",
    # the engine and its clock
    "analyze_call",
    "not_analysed",
    "wall_clock",
    # one call checked without storing it (tracediff check, POST /api/v1/check)
    "CheckError",
    "call_snapshots",
    "check_call",
    "checked_url",
    "fails_check",
    # findings: their kinds, severities and record, folding
    "DEFAULT_ERROR_SCHEMA",
    "FINDING_KINDS",
    "KIND_NAMES",
    "SEVERITIES",
    "FOLD_AT",
    "end",
    "finding",
    "occurrences",
    "rank",
    "sort_findings",
    "worst",
    # the way back: a word one call leaves undecided, which history judges
    "WORD_MAPPED",
    # snapshots and schemas
    "error_body",
    "error_schema_for",
    "is_the_envelope",
    "is_valid",
    "json_error",
    "metaschema_problems",
    "status_code",
    "validate",
    # values: equality, names, readings, transforms
    "ERROR_FIELD_NAMES",
    "ERROR_TEXT_NAMES",
    "error_field_name",
    "error_text_name",
    "canonical",
    "classify",
    "REDACTED",
    "is_number",
    "meaning",
    "mentions",
    "name_score",
    "norm_key",
    "norm_text",
    "power_of_ten",
    "read_number",
    "read_truth",
    "same",
    "show",
    "transform_problem",
    "type_name",
    # the request's fields outside its body, and the contract's http
    "LOCATIONS",
    "external",
    "is_located_path",
    "is_request_path",
    "parameters",
    "path_variables",
    "request_document",
    "unread_parts",
    "resolve_request",
    "split_request_path",
    "segments",
    "url_path",
    "template_of",
    # pairing and the aligned view
    "MAX_ROWS",
    "add_forced_rows",
    "each_field",
    "expanded_rows",
    "full_alignment",
    "pair_by_id",
    "result_document",
    "result_documents",
    "row_marks",
    "seen_ends",
    "with_result_column",
]
