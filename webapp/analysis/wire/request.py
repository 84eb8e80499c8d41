"""Read an HTTP request as sent.

The URL's path segments and query, form bodies, GraphQL, chosen headers."""

import re
from functools import lru_cache
from urllib.parse import parse_qsl, unquote, urlsplit

import re2

from ...common import jsontext
from ...common.pointers import child

_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_FORM_TEXT = re.compile(r"^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$")
_VARIABLE = re.compile(r"\{([^{}/]+)\}")
_VERSION = re.compile(r"^v\d+(\.\d+)*$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# an address: `ana@acme.io`, a calendar's `en.german#holiday@group.v.calendar.google.com`
_ADDRESS = re.compile(r"^[\w.+#-]+@[\w-]+(?:\.[\w-]+)+$")
# the format suffixes a route may write after a path segment's value
_FORMATS = frozenset(("json", "xml", "csv", "txt", "yaml", "yml", "html", "atom", "rss"))
_LINEAR = re2.Options()
_LINEAR.log_errors = False
# query parameters or form fields read per request; the rest is not compared
MAX_PARAMS = 500
FORM = "application/x-www-form-urlencoded"
# Request headers a mapping layer fills from arguments; the rest (auth, user agent...) are the
# client's.
HEADERS = (
    "idempotency-key",
    "x-idempotency-key",
    "if-match",
    "if-none-match",
    "if-unmodified-since",
    "x-request-id",
    "request-id",
    "x-correlation-id",
    "content-type",
)
_HEADER_ID = re.compile(r"^x-[a-z0-9-]*-(id|key)$")
# the API version a layer pins (`Square-Version`, `Notion-Version`, `X-GitHub-Api-Version`): a
# constant its history can miss when a release drops it
_HEADER_VERSION = re.compile(r"^[a-z0-9-]*version$")
SECRET_HEADER = re.compile(r"(auth|token|secret|api-?key|cookie|signature|password)", re.IGNORECASE)


def read_params(text: str, repeats: list | None = None) -> dict:
    """Read a query string or form body into an object.

    Keys repeated with other values and `a[]=` give lists, `a[k]=` and `a[0][k]=` nest (Rack and
    Stripe style); values are text, percent-decoded. A key repeated with one and the same value is
    that value sent twice (a client appending the params the layer already wrote): read once, and
    its pointer added to `repeats`; repeated with other values, its pointer too."""
    out: dict = {}
    for key, value in parse_qsl(text, keep_blank_values=True, max_num_fields=None)[:MAX_PARAMS]:
        head, tokens = _split_key(key)
        _put(out, [head, *tokens], value)
    found = [] if repeats is None else repeats
    return {k: _lists(v, child("", k), found) for k, v in out.items()}


def _split_key(key: str) -> tuple[str, list[str]]:
    """Split `a[b][]` into ("a", ["b", ""]).

    A key without brackets has no tokens."""
    at = key.find("[")
    if at <= 0 or not key.endswith("]"):
        return key, []
    rest = key[at:]
    tokens = _BRACKETS.findall(rest)
    if "".join(f"[{t}]" for t in tokens) != rest:
        return key, []
    return key[:at], tokens


def _put(node: dict, tokens: list[str], value: str) -> None:
    """Store a value at a bracket path.

    "" appends, a repeated plain key becomes a list."""
    for i, token in enumerate(tokens):
        lastone = i == len(tokens) - 1
        # a[] = append to the list at this place
        if token == "":
            key = len(node)
            while key in node:
                key += 1
            token = key
        if lastone:
            if token in node and not isinstance(node[token], dict):
                old = node[token]
                node[token] = (old if isinstance(old, _Repeated) else _Repeated([old])) + [value]
            else:
                node[token] = value
            return
        below = node.get(token)
        if not isinstance(below, dict):
            below = node[token] = {}
        node = below


class _Repeated(list):
    """The values of a key sent more than once (`a=1&a=2`)."""

    def __add__(self, other):
        return _Repeated(list.__add__(self, other))


def _lists(node, path: str, repeats: list):
    """Turn nested holders into JSON.

    Dense 0..n-1 keys (or appended ones) into lists; a key sent again with the same value into
    that value, its pointer noted in `repeats` (as is one sent again with other values)."""
    if isinstance(node, _Repeated):
        repeats.append(path)
        return node[0] if all(value == node[0] for value in node) else list(node)
    if not isinstance(node, dict):
        return node
    keys = list(node)
    if keys and all(isinstance(k, int) or (isinstance(k, str) and k.isdigit()) for k in keys):
        indexes = sorted(int(k) for k in keys)
        if indexes == list(range(len(indexes))):
            by_index = {int(k): v for k, v in node.items()}
            return [_lists(by_index[i], child(path, i), repeats) for i in indexes]
    return {str(k): _lists(v, child(path, str(k)), repeats) for k, v in node.items()}


def _split(url: str):
    """Split a URL into its parts, or None when it cannot be read.

    One with a host such as `[REDACTED]` cannot."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


def read_query(url: str, repeats: list | None = None) -> dict:
    """Read the query parameters of a URL.

    A GraphQL `variables` parameter holding JSON is parsed; `repeats` as `read_params` fills it."""
    parts = _split(url)
    params = read_params(parts.query, repeats) if parts else {}
    variables = params.get("variables")
    if isinstance(variables, str) and variables.startswith("{"):
        try:
            params["variables"] = jsontext.loads(variables)
        except jsontext.JSONDecodeError:
            pass
    return params


def url_path(url: str) -> str:
    """Return the path of a URL (or of a bare path), as written.

    "/" for a URL that cannot be read."""
    parts = _split(url)
    return (parts.path if parts else "") or "/"


def segments(path: str) -> list[str]:
    """Return the path's segments, percent-decoded (empty ones left out)."""
    return [unquote(s) for s in path.split("/") if s]


def match_template(template: str, path: str) -> dict | None:
    """Return {variable: value} when the path fits a URL template, else None.

    A template such as `/v1/invoices/{invoiceId}/pay`."""
    program, names = _template_program(template)
    hit = program.fullmatch(path.rstrip("/") or "/") if program is not None else None
    if hit is None or not names:
        return None
    return {name: unquote(value) for name, value in zip(names, hit.groups())}


@lru_cache(maxsize=1024)
def _template_program(template: str) -> tuple:
    """Compile a URL template into (RE2 program, its variables).

    Neighbouring variables (`{a}{b}{c}`) would make a backtracking engine take polynomial time on a
    path that misses."""
    parts, names = [], []
    for piece in re.split(r"(\{[^{}/]+\})", template.rstrip("/") or "/"):
        found = _VARIABLE.fullmatch(piece)
        if found:
            names.append(found.group(1))
            parts.append("([^/]+)")
        else:
            parts.append(re2.escape(piece))
    try:
        return re2.compile("".join(parts), _LINEAR), tuple(names)
    # past RE2's memory bound (thousands of variables): no path fits it
    except re2.error:
        return None, ()


def template_variables(template: str) -> list[str]:
    """Return the variables of a URL template in order.

    `/v1/invoices/{invoiceId}/pay` -> ["invoiceId"]."""
    return _VARIABLE.findall(template)


def variable_segments(path: str, values: set[str]) -> dict:
    """Return {index: segment} of the segments that may come from arguments.

    Without a template: those equal to an argument's text, holding a digit (ids) or an address
    (`team@group.calendar.google.com`), never a version (`v1`)."""
    out = {}
    for index, segment in enumerate(segments(path)):
        if segment not in values:
            # `/tickets/35436.json`: a format suffix after the value, as Rails-style routes write
            stem, dot, suffix = segment.rpartition(".")
            segment = stem if dot and stem and suffix.lower() in _FORMATS else segment
        if (
            segment in values
            or (_DIGIT.search(segment) and not _VERSION.match(segment))
            or (_ADDRESS.match(segment))
        ):
            out[str(index)] = segment
    return out


def read_headers(headers) -> dict:
    """Return the comparable request headers, names lower-cased.

    Ids, preconditions, content type, the API version."""
    out = {}
    for name, value in (headers or {}).items():
        low = str(name).lower()
        if (
            (low in HEADERS or _HEADER_ID.match(low) or _HEADER_VERSION.match(low))
            and not SECRET_HEADER.search(low)
            and isinstance(value, str)
        ):
            out[low] = value
    return out


def content_type(headers) -> str | None:
    """Return the media type of the request's Content-Type header, lower-cased.

    Without parameters."""
    for name, value in (headers or {}).items():
        if str(name).lower() == "content-type" and isinstance(value, str):
            return value.split(";")[0].strip().lower() or None
    return None


def is_form(body, media: str | None) -> bool:
    """Tell whether a text body is form-encoded.

    By its content type, or (none given) by its look."""
    if not isinstance(body, str) or not body:
        return False
    if media is not None:
        return media == FORM
    return bool(_FORM_TEXT.match(body)) and not body.lstrip().startswith(("{", "["))


# `$name: Type` in an operation's variable definitions (`[ID!]!` read as ID)
_GRAPHQL_VARIABLE = re.compile(r"\$([_A-Za-z]\w*)\s*:\s*\[?\s*([_A-Za-z]\w*)", re.ASCII)
# GraphQL's own scalars that a server reads from text (the spec serialises an ID as a String)
TEXT_SCALARS = frozenset({"ID", "String"})


def graphql_variable_types(body) -> dict[str, str]:
    """Return {variable: named type} a GraphQL request declares in its operation text.

    `mutation ($itemId: ID!, $ids: [Int])` -> {"itemId": "ID", "ids": "Int"}; {} for any other
    body."""
    if not is_graphql(body):
        return {}
    return dict(_GRAPHQL_VARIABLE.findall(body["query"]))


def is_graphql(body) -> bool:
    """Tell whether a JSON body is a GraphQL request.

    A `query` text and its `variables` object."""
    return (
        isinstance(body, dict)
        and isinstance(body.get("query"), str)
        and isinstance(body.get("variables"), dict)
        and set(body) <= {"query", "variables", "operationName", "extensions"}
    )
