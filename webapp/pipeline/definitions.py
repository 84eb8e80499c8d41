"""Tool definitions seen in traffic become a tool's arguments schema.

When it has none.

A model request names the tools it offers (`gen_ai.tool.definitions`, OpenInference's `llm.tools`);
a tool without a declared arguments schema takes that one, marked as learnt from traffic. A declared
schema always wins: the mark holds the schema it set, so a schema that differs from it is the
user's. A definition that changes later is recorded beside the one in use, never put in its place
unasked.
"""

from functools import partial

from ..contracts import ContractError, validated_contract
from ..contracts.checks import CONTRACT_KEYS
from ..store.codec import utc_now

# changed definitions kept per tool, newest last
MAX_CHANGES = 10


def learn_definitions(store, definitions: dict[str, dict]) -> list[str]:
    """Give each tool without an arguments schema the one its definition holds.

    Return the tools changed."""
    changed = []
    for name, schema in definitions.items():
        # read and written as the contract's one writer: a confirm or an adopt meanwhile is kept
        if store.change_tool(name, partial(_learnt, name, schema)) is not None:
            changed.append(name)
    return changed


def _learnt(name: str, schema: dict, stored: dict | None) -> dict | None:
    """Return the contract with the definition learnt, or None when it teaches nothing."""
    updated = _with_definition(stored or {}, schema)
    if updated is None:
        return None
    try:
        return validated_contract(name, updated)
    except ContractError:
        # a definition that is no sound schema teaches nothing
        return None


def traffic_mark(contract: dict | None) -> dict | None:
    """Return how the arguments schema came from traffic, None if declared.

    {"seen", "changes"}."""
    mark = ((contract or {}).get("from_traffic") or {}).get("arguments_schema")
    if not isinstance(mark, dict) or mark.get("schema") != (contract or {}).get("arguments_schema"):
        return None
    return mark


def _with_definition(contract: dict, schema: dict) -> dict | None:
    """Return the contract with the definition learnt or its change recorded.

    None when nothing is new."""
    parts = {key: contract[key] for key in CONTRACT_KEYS if key in contract}
    if contract.get("arguments_schema") is None:
        mark = {"schema": schema, "seen": utc_now(), "changes": []}
        return {
            **parts,
            "arguments_schema": schema,
            "from_traffic": {**(contract.get("from_traffic") or {}), "arguments_schema": mark},
        }
    mark = traffic_mark(contract)
    if (
        mark is None
        or schema == mark["schema"]
        or any(c.get("schema") == schema for c in mark.get("changes", []))
    ):
        # declared (it wins), or nothing new
        return None
    changes = [*mark.get("changes", []), {"schema": schema, "seen": utc_now()}][-MAX_CHANGES:]
    return {
        **parts,
        "from_traffic": {
            **contract["from_traffic"],
            "arguments_schema": {**mark, "changes": changes},
        },
    }
