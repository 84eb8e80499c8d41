"""analyze_call: validate one tool call's snapshots and name its mapping bugs.

Every mapping bug, both ways."""

from dataclasses import dataclass

from ..common.jsontext import paused_collector
from ..common.pointers import MISSING, is_pointer
from ..common.stages import CORE
from .alignment.builder import Aligner
from .alignment.result_column import returned_pairs
from .alignment.rows import expand
from .budget import OutOfTime, limited
from .findings.fold import fold
from .findings.kinds import end, finding, sort_findings, worst
from .pairing.walk import Pairing
from .rules.kept import kept_arguments
from .rules.mapping import mapping_findings, pair_arguments
from .rules.response_checks import Echo, echo_pairs, error_body, error_schema_for, status_findings
from .rules.result_checks import result_findings
from .schemas.validation import validate
from .snapshots.documents import json_error, status_code
from .snapshots.result_forms import Reading, read_result
from .values.transforms import transform_of
from .wire.located import located_result
from .wire.locations import Request, body_part, quiet_roots, read_request
from .wire.parameters import template_of
from .wire.request import segments, url_path

# validated by their own schema and aligned; the result has rules of its own
STAGES = CORE
MAX_FINDINGS = 1000


@dataclass
class Comparison:
    """What comparing a call's documents leaves for its alignment.

    The pairs, the echo, the status."""

    pairing: Pairing
    echo: Echo | None = None
    # the contract declares request -> response echoes
    declared: bool = False
    status: int | None = None
    # the response paired with the structured result (the way back)
    returned: Pairing | None = None


def analyze_call(
    snapshots: dict, contract: dict | None, sparse: bool = True, budget: float | None = None
) -> dict:
    """Validate a call's snapshots and report its findings and alignment.

    The snapshots are validated against the call's contract.

    The alignment holds only the rows `full_alignment` cannot rebuild from the payloads, unless
    `sparse` is False: then it holds every row (what the trace page shows). Past `budget` seconds
    of CPU the analysis stops and returns what its finished stages found, marked `incomplete`."""
    # It builds and drops a few dicts per node, none in a cycle: the cyclic collector's passes
    # over a big call's payloads were 12-35% of its analysis (issue 36 item 5)
    with limited(budget), paused_collector():
        docs, findings, parse_errors = {}, [], {}
        for stage in STAGES:
            snap = snapshots.get(stage)
            payload = snap.get("payload") if snap else None
            error = json_error(payload)
            if error:
                parse_errors[stage] = error
                findings.append(_invalid_json(stage, payload, error))
                payload = None
            docs[stage] = payload
        status = status_code(snapshots.get("response"))
        wire = read_request(
            snapshots.get("request"), docs["request"], docs["arguments"], template_of(contract)
        )
        # a GET's empty body, a form body: no JSON body to validate
        docs["request"] = wire.body
        # filled in stage by stage: the budget may stop it half way
        validation = {}
        try:
            for stage in STAGES:
                snap, error = snapshots.get(stage), parse_errors.get(stage)
                validation[stage] = _validation(stage, docs[stage], snap, contract, status, error)
            docs["request"] = wire.document
            reading = read_result(snapshots.get("result"))
            name, schema = _result_schema(contract, reading, snapshots.get("response") is not None)
            if name is not None:
                validation["result"] = _result_validation(reading, name, schema)
            comparison = _comparisons(docs, contract, status, validation, findings, wire, reading)
            comparison.returned = _way_back(docs, status, reading, contract, findings)
            result = _result(docs, comparison, validation, sort_findings(findings), sparse)
            return located_result(result, wire, comparison.pairing.back) if wire.located else result
        except RecursionError:
            # Ingest caps nesting; this guards callers that feed the engine directly.
            why, findings = (
                "nested too deeply to compare",
                [f for f in findings if f["kind"] == "invalid_json"],
            )
        except OutOfTime:
            why = (
                f"stopped after its time budget of {budget:g} s of CPU; `tracediff reanalyze "
                "--budget` retries"
            )
    return _incomplete(why, findings, validation, (contract, status), sparse)


def not_analysed(why: str) -> dict:
    """Return the result of a call whose analysis failed, marked `incomplete` with why."""
    return _incomplete(why, [], {}, (None, None), True)


