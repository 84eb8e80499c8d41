"""How every operation of the document is built: its parameters, the responses all may give, its tokens."""

from .schemas import STRING, ref

JSON = "application/json"


def json_body(schema: dict, description: str) -> dict:
    """Return a response or body whose JSON follows schema."""
    return {"description": description, "content": {JSON: {"schema": schema}}}


def error(description: str, headers: dict | None = None) -> dict:
    """Return a response in the one error shape."""
    response = json_body(ref("Error"), description)
    if headers:
        response["headers"] = headers
    return response


RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "string"}}}
COMMON = {
    "401": {"$ref": "#/components/responses/Unauthorized"},
    "503": {"$ref": "#/components/responses/Unavailable"},
}
# every path but health and readiness (probes reach them by any name)
HOST_NOT_ALLOWED = (
    "A Host header that names no address or allowed name of this server (`host_not_allowed`, "
    "DNS rebinding; TRACEDIFF_ALLOWED_HOSTS)."
)
BAD_HOST = {"400": {"$ref": "#/components/responses/HostNotAllowed"}}
TOO_LARGE = error("The body is larger than TRACEDIFF_MAX_BODY_BYTES (`too_large`).")


CROSS_SITE = {
    "403": error(
        "Refused: a state-changing request sent by a browser from another site "
        "(`cross_site_request`), or a read or ingest token used to change contracts (`read_only_token`, "
        "`ingest_only_token`)."
    )
}


SECURITY = {  # each scope's own token first; an admin token opens them all; {} while none is set
    "admin": [{"adminToken": []}, {"ingestToken": []}, {}],  # ingest tokens until admin tokens are set
    "ingest": [{"ingestToken": []}, {"adminToken": []}, {}],
    "read": [{"readToken": []}, {"adminToken": []}, {}],
}


def operation(summary: str, responses: dict, *, tag: str, params=(), body=None, write=False, admin=False) -> dict:
    """Build one operation with the responses every endpoint may give."""
    cross_site = CROSS_SITE if body is not None or summary.startswith("Delete") else {}
    sized = {"413": TOO_LARGE} if body and body.get("content") else {}  # only a body that is read
    op = {
        "summary": summary,
        "tags": [tag],
        "responses": {**BAD_HOST, **sized, **with_bad_host(responses), **cross_site, **COMMON},
        "security": SECURITY["admin" if admin else "ingest" if write else "read"],
    }
    if params:
        op["parameters"] = list(params)
    if body:
        op["requestBody"] = body
    return op


def with_bad_host(responses: dict) -> dict:
    """Add host_not_allowed to an operation's own 400, which every operation may answer."""
    if "400" not in responses:
        return responses
    own = responses["400"]
    return {**responses, "400": {**own, "description": f"{own['description']} Or: {HOST_NOT_ALLOWED}"}}


def param(name: str, where: str, schema: dict, description: str, required=False) -> dict:
    """Return one parameter; a path parameter is always required."""
    return {
        "name": name,
        "in": where,
        "required": required or where == "path",
        "schema": schema,
        "description": description,
    }


def responses() -> dict:
    """Return the shared responses that COMMON and BAD_HOST point at."""
    return {
        "Unauthorized": {
            **error("A token is required (TRACEDIFF_ADMIN_TOKENS, TRACEDIFF_INGEST_TOKENS or TRACEDIFF_READ_TOKENS)."),
            "headers": {"WWW-Authenticate": {"schema": STRING}},
        },
        "Unavailable": error(
            "The database cannot take writes now (busy, read-only, or the disk below "
            "TRACEDIFF_MIN_FREE_MB): retry after Retry-After seconds.",
            RETRY_AFTER,
        ),
        "HostNotAllowed": error(HOST_NOT_ALLOWED),
    }


SECURITY_SCHEMES = {
    "adminToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_ADMIN_TOKENS"},
    "ingestToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_INGEST_TOKENS"},
    "readToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_READ_TOKENS"},
}
