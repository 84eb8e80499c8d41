"""A corpus of real mapping layers.

Tools rebuilt from public projects' code, their correct calls and bugs.

Each module rebuilds a few tools of one public project exactly as its code builds requests, reads
the vendor's answers and hands a result back (the repository, file and commit read are in each
module's docstring and each tool's `source`). `generate` turns them into traffic: correct calls with
the argument values a model sends (some answered by the vendor's errors), then bugs planted one per
call, each naming the place tracediff should flag. The projects are split once, by name: `HELD_OUT`
is never looked at while tuning the analysis; `TUNED` is the rest (issue 32, item 6). `UNSEEN_TOOLS`
(projects `UNSEEN`) were rebuilt after the analysis was tuned, to measure it on layers it never
met: they are neither tuned on nor part of `TOOLS`, so adding them leaves its traffic as it was.
`UNSEEN2_TOOLS` (projects `UNSEEN2`) are a second such part, rebuilt after the first unseen part's
fixes and generated apart from both, so neither of the other parts' traffic moves. `UNSEEN3_TOOLS`
(projects `UNSEEN3`) are a third, rebuilt while the second was being fixed for, measured before any
change made for them and generated apart from all three. `UNSEEN4_TOOLS` (projects `UNSEEN4`) are a
fourth, rebuilt while the third was being fixed for, measured before any change made for them and
generated apart from all four.
"""

import random

from . import (
    airtable,
    asana,
    brave,
    cloudflare,
    discord,
    elasticsearch,
    figma,
    github,
    gitlab,
    google_calendar,
    hubspot,
    intercom,
    jira,
    linear,
    monday,
    notion,
    pagerduty,
    paypal,
    sentry,
    shopify,
    slack,
    square,
    stripe,
    supabase,
    telegram,
    todoist,
    trello,
    twilio,
    zendesk,
)
from .model import Bug, Tool, copied

MODULES = [
    slack,
    gitlab,
    github,
    stripe,
    asana,
    airtable,
    todoist,
    notion,
    linear,
    supabase,
    shopify,
    pagerduty,
]
TOOLS: list[Tool] = [tool for module in MODULES for tool in module.TOOLS]
PROJECTS = sorted({tool.project for tool in TOOLS})
# A third of the projects, fixed: tune on the others, report these apart.
HELD_OUT = ("airtable", "gitlab", "pagerduty", "shopify")
TUNED = tuple(p for p in PROJECTS if p not in HELD_OUT)
# Rebuilt after the tuning, and measured before any change made for them (neither tuned nor held out).
UNSEEN_MODULES = [cloudflare, discord, elasticsearch, hubspot, telegram]
UNSEEN_TOOLS: list[Tool] = [tool for module in UNSEEN_MODULES for tool in module.TOOLS]
UNSEEN = tuple(sorted({tool.project for tool in UNSEEN_TOOLS}))
# Rebuilt after the first unseen part was fixed for, and measured before any change made for them.
UNSEEN2_MODULES: list = [figma, google_calendar, sentry, intercom, square, zendesk]
UNSEEN2_TOOLS: list[Tool] = [tool for module in UNSEEN2_MODULES for tool in module.TOOLS]
UNSEEN2 = tuple(sorted({tool.project for tool in UNSEEN2_TOOLS}))
# Rebuilt while the second unseen part was fixed for, and measured before any change made for them.
UNSEEN3_MODULES: list = [monday, paypal, twilio]
UNSEEN3_TOOLS: list[Tool] = [tool for module in UNSEEN3_MODULES for tool in module.TOOLS]
UNSEEN3 = tuple(sorted({tool.project for tool in UNSEEN3_TOOLS}))
# Rebuilt while the third unseen part was fixed for, and measured before any change made for them.
UNSEEN4_MODULES: list = [brave, jira, trello]
UNSEEN4_TOOLS: list[Tool] = [tool for module in UNSEEN4_MODULES for tool in module.TOOLS]
UNSEEN4 = tuple(sorted({tool.project for tool in UNSEEN4_TOOLS}))
# every part's tools, the corpus' first
ALL_TOOLS: list[Tool] = TOOLS + UNSEEN_TOOLS + UNSEEN2_TOOLS + UNSEEN3_TOOLS + UNSEEN4_TOOLS
# correct calls the vendor answers with an error
ERROR_SHARE = 0.12


def by_name() -> dict:
    return {tool.name: tool for tool in TOOLS}


def correct_call(tool: Tool, rng: random.Random, error: bool | None = None) -> dict:
    """One correct call: arguments, the request the code builds, the vendor's answer and the
    result."""
    args = tool.args(rng)
    wire = tool.request(args)
    failing = rng.random() < ERROR_SHARE if error is None else error
    answer = (
        rng.choice(tool.errors)(args, rng) if failing and tool.errors else tool.response(args, rng)
    )
    return {
        "tool": tool.name,
        "project": tool.project,
        "arguments": args,
        "wire": wire,
        "answer": answer,
        "result": tool.result(args, answer),
        "rebuild_result": lambda answer, _t=tool, _a=args: _t.result(_a, answer),
        "bug": None,
    }


def buggy_call(tool: Tool, bug: Bug, rng: random.Random) -> dict | None:
    """A call with `bug` planted, on arguments it applies to (None when none of 200 tries fit)."""
    for _ in range(200):
        call = copied(correct_call(tool, rng, error=bug.error))
        if bug.arguments and bug.arguments.strip("/").split("/")[0] not in call["arguments"]:
            continue
        if bug.plant(call):
            call["bug"] = {
                "kind": bug.kind,
                "arguments": bug.arguments,
                "request": bug.request,
                "response": bug.response,
                "single": bug.single,
            }
            return call
    return None


def generate(
    seed: int = 32, per_tool: int = 36, per_bug: int = 3, tools: list[Tool] | None = None
) -> list[dict]:
    """The traffic: two thirds of the correct calls first (the history), then the rest mixed with
    the bugs.

    Each call gets an `index` (its order of arrival) and a `release`: 1 for the history, 2 after
    it."""
    rng = random.Random(seed)
    tools = TOOLS if tools is None else tools
    first, later = [], []
    for tool in tools:
        calls = [correct_call(tool, rng) for _ in range(per_tool)]
        cut = per_tool * 2 // 3
        first += calls[:cut]
        later += calls[cut:]
        for bug in tool.bugs:
            for _ in range(per_bug):
                call = buggy_call(tool, bug, rng)
                if call is not None:
                    later.append(call)
    rng.shuffle(first)
    rng.shuffle(later)
    out = first + later
    for index, call in enumerate(out):
        call["index"] = index
        call["release"] = "2026.11.1" if index < len(first) else "2026.11.2"
    return out


def snapshots(call: dict) -> dict:
    """The call's four snapshots as `tracediff check` and the analysis take them."""
    wire, answer = call["wire"], call["answer"]
    return {
        "arguments": {"payload": call["arguments"], "http": None},
        "request": {"payload": wire.payload(), "http": wire.http()},
        "response": {
            "payload": answer.body,
            "http": {"status_code": answer.status, "headers": answer.headers},
        },
        "result": {"payload": call["result"], "http": None},
    }


def definitions(tools: list[Tool] | None = None) -> list[dict]:
    """The tools lists the projects' servers publish (MCP `tools/list` entries)."""
    return [tool.definition() for tool in (TOOLS if tools is None else tools)]
