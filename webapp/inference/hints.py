"""Say where a dropped argument may be a rename the analysis could not pair.

A dropped argument beside an added request field: say so in the finding, with the command that
declares it."""

import shlex

from ..analysis import norm_key, type_name
from ..common.pointers import last, tokens
from .relations import relation


def cli_name(path: str) -> str:
    """Write a pointer as `tracediff tools map` reads it.

    A plain name for a top-level key."""
    parts = tokens(path)
    if (
        len(parts) == 1
        and parts[0]
        and not any(c in parts[0] for c in "=/~")
        and not parts[0].startswith("-")
    ):
        return parts[0]
    return path


def map_command(tool: str | None, pairs) -> str:
    """Return the `tracediff tools map` command that declares these pairs.

    (argument, request) pairs."""
    words = ["tracediff", "tools", "map", tool or "TOOL"]
    words += [f"{cli_name(a)}={cli_name(r)}" for a, r in pairs]
    return " ".join(shlex.quote(w) for w in words)


def rename_guesses(findings: list[dict]) -> dict[int, list[str]]:
    """Return {index of a dropped finding: added request paths, likeliest first}."""
    added = [
        (f["right"]["path"], f.get("right_value"))
        for f in findings
        if f["kind"] == "added" and f.get("right") and "occurrences" not in f
    ]
    if not added:
        return {}
    out = {}
    for index, f in enumerate(findings):
        if (
            f["kind"] == "dropped"
            and f.get("left")
            and f["left"]["path"]
            and "occurrences" not in f
        ):
            path, value = f["left"]["path"], f.get("left_value")
            out[index] = [
                p for p, _ in sorted(added, key=lambda item: _distance(path, value, *item))
            ]
    return out


def _distance(path, value, other_path, other_value) -> tuple:
    """Rank a counterpart.

    Related values first, then the same type, then shared name letters."""
    related = relation(value, other_value) is not None
    same_type = type_name(value) == type_name(other_value)
    a, b = norm_key(last(path)), norm_key(last(other_path))
    shared = len(set(a) & set(b)) / max(1, len(set(a) | set(b)))
    return (not related, not same_type, -shared, other_path)


def hint_renames(findings: list[dict], tool: str | None) -> list[dict]:
    """Add to dropped findings with a likely counterpart how to declare it.

    How to declare the pair, in place."""
    for index, guesses in rename_guesses(findings).items():
        f = findings[index]
        command = map_command(tool, [(f["left"]["path"], guesses[0])])
        # a body pointer without its slash, a located path (`query:/startCursor`) whole
        shown = guesses[0][1:] if guesses[0].startswith("/") else guesses[0]
        f["message"] += f"; if it became {shown}, declare the pair: {command}"
    return findings
