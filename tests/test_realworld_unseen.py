"""The real-layer corpus' unseen parts: well formed, no worse than last measured.

Tools of five public projects (Cloudflare, Discord, Elasticsearch, HubSpot, Telegram) rebuilt
after the analysis was tuned (issue 32: "the same holds on real layers you have not seen"). Their
figures were first measured before any change made for them (docs/quality.md, "Unseen layers"), then
after the general fixes for their causes; the bounds below are the later figures, so a change that
makes them worse fails, one that makes them better passes (then tighten the bounds). The misses
each have a cause written in docs/quality.md. The second unseen part (`realworld.UNSEEN2`, rebuilt
after the first was fixed for) is checked the same way, with bounds of its own, and so is the third
(`realworld.UNSEEN3`: monday.com, PayPal, Twilio), whose bounds are its figures measured before any
change made for it (docs/quality.md, "Third unseen part"), and the fourth (`realworld.UNSEEN4`:
Brave Search, Jira, Trello), rebuilt while the third was being fixed for, whose bounds are its first
figures (docs/quality.md, "Fourth unseen part").
"""

import random
import re

import jsonschema
import orjson
import pytest

from tests import realworld

# the bench's default traffic (bench/realworld.py --part unseen, --part unseen-2)
SEED, PER_TOOL, PER_BUG = 32, 36, 3
# first measured on the code of 2026-12-07 before any change for these layers (45 loud alone and
# with history, 107 found), then after the general fixes for their causes (docs/quality.md, "Unseen
# layers, after the changes made for them")
ALONE_NOISY_AT_MOST = 0
ALONE_SINGLE_FOUND_AT_LEAST = 30
HISTORY_NOISY_AT_MOST = 0
# 123 measured (117 before the constants rule, webapp/inference/constants.py); one bug's 3 calls
# were seen to flip with the same calls and batches (docs/quality.md, "Unseen layers"), so the
# bound leaves them room
HISTORY_FOUND_AT_LEAST = 120
# part -> its tools and the bounds: alone noisy at most, single found at least, with history noisy
# at most, found at least (None: the part has no figures measured yet)
PARTS = {
    "unseen": (
        realworld.UNSEEN_TOOLS,
        (
            ALONE_NOISY_AT_MOST,
            ALONE_SINGLE_FOUND_AT_LEAST,
            HISTORY_NOISY_AT_MOST,
            HISTORY_FOUND_AT_LEAST,
        ),
    ),
    # measured after the general fixes for it (docs/quality.md, "Second unseen part"): 103 loud
    # alone, 27 of 27 found; with history 43 loud, 155 found since a normalisation, a constant
    # beside a kept argument and the words of the way back are learnt (it was 105 and 152), with
    # room for the 3 calls of one bug that flip with arrival order; 25 loud alone and 23 with
    # history since an id normalised, a name looked up, a word written on the way back and an
    # argument the result names are info one call at a time (issue 32, item 2); 5 alone and 2
    # with history since a list joined through one field of its items is paired and learnt
    "unseen 2": (realworld.UNSEEN2_TOOLS, (5, 27, 5, 152)),
    # first measured before any change made for it (docs/quality.md, "Third unseen part"): 169
    # loud alone, 6 of 6 found; with history 170 loud, 89 found, with room for the 3 calls of one
    # bug that flip with arrival order; 144 loud alone, 92 with history and 100 found since a
    # learnt type conversion reaches the analysis, a key sent twice alike is read once, a composed
    # text is no id's partner by elimination and a result value the model gave is an echo; 73
    # with history since a path segment every call sent alike is no elimination partner; 83
    # alone and 65 with history since a GraphQL variable declared ID or String takes text; 47
    # alone and 8 with history since a partner that always agreed outdoes a contradicted rival, an
    # item's leaf computed with is learnt consumed, a list of one is a wrapper whose places are
    # learnt and a request holding no number reads its numbers as text; 29 alone since a dated
    # URL path segment (an API version) is no elimination partner of a text not read as its day;
    # 8 alone since a required argument an equal one or two siblings' product explains is info
    "unseen 3": (realworld.UNSEEN3_TOOLS, (8, 6, 8, 106)),
    # first measured before any change made for it (docs/quality.md, "Fourth unseen part"): 76
    # loud alone, 18 of 18 found; with history 58 loud, 137 found; 3 loud alone and with history,
    # 146 found (147 since a value sent where earlier calls sent an object is a type change),
    # since a text rendered as a document is its content converted, a secret is no
    # argument's place, a word echoed as a number is the server's, "nothing found" on an empty
    # success is the layer's, errorMessages tells an error and a conversion history never made
    # departs from it
    "unseen 4": (realworld.UNSEEN4_TOOLS, (3, 18, 3, 147)),
}


