"""The Python jsonschema validator.

Its formats checked by jsonschema-rs and its patterns run by RE2; imported only when needed.

Importing jsonschema loads every optional format library installed beside it (rfc3987-syntax alone
compiles ~35 Lark grammars: seconds; python-jsonschema issues 1428 and 1392). The analysis asks
jsonschema-rs first and imports this module only to describe errors; its format verdicts are
jsonschema-rs's own, so those libraries are never needed, and are kept out of the import even when
something else installed them.

Its own `pattern`, `patternProperties` and `additionalProperties` run patterns with Python's
backtracking `re`: here they run them with RE2 (webapp/common/patterns.py), within the analysis'
time budget.
"""

import sys
from contextlib import contextmanager
from functools import lru_cache

import jsonschema_rs

from ...common import patterns
from ..budget import OutOfTime, spent

# The libraries behind jsonschema's own format checkers that cost the most to import.
_FORMAT_LIBRARIES = (
    "rfc3987_syntax",
    "rfc3987",
    "isoduration",
    "webcolors",
    "uri_template",
    "fqdn",
    "rfc3986_validator",
)


@contextmanager
def _without_format_libraries():
    """Make jsonschema's optional format imports fail while it is imported.

    `import rfc3987_syntax` and the like."""
    hidden = [name for name in _FORMAT_LIBRARIES if name not in sys.modules]
    # None: "not importable", which jsonschema skips
    sys.modules.update(dict.fromkeys(hidden))
    try:
        yield
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


with _without_format_libraries():
    from jsonschema import Draft7Validator, FormatChecker
    from jsonschema.exceptions import FormatError, SchemaError, ValidationError
    from jsonschema.validators import extend, validator_for
from referencing import Registry  # noqa: E402  (after the format libraries are hidden)
from referencing.exceptions import Unresolvable  # noqa: E402

# What a schema the validator cannot use raises while validating.
SCHEMA_ERRORS = (SchemaError, Unresolvable, TypeError, ValueError, RecursionError)
# An empty registry: a contract must never make the analysis fetch a URL.
_OFFLINE = Registry()
_DRAFT7 = "http://json-schema.org/draft-07/schema#"


class RustFormats(FormatChecker):
    """A format checker that answers as jsonschema-rs does for the validator's dialect."""

    def __init__(self, dialect: str):
        super().__init__(formats=())
        self.dialect = dialect

    def check(self, instance, format):  # noqa: A002 - the name jsonschema calls it with
        """Raise FormatError when a string does not conform to `format`.

        Unknown formats pass."""
        if isinstance(instance, str) and not _format_validator(self.dialect, format).is_valid(
            instance
        ):
            raise FormatError(f"{instance!r} is not a {format!r}")


@lru_cache(maxsize=256)
def _format_validator(dialect: str, format_name: str):
    schema = {"$schema": dialect, "format": format_name}
    try:
        return jsonschema_rs.validator_for(schema, validate_formats=True)
    # a dialect jsonschema-rs does not know (draft 3): check as draft 7 does
    except Exception:
        return jsonschema_rs.validator_for({**schema, "$schema": _DRAFT7}, validate_formats=True)


def python_validator(schema):
    """Return a jsonschema validator for a schema.

    Its declared dialect (else draft 7), offline, its patterns run by RE2.

    The patterns RE2 cannot run are left out (webapp/common/patterns.py `runnable`), and so is
    `unevaluatedProperties` beside any `patternProperties`: jsonschema reads those keys with
    `re` (jsonschema-rs describes such a schema's errors: validation.py)."""
    cls = validator_for(schema, default=Draft7Validator)
    dialect = cls.META_SCHEMA.get("$schema") or cls.META_SCHEMA.get("id") or _DRAFT7
    schema = patterns.runnable(schema)
    if patterns.unevaluated_by_pattern(schema):
        schema = patterns.without_keyword(schema, "unevaluatedProperties")
    return _linear(cls)(schema, format_checker=RustFormats(dialect), registry=_OFFLINE)


@lru_cache(maxsize=16)
def _linear(cls):
    """Return the validator class with its pattern keywords run by RE2."""
    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties}
    keywords["additionalProperties"] = _additional_properties
    return extend(cls, {k: v for k, v in keywords.items() if k in cls.VALIDATORS})


def _matches(pattern: str, text: str) -> bool:
    """Run a contract's pattern in RE2 while the analysis has time.

    One RE2 cannot run was left out of the schema: it would match."""
    if spent():
        raise OutOfTime
    return patterns.search(pattern, text) is not False


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator, pattern_properties, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator, additional, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    declared, named = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [k for k in instance if k not in declared and not any(_matches(p, k) for p in named)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        shown = ", ".join(repr(extra) for extra in sorted(extras))
        if named:
            verb = "does" if len(extras) == 1 else "do"
            listed = ", ".join(repr(p) for p in sorted(named))
            yield ValidationError(f"{shown} {verb} not match any of the regexes: {listed}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            text = f"Additional properties are not allowed ({shown} {verb} unexpected)"
            yield ValidationError(text)
