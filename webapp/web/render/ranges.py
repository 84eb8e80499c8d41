"""The window a page's trend or strip shows, said in words, and quick links.

The quick links set one (1 h ... 7 d)."""

from flask import url_for

from ...problems.windows import QUICK, Window, asked_window, fitting_window
from ..filters import absolute_time


def shown_window(
    since: str, until: str, oldest: str | None, newest: str | None, max_days: int = 7
) -> dict:
    """Return the window to draw.

    The range asked for (since/until as typed), else the one that fits the data.

    `since` and `until` of the answer are stored-form times; `words` says which window it is and
    `fitted` whether it was chosen for the data (no range asked)."""
    if since or until:
        return {
            "since": absolute_time(since),
            "until": absolute_time(until),
            "words": asked_window(since, until),
            "fitted": False,
        }
    window: Window = fitting_window(oldest, newest, max_days=max_days)
    return {"since": window.since, "until": window.until, "words": window.words, "fitted": True}


def quick_links(endpoint: str, asked: tuple[str, str], args: dict) -> list[dict]:
    """Return the quick links (1 h, 6 h, 24 h, 7 d) of a page.

    Its other `args` kept, since set, until dropped.

    `asked` is the (since, until) the page was given, so the link to the window shown is marked
    current."""
    kept = {
        name: value
        for name, value in args.items()
        if value not in (None, "") and name not in ("since", "until")
    }
    return [
        {
            "label": label,
            "href": url_for(endpoint, **kept, since=value),
            "current": asked == (value, ""),
        }
        for label, value in QUICK
    ]
