"""The messages alerts send: a Standard Webhooks JSON body with its signature, or a Slack message."""
import base64
import hashlib
import hmac

import orjson

from .wording import problem_line


def webhook_body(event_type: str, timestamp: str, data: dict) -> bytes:
    """Return the JSON body of a generic webhook: {"type", "timestamp", "data"}."""
    return orjson.dumps({"type": event_type, "timestamp": timestamp, "data": data})


def signature(secret: str, message_id: str, unix_time: int, body: bytes) -> str:
    """Sign as the Standard Webhooks specification says: v1,base64(HMAC-SHA256(id.timestamp.body))."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{unix_time}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def signed_headers(secret: str, message_id: str, unix_time: int, body: bytes) -> dict:
    """Return the headers of a signed delivery."""
    return {"content-type": "application/json", "webhook-id": message_id,
            "webhook-timestamp": str(unix_time), "webhook-signature": signature(secret, message_id, unix_time, body)}


def summary(event_type: str, data: dict, facts: dict | None = None) -> str:
    """Say in one line what broke and how often (`facts`: the counts the message was written with)."""
    if event_type == "ingest.rejected":
        return (f"tracediff rejected {data.get('count', 0)} record(s) in the last {data.get('window_s', 0) // 60} min"
                f" from {data.get('source') or 'a shipper'}: {data.get('message', '')}").strip()
    if data.get("summary"):
        count, how = data.get("count", 0), "found by a re-analysis" if data.get("reanalysis") else "opened at once"
        what = f"{data['tool']} problem" if data.get("tool") else "problem"
        return f"tracediff: {count} new {what}{'s' * (count != 1)} {how}; see {data.get('permalink', '/problems')}"
    return problem_line(event_type, data, facts)


def slack_body(event_type: str, data: dict, facts: dict | None = None) -> bytes:
    """Return a Slack incoming-webhook message: `text`, and `blocks` with a link to the problem."""
    text = _escape(summary(event_type, data, facts))
    link = data.get("permalink")
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
    if link:
        blocks.append({"type": "actions", "elements": [
            {"type": "button", "text": {"type": "plain_text", "text": "Open in tracediff"}, "url": link}]})
    links = data.get("links") or []
    if links:
        blocks.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": "Tickets: " + ", ".join(_escape(str(u)) for u in links[:5])}]})
    return orjson.dumps({"text": text, "blocks": blocks})


def _escape(text: str) -> str:
    # Slack's mrkdwn reads <...> as links and & as an entity: payload data must stay text.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
