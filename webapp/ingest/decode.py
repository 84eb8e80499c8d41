"""Undo Content-Encoding with a cap on the decompressed size (decompression bombs)."""
from __future__ import annotations

import io
import zlib

import zstandard

from .model import IngestError, too_large

_CHUNK = 1 << 20
# zstd has no max_length; an RLE block turns 4 input bytes into 128 KiB, so small
# input pieces bound what one call can inflate to (256 B -> at most 8 MiB).
_ZSTD_PIECE = 256
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def decode_body(raw: bytes, content_encoding: str | None, max_bytes: int) -> bytes:
    """Return the body with every Content-Encoding undone, refusing more than max_bytes."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    if not codings:
        codings = [sniff_encoding(raw)]
    data = raw
    for coding in reversed(codings):  # the last coding listed was applied last
        data = _undo(data, coding, max_bytes)
    if len(data) > max_bytes:
        raise _too_large(max_bytes)
    return data


def sniff_encoding(raw: bytes) -> str:
    if raw[:2] == _GZIP_MAGIC:
        return "gzip"
    if raw[:4] == _ZSTD_MAGIC:
        return "zstd"
    return "identity"


def _undo(data: bytes, coding: str, cap: int) -> bytes:
    if coding in ("identity", "none"):
        return data
    if coding in ("gzip", "x-gzip"):
        return _inflate(data, 16 + zlib.MAX_WBITS, cap, "gzip")
    if coding == "deflate":
        return _inflate(data, zlib.MAX_WBITS if _is_zlib(data) else -zlib.MAX_WBITS, cap, "deflate")
    if coding == "zstd":
        return _unzstd(data, cap)
    raise IngestError(
        415, "unsupported_encoding",
        f"Content-Encoding {coding!r} is not supported; send gzip, deflate, zstd or no encoding",
    )


def _is_zlib(data: bytes) -> bool:
    return len(data) >= 2 and data[0] & 0x0F == 8 and ((data[0] << 8) | data[1]) % 31 == 0


def _inflate(data: bytes, wbits: int, cap: int, name: str) -> bytes:
    out = io.BytesIO()  # grows in place and hands over its bytes without a copy (a join held two)
    total = 0
    d = zlib.decompressobj(wbits)
    buf = data
    try:
        while True:
            chunk = d.decompress(buf, _CHUNK)
            total += len(chunk)
            if total > cap:
                raise _too_large(cap)
            out.write(chunk)
            buf = d.unconsumed_tail
            if d.eof:
                buf = d.unused_data
                if name != "gzip" or not buf.strip(b"\0"):
                    break
                d = zlib.decompressobj(wbits)  # a further gzip member follows
            elif not buf and not chunk:
                break
    except zlib.error as exc:
        raise _broken(name, str(exc)) from None
    if not d.eof:
        raise _broken(name, "the compressed stream ends early (truncated body?)")
    return out.getvalue()


def _unzstd(data: bytes, cap: int) -> bytes:
    out = io.BytesIO()
    total = 0
    d = zstandard.ZstdDecompressor().decompressobj()
    pos = 0
    try:
        while pos < len(data):
            if d.eof:  # another frame follows
                d = zstandard.ZstdDecompressor().decompressobj()
            piece = data[pos:pos + _ZSTD_PIECE]
            chunk = d.decompress(piece)
            rest = d.unused_data if d.eof else b""
            pos += len(piece) - len(rest)
            total += len(chunk)
            if total > cap:
                raise _too_large(cap)
            out.write(chunk)
    except zstandard.ZstdError as exc:
        raise _broken("zstd", str(exc)) from None
    if not d.eof:
        raise _broken("zstd", "the compressed stream ends early (truncated body?)")
    return out.getvalue()


def _too_large(cap: int) -> IngestError:
    return too_large(cap, "the body, once decompressed,")


def _broken(name: str, detail: str) -> IngestError:
    return IngestError(422, "unparseable", f"the body is not valid {name} data: {detail}")
