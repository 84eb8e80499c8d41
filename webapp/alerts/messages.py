"""The messages alerts send.

A Standard Webhooks JSON body with its signature, or a Slack message."""

import base64
import hashlib
import hmac

from ..common import jsontext
from .wording import problem_line


def webhook_body(event_type: str, timestamp: str, data: dict) -> bytes:
    """Return the JSON body of a generic webhook.

    {"type", "timestamp", "data"}."""
    return jsontext.dumps({"type": event_type, "timestamp": timestamp, "data": data})


def signature(secret: str, message_id: str, unix_time: int, body: bytes) -> str:
    """Sign as the Standard Webhooks specification says.

    v1,base64(HMAC-SHA256(id.timestamp.body))."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{unix_time}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def signed_headers(secret: str, message_id: str, unix_time: int, body: bytes) -> dict:
    """Return the headers of a signed delivery."""
    return {
        "content-type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(unix_time),
        "webhook-signature": signature(secret, message_id, unix_time, body),
    }


def summary(event_type: str, data: dict, facts: dict | None = None) -> str:
    """Say in one line what broke and how often.

    `facts`: the counts the message was written with."""
    if event_type == "ingest.rejected":
        return rejected_line(data)
    if event_type == "tracediff.test":
        return "tracediff: a test message for this rule; nothing is wrong"
    if data.get("summary"):
        count, how = (
            data.get("count", 0),
            "found by a re-analysis" if data.get("reanalysis") else "opened at once",
        )
        what = f"{data['tool']} problem" if data.get("tool") else "problem"
        return (
            f"tracediff: {count} new {what}{'s' * (count != 1)} {how}; see "
            f"{data.get('permalink', '/problems')}"
        )
    return problem_line(event_type, data, facts)


def rejected_line(data: dict) -> str:
    """Say how many records were rejected and from which shippers.

    "2 records in the last 10 min: 1 from vector/0.40, 1 from fluent-bit"."""
    count, minutes = data.get("count", 0), data.get("window_s", 0) // 60
    by_source = data.get("sources") or [{"source": data.get("source"), "count": count}]
    shown = [
        f"{each['count']} from {each['source'] or 'an unnamed shipper'}" for each in by_source[:5]
    ]
    if len(by_source) > 5:
        shown.append(
            f"{sum(each['count'] for each in by_source[5:])} from {len(by_source) - 5} other "
            "sources"
        )
    return (
        f"tracediff rejected {count} record{'s' * (count != 1)} in the last {minutes} min: "
        f"{', '.join(shown)}; "
        f"latest: {data.get('message', '')}"
    ).strip()


def slack_body(event_type: str, data: dict, facts: dict | None = None) -> bytes:
    """Return a Slack incoming-webhook message.

    `text`, and `blocks` with a link to the problem."""
    text = _escape(summary(event_type, data, facts))
    link = data.get("permalink")
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
    if link:
        blocks.append(
            {
                "type": "actions",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": "Open in tracediff"},
                        "url": link,
                    }
                ],
            }
        )
    links = data.get("links") or []
    if links:
        blocks.append(
            {
                "type": "context",
                "elements": [
                    {
                        "type": "mrkdwn",
                        "text": "Tickets: " + ", ".join(_escape(str(u)) for u in links[:5]),
                    }
                ],
            }
        )
    return jsontext.dumps({"text": text, "blocks": blocks})


def _escape(text: str) -> str:
    # Slack's mrkdwn reads <...> as links and & as an entity: payload data must stay text.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
