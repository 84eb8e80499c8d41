"""The stages of a tool call, declared once.

Every list of snapshots, fixture file and pair derives from STAGES.

A call's snapshots are its stages, in the order data takes: the model's arguments, the HTTP request
built from them, the server's response, the result handed back to the model. Adding a stage is one
more `Stage` below; ingest accepts its name, the store keeps its current snapshot, the trace page,
its JSON and the fixtures zip show it, and `tracediff check` reads its file (tests/test_stages.py
adds a fifth to prove it). What a stage means to the analysis (its rules) stays with the analysis.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """One snapshot of a call, as events, JSON, URLs and fixtures name it.

    As events, JSON, URLs, columns, pages and fixtures name it."""

    name: str
    label: str
    fixture: str
    # compared with this earlier stage: findings between them are grouped as "before>name"
    after: str | None = None
    # every call is expected to have it: answers and views show it (absent) even when it is missing
    always: bool = True
    # the trace list's three-letter tag
    tag: str = ""
    # a text payload (a body that is not JSON) is its fixture file as sent; else the file holds a
    # JSON string
    raw_text: bool = True


STAGES = (
    Stage("arguments", "the model's arguments", "tool-args.json", tag="arg"),
    Stage("request", "the HTTP request", "http-body.json", after="arguments", tag="req"),
    Stage("response", "the server's response", "http-response.json", after="request", tag="res"),
    Stage(
        "result",
        "the result given to the model",
        "tool-result.json",
        after="response",
        always=False,
        tag="ret",
        raw_text=False,
    ),
)

NAMES = tuple(stage.name for stage in STAGES)
# the stages every call is expected to have (a call is complete with them); the others only when
# logged
CORE = tuple(stage.name for stage in STAGES if stage.always)
PAIRS = tuple((stage.after, stage.name) for stage in STAGES if stage.after)
FIXTURES = {stage.name: stage.fixture for stage in STAGES}
TAGS = {stage.name: stage.tag for stage in STAGES}
LABELS = {stage.name: stage.label for stage in STAGES}
RAW_TEXT = tuple(stage.name for stage in STAGES if stage.raw_text)


def pair_key(left: str, right: str) -> str:
    """Return the name a finding between two stages is grouped under.

    `arguments>request`."""
    return f"{left}>{right}"


def shown(present: set | dict) -> tuple:
    """Return the stages a call's views show.

    The core ones, and each other one in `present`."""
    return tuple(name for name in NAMES if name in CORE or name in present)


def missing(present: set | dict) -> list[str]:
    """Return the core stages a call lacks.

    With one missing there is nothing to compare it with, so the call is never clean, whatever its
    findings say."""
    return [name for name in CORE if name not in present]


def spelt(names=NAMES, last: str = "or") -> str:
    """Return stage names as a sentence says them.

    "arguments, request, response or result"."""
    return f"{', '.join(names[:-1])} {last} {names[-1]}" if len(names) > 1 else "".join(names)
