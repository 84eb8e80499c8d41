"""Which contracts `tracediff lint` compares.

Each tool of a tools list with the OpenAPI operation it maps to.

A tool maps to the operation `--operation TOOL=OPERATION_ID` names, else to the one its name is
(`listInvoices`, or `list_invoices` in another case style). Without an OpenAPI document the tools
file holds whole contracts (as `tracediff tools show` prints them), each with its request schema or
`http`. A mapping document (contracts as `tools import` reads them) adds each tool's declared
`mapping` (argument -> request pairs and their transforms) and `consumed`."""

from dataclasses import dataclass

from ...analysis import norm_key
from ..checks import validated_contract
from ..errors import ContractError
from ..openapi import form_schema, operation_ids, tools_from_openapi
from ..read import arguments_pointers, contracts_from_document, is_bare_contract, read_contracts
from ..requests import FORM
from .fields import schema_pointer

MAPPING_PARTS = ("mapping", "consumed")
REQUEST_PARTS = ("request_schema", "http")


@dataclass
class Target:
    """One tool to lint.

    Its contract (arguments, request, mapping), or why it cannot be linted (`error`), or why it is
    not (`unlinted`: it maps to no operation, as a local tool does)."""

    tool: str
    contract: dict | None = None
    operation: str | None = None
    error: str | None = None
    unlinted: str | None = None
    # the JSON Pointer of the tool's arguments schema in the tools document
    schema_at: str | None = None

    def declared_at(self, argument: str | None) -> str | None:
        """Return where an argument is declared in the tools document, or None.

        Its JSON Pointer there (its schema's, for none: a field no argument fills); None when the
        document does not tell."""
        if self.schema_at is None:
            return None
        return self.schema_at + (schema_pointer(argument) if argument else "")


def lint_targets(
    tools_document, openapi=None, operations=None, mapping=None, only=None
) -> list[Target]:
    """Return a Target per tool of the tools document (or per tool named in `only`).

    Refuse unusable documents.

    A tool that maps to no operation is not linted; one named in `only` is an error (it was asked
    for)."""
    tools = read_contracts(tools_document).contracts
    only = [only] if isinstance(only, str) else list(dict.fromkeys(only or ()))
    unknown = [name for name in only if name not in tools]
    if unknown:
        raise ContractError(
            f"no tool {', '.join(map(repr, unknown))} in the tools list; it has: "
            f"{', '.join(sorted(tools))}",
            "bad_tool",
        )
    names = only or sorted(tools)
    for tool in operations or {}:
        if tool not in tools:
            raise ContractError(
                f"--operation {tool}=...: no tool {tool!r} in the tools list", "bad_operation"
            )
    declared = mapping_parts(mapping, names) if mapping is not None else {}
    if openapi is None:
        targets = [_own(name, tools[name], declared.get(name, {})) for name in names]
    else:
        known = operation_ids(openapi)
        targets = [
            _with_operation(
                name, tools[name], openapi, known, operations or {}, declared.get(name, {})
            )
            for name in names
        ]
    located = arguments_pointers(tools_document)
    for target in targets:
        target.schema_at = located.get(target.tool)
        if target.unlinted and target.tool in only:
            target.error, target.unlinted = f"{target.tool}: {target.unlinted}", None
    return targets


def mapping_parts(document, names: list[str]) -> dict[str, dict]:
    """Return {tool: {"mapping", "consumed"}} from a contracts document.

    A bare one is the only tool's."""
    if is_bare_contract(document):
        if len(names) != 1:
            raise ContractError(
                "a mapping without a tool name applies to one tool only: choose it with --tool"
            )
        found = {names[0]: document}
    else:
        found = contracts_from_document(document)
    out = {}
    for tool, parts in found.items():
        kept = {key: parts[key] for key in MAPPING_PARTS if parts.get(key) is not None}
        out[tool] = validated_contract(tool, kept)
    return out


def _own(name: str, parts: dict, declared: dict) -> Target:
    contract = {**parts, **declared}
    if not any(contract.get(key) for key in REQUEST_PARTS):
        return Target(
            name, unlinted="no request schema or http to lint against (give the OpenAPI document)"
        )
    return Target(name, contract)


def _with_operation(name, parts, openapi, known, operations, declared) -> Target:
    operation = operations.get(name) or operation_for(name, known)
    if operation is None:
        return Target(
            name,
            unlinted="no operation of the OpenAPI document is named so; map it with --operation "
            f"{name}=OPERATION_ID",
        )
    try:
        # one operation: each inlined alone
        request = tools_from_openapi(openapi, {name: operation})[name]
    except ContractError as error:
        return Target(name, operation=operation, error=f"{name} ({operation}): {error}")
    # its error answers too: lint advises the envelope where they declare none (lint/envelope.py)
    taken = (*REQUEST_PARTS, "error_schema")
    contract = {key: request[key] for key in taken if request.get(key) is not None}
    if (
        request.get("request_schema") is None
        and (request.get("http") or {}).get("content_type") == FORM
    ):
        try:
            # the fields of a form body: `form:/amount`
            contract["form_schema"] = form_schema(openapi, operation)
        except ContractError as error:
            return Target(name, operation=operation, error=f"{name} ({operation}): {error}")
    contract.update(
        {key: value for key, value in parts.items() if key not in REQUEST_PARTS}, **declared
    )
    return Target(name, contract, operation)


def operation_for(tool: str, known: list[str]) -> str | None:
    """Return the operation a tool is named after.

    The same operationId, else the one in another case style."""
    if tool in known:
        return tool
    alike = [op for op in known if norm_key(op) == norm_key(tool)]
    return alike[0] if len(alike) == 1 else None