def _measured(part: str) -> tuple:
    """The part's tools and bounds (the test skipped while the part has none measured)."""
    tools, bounds = PARTS[part]
    if not tools or bounds is None:
        pytest.skip(f"the {part} part has no tools or no figures measured yet")
    return tools, bounds


@pytest.fixture(scope="module")
def traffic():
    from bench import realworld as bench

    made = {}
    return lambda part: made.setdefault(
        part, bench.traffic(SEED, PER_TOOL, PER_BUG, PARTS[part][0])
    )


@pytest.mark.parametrize(
    "tool",
    realworld.UNSEEN_TOOLS
    + realworld.UNSEEN2_TOOLS
    + realworld.UNSEEN3_TOOLS
    + realworld.UNSEEN4_TOOLS,
    ids=lambda t: t.name,
)
def test_correct_calls_fit_the_tools_own_schema_and_every_bug_applies(tool):
    jsonschema.Draft202012Validator.check_schema(tool.schema)
    validator = jsonschema.Draft202012Validator(tool.schema)
    rng = random.Random(7)
    for _ in range(60):
        call = realworld.correct_call(tool, rng)
        errors = [e.message for e in validator.iter_errors(call["arguments"])]
        assert not errors, (call["arguments"], errors)
        assert realworld.snapshots(call)["request"]["http"]["url"].startswith("https://")
        orjson.dumps(realworld.snapshots(call))
    assert tool.bugs and tool.errors
    assert re.fullmatch(r"[0-9a-f]{40}", tool.source.commit) and "/" in tool.source.repo
    correct = realworld.snapshots(realworld.correct_call(tool, random.Random(0)))
    for bug in tool.bugs:
        call = realworld.buggy_call(tool, bug, random.Random(11))
        assert call is not None, f"{tool.name}: {bug.kind} never applies"
        assert realworld.snapshots(call) != correct


def test_the_unseen_part_stands_apart_from_the_tuned_and_held_out_ones():
    assert len(realworld.UNSEEN) >= 4 and len(realworld.UNSEEN_TOOLS) >= 8
    assert not set(realworld.UNSEEN) & set(realworld.PROJECTS)
    assert not {t.name for t in realworld.UNSEEN_TOOLS} & {t.name for t in realworld.TOOLS}
    names = [t.name for t in realworld.UNSEEN_TOOLS]
    assert len(set(names)) == len(names)


def test_the_second_unseen_part_stands_apart_from_every_other_part():
    earlier = realworld.TOOLS + realworld.UNSEEN_TOOLS
    assert not set(realworld.UNSEEN2) & {t.project for t in earlier}
    names = [t.name for t in realworld.UNSEEN2_TOOLS]
    assert len(set(names)) == len(names)
    assert not set(names) & {t.name for t in earlier}
    assert realworld.ALL_TOOLS[: len(earlier) + len(names)] == earlier + realworld.UNSEEN2_TOOLS


def test_the_third_unseen_part_stands_apart_from_every_other_part():
    earlier = realworld.TOOLS + realworld.UNSEEN_TOOLS + realworld.UNSEEN2_TOOLS
    assert len(realworld.UNSEEN3) >= 3 and len(realworld.UNSEEN3_TOOLS) >= 6
    assert not set(realworld.UNSEEN3) & {t.project for t in earlier}
    names = [t.name for t in realworld.UNSEEN3_TOOLS]
    assert len(set(names)) == len(names)
    assert not set(names) & {t.name for t in earlier}
    assert realworld.ALL_TOOLS[: len(earlier) + len(names)] == earlier + realworld.UNSEEN3_TOOLS


def test_the_fourth_unseen_part_stands_apart_from_every_other_part():
    earlier = (
        realworld.TOOLS + realworld.UNSEEN_TOOLS + realworld.UNSEEN2_TOOLS + realworld.UNSEEN3_TOOLS
    )
    assert len(realworld.UNSEEN4) >= 3 and len(realworld.UNSEEN4_TOOLS) >= 8
    assert not set(realworld.UNSEEN4) & {t.project for t in earlier}
    names = [t.name for t in realworld.UNSEEN4_TOOLS]
    assert len(set(names)) == len(names)
    assert not set(names) & {t.name for t in earlier}
    assert realworld.ALL_TOOLS == earlier + realworld.UNSEEN4_TOOLS


