"""Where a request field travels.

The body, or a location outside it named `LOCATION:/pointer`.

A finding names a body field by its JSON Pointer as always (`/paid_at`); a field outside the body
by its location and a pointer inside it: `path:/invoiceId` (a URL template's variable, or the
segment's index without one: `path:/2`), `query:/page_size`, `header:/idempotency-key` and
`form:/metadata/order_id` (a form-encoded body). Inside the analysis the request is one document,
the body's object with one reserved key per location (`"query:"`), so the pairing walks it as any
other; `external` and `internal` turn its pointers into the names above and back."""

from ...common.pointers import MISSING, child, is_pointer, last, resolve
from ...redaction.redactor import secret_name
from ..values.json_values import REDACTED, is_redacted
from .request import (
    SECRET_HEADER,
    content_type,
    is_form,
    match_template,
    read_headers,
    read_params,
    read_query,
    segments,
    url_path,
    variable_segments,
)

# Where a request field travels besides the body: `query:/page_size` names one.
LOCATIONS = ("path", "query", "header", "form")


def is_request_path(text) -> bool:
    """Tell whether text names a request field.

    A JSON Pointer, or `LOCATION:` and a pointer."""
    if not isinstance(text, str):
        return False
    location, colon, rest = text.partition(":")
    if colon and location in LOCATIONS:
        return is_pointer(rest)
    return is_pointer(text)


_KEYS = {f"{name}:": name for name in LOCATIONS}
# every value under them is text on the wire
TEXT_ROOTS = tuple(f"/{name}:" for name in LOCATIONS)
# a header no argument explains is the HTTP client's, not an added field
QUIET_ROOTS = ("/header:",)


class Request:
    """A request as the analysis reads it.

    Its document (body plus locations) and what it knows of them."""

    def __init__(
        self,
        document,
        body,
        located: bool = False,
        template: str | None = None,
        untemplated: bool = False,
        url: str | None = None,
        method: str | None = None,
    ):
        self.document, self.body, self.located, self.template = document, body, located, template
        # the HTTP method, when logged
        self.method = method
        # path segments named by index: those no argument explains are quiet
        self.untemplated = untemplated
        self.url = url
        # internal pointers of the query keys and form fields sent more than once
        self.repeated: set[str] = set()

    def url_template(self, back: dict) -> str | None:
        """Return the URL template this call shows.

        The contract's, else its path with each segment an argument explains written `{argument}`
        (`back`: the pairing's request path -> argument path), else None."""
        if self.template or not self.url:
            return self.template
        parts = segments(url_path(self.url))
        named = [
            f"{{{last(back[f'/path:/{i}'])}}}" if f"/path:/{i}" in back else part
            for i, part in enumerate(parts)
        ]
        return "/" + "/".join(named) if named != parts else None


def external(path: str) -> str:
    """Name an internal request pointer as findings do.

    `/query:/page_size` -> `query:/page_size`."""
    if path.startswith(TEXT_ROOTS):
        head = path.find(":")
        return path[1 : head + 1] + path[head + 1 :]
    return path


def internal(path: str) -> str:
    """Undo `external`: `query:/page_size` -> `/query:/page_size`.

    Body pointers stay as they are."""
    location, _, rest = path.partition(":")
    if location in LOCATIONS and (rest == "" or rest.startswith("/")):
        return f"/{location}:{rest}"
    return path


def is_located_path(path) -> bool:
    """Tell whether an external request path names a field outside the body."""
    return isinstance(path, str) and split_request_path(path)[0] != "body"


def split_request_path(path: str) -> tuple[str, str]:
    """Return (location, pointer) of an external request path.

    A body path's location is `body`."""
    location, colon, rest = path.partition(":")
    if colon and location in LOCATIONS and is_pointer(rest):
        return location, rest
    return "body", path


def secret_place(path: str, value) -> bool:
    """Tell whether an internal request pointer holds a secret (redacted, or named so).

    The layer's own credentials (`query:/key`, `header:/authorization`): no model's argument went
    there."""
    return is_redacted(value) or secret_name(last(path) or "", path.startswith("/query:"))


def in_text(path: str) -> bool:
    """Tell whether an internal request pointer lies in a location of text values.

    Not the body."""
    return path.startswith(TEXT_ROOTS)


