"""Validate a snapshot against a JSON Schema.

Every error, at a JSON Pointer, with hints.

Every pattern runs in linear time: jsonschema-rs with its `regex` engine (not `fancy-regex`, which
backtracks), the Python validator with RE2 (pyschema.py); a pattern RE2 cannot run is left out
(webapp/common/patterns.py)."""

import re
from functools import lru_cache

import jsonschema_rs

from ...common import jsontext, patterns
from ...common.pointers import child, from_tokens
from ..budget import tick
from .fast_errors import fast_errors
from .hints import closest

MAX_ERRORS = 500
# Past this much JSON the Python validator (which visits every node to describe the errors)
# costs ~100 ms per MB: describe the errors from jsonschema-rs instead, in its own wording.
BIG_INSTANCE = 100_000


@lru_cache(maxsize=256)
def _cached_validator(key: bytes):
    # here: jsonschema is slow to import, and only describes errors
    from .pyschema import python_validator

    return python_validator(jsontext.loads(key))


@lru_cache(maxsize=256)
def _cached_fast(key: bytes):
    """Return a jsonschema-rs validator, or None.

    Draft 7 unless $schema says otherwise."""
    schema = patterns.runnable(jsontext.loads(key))
    linear = jsonschema_rs.RegexOptions()
    options = {"validate_formats": True, "retriever": _no_fetch, "pattern_options": linear}
    try:
        if isinstance(schema, dict) and "$schema" in schema:
            return jsonschema_rs.validator_for(schema, **options)
        return jsonschema_rs.Draft7Validator(schema, **options)
    # a schema the Rust validator cannot take: the Python one decides
    except Exception:
        return None


def _no_fetch(uri: str):
    raise ValueError(f"contracts may not fetch {uri}")


def _surely_valid(fast, instance) -> bool:
    # jsonschema-rs answers "valid" in microseconds; the Python validator, which describes
    # errors precisely, runs only for snapshots that are not (about 200x slower on big ones).
    try:
        return fast is not None and fast.is_valid(instance)
    except Exception:
        return False


def _is_big(instance) -> bool:
    if not isinstance(instance, (dict, list)) or len(instance) == 0:
        return False
    try:
        return len(jsontext.dumps(instance)) > BIG_INSTANCE
    # what JSON cannot write: only the Python validator takes it
    except TypeError:
        return False


def get_validator(schema):
    """Return a validator for a schema, built once per distinct schema text."""
    return _cached_validator(jsontext.dumps(schema, option=jsontext.OPT_SORT_KEYS))


def is_valid(instance, schema) -> bool:
    """Tell whether `instance` satisfies `schema`, without describing any error."""
    key = jsontext.dumps(schema, option=jsontext.OPT_SORT_KEYS)
    fast = _cached_fast(key)
    if fast is not None:
        try:
            return fast.is_valid(instance)
        # e.g. an integer beyond 64 bits: the Python validator decides
        except Exception:
            pass
    from .pyschema import SCHEMA_ERRORS

    try:
        return _cached_validator(key).is_valid(instance)
    except SCHEMA_ERRORS:
        return False


def validate(instance, schema) -> list[dict]:
    """Return every validation error of `instance`, sorted by path."""
    key = jsontext.dumps(schema, option=jsontext.OPT_SORT_KEYS)
    fast = _cached_fast(key)
    if _surely_valid(fast, instance):
        return []
    errors = None
    if fast is not None and (_is_big(instance) or patterns.unevaluated_by_pattern(schema)):
        errors = fast_errors(fast, instance, schema, MAX_ERRORS)
    if errors is None:
        from .pyschema import SCHEMA_ERRORS

        try:
            raw = _python_errors(_cached_validator(key), instance)
        except SCHEMA_ERRORS as exc:
            return [
                {
                    "path": "",
                    "keyword": "$schema",
                    "message": f"schema cannot be used: {exc}",
                    "schema_path": "",
                }
            ]
        errors = []
        for error in raw:
            errors.extend(_describe(error))
            if len(errors) >= MAX_ERRORS:
                break
    errors.sort(key=lambda e: (e["path"], e["schema_path"], e["message"]))
    return errors[:MAX_ERRORS]


def _python_errors(validator, instance) -> list:
    """Return the Python validator's errors.

    Counting each against the analysis' time budget."""
    raw = []
    for error in validator.iter_errors(instance):
        tick()
        raw.append(error)
    return raw


def _describe(error) -> list[dict]:
    path = from_tokens(error.absolute_path)
    keyword = "false" if error.validator is None else str(error.validator)
    base = {
        "path": path,
        "keyword": keyword,
        "message": error.message,
        "schema_path": from_tokens(error.absolute_schema_path),
    }
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        return _unexpected_keys(error, base) or [base]
    if error.validator == "required" and isinstance(error.instance, dict):
        _hint_for_missing(error, base)
    if error.validator == "enum":
        base["allowed"] = list(error.validator_value)
        if isinstance(error.instance, str):
            near = closest(error.instance, [v for v in error.validator_value if isinstance(v, str)])
            if near:
                base["hint"] = f"did you mean {near!r}?"
    elif error.validator == "const":
        base["allowed"] = [error.validator_value]
    return [base]


def _unexpected_keys(error, base: dict) -> list[dict]:
    declared = list(error.schema.get("properties", {}))
    named = list(error.schema.get("patternProperties", {}))
    out = []
    for key in error.instance:
        if key in declared or any(patterns.search(p, key) is not False for p in named):
            continue
        item = dict(
            base, path=child(base["path"], key), message=f"{key!r} is not a declared property"
        )
        hint = closest(key, declared)
        if hint:
            item["hint"] = f"did you mean {hint!r}?"
        out.append(item)
    return out


def _hint_for_missing(error, base: dict) -> None:
    declared = set(error.schema.get("properties", {}))
    missing = re.match(r"^'(.*)' is a required property$", error.message)
    if not missing:
        return
    # Point at the missing key itself, as additionalProperties errors point at the extra one.
    base["path"] = child(base["path"], missing.group(1))
    unknown = [k for k in error.instance if k not in declared]
    near = closest(missing.group(1), unknown)
    if near:
        base["hint"] = f"found {near!r}: did you mean {missing.group(1)!r}?"


def metaschema_problems(schema: dict, uri: str | None) -> list[tuple[list, str]]:
    """List each way a schema breaks its metaschema.

    As (path tokens, jsonschema's message).

    Imports jsonschema, which names each problem: ask only about a schema jsonschema-rs doubts."""
    from .pyschema import Draft7Validator, SchemaError, validator_for

    cls = validator_for(schema, default=Draft7Validator)
    if uri and cls is Draft7Validator and "draft-07" not in uri:
        return [(["$schema"], f"unknown dialect {uri!r}")]
    errors = cls(cls.META_SCHEMA).iter_errors(schema)
    problems = [(list(error.absolute_path), error.message) for error in errors]
    if not problems:
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            problems.append((list(exc.absolute_path), exc.message))
    return problems
