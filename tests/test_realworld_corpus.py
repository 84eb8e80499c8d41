"""The real-layer corpus is well formed, and bench/realworld.py runs on it.

On a slice of it (no figures asserted)."""

import random
import re

import jsonschema
import orjson
import pytest

from tests import realworld


@pytest.mark.parametrize("tool", realworld.TOOLS, ids=lambda t: t.name)
def test_correct_calls_fit_the_tools_own_schema(tool):
    jsonschema.Draft202012Validator.check_schema(tool.schema)
    validator = jsonschema.Draft202012Validator(tool.schema)
    rng = random.Random(7)
    for _ in range(60):
        call = realworld.correct_call(tool, rng)
        errors = [e.message for e in validator.iter_errors(call["arguments"])]
        assert not errors, (call["arguments"], errors)
        http = realworld.snapshots(call)["request"]["http"]
        assert http["method"] in ("GET", "POST", "PUT", "PATCH", "DELETE") and http[
            "url"
        ].startswith("https://")
        orjson.dumps(realworld.snapshots(call))


@pytest.mark.parametrize("tool", realworld.TOOLS, ids=lambda t: t.name)
def test_every_bug_applies_and_names_its_place(tool):
    assert tool.bugs and tool.errors
    assert re.fullmatch(r"[0-9a-f]{40}", tool.source.commit) and "/" in tool.source.repo
    rng = random.Random(11)
    for bug in tool.bugs:
        assert bug.arguments or bug.request or bug.response, bug.kind
        call = realworld.buggy_call(tool, bug, rng)
        assert call is not None, f"{tool.name}: {bug.kind} never applies"
        correct = realworld.snapshots(realworld.correct_call(tool, random.Random(0)))
        assert realworld.snapshots(call) != correct
        if bug.arguments:
            head = bug.arguments.strip("/").split("/")[0]
            assert head in call["arguments"], (bug.kind, call["arguments"])


def test_the_corpus_is_deterministic_and_split_by_project():
    first, second = realworld.generate(5, 4, 1), realworld.generate(5, 4, 1)
    assert [realworld.snapshots(c) for c in first] == [realworld.snapshots(c) for c in second]
    assert set(realworld.HELD_OUT) <= set(realworld.PROJECTS)
    assert set(realworld.TUNED) | set(realworld.HELD_OUT) == set(realworld.PROJECTS)
    assert len(realworld.PROJECTS) // 4 <= len(realworld.HELD_OUT) <= len(realworld.PROJECTS) // 2
    assert len(realworld.TOOLS) >= 30 and len(realworld.PROJECTS) >= 12
    assert len({t.name for t in realworld.TOOLS}) == len(realworld.TOOLS)
    releases = [c["release"] for c in first]
    # the history comes first
    assert releases == sorted(releases)
    assert any(
        c["answer"].status >= 400 or c["answer"].body.get("ok") is False
        for c in first
        if isinstance(c["answer"].body, dict)
    )


def test_the_bench_scores_one_call_at_a_time():
    from bench import realworld as bench

    tools = [realworld.TOOLS[0], realworld.TOOLS[-1]]
    text = bench.run(3, 1, 9, tools=tools, server=False)
    assert "(a) one call at a time" in text and "correct calls with a warning or error" in text
    assert "== tuned" in text and "== held out" in text


@pytest.mark.slow
def test_the_bench_runs_through_a_real_server():
    from bench import realworld as bench

    tools = [
        t
        for t in realworld.TOOLS
        if t.name in ("slack_post_message", "list_records", "create_price")
    ]
    text = bench.run(2, 1, 9, tools=tools)
    assert text.count("(b) with history, through a real server") == 2
    assert "bugs flagged at their place" in text
