"""How the store writes JSON and times as text."""
from datetime import datetime, timedelta, timezone

import orjson


def dumps(value) -> str:
    return orjson.dumps(value).decode()


def loads(text):
    return None if text is None else orjson.loads(text)


def utc_now(hours_ago: float = 0) -> str:
    """Return the time now (or some hours ago) as the store writes times."""
    return (datetime.now(timezone.utc) - timedelta(hours=hours_ago)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
