"""The per-batch statements find their rows by an index, never a table scan.

The statements the analyser and the ingest run per batch never read a table whole: such a read is
not seen in a small store and costs seconds per batch in a team's (the grouping's `(trace_id,
call_id) IN (VALUES ...)` read 300,000 calls per batch of 100: 642 ms against 1 ms by the key).

SQLite only: its plans do not depend on table sizes, where PostgreSQL's planner scans an empty table
at will."""

import re

import pytest

from webapp.store import Store, exposure, problems, regrouping
from webapp.store.analyses import SAVE_ANALYSIS
from webapp.store.sqlite import sql

BIG_TABLES = (
    "events",
    "calls",
    "problem_calls",
    "problem_checks",
    "traces",
    "trace_tools",
    "trace_kinds",
)
WHOLE_READ = re.compile(rf"SCAN ({'|'.join(BIG_TABLES)})\b(?! USING (COVERING )?INDEX)")
PER_BATCH = {
    "problems.CALL_FACTS": problems.CALL_FACTS,
    "problems.OLD_PARTS": problems.OLD_PARTS,
    "problems.PUT_COUNTS": problems.PUT_COUNTS,
    "problems.SEEN": problems.SEEN,
    "regrouping.MARK_GROUPED": regrouping.MARK_GROUPED,
    "exposure.SET_PATHS": exposure.SET_PATHS,
    "SAVE_ANALYSIS": SAVE_ANALYSIS,
    "sql.CALLS_BY_KEY": sql.CALLS_BY_KEY,
    "sql.HOUR_KEYS": sql.HOUR_KEYS,
    "sql.PROJECT_CALLS": sql.PROJECT_CALLS,
    "sql.DROP_EMPTY_CALLS": sql.DROP_EMPTY_CALLS,
    "sql.REFRESH_TRACE": sql.REFRESH_TRACE,
    "sql.CLAIM_PENDING": sql.CLAIM_PENDING,
}


def plan(store: Store, statement: str) -> list[str]:
    """Return the steps of a statement's query plan, with NULL for every parameter."""
    statement = statement.replace("{keys}", ", ".join(["(?, ?)"] * 3))
    named = re.findall(r"(?<!:):(\w+)", statement)
    numbered = [int(n) for n in re.findall(r"\?(\d+)", statement)]
    params = (
        {name: None for name in named}
        if named
        else [None] * (max(numbered) if numbered else statement.count("?"))
    )
    return [
        row[3] for row in store.db.execute("EXPLAIN QUERY PLAN " + statement, params).fetchall()
    ]


@pytest.mark.parametrize("name", PER_BATCH)
def test_a_per_batch_statement_reads_no_big_table_whole(tmp_path, name):
    store = Store(tmp_path / "plans.db")
    try:
        steps = plan(store, PER_BATCH[name])
    finally:
        store.close()
    assert steps and not [step for step in steps if WHOLE_READ.match(step)], steps


def test_the_check_sees_a_whole_read():
    """The pattern this file guards against, as SQLite plans it: the check would catch its
    return."""
    store = Store(":memory:")
    keys = "SELECT * FROM calls WHERE (trace_id, call_id) IN (VALUES {keys})"
    assert [step for step in plan(store, keys) if WHOLE_READ.match(step)] == ["SCAN calls"]


@pytest.mark.parametrize("name", ["CALLS_BY_RELEASE", "SEEN_IN", "FIRST_RELEASES"])
def test_the_releases_view_reads_calls_and_problem_calls_by_an_index(tmp_path, name):
    """The releases page walks calls_by_release (the calls' wide rows never), and a problem's first
    release is one probe of problem_calls_by_time."""
    from webapp.store import releases

    store = Store(tmp_path / "plans.db")
    try:
        steps = plan(store, getattr(releases, name))
    finally:
        store.close()
    assert steps and not [step for step in steps if WHOLE_READ.match(step)], steps
    if name == "CALLS_BY_RELEASE":
        assert steps == ["SEARCH calls USING COVERING INDEX calls_by_release (release>?)"]
