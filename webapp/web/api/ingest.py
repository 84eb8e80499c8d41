"""The ingest endpoints.

Snapshot events at /api/v1/ingest, OTLP/HTTP exports at /v1/traces and /v1/logs."""

from flask import Blueprint, current_app, jsonify, request

from ... import pipeline
from ...ingest import (
    IngestError,
    otlp_logs_response,
    otlp_response,
    parse_body,
    parse_otlp,
    parse_otlp_logs,
)
from ...store import IngestResult
from ..admission import budgeted
from ..bodies import whole_body
from ..db import get_store
from ..metrics import record_ingest

bp = Blueprint("ingest", __name__)


def limits():
    """The ingest limits the app factory built from the settings."""
    return current_app.extensions["tracediff.limits"]


def redactor():
    """The redactor the app factory built from the settings (None: redaction is off)."""
    return current_app.extensions["tracediff.redactor"]


def sender() -> str:
    """Name who sent a request, for its quarantined records.

    The shipper's User-Agent, else its address."""
    return request.headers.get("User-Agent") or request.remote_addr or ""


def parsed(parse, raw: bytes, endpoint: str, **options):
    """Parse a body; quarantine and count one refused whole.

    Before the refusal goes to the client."""
    try:
        return parse(raw, **options)
    except IngestError as error:
        rejection = pipeline.refuse_body(
            get_store(), raw, error.code, error.message, redactor(), sender()
        )
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
            {"index": r.index, "code": r.code, "message": r.message, "retryable": r.retryable}
            for r in batch.rejected
        ],
    )


@bp.post("/v1/traces")
@budgeted
def otlp_traces():
    """Accept OTLP/HTTP trace exports and answer with partial success.

    Protobuf or JSON."""
    return otlp_export(parse_otlp, otlp_response, "otlp")


@bp.post("/v1/logs")
@budgeted
def otlp_logs():
    """Accept OTLP/HTTP log exports (protobuf or JSON).

    The GenAI event records; answer with partial success."""
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
    record_ingest(
        pipeline.store_batch(get_store(), batch, redactor(), source=sender()),
        batch.rejected,
        endpoint,
    )
    message = "; ".join(r.message for r in batch.rejected[:5])
    body, mimetype = answer(len(batch.rejected), message, content_type)
    return current_app.response_class(body, status=200, mimetype=mimetype)
