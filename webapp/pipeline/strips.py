"""Problems' strips from the store.

The counts a layout needs, in its bars (see timeline.py)."""

from ..problems.timeline import BARS, drawn, layout, too_many_for_fine


def strips(store, numbers: list[int], since: str, until: str, bars: int = BARS) -> dict[int, dict]:
    """Return {problem number: strip} over exactly since..until.

    Each strip has its bars and `hours` ({hour key: occurrences}). Only occurrences inside the range
    count: whole hours come from the hourly rollup, a short range and the partial hours at its ends
    from the calls' own times."""
    plan = layout(since, until, bars)
    if plan.fine and too_many_for_fine(store.problems_hourly(numbers, since, until)):
        plan = layout(since, until, bars, fine=False)
    hours, ranges, width = plan.reads()
    counts: dict[int, dict[str, int]] = {n: {} for n in numbers}
    if hours and numbers:
        for number, found in store.problems_hourly(numbers, *hours).items():
            counts[number].update(found)
    for start, end in ranges if numbers else ():
        for number, found in store.problems_counts(numbers, start, end, width).items():
            for key, count in found.items():
                counts[number][key] = counts[number].get(key, 0) + count
    return {n: drawn(found, plan) for n, found in counts.items()}


def strip(store, number: int, since: str, until: str, bars: int = BARS) -> dict:
    """Return one problem's strip (see strips)."""
    return strips(store, [number], since, until, bars)[number]
