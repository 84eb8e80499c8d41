"""The background sender.

Delivers the outbox at least once, with back-off, and logs every attempt.

A 408, 429 or 5xx is tried again (posting.py says when); any other 4xx is final.
"""

import logging
import time

import httpx

from ..alerts import settle
from ..alerts.messages import signed_headers, slack_body, webhook_body
from ..alerts.rules import EVENT_TYPES, TEST_TYPE
from ..alerts.secrets import scrub
from ..alerts.urls import UrlRefused
from ..problems.states import shown
from ..store import Store
from ..store.alert_rules import seconds_between
from ..store.alerts import LEASE_S
from ..store.codec import utc_now
from .alert_links import as_sent
from .loop import StoreLoop
from .posting import post_checked, schedule_retry

log = logging.getLogger(__name__)
IDLE_S = 0.5


def deliver_due(store: Store, settings: dict) -> int:
    """Send every message whose time has come; return how many tried or dropped.

    A summary once it has waited ALERT_SUMMARY_WAIT seconds for more problems to join it; each as
    its problems are now and once their calls have settled (settle.py)."""
    messages = store.claim_due(
        utc_now(),
        utc_now(hours_ago=-LEASE_S / 3600),
        summaries_before=utc_now(hours_ago=settings.get("ALERT_SUMMARY_WAIT", 0) / 3600),
    )
    done = 0
    for message in messages:
        decision = _settled(store, message, settings)
        if decision.action == "wait":
            store.postpone_message(message["id"], settle.RECHECK_S)
            continue
        done += 1
        if decision.action == "drop":
            store.drop_message(message, decision.reason)
            continue
        message = {**message, "data": decision.data}
        try:
            outcome = attempt(message, settings)
        # one bad message must not stop the others; the log names no URL
        except Exception as error:
            log.error(
                "alert message %s of rule %s: %s",
                message["id"],
                message["rule_id"],
                type(error).__name__,
            )
            outcome = {
                "ok": False,
                "status": None,
                "latency_ms": None,
                "error": f"failed: {type(error).__name__}",
            }
        store.record_attempt(message, outcome)
        _count(outcome)
    return done


def _settled(store: Store, message: dict, settings: dict) -> settle.Decision:
    """Read the message's problems as they are now and let the policy say.

    Send (rebuilt), wait or drop."""
    numbers = settle.problem_numbers(message)
    if not numbers:
        return settle.Decision("send", message["data"])
    single = None if message["data"].get("summary") else message["type"]
    now, unsettled = store.alert_problems_now(numbers, single)
    # the state a person reads
    now = {number: shown(problem) for number, problem in now.items()}
    return settle.decide(
        message,
        now,
        unsettled,
        seconds_between(message["created_at"], utc_now()),
        settings.get("ALERT_SETTLE_S", settle.SETTLE_S),
    )


def _count(outcome: dict) -> None:
    """Count the attempt in /metrics.

    Imported here: prometheus_client is imported in workers only."""
    from .counters import record_delivery

    record_delivery(outcome)


def attempt(message: dict, settings: dict) -> dict:
    """Make one delivery attempt; say whether it worked and when to try again."""
    outcome = send_once(message, settings)
    if outcome.pop("retryable"):
        return schedule_retry(message, outcome, outcome.pop("retry_after"))
    outcome.pop("retry_after")
    return outcome


def send_once(message: dict, settings: dict) -> dict:
    """Post a message once.

    {ok, status, latency_ms, error, retryable, retry_after}."""
    data, facts = as_sent(message["data"], settings)
    event_type = EVENT_TYPES.get(message["type"], message["type"])
    if message["format"] == "slack":
        body, headers = slack_body(event_type, data, facts), {"content-type": "application/json"}
    else:
        body = webhook_body(event_type, message["created_at"], data)
        headers = signed_headers(message["secret"], message["id"], int(time.time()), body)
    started = time.perf_counter()
    outcome = {
        "ok": False,
        "status": None,
        "latency_ms": None,
        "error": None,
        "retryable": False,
        "retry_after": None,
    }
    try:
        status, retry_after = post_checked(message["url"], body, headers, settings)
    except (UrlRefused, httpx.InvalidURL) as error:
        return {**outcome, "error": scrub(f"refused: {error}", message)}
    except httpx.HTTPError as error:
        said = scrub(f"{type(error).__name__}: {error}", message)
        return {**outcome, "latency_ms": _ms(started), "error": said, "retryable": True}
    outcome.update(status=status, latency_ms=_ms(started), ok=200 <= status < 300)
    if status == 429 or status == 408 or status >= 500:
        outcome.update(error=f"HTTP {status}", retryable=True, retry_after=retry_after)
    elif not outcome["ok"]:
        outcome["error"] = f"HTTP {status}: not retried"
    return outcome


def test_delivery(store: Store, rule_id: int, settings: dict) -> dict:
    """Send a signed test message to a rule's URL once, now, outside the outbox.

    Say what came back."""
    rule = store.get_rule(rule_id)
    stamp = utc_now()
    message = {
        "id": "msg_test_" + stamp.replace(":", "").replace(".", "").replace("-", ""),
        "rule_id": rule_id,
        "type": TEST_TYPE,
        "created_at": stamp,
        "url": rule["url"],
        "format": rule["format"],
        "secret_parts": rule["secret_parts"],
        "secret": store.rule_secret(rule_id),
        "data": {
            "id": "TD-TEST",
            "title": "a test message from tracediff",
            "tool": "exampleTool",
            "calls": 1,
            "permalink_path": "/",
        },
    }
    outcome = send_once(message, settings)
    if outcome["error"] and outcome["status"]:
        # one test send: nothing is retried, so say no more
        outcome["error"] = f"HTTP {outcome['status']}"
    return {key: outcome[key] for key in ("ok", "status", "latency_ms", "error")}


def describe(outcome: dict) -> str:
    """Say in one line what a test send did.

    "delivered: HTTP 200 in 12.5 ms" or "failed: ..."."""
    took = f" in {outcome['latency_ms']} ms" if outcome.get("latency_ms") is not None else ""
    if outcome["ok"]:
        return f"delivered: HTTP {outcome['status']}{took}"
    return f"failed: {outcome['error']}{took}"


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


class Sender(StoreLoop):
    """Deliver the outbox in the background, until stopped."""

    idle_seconds = IDLE_S
    failure = "alert delivery failed"

    def __init__(self, settings: dict):
        super().__init__("tracediff-alerts", settings)

    def turn(self, store: Store) -> int:
        return deliver_due(store, self.settings)


def init_app(app) -> None:
    """Start the sender thread of this process where the analyser runs."""
    if app.config["ANALYZER"] == "background" and not app.testing:
        thread = Sender(dict(app.config))
        app.extensions["tracediff.alerts"] = thread
        thread.start()
