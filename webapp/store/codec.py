"""How the store writes JSON and times as text."""
from datetime import datetime, timezone

import orjson


def dumps(value) -> str:
    return orjson.dumps(value).decode()


def loads(text):
    return None if text is None else orjson.loads(text)


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
