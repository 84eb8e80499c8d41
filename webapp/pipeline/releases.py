"""Releases as people read them (the page, the API).

The store's facts folded per release, and what one release broke or fixed against another
(webapp/problems/releases.py decides both)."""

from collections import Counter
from datetime import UTC, datetime

from ..problems import releases
from ..problems.states import shown


def list_releases(store) -> list[dict]:
    """Return every release the calls named, newest first seen first.

    With its calls, problems and sources."""
    store.catch_up_for_read()
    found = releases.fold(store.release_calls())
    new = Counter(store.first_releases())
    regressed = store.regressed_by_release()
    for entry in found:
        entry["new_problems"] = int(new.get(entry["release"], 0))
        entry["regressed_problems"] = int(regressed.get(entry["release"], 0))
    return found


def compare_releases(store, base: str, other: str) -> dict:
    """Return the problems `other` broke that `base` did not show, and fixed.

    And those it fixed (see releases.compare), each as the problem list shows it, with its
    occurrences and calls in the release that showed it."""
    store.catch_up_for_read()
    verdict = releases.compare(
        store.seen_in_release(base), store.seen_in_release(other), store.release_tool_calls(other)
    )
    now = datetime.now(UTC)
    return {
        name: [shown(p, now) for p in store.problems_with(entries)]
        for name, entries in verdict.items()
    }
