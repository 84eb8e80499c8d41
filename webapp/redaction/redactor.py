"""The Redactor: one per settings, it marks the secrets of an event.

A JSON value, a URL or a text.

Keys are compared after lower-casing and dropping separators, so `apiKey`, `API-KEY` and
`api_key` are one key. Counters such as `max_tokens` or `token_count` are not secrets.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

import re2

from ..common import jsontext
from .cards import looks_like_card
from .jsontext import (
    JSON_PAIR,
    JSON_STRING,
    decode_literal,
    empty_value,
    encode_literal,
    json_key,
    value_end,
)
from .rules import (
    DEFAULT_KEYS,
    PUBLIC_SUFFIXES,
    QUERY_KEYS,
    SECRET_SUFFIXES,
    TOKEN_PATTERNS,
    replace_token,
)
from .urls import REDACTED, is_url, redact_url, redact_urls_in
from .webhooks import WEBHOOK_HOSTS, redact_webhook_tokens

# free text of an event's envelope, shown on pages and in alerts
ENVELOPE_TEXTS = ("tool", "source", "release")

# Strings shorter than this hold no secret we can recognise ("Bearer x" is 8).
MIN_SCAN = 8
# Longer strings are not scanned for secret-looking values: it would cost the hot path too much.
MAX_SCAN = 256 * 1024

_SECRET_PATTERNS = tuple(
    (literals, re.compile(pattern, re.DOTALL)) for literals, pattern, _ in TOKEN_PATTERNS
)
_CARD = re.compile(r"\d(?:[ -]?\d){12,18}")
# a card number may hide in it
_DIGIT_RUN = r"[0-9][0-9 -]{11,}[0-9]"
# schemes of `Authorization`-like values
_AUTH_WORDS = ("bearer", "basic", "token", "digest")
# What normalize_key drops between the letters of a key, as it appears in orjson's text:
# any byte that is not an ASCII letter or digit, or an escape (orjson writes \n, \t, \u001f...;
# JSON text nested in a string may hold any \u escape).
_SEPARATORS = r"(?:[^0-9A-Za-z]|\\[bfnrt]|\\u[0-9a-fA-F]{4})*"
# A printable ASCII character written as an escape (`\u0077`). No encoder writes one, but in JSON
# text nested in a string it would hide a key word or a token prefix from the scan.
_ESCAPED_ASCII = r"\\u00[2-7][0-9a-fA-F]"
# A whole header-like value: `Bearer abc`, `Basic dXNlcjpwYXNz`, `Token abc`.
_AUTH_VALUE = re.compile(r"\s*(?i:bearer|basic|token|digest)\s+\S+\s*")
# The password of `scheme://user:password@host` in a URL or a connection string.
_USERINFO = r"://[^/\s\"@:]*:[^/\s\"@]+@"
_USERINFO_PASSWORD = re.compile(r"(://[^/\s\"@:]*:)[^/\s\"@]+@")
# `name=value`, `name: value`, `name := "value"`... in a URL, a form body, a log or config line: the
# key and separator only, so that `cfg=DB_PASSWORD=x` finds both keys; the value ends at _VALUE_END.
_ASSIGNMENT = re.compile(
    r"(?<![\w-])([A-Za-z_][\w.\-\[\]]{0,63})(\\?[\"']?[ \t]*(?::=|=>|=|:)[ \t]*(\\?[\"']?))"
)
_VALUE_END = re.compile(r"[\s\"'\\,;&#}\]]")
_KEY_CACHE_SIZE = 4096


def normalize_key(key: str) -> str:
    """Return a key lower-cased with separators removed (`X-Api-Key` -> `xapikey`)."""
    return "".join(ch for ch in key.lower() if ch.isalnum())


_QUERY_KEYS = frozenset(normalize_key(k) for k in QUERY_KEYS)
# A query parameter named so, in text as orjson writes it: the clean-proof scan must not skip it.
_QUERY_PARAMETER = r"[?&;#](?i:" + "|".join(re.escape(k) for k in QUERY_KEYS) + r")="


class Redactor:
    """Replace secrets in JSON values with REDACTED; reusable and thread-safe."""

    def __init__(self, extra_keys: Iterable[str] = ()):
        extra = tuple(normalize_key(k) for k in extra_keys if normalize_key(k))
        self.keys = frozenset((*map(normalize_key, DEFAULT_KEYS), *extra))
        # an added key matches as a suffix too, as built-in ones do
        self.suffixes = (*SECRET_SUFFIXES, *extra)
        self._cache: dict[str, bool] = {}
        self._suspect = _suspect_pattern(self.keys)

    def is_secret_key(self, key: str) -> bool:
        """Tell whether values under this key are redacted."""
        found = self._cache.get(key)
        if found is None:
            norm = normalize_key(key)
            found = norm in self.keys or (
                norm.endswith(self.suffixes) and not norm.endswith(PUBLIC_SUFFIXES)
            )
            if len(self._cache) >= _KEY_CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = found
        return found

    def is_query_secret(self, key: str) -> bool:
        """Tell whether a URL query (or fragment) parameter's value is redacted.

        A secret key, or a name APIs give their keys there (`key`, `sig`)."""
        return self.is_secret_key(key) or normalize_key(key) in _QUERY_KEYS

    def event(self, event):
        """Return the event with its payload, HTTP, meta and free text redacted.

        Its payload, HTTP headers and URL, meta and free-text envelope fields (tool, source,
        release); the ids are kept, as they name the call."""
        return self.event_and_payload_text(event)[0]

    def event_and_payload_text(self, event) -> tuple[Any, bytes | None]:
        """Return the event redacted, and its payload's JSON text when that held no secret.

        The text is the one the scan read (orjson's), so a caller that stores the payload as
        JSON text need not write it again; None when the event was redacted or cannot be
        written."""
        meta = getattr(event, "meta", None)
        texts = [getattr(event, name, None) for name in ENVELOPE_TEXTS]
        try:
            payload = jsontext.dumps(event.payload)
            rest = jsontext.dumps([event.http, meta, *texts])
        # a lone surrogate: orjson refuses it, the walk handles it
        except TypeError:
            payload = rest = None
        # the text of [payload, http, meta, *texts], as one dumps of that list writes it
        if rest is not None and self._clean_text(b"[" + payload + b"," + rest[1:]):
            # the common case, proved in one scan of the event's text
            return event, payload
        return self._redacted_event(event), None

    def _redacted_event(self, event):
        changes = {"payload": self.value(event.payload)}
        for name in ("http", "meta", *ENVELOPE_TEXTS):
            if getattr(event, name, None) is not None:
                changes[name] = self.value(getattr(event, name))
        if dataclasses.is_dataclass(event):
            return dataclasses.replace(event, **changes)
        for name, new in changes.items():
            setattr(event, name, new)
        return event

    def value(self, value: Any) -> Any:
        """Return a redacted copy of any JSON value; the input is left as it was."""
        if not isinstance(value, (dict, list)):
            return self._scalar(value)
        return value if self._clean(value) else self._walk(value)

    def _walk(self, value: dict | list) -> dict | list:
        root = [value]
        stack: list[tuple[Any, Any]] = [(root, 0)]
        # iterative, so no nesting depth can exhaust the Python stack
        while stack:
            parent, slot = stack.pop()
            parent[slot] = self._copy_level(parent[slot], stack)
        return root[0]

    def url(self, url: str, keys: Collection[str] = (), segments: Collection[int] = ()) -> str:
        """Return a URL (a ticket link, say) with secrets in any of its parts redacted.

        Text that is no URL (a link refused as one, quoted in an error) is redacted as text. `keys`
        names more query parameters to redact, `segments` path segments by number (from 1), as a
        webhook rule marks them.
        """
        if not is_url(url):
            return self._string(url)
        url = redact_webhook_tokens(url)
        marked = frozenset(keys)
        secret_key = self.is_query_secret
        if marked:
            secret_key = lambda key: key in marked or self.is_query_secret(key)  # noqa: E731
        return redact_url(url, self._part, secret_key, segments)

    def _clean(self, value) -> bool:
        # Most payloads hold no secret. One RE2 scan of their JSON text (a DFA, linear and in C)
        # for everything that could start one - a secret key word, a token prefix, a digit run,
        # an auth scheme - proves it, and then nothing is visited or copied.
        try:
            text = jsontext.dumps(value)
        # a lone surrogate: orjson refuses it, the walk handles it
        except TypeError:
            return False
        return self._clean_text(text)

    def _clean_text(self, text: bytes) -> bool:
        """Tell whether JSON text as orjson writes it surely holds no secret."""
        if self._suspect.search(text) is not None:
            return False
        # percent-encoding (a URL's query, a form body) hides a token from the scan: scan it decoded
        # too
        return b"%" not in text or self._suspect.search(unquote_to_bytes(text)) is None

    def text(self, raw: str) -> str:
        """Return raw record text (maybe cut or broken JSON) with secrets redacted."""
        try:
            parsed = json.loads(raw)
        # cut, broken, or nested too deep to parse: mask it as text
        except (ValueError, RecursionError):
            masked = JSON_PAIR.sub(self._json_pair, raw)
            return self._string(masked) if isinstance(masked, str) else masked
        text = json.dumps(self.value(parsed), ensure_ascii=False)
        # a lone surrogate escape (\ud800) parses to a character UTF-8 cannot store: keep it escaped
        return text.encode("utf-8", "backslashreplace").decode("utf-8")

    def _copy_level(self, container, stack):
        if isinstance(container, dict):
            copy = {}
            secret_named = self._names_a_secret(container)
            for key, child in container.items():
                if _has_secret(child) and (
                    self.is_secret_key(key) or (secret_named and key == "value")
                ):
                    copy[key] = REDACTED
                    continue
                copy[key] = child
                if isinstance(child, (dict, list)):
                    stack.append((copy, key))
                else:
                    copy[key] = self._scalar(child)
            return copy
        copy = list(container)
        for index, child in enumerate(copy):
            if isinstance(child, (dict, list)):
                stack.append((copy, index))
            else:
                copy[index] = self._scalar(child)
        return copy

    def _scalar(self, value):
        if isinstance(value, str):
            return self._string(value) if len(value) >= MIN_SCAN else value
        if type(value) is int and value >= 10**12 and looks_like_card(str(value)):
            return REDACTED
        return value

    def _string(self, text: str):
        if len(text) > MAX_SCAN or self._clean(text):
            # the same proof as a clean event's, for one string of an event that is not
            return text
        # redacting twice changes nothing
        if _AUTH_VALUE.fullmatch(text) and not text.rstrip().endswith(REDACTED):
            return REDACTED
        # a webhook URL's token, its ids kept (the URL pass below reads each segment alone)
        text = redact_webhook_tokens(text)
        # each part of a URL, decoded: a token glued to a path word or percent-encoded
        if "://" in text:
            text = redact_urls_in(text, self._part, self.is_query_secret)
        for literals, pattern in _SECRET_PATTERNS:
            if any(literal in text for literal in literals):
                text = pattern.sub(replace_token, text)
        if len(text) >= 13:
            text = _CARD.sub(_replace_card, text)
        if "=" in text or ":" in text:
            text = self._assignments(text)
        if "://" in text and "@" in text:
            text = _USERINFO_PASSWORD.sub(rf"\1{REDACTED}@", text)
        if '"' in text and ":" in text:
            text = self._json_pairs(text)
        return REDACTED if text.strip() == REDACTED else text

    def _part(self, text: str) -> str:
        """Redact one decoded part of a URL (a path segment, a query value)."""
        return self._string(text) if len(text) >= MIN_SCAN else text

    def _names_a_secret(self, container: dict) -> bool:
        # HAR and many header lists write {"name": "Authorization", "value": "Bearer ..."}
        name = container.get("name")
        return "value" in container and isinstance(name, str) and self.is_secret_key(name)

    def _assignments(self, text: str) -> str:
        """Redact the values of `secret_name=value` (or `:`, `:=`, `=>`) written in text."""
        pieces, done = [], 0
        for match in _ASSIGNMENT.finditer(text):
            start = match.end()
            if start <= done or _json_value(match) or not self.is_secret_key(match.group(1)):
                continue
            end = _value_end(text, start, match.group(3))
            if end > start and text[start:end] not in (REDACTED, "null"):
                pieces += [text[done:start], REDACTED]
                done = end
        return "".join(pieces) + text[done:] if pieces else text

    def _json_pair(self, match: re.Match) -> str:
        # For JSON_PAIR.sub; an object or array is redacted by _json_pairs, which sees where it
        # ends.
        new = None if match.group(2) in ("[", "{") else self._pair_value(match)
        return match.group(0) if new is None else match.string[match.start() : match.start(2)] + new

    def _json_pairs(self, text: str) -> str:
        """Redact the values of secret keys in JSON text (whole or cut).

        Keeping the rest as it was."""
        pieces, done = [], 0
        for match in JSON_PAIR.finditer(text):
            if match.start() < done:
                # inside an object or array already redacted
                continue
            new = self._pair_value(match)
            if new is not None:
                pieces += [text[done : match.start(2)], new]
                done = value_end(match)
        return "".join(pieces) + text[done:] if pieces else text

    def _pair_value(self, match: re.Match) -> str | None:
        """Return the text replacing the value of one `"key": value`, or None to keep it."""
        value = match.group(2)
        if self.is_secret_key(json_key(match.group(1))):
            return None if empty_value(match) else f'"{REDACTED}"'
        if value.startswith('"') and '\\"' in value:
            return self._nested_text(value)
        return None

    def _nested_text(self, literal: str) -> str | None:
        """Redact a string literal of JSON text that holds JSON text itself.

        A line logged in a line."""
        body, closing = JSON_STRING.fullmatch(literal).groups()
        inner = decode_literal(body)
        redacted = self._string(inner)
        if redacted == inner:
            return None
        encoded = encode_literal(redacted)
        return encoded if closing else encoded[:-1]


def _suspect_pattern(keys: frozenset[str]):
    """Compile the pattern whose absence from JSON text proves it holds no secret."""
    words = sorted({*keys, *SECRET_SUFFIXES, *_AUTH_WORDS})
    spelled = [_SEPARATORS.join(re.escape(ch) for ch in word) for word in words]
    literals = [
        prescan or "|".join(re.escape(lit) for lit in lits) for lits, _, prescan in TOKEN_PATTERNS
    ]
    pattern = "|".join(
        [
            *literals,
            WEBHOOK_HOSTS,
            _DIGIT_RUN,
            _USERINFO,
            _ESCAPED_ASCII,
            _QUERY_PARAMETER,
            "(?i:" + "|".join(spelled) + ")",
        ]
    )
    return re2.compile(pattern.encode())


def _json_value(match: re.Match) -> bool:
    """Tell a `"key": value` pair of JSON text whose value is not a string.

    _json_pairs' to redact."""
    quoted_key = match.group(2)[:1] in ('"', "'", "\\")
    return (quoted_key and not match.group(3)) or match.string[match.end() : match.end() + 1] in (
        "{",
        "[",
    )


def _value_end(text: str, start: int, quote: str) -> int:
    """Return where a value written after `name=` ends.

    At its closing quote, or at a delimiter."""
    if quote:
        end = text.find(quote, start)
        return len(text) if end < 0 else end
    found = _VALUE_END.search(text, start)
    return len(text) if found is None else found.start()


def _has_secret(value) -> bool:
    # null, booleans and empty values hold nothing secret; keeping them keeps findings
    # such as "token sent as null" visible.
    return (
        value is not None
        and value is not False
        and value is not True
        and value != ""
        and value != {}
        and value != []
    )


def _replace_card(match: re.Match) -> str:
    text, start, end = match.string, match.start(), match.end()
    inside_number = (start and text[start - 1] in "0123456789.") or (
        end < len(text)
        and (
            text[end].isdigit()
            or text[end : end + 2][:1] in ".-"
            and text[end + 1 : end + 2].isdigit()
        )
    )
    if inside_number or not looks_like_card(match.group(0)):
        return match.group(0)
    return REDACTED


def redactor_for(settings: dict) -> Redactor | None:
    """Return the redactor the settings ask for, or None when REDACT is off."""
    from ..config import token_set

    return Redactor(token_set(settings["REDACT_KEYS"])) if settings["REDACT"] else None


_BUILT_IN = Redactor()


def secret_name(key: str, in_query: bool = False) -> bool:
    """Tell whether the built-in rules redact a value under this name.

    In a URL's query when `in_query` (`key`, `sig`), anywhere else by its name or suffix."""
    return _BUILT_IN.is_query_secret(key) if in_query else _BUILT_IN.is_secret_key(key)
