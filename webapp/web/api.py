"""The JSON API under /api/v1 and the OTLP endpoint: thin adapters over the pipeline."""

import re

from flask import Blueprint, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from .. import pipeline
from ..analysis import FINDING_KINDS, occurrences
from ..common import jsontext
from ..common.digits import is_digits
from ..contracts import (
    YAML_MEDIA_TYPES,
    ContractError,
    load_document,
    parse_operations,
    read_contracts,
    validated_contract,
)
from ..ingest import IngestError, otlp_logs_response, otlp_response, parse_body, parse_otlp, parse_otlp_logs
from ..ingest.envelope import canonical_trace_id
from ..ingest.model import too_large
from ..pipeline.contracts import save_contracts
from ..problems.grouping import link_problems
from ..store import IngestResult, StoreUnavailable
from .admission import budgeted, hold_read
from .bodies import body_deadline, cut_short
from .db import get_store
from .errors import ApiError, error_response, http_error_code
from .filters import ListQuery, bad_trace_filter, decode_cursor, encode_cursor, trace_query
from .metrics import note_store_unavailable, record_ingest
from .security import admin_only

bp = Blueprint("api", __name__)


def limits():
    """The ingest limits the app factory built from the settings."""
    return current_app.extensions["tracediff.limits"]


def redactor():
    """The redactor the app factory built from the settings (None: redaction is off)."""
    return current_app.extensions["tracediff.redactor"]


def whole_body() -> bytes:
    """Return the request body, or raise 413 when it is over the size limit.

    Werkzeug refuses a Content-Length over MAX_CONTENT_LENGTH before reading, but reads a chunked
    body (no Content-Length) only up to the limit and says nothing of the rest: parsed as it is,
    its last records would be lost or reported as broken. One more byte tells.
    """
    with body_deadline(request.environ, current_app.config["BODY_TIMEOUT"]):
        raw = request.get_data(cache=False)
        limit = request.max_content_length
        if (
            limit is not None
            and request.content_length is None
            and len(raw) >= limit
            and request.environ["wsgi.input"].read(1)
        ):
            raise too_large(limit)
        cut_short(len(raw), request.content_length)
    hold_read(len(raw))
    return raw


def sender() -> str:
    """Name who sent a request, for its quarantined records: the shipper's User-Agent, else its address."""
    return request.headers.get("User-Agent") or request.remote_addr or ""


def parsed(parse, raw: bytes, endpoint: str, **options):
    """Parse a body; one refused whole is quarantined and counted before the refusal goes to the client."""
    try:
        return parse(raw, **options)
    except IngestError as error:
        rejection = pipeline.refuse_body(get_store(), raw, error.code, error.message, redactor(), sender())
        record_ingest(IngestResult(), [rejection] if rejection else [], endpoint)
        raise


@bp.post("/api/v1/ingest")
@budgeted
def ingest():
    """Accept events in any framing; 200 with per-event rejections."""
    batch = parsed(
        parse_body,
        whole_body(),
        "ingest",
        content_encoding=request.headers.get("Content-Encoding"),
        headers=request.headers,
        query=request.args,
        limits=limits(),
        prepare=pipeline.preparer(redactor()),
    )
    result = pipeline.store_batch(get_store(), batch, redactor(), source=sender(), prepared=True)
    record_ingest(result, batch.rejected, "ingest")
    return jsonify(
        accepted=result.accepted,
        duplicates=result.duplicates,
        rejected=[
            {"index": r.index, "code": r.code, "message": r.message, "retryable": r.retryable} for r in batch.rejected
        ],
    )


@bp.post("/v1/traces")
@budgeted
def otlp_traces():
    """Accept OTLP/HTTP trace exports (protobuf or JSON) and answer with partial success."""
    return otlp_export(parse_otlp, otlp_response, "otlp")


@bp.post("/v1/logs")
@budgeted
def otlp_logs():
    """Accept OTLP/HTTP log exports (protobuf or JSON): the GenAI event records; answer with partial success."""
    return otlp_export(parse_otlp_logs, otlp_logs_response, "otlp_logs")


def otlp_export(parse, answer, endpoint: str):
    """Parse, store and answer one OTLP/HTTP export the way its request was encoded."""
    content_type = request.headers.get("Content-Type")
    batch = parsed(
        parse,
        whole_body(),
        endpoint,
        content_type=content_type,
        content_encoding=request.headers.get("Content-Encoding"),
        limits=limits(),
    )
    record_ingest(pipeline.store_batch(get_store(), batch, redactor(), source=sender()), batch.rejected, endpoint)
    message = "; ".join(r.message for r in batch.rejected[:5])
    body, mimetype = answer(len(batch.rejected), message, content_type)
    return current_app.response_class(body, status=200, mimetype=mimetype)


