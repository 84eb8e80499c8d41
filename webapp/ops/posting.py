"""One webhook POST, to the address its URL was checked at, and when to try again.

Retries double from 2 s with jitter up to an hour; a 429 waits its Retry-After (seconds or an HTTP
date). The URL is checked again before each attempt and the request goes to the address that was
checked (the Host header and TLS name stay the URL's), so DNS cannot swap in an internal address
after the check.
"""

import logging
import random
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..alerts.urls import allow_list, check_url
from ..store.codec import utc_now

# httpx logs each request's URL at INFO ("HTTP Request: POST https://user:pass@..."), and a
# webhook's URL holds its credentials: the library says warnings only, whatever the root's level
for _library in ("httpx", "httpcore"):
    logging.getLogger(_library).setLevel(logging.WARNING)
MAX_ATTEMPTS = 12
MAX_WAIT_S = 3600
READ_CAP = 64 * 1024


def post_checked(url: str, body: bytes, headers: dict, settings: dict) -> tuple[int, str | None]:
    """Post to the address the URL was checked at.

    Its user info goes as Basic auth, not as Host."""
    address = check_url(url, allow_list(settings["WEBHOOK_ALLOW_HOSTS"]))[0]
    parts = urlsplit(url)
    userinfo, _, hostport = parts.netloc.rpartition("@")
    pinned = urlunsplit(parts._replace(netloc=_netloc(userinfo, address, parts.port)))
    with httpx.Client(timeout=settings["ALERT_TIMEOUT"], follow_redirects=False) as client:
        request = client.build_request(
            "POST",
            pinned,
            content=body,
            headers={**headers, "host": hostport},
            extensions={"sni_hostname": parts.hostname},
        )
        response = client.send(request, stream=True)
        try:
            for _read, _ in zip(response.iter_bytes(), range(READ_CAP // 4096 + 1)):
                # read a little of the answer, never all of a huge one
                pass
        finally:
            response.close()
    return response.status_code, response.headers.get("retry-after")


def _netloc(userinfo: str, address: str, port: int | None) -> str:
    host = f"[{address}]" if ":" in address else address
    # httpx sends a URL's user info as Basic auth
    host = f"{userinfo}@{host}" if userinfo else host
    return f"{host}:{port}" if port else host


def schedule_retry(message: dict, outcome: dict, retry_after) -> dict:
    if message["attempts"] + 1 >= MAX_ATTEMPTS:
        outcome["error"] += f"; gave up after {MAX_ATTEMPTS} attempts"
        # held, not dropped, when this failure pauses the rule
        outcome["exhausted"] = True
        return outcome
    wait = read_retry_after(retry_after)
    if wait is None:
        wait = min(MAX_WAIT_S, 2 * 2 ** message["attempts"]) * random.uniform(0.8, 1.2)
    outcome["retry_at"] = utc_now(hours_ago=-wait / 3600)
    return outcome


def read_retry_after(value) -> float | None:
    """Read Retry-After as seconds or as an HTTP date (RFC 9110 allows both).

    Within 0 s to an hour."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            # an HTTP date is always GMT
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    # NaN
    if seconds != seconds:
        return None
    return min(MAX_WAIT_S, max(0.0, seconds))
