"""Say what is wrong in a tool contract, and where.

check_contract, validated_contract."""

import re

import jsonschema_rs

from ..analysis import is_request_path, metaschema_problems, transform_problem
from ..common.pointers import from_tokens, is_pointer
from ..common.stages import CORE, NAMES
from .errors import ContractError
from .refs import ref_problems
from .requests import check_http

# result_schema: what the tool hands back to the model (MCP outputSchema), checked against a
# structured result
SCHEMA_KEYS = (
    "arguments_schema",
    "request_schema",
    "response_schema",
    "error_schema",
    "result_schema",
)
CONTRACT_KEYS = ("description", *SCHEMA_KEYS, "mapping", "consumed", "result_budget_bytes")
# a mapping pairs two of the core stages, or a response field with the result field that hands it
# back (the way back)
SNAPSHOTS = NAMES
# A declared transform makes that change expected (issue 11); `inferred` and `separator` mark a pair
# inference learnt and the join its traffic showed, `relation` and `table` the value relation it
# showed (a template, a clamp, a value looked up), as the analysis reads them (the fixtures zip
# writes them).
MAPPING_EXTRAS = ("transform", "inferred", "separator", "relation", "table")
# The dialects jsonschema-rs checks a schema against without fetching anything.
KNOWN_DIALECTS = {
    f"{base}{end}"
    for end in ("", "#")
    for base in (
        "http://json-schema.org/draft-04/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    )
}


# what the request carries outside its body (contracts/requests.py)
CONTRACT_KEYS += ("http",)
# parts learnt from the tool definitions a model was offered (pipeline/definitions.py)
CONTRACT_KEYS += ("from_traffic",)


def check_contract(contract: dict) -> list[str]:
    """Return every problem of a contract as a message naming its place.

    [] when fine."""
    if not isinstance(contract, dict):
        return ["contract: must be an object"]
    problems = check_http(contract.get("http"))
    for key in SCHEMA_KEYS:
        schema = contract.get(key)
        if schema is not None:
            problems += _schema_problems(key, schema)
    problems += _mapping_problems(contract.get("mapping"))
    problems += _consumed_problems(contract.get("consumed"))
    problems += _budget_problems(contract.get("result_budget_bytes"))
    if contract.get("from_traffic") is not None and not isinstance(contract["from_traffic"], dict):
        problems.append("from_traffic: must be an object")
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
    if _surely_sound(schema, uri):
        return []
    # Only a schema jsonschema-rs doubts pays for importing jsonschema, whose messages name each
    # problem.
    problems = metaschema_problems(schema, uri)
    return sorted(
        f"{key}: {from_tokens(path) or '(root)'}: {message}" for path, message in problems
    )


def _surely_sound(schema: dict, uri) -> bool:
    """Tell fast whether a schema fits its metaschema and its patterns compile.

    The metaschema checked by jsonschema-rs."""
    if uri is not None and uri not in KNOWN_DIALECTS:
        return False
    try:
        return jsonschema_rs.meta.is_valid(schema) and all(_compiles(p) for p in _patterns(schema))
    # anything it cannot judge: the Python validator decides
    except Exception:
        return False


def _patterns(node):
    """Yield every string that may be a regular expression.

    `pattern` values, `patternProperties` keys."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack += node
        elif isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                yield node["pattern"]
            if isinstance(node.get("patternProperties"), dict):
                yield from node["patternProperties"]
            stack += node.values()


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


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
            problems.append(
                f"{where}: unknown snapshot {unknown[0]!r} (use {', '.join(SNAPSHOTS)})"
            )
        if "transform" in entry and not isinstance(entry["transform"], str):
            problems.append(
                f'{where}/transform: must be a string such as "x100" or "integer>string"'
            )
        elif "transform" in entry and transform_problem(entry["transform"]):
            problems.append(f"{where}/transform: {transform_problem(entry['transform'])}")
        if "inferred" in entry and not isinstance(entry["inferred"], bool):
            problems.append(f"{where}/inferred: must be true or false")
        if "relation" in entry and not isinstance(entry["relation"], str):
            problems.append(f'{where}/relation: must be a string such as "joined ,"')
        if "table" in entry and not (
            isinstance(entry["table"], dict)
            and all(isinstance(v, str) for v in entry["table"].values())
        ):
            problems.append(f"{where}/table: must map input digests to output digests")
        if "separator" in entry and not (
            isinstance(entry["separator"], str) and entry["separator"]
        ):
            problems.append(
                f'{where}/separator: must be the text a list is joined with, such as "|"'
            )
        if len([k for k in entry if k in SNAPSHOTS]) != 2:
            problems.append(f"{where}: must pair exactly two snapshots")
        elif any(k not in CORE for k in entry if k in SNAPSHOTS) and "response" not in entry:
            problems.append(f"{where}: a result field pairs with a response field")
        for key, pointer in entry.items():
            if key in SNAPSHOTS and not (
                is_request_path(pointer) if key == "request" else is_pointer(pointer)
            ):
                problems.append(
                    f'{where}/{key}: {pointer!r} is not a JSON Pointer (e.g. "/amount")'
                )
    return problems


def _consumed_problems(consumed) -> list[str]:
    """Check `consumed`.

    The argument pointers the mapping layer uses itself and never sends."""
    if consumed is None:
        return []
    if not isinstance(consumed, list):
        return ['consumed: must be a list of argument pointers such as "/method"']
    return [
        f'consumed/{i}: {p!r} is not a JSON Pointer to an argument (e.g. "/method")'
        for i, p in enumerate(consumed)
        if not is_pointer(p) or not p
    ]


def _budget_problems(budget) -> list[str]:
    """Check `result_budget_bytes`.

    How many bytes of result a tool may hand the model before result_large."""
    if budget is None or (type(budget) is int and budget > 0):
        return []
    return ["result_budget_bytes: must be a whole number of bytes above 0 (the default is 8192)"]


def validated_contract(name: str, body) -> dict:
    """Return the contract parts of a PUT body, or raise ContractError.

    The error says what is wrong."""
    if not isinstance(body, dict):
        raise ContractError(
            "a contract is a JSON object with arguments_schema, request_schema, "
            "response_schema, error_schema and mapping"
        )
    # name, updated_at and warnings are what a GET shows beside it: a GET's body may be PUT back
    unknown = sorted(set(body) - set(CONTRACT_KEYS) - {"name", "updated_at", "warnings"})
    if unknown:
        raise ContractError(
            f"unknown contract fields {unknown}; expected some of {list(CONTRACT_KEYS)}"
        )
    if body.get("description") is not None and not isinstance(body["description"], str):
        raise ContractError("description: must be a string")
    contract = {key: body[key] for key in CONTRACT_KEYS if body.get(key) is not None}
    try:
        problems = check_contract({"name": name, **contract}) or ref_problems(contract)
    except RecursionError:
        problems = ["a schema is nested too deeply to check"]
    if problems:
        raise ContractError(f"contract for {name!r} refused: " + "; ".join(problems))
    return contract
