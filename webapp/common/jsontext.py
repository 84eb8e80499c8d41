"""The one JSON codec of the package.

Orjson, with exact integers beyond 64 bits.

orjson reads an integer it cannot hold in 64 bits as a float (2**64 becomes 1.8446744073709552e+19)
and refuses to write one, so a model's 30-digit id would be shown and compared rounded. `loads` and
`dumps` are orjson's, falling back to the standard library (whose integers are exact) only for such
integers.
"""

import gc
import json
import re
from contextlib import contextmanager

import orjson

JSONDecodeError = orjson.JSONDecodeError
JSONEncodeError = orjson.JSONEncodeError
Fragment = orjson.Fragment
OPT_INDENT_2 = orjson.OPT_INDENT_2
OPT_NON_STR_KEYS = orjson.OPT_NON_STR_KEYS
OPT_SORT_KEYS = orjson.OPT_SORT_KEYS
# what Windows editors put before a UTF-8 file: JSON readers may ignore it (RFC 8259)
BOM = b"\xef\xbb\xbf"

# An integer orjson may round: 20 digits or more (past 2**64 - 1 from 18446744073709551616 on), or
# 19 after a minus (past -2**63). First a run of 20 digits or minus signs is looked for in the text
# with every digit and minus made "0" (C speed, a tenth of orjson's parse); only then the exact
# pattern, which would cost twice the parse on every text. A run inside a string or an exponent
# matches too, which only costs the slower parse.
_AS_ZEROS = bytes.maketrans(b"123456789-", b"0" * 10)
_RUN = b"0" * 20
_WIDE = re.compile(rb"(?<![\d.])(?:-\d{19}|\d{20})")
_TOO_WIDE = "Integer exceeds 64-bit range"


def loads(data):
    """Parse JSON text (str or bytes) as orjson does.

    Keeping integers beyond 64 bits exact."""
    # first: its errors (syntax, UTF-8, lone surrogates, depth) are the contract
    value = orjson.loads(data)
    if len(data) < 20:
        return value
    kind = type(data)
    text = (
        data.encode()
        if kind is str
        else data
        if kind is bytes or kind is bytearray
        else bytes(data)
    )
    if _RUN not in text.translate(_AS_ZEROS) or _WIDE.search(text) is None:
        return value
    try:
        return json.loads(bytes(text).decode())
    # past ~1000 levels, which orjson takes: its rounded reading is the one there is
    except RecursionError:
        return value


def dumps(value, option: int = 0) -> bytes:
    """Write value as orjson does (bytes, with its options).

    Writing integers beyond 64 bits exactly."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as error:
        if str(error) != _TOO_WIDE:
            raise
        return _standard_dumps(value, option, error)


def _standard_dumps(value, option: int, error: orjson.JSONEncodeError) -> bytes:
    """Write value with the standard library, in orjson's form.

    Compact or indented by 2, UTF-8, no NaN."""
    indent = 2 if option & OPT_INDENT_2 else None
    try:
        text = json.dumps(
            value,
            sort_keys=bool(option & OPT_SORT_KEYS),
            indent=indent,
            separators=(",", ": ") if indent else (",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )
        return text.encode()
    # a lone surrogate, which orjson refuses too
    except UnicodeEncodeError:
        raise orjson.JSONEncodeError("str is not valid UTF-8: surrogates not allowed") from None
    # what orjson writes and json does not (NaN, a Fragment): orjson's error
    except (ValueError, TypeError):
        raise error from None


@contextmanager
def paused_collector():
    """Pause Python's cyclic collector while big acyclic documents are built or walked.

    JSON builds no reference cycles, and the collector's passes over a deeply nested document being
    built cost more than the parse itself."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def freeze_the_heap() -> None:
    """Leave what lives now (modules, the app) out of the collector's later passes.

    A server process calls it once, started: its analyser keeps a batch of calls' documents alive,
    so full passes come every few hundred calls, and each walked the ~80,000 objects of the modules
    and the app again (~45 ms a pass, a tenth of the analyser's CPU, issue 36). Garbage is collected
    first; what is frozen lives as long as the process anyway."""
    gc.collect()
    gc.freeze()
