"""The Python jsonschema validator, its formats checked by jsonschema-rs; imported only when needed.

Importing jsonschema loads every optional format library installed beside it (rfc3987-syntax alone
compiles ~35 Lark grammars: seconds; python-jsonschema issues 1428 and 1392). The analysis asks
jsonschema-rs first and imports this module only to describe errors; its format verdicts are
jsonschema-rs's own, so those libraries are never needed, and are kept out of the import even when
something else installed them.
"""

import sys
from contextlib import contextmanager
from functools import lru_cache

import jsonschema_rs

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
    """Make jsonschema's optional `import rfc3987_syntax` (and the like) fail while it is imported."""
    hidden = [name for name in _FORMAT_LIBRARIES if name not in sys.modules]
    sys.modules.update(dict.fromkeys(hidden))  # None: "not importable", which jsonschema skips
    try:
        yield
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


with _without_format_libraries():
    from jsonschema import Draft7Validator, FormatChecker
    from jsonschema.exceptions import FormatError, SchemaError
    from jsonschema.validators import validator_for
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
        """Raise FormatError when a string does not conform to `format`; unknown formats pass."""
        if isinstance(instance, str) and not _format_validator(self.dialect, format).is_valid(instance):
            raise FormatError(f"{instance!r} is not a {format!r}")


@lru_cache(maxsize=256)
def _format_validator(dialect: str, format_name: str):
    schema = {"$schema": dialect, "format": format_name}
    try:
        return jsonschema_rs.validator_for(schema, validate_formats=True)
    except Exception:  # a dialect jsonschema-rs does not know (draft 3): check as draft 7 does
        return jsonschema_rs.validator_for({**schema, "$schema": _DRAFT7}, validate_formats=True)


def python_validator(schema):
    """Return a jsonschema validator for a schema: its declared dialect (else draft 7), offline."""
    cls = validator_for(schema, default=Draft7Validator)
    dialect = cls.META_SCHEMA.get("$schema") or cls.META_SCHEMA.get("id") or _DRAFT7
    return cls(schema, format_checker=RustFormats(dialect), registry=_OFFLINE)
