"""Did-you-mean hints.

The declared key or allowed value that a wrong one most likely misspells."""

import difflib

from ..values.json_values import norm_key


def closest(key: str, candidates) -> str | None:
    """Return the candidate a key most likely misspells, or None."""
    candidates = list(candidates)
    same_letters = [c for c in candidates if norm_key(c) == norm_key(key) and c != key]
    if same_letters:
        return same_letters[0]
    match = difflib.get_close_matches(key, candidates, n=1, cutoff=0.75)
    return match[0] if match else None
