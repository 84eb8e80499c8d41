"""Read contracts from any supported document.

Our own contracts, tool definitions, OpenAPI."""

from dataclasses import dataclass, field

from .checks import CONTRACT_KEYS
from .definitions import descriptions, schema_pointers, tools_from_definitions, without_server_tools
from .errors import ContractError
from .openapi import tools_from_openapi


@dataclass
class Imported:
    """The contracts read from a document, and the server tools skipped.

    They have no schema."""

    contracts: dict[str, dict]
    skipped: list[dict] = field(default_factory=list)
    # parts that only fill a gap: an OpenAPI operation's summary never replaces the tool's own
    # description
    only_if_missing: tuple = ()


def parse_operations(items) -> dict[str, str] | None:
    """Turn TOOL=OPERATION_ID strings into {tool: operationId}.

    Refuse any other form."""
    mapping = {}
    for item in items:
        tool, sep, op_id = item.partition("=")
        if not sep or not tool or not op_id:
            raise ContractError(f"operation {item!r}: expected TOOL=OPERATION_ID", "bad_operation")
        if tool in mapping:
            raise ContractError(
                f"operation {item!r}: tool {tool!r} is mapped twice", "bad_operation"
            )
        mapping[tool] = op_id
    return mapping or None


def contracts_from_document(document, operations: dict | None = None) -> dict[str, dict]:
    """Turn any supported document into {tool name: contract parts}."""
    return read_contracts(document, operations).contracts


def refuse_unprintable_names(names) -> None:
    """Refuse a tool name no event could carry: one holding a control character."""
    for name in names:
        if not name.isprintable():
            raise ContractError(
                f"tool name {name[:80]!r} holds characters that are not printable; events name a "
                "tool in printable characters only",
                "bad_name",
            )


def is_openapi(document) -> bool:
    """Tell whether a document is an OpenAPI document."""
    return isinstance(document, dict) and "openapi" in document


def read_contracts(document, operations: dict | None = None) -> Imported:
    """Read contracts from any supported document, skipping provider-run server tools."""
    if is_openapi(document):
        return Imported(tools_from_openapi(document, operations), only_if_missing=("description",))
    if operations:
        raise ContractError("operation mappings apply to OpenAPI documents only", "bad_operation")
    items = document if isinstance(document, list) else [document]
    if items and all(_is_own_contract(item) for item in items):
        return Imported(
            {item["name"]: {k: item[k] for k in CONTRACT_KEYS if k in item} for item in items}
        )
    skipped = []
    definitions = without_server_tools(document, skipped)
    try:
        contracts = tools_from_definitions(definitions)
    except ValueError as error:
        names = ", ".join(s["name"] for s in skipped)
        raise ContractError(
            str(error) + (f" (skipped server tools: {names})" if names else "")
        ) from error
    for name, description in descriptions(definitions).items():
        contracts[name]["description"] = description
    return Imported(contracts, skipped)


def is_bare_contract(document) -> bool:
    """Tell whether a document is one contract without a name.

    The body of PUT /api/v1/tools/<name>."""
    return (
        isinstance(document, dict)
        and "name" not in document
        and "openapi" not in document
        and (not document or any(key in CONTRACT_KEYS for key in document))
    )


def arguments_pointers(document) -> dict[str, str]:
    """Return {tool: JSON Pointer of its arguments schema in the document}.

    `/0/function/parameters`, a contract's `/0/arguments_schema`: for annotations to land on the
    line that declares an argument."""
    items = document if isinstance(document, list) else [document]
    if items and all(_is_own_contract(item) for item in items):
        at = (lambda i: f"/{i}") if isinstance(document, list) else (lambda i: "")
        return {item["name"]: f"{at(i)}/arguments_schema" for i, item in enumerate(items)}
    return schema_pointers(document)


def _is_own_contract(item) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and any(
            key.endswith("_schema") and key != "input_schema" or key == "mapping" for key in item
        )
    )