@bp.get("/api/v1/traces")
def list_traces():
    """List traces newest first, filtered, with a keyset cursor."""
    query, cursor = strict_query(request.args)
    traces, next_cursor = get_store().find_traces(query.filters(), cursor)
    return jsonify(traces=traces, next_cursor=encode_cursor(next_cursor))


def strict_query(args) -> tuple[ListQuery, tuple | None]:
    """Return the list query and cursor of args; a value the list cannot use is a 400."""
    problem = bad_trace_filter(args, [kind for kind, _ in FINDING_KINDS])
    if problem:
        raise ApiError(400, "bad_parameter", problem)
    try:
        return trace_query(args), decode_cursor(args.get("cursor"))
    except ValueError as error:
        raise ApiError(400, "bad_cursor", str(error)) from error


@bp.get("/api/v1/traces/<path:trace_id>")
def get_trace(trace_id):
    """Return one trace with its snapshots, validation and findings."""
    trace = pipeline.fresh_trace(get_store(), trace_id, current_app.config.get("ANALYSIS_BUDGET"))
    if trace is None:
        raise ApiError(404, "trace_not_found", f"no trace with id {trace_id!r}")
    return jsonify(link_problems(trace, get_store().problem_ids))


@bp.get("/api/v1/traces/<path:trace_id>/findings")
def list_findings(trace_id):
    """Page through one call's findings, or with `finding=N` through every place of its N-th (folded) finding."""
    offset, limit = _page_parameter("offset", 0, 0, None), _page_parameter("limit", 100, 1, 1000)
    trace = pipeline.fresh_trace(get_store(), trace_id, current_app.config.get("ANALYSIS_BUDGET"))
    if trace is None:
        raise ApiError(404, "trace_not_found", f"no trace with id {trace_id!r}")
    call_id = request.args.get("call", trace["calls"][0]["call_id"])
    call = next((c for c in trace["calls"] if c["call_id"] == call_id), None)
    if call is None:
        raise ApiError(404, "call_not_found", f"no call {call_id!r} in trace {trace['trace_id']!r}")
    page = {
        "trace_id": trace["trace_id"],
        "call_id": call_id,
        "offset": offset,
        "limit": limit,
        "analyzed": call["analyzed"],
        "incomplete": call.get("incomplete"),
    }
    if request.args.get("finding") is None:
        items = call["findings"]
        page["findings"] = items[offset : offset + limit]
    else:
        number = _page_parameter("finding", 1, 1, None)
        if number > len(call["findings"]):
            raise ApiError(404, "finding_not_found", f"call {call_id!r} has no finding {number}")
        found = call["findings"][number - 1]
        items = ((get_store().call_analysis(trace["trace_id"], call_id) or {}).get("places") or {}).get(
            str(number - 1)
        ) or [None]
        docs = {name: (snap or {}).get("payload") for name, snap in call["snapshots"].items()}
        page["finding"] = found
        page["occurrences"] = occurrences(found, [] if items == [None] else items, docs, offset, limit)
    page["total"] = len(items)
    page["next_offset"] = offset + limit if offset + limit < len(items) else None
    return jsonify(page)


def _page_parameter(name: str, default: int, lowest: int, highest: int | None) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not is_digits(raw) or int(raw) < lowest or (highest is not None and int(raw) > highest):
        bounds = f"{lowest}-{highest}" if highest is not None else f"{lowest} or more"
        raise ApiError(400, "bad_parameter", f"{name} must be a whole number {bounds}, not {raw!r}")
    return int(raw)


@bp.get("/api/v1/traces/<path:trace_id>/calls/<call_id>/<snapshot>/versions")
def snapshot_versions(trace_id, call_id, snapshot):
    """Return every version of one snapshot, newest first."""
    versions = get_store().snapshot_versions(canonical_trace_id(trace_id), call_id, snapshot)
    if not versions:
        raise ApiError(404, "snapshot_not_found", f"no {snapshot!r} snapshot for call {call_id!r}")
    return jsonify(versions=versions)


@bp.get("/api/v1/tools")
def list_tools():
    return jsonify(tools=get_store().list_tools())


@bp.get("/api/v1/tools/<tool:name>")
def get_tool(name):
    tool = get_store().get_tool(name)
    if tool is None:
        raise ApiError(404, "tool_not_found", f"no contract for tool {name!r}")
    return jsonify(tool)