def _incomplete(why: str, findings, validation, judged_by: tuple, sparse: bool) -> dict:
    """Return what an analysis found before it stopped, marked `incomplete`.

    `judged_by` is the (contract, status) naming each stage's schema."""
    empty = {stage: None for stage in STAGES}
    # a stage the analysis stopped before is not judged
    for stage in STAGES:
        name = _schema_for(stage, *judged_by)[0]
        validation.setdefault(stage, {"schema": name, "valid": None, "errors": []})
    result = _result(
        empty, Comparison(Pairing(None, None)), validation, sort_findings(findings), sparse
    )
    result["incomplete"] = why
    return result


def _comparisons(
    docs, contract, status, validation, out: list, wire: Request, reading: Reading | None
) -> Comparison:
    """Compare the documents, appending each finished stage's findings to `out`."""
    args, request, response = docs["arguments"], docs["request"], docs["response"]
    mapping = (contract or {}).get("mapping") or []
    if args is not None and request is not None:
        bad = {e["path"] for e in validation["request"]["errors"]}
        kept = frozenset(kept_arguments(args, request, response, reading))
        path = tuple(segments(url_path(wire.url))) if wire.located and wire.url else ()
        pairing = pair_arguments(
            args, request, mapping, contract, wire.located, wire.method, kept, path
        )
        pairing.quiet_roots = quiet_roots(wire)
        pairing.repeated = wire.repeated
        pairing.http_body = wire.body
        out += mapping_findings(pairing, contract, bad)
    else:
        pairing = Pairing(args, request)
    # the response echoes body fields
    request = body_part(request) if wire.located else request
    echo, declared = None, []
    if request is not None and response is not None and (status is None or status < 400):
        declared = [
            (m["request"], m["response"])
            for m in mapping
            if isinstance(m, dict)
            and is_pointer(m.get("request"))
            and is_pointer(m.get("response"))
        ]
        echo = echo_pairs(request, response, declared)
        for f in echo.findings:
            f["transform"] = transform_of(f)
            f["reason"] = (
                "declared" if (f["left"]["path"], f["right"]["path"]) in declared else "path"
            )
        out += echo.findings
    if response is not None:
        out += status_findings(response, status, contract)
    return Comparison(pairing, echo, bool(echo and declared), status)


def _way_back(docs, status, reading: Reading | None, contract, out: list) -> Pairing | None:
    """Check the result against the response, appending its findings to `out`.

    Return their pairing. The arguments tell a value the result echoes from them."""
    found, pairing = result_findings(docs["response"], status, reading, contract, docs["arguments"])
    out += found
    return pairing if reading is not None else None


def _result_schema(contract, reading: Reading | None, response_logged: bool) -> tuple:
    """Return (name, schema) the result is validated against, or (None, None).

    The tool's `result_schema` (an MCP outputSchema) when it declares one. Else, for a call that
    logged no response, a result that hands over a JSON body (the payload, or the JSON its text
    holds; not an MCP structuredContent, the tool's own shape) stands for the server's answer: the
    response schema (an OpenAPI operation's 2xx schema), or the error schema when the result says it
    failed. A logged response is validated itself, and the result checked against it on the way
    back."""
    declared = (contract or {}).get("result_schema")
    if reading is None or isinstance(declared, (dict, bool)):
        return (None, None) if reading is None else ("result_schema", declared)
    if response_logged or reading.structured is MISSING or reading.prefix not in ("", None):
        return None, None
    key = "error_schema" if reading.is_error else "response_schema"
    schema = (contract or {}).get(key)
    return (key, schema) if isinstance(schema, (dict, bool)) else (None, None)


def _result_validation(reading: Reading, name: str, schema) -> dict:
    """Validate a structured result against its schema (see `_result_schema`)."""
    if reading.structured is MISSING or (reading.is_error and name != "error_schema"):
        return {"schema": name, "valid": None, "errors": []}
    errors = validate(reading.structured, schema)
    for error in errors:
        error["path"] = (reading.prefix or "") + error["path"]
    return {"schema": name, "valid": not errors, "errors": errors}


