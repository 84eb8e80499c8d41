"""Secrets in URLs.

Each part read as it means (decoded), redacted, and written back readable.

A token hides in a URL where text scanning misses it: glued to a path word (`/bot123:AAH...`), or
percent-encoded in a query value (`?debug=token%20ghp_...`). Each path segment, query or fragment
value and the user of the userinfo is decoded and handed to the text redactor; the password of the
userinfo and the values of secret-named parameters are replaced whole. Parts that hold no secret are
kept byte for byte.
"""

import re
from collections.abc import Callable, Collection
from urllib.parse import quote, unquote, unquote_plus

REDACTED = "[REDACTED]"
# a URL inside text: a scheme, then anything up to a space, a quote or an angle bracket
URL = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,15}://[^\s\"'<>`]+")
_PARTS = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?", re.DOTALL)
# what stays as written when a changed part is encoded again: the marker's brackets and the
# punctuation that cannot end the part (a segment keeps no `/`, a query value no `&`, `=` or `+`)
SEGMENT_SAFE = "!$'()*+,;=:@[]~"
VALUE_SAFE = "!$'()*,;:@/?[]~"

Scrub = Callable[[str], str]


def is_url(text: str) -> bool:
    """Tell text that reads as one whole URL (a scheme, `://`, then anything).

    Which redact_url redacts by part."""
    return _PARTS.fullmatch(text) is not None


def split_url(url: str) -> tuple[str, str, str, str | None, str | None] | None:
    """Split a URL as written.

    Scheme (with `://`), authority, path, `?query`, `#fragment`.

    The query and fragment are None when absent; the whole is None when the text is no URL. Unlike
    urlsplit, it reads `user:[REDACTED]@host` as written.
    """
    parts = _PARTS.fullmatch(url)
    return None if parts is None else parts.groups()


def redact_url(
    url: str,
    scrub: Scrub,
    is_secret_key: Callable[[str], bool],
    secret_segments: Collection[int] = (),
) -> str:
    """Return the URL with secrets redacted in every decoded part.

    What `scrub` finds in any decoded part, and secret-named values.

    The path segments numbered in `secret_segments` (from 1: `/1/2/3`) are replaced whole.
    """
    parts = split_url(url)
    if parts is None:
        return url
    scheme, authority, path, query, fragment = parts
    segments = path.split("/")
    out = [
        scheme,
        _authority(authority, scrub),
        "/".join(_segment(part, at in secret_segments, scrub) for at, part in enumerate(segments)),
    ]
    if query is not None:
        out.append("?" + _pairs(query[1:], scrub, is_secret_key))
    if fragment is not None:
        out.append("#" + _pairs(fragment[1:], scrub, is_secret_key))
    return "".join(out)


def redact_urls_in(text: str, scrub: Scrub, is_secret_key: Callable[[str], bool]) -> str:
    """Return text with every URL in it redacted part by part."""
    return URL.sub(lambda match: redact_url(match.group(0), scrub, is_secret_key), text)


def _segment(segment: str, secret: bool, scrub: Scrub) -> str:
    if secret and segment:
        return REDACTED
    return _piece(segment, scrub, unquote, SEGMENT_SAFE)


def _authority(authority: str, scrub: Scrub) -> str:
    if "@" not in authority:
        return authority
    userinfo, host = authority.rsplit("@", 1)
    user, colon, password = userinfo.partition(":")
    user = _piece(user, scrub, unquote, SEGMENT_SAFE.replace(":", "").replace("@", ""))
    return f"{user}:{REDACTED}@{host}" if colon and password else f"{user}{colon}@{host}"


def _piece(raw: str, scrub: Scrub, decode, safe: str = VALUE_SAFE) -> str:
    """Return a part as written when it holds nothing.

    Else its redacted text encoded again."""
    if not raw:
        return raw
    text = decode(raw)
    clean = scrub(text)
    if clean == text:
        return raw
    return quote(clean, safe=safe) if clean != REDACTED else REDACTED


def _pairs(text: str, scrub: Scrub, is_secret_key) -> str:
    """Redact `name=value&...`.

    A query, or a fragment that carries tokens as OAuth's implicit flow does."""
    out = []
    for pair in text.split("&"):
        name, equals, value = pair.partition("=")
        if equals and value and is_secret_key(unquote_plus(name)):
            out.append(f"{name}={REDACTED}")
        elif equals:
            out.append(f"{_piece(name, scrub, unquote_plus)}={_piece(value, scrub, unquote_plus)}")
        else:
            out.append(_piece(pair, scrub, unquote_plus))
    return "&".join(out)
