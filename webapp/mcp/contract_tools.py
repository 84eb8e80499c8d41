"""get_tool, check_call and lint_tools.

A tool's contract, mappings and observed schemas; one call checked under its stored contract (POST
/api/v1/check); tool definitions linted against an OpenAPI document (`tracediff lint`'s engine, run
where the MCP server runs: the documents are the agent's)."""

from urllib.parse import quote

from ..common.stages import NAMES
from ..contracts import ContractError, load_document, parse_operations
from ..contracts.lint import lint_contract, lint_targets
from .bounds import ERRORS, FINDINGS, cut_together, first, fit, short, with_cuts
from .source import Source, SourceError, link
from .trace_tools import finding, validation

SCHEMAS = ("arguments_schema", "request_schema", "response_schema", "error_schema", "result_schema")
# every schema of the answer together, shared fairly: contract and observed drafts
SCHEMAS_BYTES = 65_536
PAIRS, CHANGES, CALLS = 50, 10, 10
# what check_call passes on to POST /api/v1/check: a payload per stage, and the HTTP facts
CHECKED = (*NAMES, "method", "url", "headers", "status", "result_is_error")
FAILING = ("error", "warning")


def get_tool(source: Source, args: dict) -> dict:
    """Return a tool's contract, request template, mappings and observed schemas.

    Mappings with their evidence, observed schemas and drift."""
    name = args["name"]
    try:
        data = source.get(f"/tools/{quote(name, safe='')}.json")
    except SourceError as error:
        if error.status == 404:
            raise SourceError(
                "tool_not_found", f"no tool {name[:80]!r}: no contract and no calls"
            ) from None
        raise
    cuts: list[dict] = []
    contract, observed = _schemas(
        dict(data.get("contract") or {}), data.get("observed") or {}, cuts
    )
    if contract and "description" in contract:
        contract["description"] = short(contract["description"])
    if contract and contract.get("mapping"):
        # `mappings.declared` counts them all
        contract["mapping"] = contract["mapping"][:PAIRS]
    answer = {
        "name": data["name"],
        "permalink": link(source, "tools", data["name"]),
        "contract": contract or None,
        "request_line": data.get("request_line"),
        "mappings": _mappings(data.get("mappings") or {}),
        "observed": observed,
        "way_back": data.get("way_back"),
        "recent_calls": [_recent(source, call) for call in (data.get("calls") or [])[:CALLS]],
    }
    return with_cuts(answer, cuts)


def _schemas(contract: dict, observed: dict, cuts: list[dict]) -> tuple[dict, dict]:
    """Cut the contract's schemas and observed drafts together, fairly.

    To SCHEMAS_BYTES, fairly shared."""
    observed = {stage: dict(draft or {}) for stage, draft in observed.items()}
    places = {("contract", key): contract[key] for key in SCHEMAS if contract.get(key) is not None}
    places |= {
        ("observed", stage): draft["schema"]
        for stage, draft in observed.items()
        if draft.get("schema")
    }
    kept, cut_in = cut_together(places, SCHEMAS_BYTES)
    for (part, key), value in kept.items():
        at = f"/contract/{key}" if part == "contract" else f"/observed/{key}/schema"
        cuts += [{**place, "at": at + place.pop("marker")} for place in cut_in[(part, key)]]
        if part == "contract":
            contract[key] = value
        else:
            observed[key]["schema"] = value
    for draft in observed.values():
        draft["disagreements"] = (draft.get("disagreements") or [])[:ERRORS]
        draft["open_drift"] = (draft.get("open_drift") or [])[:ERRORS]
    return contract, observed


def _mappings(rows: dict) -> dict:
    out = {
        name: (rows.get(name) or [])[:PAIRS]
        for name in ("declared", "inferred", "candidates", "rejected")
    }
    out["changes"] = (rows.get("changes") or [])[:CHANGES]
    return out


def _recent(source: Source, call: dict) -> dict:
    permalink = (
        link(source, "traces", call["trace_id"]) + "?call=" + quote(call["call_id"], safe="")
    )
    return {**call, "permalink": permalink}


def check_call(source: Source, args: dict) -> dict:
    """Return one call's analysis under its stored contract, and if it passes.

    Under its tool's stored contract, stored nowhere."""
    body = {"tool": args["tool"], **{name: args[name] for name in CHECKED if name in args}}
    checked = source.post("/api/v1/check", body)
    cuts: list[dict] = []
    findings, total = first(checked.get("findings") or [], FINDINGS)
    answer = {
        "tool": checked["tool"],
        "outcome": checked["outcome"],
        "passed": checked["outcome"] == "passed",
        "contract_digest": checked.get("contract_digest"),
        "worst": checked.get("worst"),
        "summary": checked.get("summary") or {},
        "validation": validation(checked.get("validation") or {}),
        "findings": [finding(f, f"/findings/{n}", cuts) for n, f in enumerate(findings)],
        "findings_total": total,
    }
    return with_cuts(answer, cuts)


def lint_tools(source: Source, args: dict) -> dict:
    """Return `tracediff lint`'s verdict per tool.

    Its operation, outcome and mismatches with both JSON Pointers."""
    try:
        targets = lint_targets(
            _document(args["tools"], "tools"),
            _document(args["openapi"], "openapi") if args.get("openapi") is not None else None,
            _operations(args.get("operations")),
        )
    except ContractError as error:
        raise SourceError(error.code, short(str(error), 1000)) from None
    rows = [_linted(target) for target in targets]
    outcomes = [row["outcome"] for row in rows]
    summary = {name: outcomes.count(name) for name in ("passed", "failed", "not_linted", "broken")}
    return fit({"tools": rows, "summary": {"tools": len(rows), **summary}}, "tools")


def _document(value, name: str):
    """Return a document given as a JSON value, or as the text of a JSON or YAML file."""
    if isinstance(value, str):
        return load_document(value.encode(), name)
    return value


def _operations(value) -> dict | None:
    if value is None:
        return None
    if isinstance(value, dict):
        if not all(isinstance(op, str) and op for op in value.values()):
            raise SourceError(
                "bad_operation", 'operations: {"tool": "operationId or METHOD /path"}'
            )
        return value or None
    if not all(isinstance(item, str) for item in value):
        raise SourceError("bad_operation", 'operations: ["tool=operationId", ...]')
    return parse_operations(value)


def _linted(target) -> dict:
    """Return one tool's verdict.

    Not linted (it maps to no operation), broken, or its mismatches."""
    row = {
        "tool": target.tool,
        "operation": target.operation,
        "error": None,
        "mismatches": [],
        "mismatches_total": 0,
    }
    if target.unlinted is not None:
        return {**row, "outcome": "not_linted", "error": short(target.unlinted, 1000)}
    if target.error is not None:
        return {**row, "outcome": "broken", "error": short(target.error, 1000)}
    found = lint_contract(target.contract)
    failed = any(mismatch["severity"] in FAILING for mismatch in found)
    mismatches, total = first(found, FINDINGS)
    mismatches = [
        {**mismatch, "message": short(mismatch.get("message"), 1000)} for mismatch in mismatches
    ]
    return {
        **row,
        "outcome": "failed" if failed else "passed",
        "mismatches": mismatches,
        "mismatches_total": total,
    }
