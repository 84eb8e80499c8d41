"""Undo Content-Encoding with a cap on the decompressed size (decompression bombs)."""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator

import zstandard

from .model import IngestError, too_large

_CHUNK = 1 << 20
# zstd has no max_length; an RLE block turns 4 input bytes into 128 KiB, so small
# input pieces bound what one call can inflate to (256 B -> at most 8 MiB).
_ZSTD_PIECE = 256
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def decode_body(raw: bytes, content_encoding: str | None, max_bytes: int) -> bytes:
    """Return the body with every Content-Encoding undone.

    Refusing more than max_bytes."""
    # grows in place and hands over its bytes without a copy (a join held two)
    out = io.BytesIO()
    for piece in decoded_pieces(raw, content_encoding, max_bytes):
        out.write(piece)
    return out.getvalue()


def decoded_pieces(raw: bytes, content_encoding: str | None, max_bytes: int) -> Iterator[bytes]:
    """Yield the body with every Content-Encoding undone.

    A piece (about 1 MiB) at a time, as it is decompressed; raise 413 as soon as more than max_bytes
    came out (nothing past the limit is made)."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    if not codings:
        codings = [sniff_encoding(raw)]
    pieces: Iterator[bytes] = _slices(raw)
    # the last coding listed was applied last
    for coding in reversed(codings):
        pieces = _capped(_undo(pieces, coding), max_bytes)
    return pieces


def sniff_encoding(raw: bytes) -> str:
    if raw[:2] == _GZIP_MAGIC:
        return "gzip"
    if raw[:4] == _ZSTD_MAGIC:
        return "zstd"
    return "identity"


def _slices(raw: bytes) -> Iterator[bytes]:
    view = memoryview(raw)
    for start in range(0, len(raw), _CHUNK):
        yield bytes(view[start : start + _CHUNK])


def _capped(pieces: Iterator[bytes], cap: int) -> Iterator[bytes]:
    total = 0
    for piece in pieces:
        total += len(piece)
        if total > cap:
            raise _too_large(cap)
        yield piece


def _undo(pieces: Iterator[bytes], coding: str) -> Iterator[bytes]:
    if coding in ("identity", "none"):
        return pieces
    if coding in ("gzip", "x-gzip"):
        return _inflate(pieces, 16 + zlib.MAX_WBITS, "gzip")
    if coding == "deflate":
        return _inflate(pieces, None, "deflate")
    if coding == "zstd":
        return _unzstd(pieces)
    raise IngestError(
        415,
        "unsupported_encoding",
        f"Content-Encoding {coding!r} is not supported; send gzip, deflate, zstd or no encoding",
    )


def _is_zlib(data: bytes) -> bool:
    return len(data) >= 2 and data[0] & 0x0F == 8 and ((data[0] << 8) | data[1]) % 31 == 0


def _inflate(pieces: Iterator[bytes], wbits: int | None, name: str) -> Iterator[bytes]:
    """Inflate piece by piece, at most 1 MiB out per call.

    A bomb never comes out whole."""
    d, ended = None, False
    try:
        for buf in pieces:
            # deflate comes with a zlib header or raw; its first bytes tell
            if d is None:
                wbits = wbits or (zlib.MAX_WBITS if _is_zlib(buf) else -zlib.MAX_WBITS)
                d = zlib.decompressobj(wbits)
            while buf and not ended:
                chunk = d.decompress(buf, _CHUNK)
                if chunk:
                    yield chunk
                buf = d.unconsumed_tail
                # output held back by max_length
                while not buf and chunk and not d.eof:
                    chunk = d.decompress(b"", _CHUNK)
                    if chunk:
                        yield chunk
                if d.eof:
                    buf = d.unused_data
                    if name == "gzip" and buf.strip(b"\0"):
                        # a further gzip member follows
                        d = zlib.decompressobj(wbits)
                    # trailing zero padding (or, for deflate, anything) is ignored, as before
                    else:
                        ended = name != "gzip"
                        buf = b""
    except zlib.error as exc:
        raise _broken(name, str(exc)) from None
    if d is None or not d.eof:
        raise _broken(name, "the compressed stream ends early (truncated body?)")


def _unzstd(pieces: Iterator[bytes]) -> Iterator[bytes]:
    d = zstandard.ZstdDecompressor().decompressobj()
    try:
        for data in pieces:
            pos = 0
            while pos < len(data):
                # another frame follows
                if d.eof:
                    d = zstandard.ZstdDecompressor().decompressobj()
                piece = data[pos : pos + _ZSTD_PIECE]
                chunk = d.decompress(piece)
                rest = d.unused_data if d.eof else b""
                pos += len(piece) - len(rest)
                if chunk:
                    yield chunk
    except zstandard.ZstdError as exc:
        raise _broken("zstd", str(exc)) from None
    if not d.eof:
        raise _broken("zstd", "the compressed stream ends early (truncated body?)")


def _too_large(cap: int) -> IngestError:
    return too_large(cap, "the body, once decompressed,")


def _broken(name: str, detail: str) -> IngestError:
    return IngestError(422, "unparseable", f"the body is not valid {name} data: {detail}")
