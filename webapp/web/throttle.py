"""Wrong tokens are slowed.

A client that sends AUTH_FAILURES of them within AUTH_FAILURE_WINDOW_S seconds gets 429 with
Retry-After for every request carrying a token, until its oldest failure in the window is that old.

A failure is a token (Bearer, or a Basic password) that matches none, on any path but the open
ones: a page that reading leaves open still says who is signed in, so it tells a right guess from
a wrong one. While a client is slowed its tokens are not compared, a right one neither (Grafana
blocks a login so): an answer that told them apart would let a guesser go on at full speed. The
client is the address the proxy policy resolves (proxies.py). Counts live in each worker's memory:
with N workers a client gets up to N times the limit.
"""

import logging
import math
import threading
import time
from collections import OrderedDict, deque

from flask import current_app, g, request

from .errors import ApiError

# under "webapp", so its lines reach the server's log
LOG = logging.getLogger(__name__)
# clients remembered at once; the longest idle are forgotten first
MAX_CLIENTS = 10_000


class FailureWindow:
    """Count each client's failed tokens over a sliding window.

    Thread-safe, in memory."""

    def __init__(self, limit: int, window_s: float, clock=time.monotonic, max_clients=MAX_CLIENTS):
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self.max_clients = max_clients
        self.failures: OrderedDict[str, deque] = OrderedDict()
        # when each client's slowing was last logged
        self.logged: dict[str, float] = {}
        self.lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Return the seconds before a client's tokens are compared again (0: now)."""
        if self.limit <= 0:
            return 0.0
        with self.lock:
            # most clients: remembered only once a token fails
            if client not in self.failures:
                return 0.0
            now = self.clock()
            times = self._recent(client, now)
            return 0.0 if len(times) < self.limit else times[-self.limit] + self.window_s - now

    def fail(self, client: str) -> bool:
        """Count a failed token.

        Say whether it slows the client, unlogged within the window."""
        if self.limit <= 0:
            return False
        with self.lock:
            now = self.clock()
            times = self._recent(client, now)
            times.append(now)
            self._forget_beyond(self.max_clients)
            if len(times) < self.limit or now - self.logged.get(client, -math.inf) < self.window_s:
                return False
            self.logged[client] = now
            return True

    def _recent(self, client: str, now: float) -> deque:
        """Return a client's failures within the window, the older dropped.

        Under the lock."""
        times = self.failures.setdefault(client, deque())
        self.failures.move_to_end(client)
        while times and times[0] <= now - self.window_s:
            times.popleft()
        return times

    def _forget_beyond(self, count: int) -> None:
        while len(self.failures) > count:
            forgotten, _ = self.failures.popitem(last=False)
            self.logged.pop(forgotten, None)


def window() -> FailureWindow:
    """The failure counts of this worker, built from the settings once."""
    found = current_app.extensions.get("tracediff.throttle")
    if found is None:
        config = current_app.config
        found = FailureWindow(config["AUTH_FAILURES"], config["AUTH_FAILURE_WINDOW_S"])
        current_app.extensions["tracediff.throttle"] = found
    return found


def refuse_if_slowed(scope: str) -> None:
    """Answer 429 to a client slowed for its wrong tokens.

    Before its token is compared."""
    wait = window().wait(client())
    if wait > 0:
        g.tracediff_slowed = True
        seconds = max(1, math.ceil(wait))
        raise ApiError(
            429,
            "too_many_failed_tokens",
            f"{window().limit} or more requests from {client()} carried a wrong token within "
            f"{window().window_s:g} s; no token from it is checked for {seconds} s. "
            f"Check the token it sends (tried for {scope})",
            retryable=True,
            headers={"Retry-After": str(seconds)},
        )


def slowed() -> bool:
    """Say whether this request was refused for its client's wrong tokens.

    Its token unread."""
    return bool(g.get("tracediff_slowed"))


def note_failure(scope: str, scheme: str) -> None:
    """Count a token that matched none.

    Log once per client and window when it slows the client."""
    if window().fail(client()):
        limit, seconds = window().limit, window().window_s
        LOG.warning(
            "auth: %d wrong tokens from %s within %g s (%s, for %s: %s %s); "
            "its requests with a token get 429 for up to %g s",
            *(limit, client(), seconds, scheme, scope, request.method, request.path, seconds),
        )


def client() -> str:
    """The client's address, as the proxy policy resolved it (proxies.py)."""
    return request.remote_addr or "unknown"
