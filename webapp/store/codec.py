"""How the store writes JSON and times as text."""

from ..common import jsontext, times
from ..common.jsontext import paused_collector


def dumps(value) -> str:
    return jsontext.dumps(value).decode()


BIG_TEXT = 100_000


def loads(text):
    if text is None:
        return None
    if len(text) < BIG_TEXT:
        return jsontext.loads(text)
    # JSON builds no reference cycles, and the collector's passes over a deeply nested document
    # being built cost more than the parse itself (a 1 MB document of 60-level chains: 0.5-2.8 s
    # instead of 0.09 s), so it waits until the document is built.
    with paused_collector():
        return jsontext.loads(text)


def utc_now(hours_ago: float = 0) -> str:
    """Return the time now (or some hours ago) as the store writes times.

    webapp/common/times.py."""
    return times.now(hours_ago)
