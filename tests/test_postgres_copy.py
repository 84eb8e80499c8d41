"""PostgreSQL only.

`tracediff migrate`'s bulk copy keeps the schema whole, and the facet counts walk indexes."""

from dataclasses import replace

import pytest
from databases import ADMIN_URL
from test_store_listing import bulk_traces

from webapp.store import Store, stats
from webapp.store.copy import copy_database
from webapp.store.filters import TraceQuery

pytestmark = pytest.mark.skipif(
    not ADMIN_URL, reason="TRACEDIFF_TEST_POSTGRES names no PostgreSQL server"
)
INDEXES = (
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1"
)


@pytest.fixture
def pg_url(postgres_databases):
    return postgres_databases.fresh()


def test_the_copy_builds_every_index_again_and_leaves_the_tables_vacuumed(pg_url, tmp_path):
    source = Store.open(tmp_path / "source.db")
    bulk_traces(source, 300, word="carried")
    destination = Store.open(pg_url)
    before = destination.db.execute(INDEXES).fetchall()
    copied = copy_database(source, destination)
    assert copied["traces"] == 300 and copied["events"] == 300
    # dropped for the load, all made again
    assert destination.db.execute(INDEXES).fetchall() == before
    vacuumed = destination.db.execute(
        "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() "
        "AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL"
    ).fetchall()
    # a visibility map (index-only scans) and statistics from the first page view on
    assert set(copied) <= {name for (name,) in vacuumed}
    found = destination.db.execute(
        "SELECT count(*) FROM events WHERE words @@ to_tsquery('simple', 'carried')"
    )
    # the search words computed on the way
    assert found.fetchone()[0] == 300
    source.close()
    destination.close()


def test_a_facet_count_past_the_cap_walks_an_index_not_the_traces_table(pg_url):
    store = Store.open(pg_url)
    # each past the cap, as on a big store
    for tool in ("bulkTool", "otherTool"):
        bulk_traces(store, stats.COUNT_CAP + 2000, tool=tool)
    store.db.execute("VACUUM ANALYZE")
    # bulk traces hold only arguments: the common value is a missing request (never clean: nothing
    # compared) 10,001 rows each
    for facet, value in (("tool", "bulkTool"), ("tool", "otherTool"), ("missing", "request")):
        query = replace(TraceQuery(), **{facet: value})
        assert stats.capped_count(store, query) == stats.COUNT_CAP + 1
        sql, params = store.listing.count_sql(query, stats.COUNT_CAP)
        plan = "\n".join(row[0] for row in store.db.execute("EXPLAIN " + sql, params).fetchall())
        assert "Index Only Scan" in plan and "Seq Scan" not in plan and "Sort" not in plan, (
            facet,
            value,
            plan,
        )
    store.close()


def test_a_sqlite_file_behind_the_schema_is_refused_by_the_copy_and_upgraded_first_by_the_command(
    pg_url, tmp_path
):
    from test_cli import run

    path = tmp_path / "behind.db"
    source = Store.open(path)
    # times written straight into the tables in the old form, as before migration 10
    bulk_traces(source, 3)
    source.db.execute("UPDATE traces SET last_ts = substr(last_ts, 1, 19) || 'Z'")
    # as a file of schema 9 is
    source.db.execute("DELETE FROM schema_migrations WHERE version >= 10")
    destination = Store.open(pg_url)
    with pytest.raises(ValueError, match="schema version 9"):
        # its rows would skip migration 10's rewrite
        copy_database(source, destination)
    source.close()
    destination.close()
    result = run("migrate", "--to", pg_url, "--db", str(path))
    assert result.exit_code == 0, result.output
    destination = Store.open(pg_url)
    stored = [row[0] for row in destination.db.execute("SELECT last_ts FROM traces")]
    assert len(stored) == 3 and all(len(ts) == 27 for ts in stored)
    destination.close()