def read_request(
    snapshot: dict | None, body, arguments=None, template: str | None = None
) -> Request:
    """Read a request snapshot's URL, headers and body into one document.

    The body alone when nothing else."""
    http = (snapshot or {}).get("http") or {}
    url = http.get("url") if isinstance(http.get("url"), str) and http.get("url") else None
    headers = http.get("headers") if isinstance(http.get("headers"), dict) else {}
    form = is_form(body, content_type(headers))
    method = http.get("method") if isinstance(http.get("method"), str) else None
    if url is None and not form:
        return Request(body, body, method=method)
    # the pointers of keys sent more than once, per location
    repeats = {"form": [], "query": []}
    parts = {"form": read_params(body, repeats["form"]) if form else {}}
    untemplated = False
    if body == "" or form:
        # a GET logged with an empty body sent none; a form body is read as fields
        body = None
    if url:
        path = url_path(url)
        found = match_template(template, path) if template else None
        if found is None:
            found, untemplated = variable_segments(path, _texts(arguments)), True
        parts["path"], parts["query"] = found, read_query(url, repeats["query"])
    parts["header"] = {k: v for k, v in read_headers(headers).items() if k != "content-type"}
    parts = {name: value for name, value in parts.items() if value or (name == "form" and form)}
    if not (body is None or isinstance(body, dict)) or (
        isinstance(body, dict) and _KEYS.keys() & body
    ):
        # a body that is no object keeps today's reading
        return Request(body, body, method=method)
    if not parts:
        # Nothing outside the body: the body alone, or an empty object for a request that sent none
        # (so the arguments it should have carried are dropped).
        return Request({} if body is None else body, body, method=method)
    document = dict(body or {})
    for name, value in parts.items():
        document[f"{name}:"] = value
    request = Request(
        document,
        body,
        True,
        None if untemplated else template,
        untemplated and "path" in parts,
        url,
        method,
    )
    request.repeated = {f"/{name}:{path}" for name, found in repeats.items() for path in found}
    return request


def body_part(document):
    """Return the body's own part of a located request document.

    Its keys without the locations'."""
    if isinstance(document, dict) and _KEYS.keys() & document.keys():
        return {k: v for k, v in document.items() if k not in _KEYS}
    return document


def quiet_roots(request: Request) -> tuple:
    """Return the internal roots under which an unexplained field is the client's.

    A field no argument explains under them is the client's, not added."""
    return QUIET_ROOTS + (("/path:",) if request.untemplated else ())


def unread_parts(snapshot: dict | None, document) -> dict:
    """Return what a request's reading leaves out, named as findings name fields.

    The URL path's word segments by index (`path:/3`: `Messages.json`), where the path is read by
    index, and each secret header's presence (`header:/authorization`, its value the redaction
    marker). No argument travels there, so the pairing never reads them; a tool's history compares
    them (a segment every earlier call sent alike now another, a secret header every earlier call
    sent now gone)."""
    http = (snapshot or {}).get("http") or {}
    url = http.get("url") if isinstance(http.get("url"), str) else None
    read = document.get("path:") if isinstance(document, dict) else None
    out = {}
    if url and all(key.isdigit() for key in read or ()):
        for index, segment in enumerate(segments(url_path(url))):
            if str(index) not in (read or ()):
                out[external(child("/path:", str(index)))] = segment
    headers = http.get("headers") if isinstance(http.get("headers"), dict) else {}
    for name in headers:
        if isinstance(name, str) and SECRET_HEADER.search(name):
            out[external(child("/header:", name.lower()))] = REDACTED
    return out


def _texts(arguments) -> set[str]:
    """Return the text of every scalar in the arguments (what a URL segment may carry)."""
    out, stack = set(), [arguments]
    while stack and len(out) < 500:
        node = stack.pop()
        if isinstance(node, dict):
            stack += node.values()
        elif isinstance(node, list):
            stack += node
        elif isinstance(node, bool):
            out.add("true" if node else "false")
        elif node is not None:
            out.add(str(node))
    return out


def request_document(snapshots: dict, template: str | None = None):
    """Return the request as the analysis read it from a call's snapshots.

    Body plus locations, or None."""
    request, arguments = snapshots.get("request"), snapshots.get("arguments")
    if not request:
        return None
    return read_request(
        request, request.get("payload"), (arguments or {}).get("payload"), template
    ).document


def resolve_request(document, path: str, default=MISSING):
    """Return the value at a request path of a request document.

    A path such as `/paid_at`, `query:/page_size`."""
    return resolve(document, internal(path), default)
