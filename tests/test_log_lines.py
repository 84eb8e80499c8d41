"""Every log line is one line, whatever a request's path holds.

A path with an encoded line break must not write a line of its own into the log (log forging),
in the text format or the JSON one."""

import json

import httpx
import pytest

FAKE = "2026-12-07T00:00:00.000Z INFO access: FAKE LINE"
# a line feed, a carriage return, a NUL and a Unicode line separator, each before a forged line
FORGING_PATHS = [
    "/api/v1/traces/a%0A2026-12-07T00:00:00.000Z%20INFO%20access:%20FAKE%20LINE",
    "/api/v1/traces/a%0D2026-12-07T00:00:00.000Z%20INFO%20access:%20FAKE%20LINE",
    "/api/v1/traces/a%002026-12-07T00:00:00.000Z%20INFO%20access:%20FAKE%20LINE",
    "/api/v1/traces/a%E2%80%A82026-12-07T00:00:00.000Z%20INFO%20access:%20FAKE%20LINE",
]


def requested(server, ids: list[str]) -> str:
    """Request every forging path, each with its own request id; return the log once stopped."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for path, request_id in zip(FORGING_PATHS, ids, strict=True):
            assert http.get(path, headers={"X-Request-Id": request_id}).status_code in (400, 404)
    server.stop()
    return server.logs()


@pytest.mark.slow
def test_a_path_holding_line_breaks_writes_one_text_line(make_server):
    server = make_server("text.db", env={"TRACEDIFF_LOG_FORMAT": "text"})
    ids = [f"forge-{n}" for n in range(len(FORGING_PATHS))]

    log = requested(server, ids)

    assert not any(line.startswith(FAKE) for line in log.splitlines())
    access = [line for line in log.splitlines() if " access: " in line and "id=forge-" in line]
    assert len(access) == len(ids)
    assert all(line.startswith("20") and FAKE in line for line in access)
    assert "a\\x0a2026" in log and "a\\x0d2026" in log and "a\\x002026" in log
    assert "a\\u20282026" in log
    assert "\x00" not in log


@pytest.mark.slow
def test_a_path_holding_line_breaks_writes_one_json_line(make_server):
    server = make_server("json.db", env={"TRACEDIFF_LOG_FORMAT": "json"})
    ids = [f"forge-{n}" for n in range(len(FORGING_PATHS))]

    log = requested(server, ids)

    # splitlines breaks at U+2028 and U+0085 too, as some line readers do
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    assert len(lines) == len(log.splitlines())
    access = {line["request_id"]: line for line in lines if line["logger"] == "access"}
    assert all(FAKE in access[request_id]["path"] for request_id in ids)
    assert access["forge-3"]["path"].startswith("/api/v1/traces/a\u2028")