def test_the_third_unseen_part_leaves_the_other_parts_traffic_as_it_was():
    from bench import realworld as bench

    earlier = realworld.TOOLS + realworld.UNSEEN_TOOLS + realworld.UNSEEN2_TOOLS
    before = bench.traffic(5, 4, 1, earlier)
    mixed = bench.traffic(5, 4, 1, earlier + realworld.UNSEEN3_TOOLS)
    assert [realworld.snapshots(c) for c in mixed[: len(before)]] == [
        realworld.snapshots(c) for c in before
    ]
    assert [c["index"] for c in mixed] == list(range(len(mixed)))
    assert {c["project"] for c in mixed[len(before) :]} == set(realworld.UNSEEN3)
    alone = bench.traffic(5, 4, 1, realworld.UNSEEN3_TOOLS)
    assert [realworld.snapshots(c) for c in mixed[len(before) :]] == [
        realworld.snapshots(c) for c in alone
    ]


def test_the_fourth_unseen_part_leaves_the_other_parts_traffic_as_it_was():
    from bench import realworld as bench

    earlier = (
        realworld.TOOLS + realworld.UNSEEN_TOOLS + realworld.UNSEEN2_TOOLS + realworld.UNSEEN3_TOOLS
    )
    before = bench.traffic(5, 4, 1, earlier)
    mixed = bench.traffic(5, 4, 1, realworld.ALL_TOOLS)
    assert [realworld.snapshots(c) for c in mixed[: len(before)]] == [
        realworld.snapshots(c) for c in before
    ]
    assert [c["index"] for c in mixed] == list(range(len(mixed)))
    assert {c["project"] for c in mixed[len(before) :]} == set(realworld.UNSEEN4)
    alone = bench.traffic(5, 4, 1, realworld.UNSEEN4_TOOLS)
    assert [realworld.snapshots(c) for c in mixed[len(before) :]] == [
        realworld.snapshots(c) for c in alone
    ]


def test_the_unseen_tools_leave_the_corpus_traffic_as_it_was():
    from bench import realworld as bench

    alone = realworld.generate(5, 4, 1)
    mixed = bench.traffic(5, 4, 1, realworld.TOOLS + realworld.UNSEEN_TOOLS)
    assert [realworld.snapshots(c) for c in mixed[: len(alone)]] == [
        realworld.snapshots(c) for c in alone
    ]
    indices = [c["index"] for c in mixed]
    assert indices == list(range(len(mixed)))
    assert {c["project"] for c in mixed[len(alone) :]} == set(realworld.UNSEEN)


def test_the_second_unseen_part_leaves_the_other_parts_traffic_as_it_was():
    from bench import realworld as bench

    before = bench.traffic(5, 4, 1, realworld.TOOLS + realworld.UNSEEN_TOOLS)
    mixed = bench.traffic(
        5, 4, 1, realworld.TOOLS + realworld.UNSEEN_TOOLS + realworld.UNSEEN2_TOOLS
    )
    assert [realworld.snapshots(c) for c in mixed[: len(before)]] == [
        realworld.snapshots(c) for c in before
    ]
    assert [c["index"] for c in mixed] == list(range(len(mixed)))
    assert {c["project"] for c in mixed[len(before) :]} == set(realworld.UNSEEN2)
    alone = bench.traffic(5, 4, 1, realworld.UNSEEN2_TOOLS)
    assert [realworld.snapshots(c) for c in mixed[len(before) :]] == [
        realworld.snapshots(c) for c in alone
    ]


@pytest.mark.parametrize("part", PARTS)
def test_one_call_at_a_time_no_worse_than_last_measured(part, traffic):
    from bench import realworld as bench

    tools, (noisy, found, _, _) = _measured(part)
    figures = bench.score(bench.one_at_a_time(traffic(part), tools), single_only=True)
    assert figures["correct"] == len(tools) * PER_TOOL
    assert figures["noisy"] <= noisy, figures["noise"].most_common(8)
    assert figures["flagged"] >= found, [(c["tool"], c["bug"]) for c, _ in figures["missed"]]


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS)
def test_with_history_through_a_real_server_no_worse_than_last_measured(part, traffic):
    from bench import realworld as bench

    tools, (_, _, noisy, found) = _measured(part)
    figures = bench.score(bench.through_a_server(traffic(part), tools))
    assert figures["noisy"] <= noisy, figures["noise"].most_common(8)
    assert figures["flagged"] >= found, [
        (c["tool"], c["bug"]["kind"]) for c, _ in figures["missed"]
    ]
