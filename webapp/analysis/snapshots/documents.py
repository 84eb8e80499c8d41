"""The JSON documents of a call's snapshots, as the analysis reads them."""

import json

# the stages read as JSON documents; the result by its forms
from ...common.stages import CORE as STAGES


def json_error(payload) -> dict | None:
    """Return {"message", "line", "column"} when a string payload holds broken JSON."""
    if not isinstance(payload, str) or payload.lstrip()[:1] not in ("{", "["):
        return None
    try:
        json.loads(payload)
    except json.JSONDecodeError as exc:
        # the decoder's own text may end in "at" ("Unterminated string starting at"): no doubled
        # word
        where = f"line {exc.lineno} column {exc.colno}"
        return {
            "message": f"{exc.msg} {where}" if exc.msg.endswith(" at") else f"{exc.msg} at {where}",
            "line": exc.lineno,
            "column": exc.colno,
        }
    except RecursionError:
        return {"message": "nested too deeply to parse", "line": 1, "column": 1}
    return None


def documents(snapshots: dict) -> dict:
    """Return each snapshot's payload.

    None for a missing snapshot or one holding broken JSON."""
    docs = {}
    for stage in STAGES:
        snap = snapshots.get(stage)
        payload = snap.get("payload") if snap else None
        docs[stage] = None if json_error(payload) else payload
    return docs


def status_code(snapshot: dict | None) -> int | None:
    """Return the HTTP status of a response snapshot as an integer, or None."""
    http = (snapshot or {}).get("http") or {}
    code = http.get("status_code")
    if isinstance(code, str) and code.strip().isdigit():
        code = int(code)
    return code if isinstance(code, int) and not isinstance(code, bool) else None