def _result(docs, comparison: Comparison, validation, findings, want_sparse=True) -> dict:
    dropped = {f["left"]["path"] for f in findings if f["kind"] == "dropped"}
    added = {f["right"]["path"] for f in findings if f["kind"] == "added"}
    alignment, sparse, truncated = _alignment(
        docs, comparison, dropped, added, findings, want_sparse
    )
    folded, places = fold(findings)
    summary = {"error": 0, "warning": 0, "info": 0}
    for f in folded:
        summary[f["severity"]] += 1
    invalid = sum(len(v["errors"]) for v in validation.values())
    summary["validation_errors"] = invalid
    result = {
        "validation": validation,
        "findings": folded[:MAX_FINDINGS],
        "alignment": alignment,
        "alignment_sparse": sparse,
        "summary": summary,
        # A broken contract needs a look as much as a mapping bug does.
        "worst": worst([f["severity"] for f in findings] + (["error"] if invalid else [])),
    }
    # the way back's pairs, for the aligned view's result column
    if comparison.returned is not None:
        result["returned"] = returned_pairs(comparison.returned)
    if any(places[:MAX_FINDINGS]):
        # The full list of a folded finding's places, by its index; the API pages through it.
        result["places"] = {str(i): p for i, p in enumerate(places[:MAX_FINDINGS]) if p}
    if truncated:
        result["alignment_truncated"] = True
    if len(folded) > MAX_FINDINGS:
        result["findings_truncated"] = True
    return result


def _alignment(
    docs, comparison, dropped, added, findings, want_sparse
) -> tuple[list[dict], bool, bool]:
    """Return (rows, sparse, truncated).

    The sparse rows, or all rows when they cannot be rebuilt."""
    pairing, echo = comparison.pairing, comparison.echo
    if not want_sparse:
        full = Aligner(docs, pairing, echo, dropped, added, findings)
        return full.build(), False, full.truncated
    sparse = Aligner(docs, pairing, echo, dropped, added, findings, sparse=True)
    rows = sparse.build()
    if not comparison.declared:
        return rows, True, sparse.truncated
    # A declared echo can pair a response field that no row names, and then only the full
    # walk knows it: keep the sparse rows only when they rebuild the same alignment.
    full = Aligner(docs, pairing, echo, dropped, added, findings)
    full_rows = full.build()
    if expand(docs, rows, findings, comparison.status)[0] == full_rows:
        return rows, True, sparse.truncated
    return full_rows, False, full.truncated


def _invalid_json(stage, payload, error) -> dict:
    where = end(stage, "")
    left, right = (where, None) if stage == "arguments" else (None, where)
    item = finding(
        "invalid_json",
        "error",
        left,
        right,
        payload if stage == "arguments" else None,
        None if stage == "arguments" else payload,
        f"{stage} is not valid JSON: {error['message']}",
    )
    item["line"], item["column"] = error["line"], error["column"]
    return item


def _validation(stage, payload, snap, contract, status, parse_error) -> dict:
    name, schema = _schema_for(stage, contract, status)
    if (
        snap is None
        or name is None
        or (stage == "request" and payload is None and _sent_no_body(snap))
    ):
        return {"schema": name, "valid": None, "errors": []}
    if parse_error:
        errors = [
            {
                "path": "",
                "keyword": "invalid_json",
                "message": parse_error["message"],
                "schema_path": "",
            }
        ]
        return {"schema": name, "valid": False, "errors": errors}
    prefix = ""
    if stage == "response" and status is not None and status >= 400:
        prefix, payload = error_body(payload, name)
    errors = validate(payload, schema)
    for error in errors:
        error["path"] = prefix + error["path"]
    return {"schema": name, "valid": not errors, "errors": errors}


def _sent_no_body(snap: dict) -> bool:
    """Tell whether a request without a JSON body was given by its URL.

    A GET, a form."""
    return bool(((snap or {}).get("http") or {}).get("url")) or isinstance(snap.get("payload"), str)


def _schema_for(stage, contract, status):
    if stage == "response" and status is not None and status >= 400:
        return error_schema_for(contract)
    key = f"{stage}_schema"
    # `false` and `{}` are schemas too
    if contract and contract.get(key) is not None:
        return key, contract[key]
    return None, None