@bp.put("/api/v1/tools/<tool:name>")
@admin_only
def put_tool(name):
    """Create or replace a tool's contract; refuse a bad schema with what is wrong."""
    refuse_unroutable_names([name])
    contract = validated_contract(name, _json_body())
    get_store().put_tool(name, contract)
    return jsonify(get_store().get_tool(name))


@bp.delete("/api/v1/tools/<tool:name>")
@admin_only
def delete_tool(name):
    if not get_store().delete_tool(name):
        raise ApiError(404, "tool_not_found", f"no contract for tool {name!r}")
    return "", 204


@bp.post("/api/v1/tools/import")
@admin_only
def import_tools():
    """Import tool definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document (JSON or YAML)."""
    operations = parse_operations(request.args.getlist("operation"))
    document = load_document(whole_body(), "the body", as_yaml=request.mimetype in YAML_MEDIA_TYPES)
    imported = read_contracts(document, operations)
    refuse_unroutable_names(imported.contracts)
    names = save_contracts(get_store(), imported.contracts, imported.only_if_missing)
    skipped = {"skipped": imported.skipped} if imported.skipped else {}
    return jsonify(imported=names, **skipped)


@bp.get("/api/v1/finding-kinds")
def finding_kinds():
    return jsonify(kinds=[{"kind": kind, "description": text} for kind, text in FINDING_KINDS])


# what follows a tool's name in the routes of its own (webapp/web/mappings_api.py): /api/v1/tools/srv/observed is srv's
TOOL_SUB_ROUTE = re.compile(r"/(?:observed(?:/adopt)?|mappings(?:/[^/]*)?)\Z")


def refuse_unroutable_names(names) -> None:
    """Refuse a tool name that ends as one of a tool's own routes: its URL would reach another tool's."""
    for name in names:
        if TOOL_SUB_ROUTE.search(name):
            raise ApiError(
                400,
                "bad_name",
                f"tool name {name[:80]!r} ends as a tool's own route (/observed, /observed/adopt, /mappings...): "
                "its URLs would reach another tool's; name it otherwise",
            )


def _json_body():
    try:
        return jsontext.loads(whole_body())
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error


@bp.app_errorhandler(ApiError)
def api_error(error: ApiError):
    if request.method not in ("GET", "HEAD", "OPTIONS") and not wants_json():
        # a form posted from a page (a refused token, a cross-site post) answers a page a person can read
        return render_template("refused.html", error=error), error.status, error.headers
    return error_response(error.status, error.code, error.message, error.retryable, error.headers)


@bp.app_errorhandler(IngestError)
def ingest_error(error: IngestError):
    return error_response(error.status, error.code, error.message, error.retryable)


@bp.app_errorhandler(ContractError)
def contract_error(error: ContractError):
    return error_response(error.status, error.code, str(error))


@bp.app_errorhandler(StoreUnavailable)
def store_unavailable(error: StoreUnavailable):
    note_store_unavailable(error)
    seconds = current_app.config["RETRY_AFTER"]
    message = f"the database is busy or unavailable now ({error}); retry later"
    if not wants_json():  # a person at a page gets a page
        return render_template("unavailable.html", message=message, seconds=seconds), 503, {"Retry-After": str(seconds)}
    return error_response(503, "store_unavailable", message, retryable=True, headers={"Retry-After": str(seconds)})


def wants_json() -> bool:
    """Whether an error answers in the JSON shape: the API, every `.json` twin of a page, a raw value, or a
    client that asks for JSON."""
    return (
        request.path.startswith(("/api/", "/v1/"))
        or request.path.endswith((".json", "/value"))
        or request.accept_mimetypes.best == "application/json"
    )


@bp.app_errorhandler(HTTPException)
def http_error(error: HTTPException):
    """Answer every HTTP error of the API in the one JSON shape."""
    if not wants_json():
        return error
    retryable = error.code in (429, 503)
    message = error.description or error.name
    if error.code == 413:
        message = f"the request body is larger than {current_app.config['MAX_BODY_BYTES']} bytes"
    return error_response(error.code, http_error_code(error), message, retryable)


@bp.app_errorhandler(Exception)
def unexpected_error(error: Exception):
    """Log a bug and still answer in the error shape."""
    current_app.logger.exception("unhandled error")
    if not wants_json():
        return "Internal server error", 500
    return error_response(500, "internal_error", "tracediff hit an unexpected error; it has been logged")
