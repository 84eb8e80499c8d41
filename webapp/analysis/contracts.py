"""check_contract: say what is wrong in a tool contract, and where."""

from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from .pointers import from_tokens, is_pointer

SCHEMA_KEYS = ("arguments_schema", "request_schema", "response_schema", "error_schema")
SNAPSHOTS = ("arguments", "request", "response")
MAPPING_EXTRAS = ("transform",)   # a declared transform makes that change expected (issue 11)


def check_contract(contract: dict) -> list[str]:
    """Return every problem of a contract as a message naming its place; [] when fine."""
    if not isinstance(contract, dict):
        return ["contract: must be an object"]
    problems = []
    for key in SCHEMA_KEYS:
        schema = contract.get(key)
        if schema is not None:
            problems += _schema_problems(key, schema)
    problems += _mapping_problems(contract.get("mapping"))
    name = contract.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        problems.append("name: must be a non-empty string")
    return problems


def _schema_problems(key: str, schema) -> list[str]:
    if not isinstance(schema, (dict, bool)):
        return [f"{key}: a schema must be an object or a boolean, not {type(schema).__name__}"]
    if isinstance(schema, bool):
        return []
    uri = schema.get("$schema")
    if uri is not None and not isinstance(uri, str):
        return [f"{key}: /$schema: must be a string"]
    cls = validator_for(schema, default=Draft7Validator)
    if uri and cls is Draft7Validator and "draft-07" not in uri:
        return [f"{key}: /$schema: unknown dialect {uri!r}"]
    problems = []
    for error in cls(cls.META_SCHEMA).iter_errors(schema):
        problems.append(f"{key}: {from_tokens(error.absolute_path) or '(root)'}: {error.message}")
    if not problems:
        try:
            cls.check_schema(schema)
        except SchemaError as exc:
            problems.append(f"{key}: {from_tokens(exc.absolute_path) or '(root)'}: {exc.message}")
    return sorted(problems)


def _mapping_problems(mapping) -> list[str]:
    if mapping is None:
        return []
    if not isinstance(mapping, list):
        return ["mapping: must be a list of {snapshot: pointer} pairs"]
    problems = []
    for i, entry in enumerate(mapping):
        where = f"mapping/{i}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be an object")
            continue
        unknown = [k for k in entry if k not in SNAPSHOTS and k not in MAPPING_EXTRAS]
        if unknown:
            problems.append(f"{where}: unknown snapshot {unknown[0]!r} (use arguments, request, response)")
        if "transform" in entry and not isinstance(entry["transform"], str):
            problems.append(f"{where}/transform: must be a string such as \"x100\" or \"integer>string\"")
        if len([k for k in entry if k in SNAPSHOTS]) != 2:
            problems.append(f"{where}: must pair exactly two snapshots")
        for key, pointer in entry.items():
            if key in SNAPSHOTS and not is_pointer(pointer):
                problems.append(f"{where}/{key}: {pointer!r} is not a JSON Pointer (e.g. \"/amount\")")
    return problems
