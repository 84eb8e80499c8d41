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


# the stage pairs `tracediff tools map` declares: (dropped's stage, added's stage) -> its option
_DECLARED_BY = {("arguments", "request"): (), ("response", "result"): ("--result",)}


def map_command(tool: str | None, pairs, stages=("arguments", "request")) -> str:
    """Return the `tracediff tools map` command that declares these pairs.

    (argument, request) pairs; (response, result) ones with `stages` ("response", "result")."""
    words = ["tracediff", "tools", "map", tool or "TOOL", *_DECLARED_BY[tuple(stages)]]
    words += [f"{cli_name(a)}={cli_name(r)}" for a, r in pairs]
    return " ".join(shlex.quote(w) for w in words)


def rename_guesses(findings: list[dict]) -> dict[int, list[str]]:
    """Return {index of a dropped finding: added next-stage paths, likeliest first}.

    An argument's counterpart is a request field, a response field's a result field."""
    added = {}
    for f in findings:
        if f["kind"] == "added" and f.get("right") and "occurrences" not in f:
            at = f["right"]
            added.setdefault(at.get("snapshot"), []).append((at["path"], f.get("right_value")))
    out = {}
    for index, f in enumerate(findings):
        if (
            f["kind"] == "dropped"
            and f.get("left")
            and f["left"]["path"]
            and "occurrences" not in f
            and (candidates := added.get(next_stage(f["left"].get("snapshot"))))
        ):
            path, value = f["left"]["path"], f.get("left_value")
            out[index] = [
                p for p, _ in sorted(candidates, key=lambda item: _distance(path, value, *item))
            ]
    return out


def next_stage(stage: str | None) -> str | None:
    """Return the stage a dropped field of `stage` may have gone to, or None."""
    return next((right for left, right in _DECLARED_BY if left == stage), None)


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
        stages = (f["left"]["snapshot"], next_stage(f["left"]["snapshot"]))
        command = map_command(tool, [(f["left"]["path"], guesses[0])], stages)
        # a body pointer without its slash, a located path (`query:/startCursor`) whole
        shown = guesses[0][1:] if guesses[0].startswith("/") else guesses[0]
        f["message"] += f"; if it became {shown}, declare the pair: {command}"
    return findings
