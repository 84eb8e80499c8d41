"""The real-layer corpus' unseen part: well formed, no worse than last measured.

Tools of five public projects (Cloudflare, Discord, Elasticsearch, HubSpot, Telegram) rebuilt
after the analysis was tuned (issue 32: "the same holds on real layers you have not seen"). Their
figures were first measured before any change made for them (docs/quality.md, "Unseen layers"), then
after the general fixes for their causes; the bounds below are the later figures, so a change that
makes them worse fails, one that makes them better passes (then tighten the bounds). The misses
each have a cause written in docs/quality.md.
"""

import random
import re

import jsonschema
import orjson
import pytest

from tests import realworld

# the bench's default traffic (bench/realworld.py --part unseen)
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


@pytest.fixture(scope="module")
def calls():
    from bench import realworld as bench

    return bench.traffic(SEED, PER_TOOL, PER_BUG, realworld.UNSEEN_TOOLS)


@pytest.mark.parametrize("tool", realworld.UNSEEN_TOOLS, ids=lambda t: t.name)
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


def test_one_call_at_a_time_no_worse_than_first_measured(calls):
    from bench import realworld as bench

    figures = bench.score(bench.one_at_a_time(calls, realworld.UNSEEN_TOOLS), single_only=True)
    assert figures["correct"] == len(realworld.UNSEEN_TOOLS) * PER_TOOL
    assert figures["noisy"] <= ALONE_NOISY_AT_MOST, figures["noise"].most_common(8)
    assert figures["flagged"] >= ALONE_SINGLE_FOUND_AT_LEAST, [
        (c["tool"], c["bug"]) for c, _ in figures["missed"]
    ]


@pytest.mark.slow
def test_with_history_through_a_real_server_no_worse_than_first_measured(calls):
    from bench import realworld as bench

    figures = bench.score(bench.through_a_server(calls, realworld.UNSEEN_TOOLS))
    assert figures["noisy"] <= HISTORY_NOISY_AT_MOST, figures["noise"].most_common(8)
    assert figures["flagged"] >= HISTORY_FOUND_AT_LEAST, [
        (c["tool"], c["bug"]["kind"]) for c, _ in figures["missed"]
    ]
