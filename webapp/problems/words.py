"""Counts in words: "1 call", "3 calls" (pure)."""


def counted(number: int, noun: str) -> str:
    """Return a count with its noun, singular for exactly one: counted(1, "call") -> "1 call"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
