"""Numbered migrations.

An old database upgrades in place, each migration runs once, even from two processes."""

import multiprocessing
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest
from conftest import ROOT
from helpers import TRACE, ndjson, order_call
from pgcluster import cluster  # noqa: F401 (a fixture)

from webapp import create_app
from webapp.store import SchemaTooNew, Store, migrations
from webapp.store.sqlite.migrate import SqliteMigrations

OLD_DATABASE = ROOT / "tests" / "fixtures" / "databases" / "tracediff-0.1.0.db"
CURRENT = [m.version for m in migrations.discover("sqlite")]


def recorded(database) -> list[tuple[int, str]]:
    store = Store.open(database, create=False)
    try:
        return [
            tuple(row)
            for row in store.db.execute(
                "SELECT version, name FROM schema_migrations ORDER BY version"
            )
        ]
    finally:
        store.close()


def content(path) -> dict:
    """What a user has in a database: events, analysed calls, contracts."""
    with sqlite3.connect(path) as conn:
        return {
            "events": conn.execute("SELECT event_id, payload FROM events ORDER BY seq").fetchall(),
            "analyses": conn.execute(
                "SELECT trace_id, call_id, analysis FROM calls ORDER BY 1, 2"
            ).fetchall(),
            "tools": conn.execute("SELECT name, contract FROM tools ORDER BY name").fetchall(),
        }


def test_a_database_made_by_tracediff_0_1_0_upgrades_in_place_and_keeps_everything(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(OLD_DATABASE, path)
    before = content(path)
    assert len(before["events"]) == 63 and len(before["tools"]) == 9
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
        assert "schema_migrations" not in {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master")
        }
    Store(path).close()
    assert [v for v, _ in recorded(path)] == CURRENT
    assert content(path) == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT[-1]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    client = create_app({"TESTING": True, "DATABASE": str(path), "ANALYZER": "off"}).test_client()
    trace_id = before["analyses"][0][0]
    assert client.get(f"/traces/{trace_id}").status_code == 200
    assert client.post("/api/v1/ingest", data=ndjson(*order_call())).get_json()["accepted"] == 3
    assert client.get(f"/api/v1/traces/{TRACE}").status_code == 200


def test_each_migration_runs_once_and_reopening_applies_nothing(db_path):
    store = Store.open(db_path)
    assert store.create_schema() == []
    store.close()
    assert [v for v, _ in recorded(db_path)] == CURRENT


def side_effect_migrations(folder, log) -> None:
    """Write migrations whose second one leaves a line in `log` each time it runs, slowly."""
    folder.mkdir()
    (folder / "0001_notes.sql").write_text(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); -- ; in a comment\n"
        "INSERT INTO notes (text) VALUES ('a; b');\n"
    )
    (folder / "0002_count_runs.py").write_text(
        "import os, time\n\n\ndef migrate(conn):\n"
        f"    with open({str(log)!r}, 'a') as out:\n        out.write(str(os.getpid()) + '\\n')\n"
        "    time.sleep(0.5)\n    conn.execute(\"INSERT INTO notes (text) VALUES ('second')\")\n"
    )


def migrate_together(path: str, folder: str, barrier) -> int:
    """Open the store and apply the folder's migrations as soon as every process is ready."""
    from pathlib import Path

    store = Store(path, create=False)
    barrier.wait()
    applied = migrations.apply(SqliteMigrations(store), migrations.discover("sqlite", Path(folder)))
    store.close()
    return len(applied)


# starts processes (multiprocessing's spawn, which the audit hook in conftest.py does not see)
@pytest.mark.slow
def test_two_processes_starting_together_migrate_once(tmp_path):
    folder, log, path = tmp_path / "migrations", tmp_path / "runs.log", tmp_path / "two.db"
    side_effect_migrations(folder, log)
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        barrier = manager.Barrier(2)
        with context.Pool(2) as pool:
            counts = pool.starmap(migrate_together, [(str(path), str(folder), barrier)] * 2)
    assert sorted(counts) == [0, 2]
    assert len(log.read_text().splitlines()) == 1
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT text FROM notes ORDER BY id").fetchall() == [
            ("a; b",),
            ("second",),
        ]


def open_new_database(path: str, barrier) -> list[int]:
    store = Store(path, create=False)
    barrier.wait()
    applied = store.create_schema()
    store.close()
    return [m.version for m in applied]


# starts processes (multiprocessing's spawn, which the audit hook in conftest.py does not see)
@pytest.mark.slow
def test_two_servers_opening_one_new_file_together_build_its_schema_once(tmp_path):
    path = tmp_path / "new.db"
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        barrier = manager.Barrier(2)
        with context.Pool(2) as pool:
            results = pool.starmap(open_new_database, [(str(path), barrier)] * 2)
    assert sorted(results) == [[], CURRENT]
    assert [v for v, _ in recorded(path)] == CURRENT


def test_a_migration_that_fails_applies_nothing(tmp_path):
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_good.sql").write_text("CREATE TABLE kept_only_if_all_pass (x);")
    (folder / "0002_broken.sql").write_text("CREATE TABLE broken (;")
    store = Store(tmp_path / "f.db", create=False)
    with pytest.raises(sqlite3.OperationalError):
        migrations.apply(SqliteMigrations(store), migrations.discover("sqlite", folder))
    names = {r[0] for r in store.db.conn.execute("SELECT name FROM sqlite_master")}
    store.close()
    assert "kept_only_if_all_pass" not in names and "schema_migrations" not in names


@pytest.mark.parametrize(
    "names",
    [["0001_a.sql", "0003_c.sql"], ["0001_a.sql", "0001_b.sql"], ["1_a.sql"], ["0001_A.sql"]],
)
def test_misnumbered_or_misnamed_migrations_are_refused(tmp_path, names):
    for name in names:
        (tmp_path / name).write_text("SELECT 1;")
    with pytest.raises(ValueError):
        migrations.discover("sqlite", tmp_path)


@pytest.mark.slow
def test_a_database_from_a_newer_tracediff_is_refused_in_one_line(db_path):
    store = Store.open(db_path)
    with store.write() as conn:
        conn.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (999, 'from_the_future')"
        )
    store.close()
    with pytest.raises(SchemaTooNew, match="999"):
        Store.open(db_path)
    answer = subprocess.run(
        [sys.executable, "-m", "webapp", "reanalyze", "--db", str(db_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert answer.returncode == 1
    assert answer.stderr.strip().count("\n") == 0 and "upgrade tracediff" in answer.stderr


def test_every_engine_has_a_migration_of_each_number():
    """A new migration needs its file in every engine's folder (PostgreSQL's may say it has nothing
    to do)."""
    assert [(m.version, m.name) for m in migrations.discover("postgresql")] == [
        (m.version, m.name) for m in migrations.discover("sqlite")
    ]


def test_calls_analysed_before_migration_7_count_as_grouped_so_a_reanalysis_after_the_upgrade_is_one(
    tmp_path,
):
    from webapp.store.regrouping import seqs_key

    path = tmp_path / "old.db"
    shutil.copy(OLD_DATABASE, path)
    Store(path).close()
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT arguments_seq, request_seq, response_seq, grouped_seqs, analyzed_version, "
            "version FROM calls"
        ).fetchall()
    analysed = [row for row in rows if row[4] and row[4] == row[5]]
    assert analysed and all(row[3] == seqs_key(*row[:3]) for row in analysed)
    assert all(row[3] is None for row in rows if row not in analysed)


def raw_sql(database, sql: str, params=()) -> list:
    """Run SQL on the database without tracediff (which refuses a newer one): sqlite3 or psycopg."""
    if str(database).startswith("postgresql"):
        import psycopg

        with psycopg.connect(str(database), autocommit=True) as conn:
            cursor = conn.execute(sql.replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []
    with sqlite3.connect(database) as conn:
        return conn.execute(sql, params).fetchall()


def everything(database) -> dict:
    """Every row a command could change, read past tracediff."""
    tables = (
        "events",
        "calls",
        "traces",
        "tools",
        "problems",
        "problem_states",
        "alert_rules",
        "quarantine",
    )
    return {t: sorted(map(repr, raw_sql(database, f"SELECT * FROM {t}"))) for t in tables}


def leaf_commands(group, path=()) -> list[tuple[str, ...]]:
    import click

    found = []
    for name, command in group.commands.items():
        found += (
            leaf_commands(command, (*path, name))
            if isinstance(command, click.Group)
            else [(*path, name)]
        )
    return found


def test_every_command_refuses_a_database_from_a_newer_tracediff_in_one_line_and_changes_nothing(
    db_path, tmp_path
):
    from click.testing import CliRunner
    from conftest import SAMPLES, free_port

    from webapp.cli import main

    events, env = tmp_path / "events.ndjson", {"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}
    events.write_bytes(ndjson(*order_call(limit_sent="5")))
    runner = CliRunner()
    for setup in (["ingest", events], ["alerts", "add", "http://127.0.0.1:9/hook"]):
        assert runner.invoke(main, [*map(str, setup), "--db", str(db_path)], env=env).exit_code == 0
    raw_sql(
        db_path,
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', "
        "'2027-01-01')",
    )
    if not str(db_path).startswith("postgresql"):
        raw_sql(db_path, "PRAGMA user_version = 99")
    before = everything(db_path)
    assert before["problems"] and before["alert_rules"] and before["events"]
    commands = {
        ("serve",): ["--port", free_port()],
        ("ingest",): [events],
        ("tools", "import"): [SAMPLES / "contracts" / "findOrders.json"],
        ("tools", "map"): ["findOrders", "limit=limit"],
        ("tools", "list"): [],
        ("tools", "show"): ["findOrders"],
        ("tools", "observed"): ["findOrders"],
        ("reanalyze",): [],
        ("prune",): ["--days", "1"],
        ("backup",): [tmp_path / "copy.db"],
        ("migrate",): ["--to", "postgresql:///tracediff_never_made"],
        ("problems", "list"): [],
        ("problems", "show"): ["TD-1"],
        ("problems", "resolve"): ["TD-1"],
        ("problems", "archive"): ["TD-1"],
        ("problems", "reopen"): ["TD-1"],
        ("problems", "merge"): ["TD-1", "--into", "TD-2"],
        ("problems", "link"): ["TD-1", "https://tracker.example.com/INC-1"],
        ("alerts", "add"): ["http://127.0.0.1:9/other"],
        ("alerts", "list"): [],
        ("alerts", "remove"): ["1"],
        ("alerts", "test"): ["1"],
    }
    # a new command is added here too; check and lint read files, mcp asks a server: none opens a
    # database
    assert set(commands) == set(leaf_commands(main)) - {("check",), ("lint",), ("mcp",)}
    for command, args in commands.items():
        answer = runner.invoke(main, [*command, *map(str, args), "--db", str(db_path)], env=env)
        assert answer.exit_code == 1, (command, answer.output)
        # serve's token notes
        said = [line for line in answer.output.splitlines() if "warning" not in line.lower()]
        assert len(said) == 1 and said[0].startswith("Error: "), (command, answer.output)
        assert "schema version 99" in said[0] and "upgrade tracediff" in said[0], (
            command,
            answer.output,
        )
    assert everything(db_path) == before
    assert not (tmp_path / "copy.db").exists()


def test_problems_stored_before_migration_12_count_as_told_so_an_upgrade_sends_no_new_alerts(
    tmp_path,
):
    path = tmp_path / "before12.db"
    Store(path).close()
    # the database as a build before migration 12 left it
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE problems DROP COLUMN announced_at")
        conn.execute("DELETE FROM schema_migrations WHERE version = 12")
        conn.execute(
            "INSERT INTO problems (fingerprint, fp_version, kind, severity, stages, created_at) "
            "VALUES ('v1:x', 1, 'type_changed', 'warning', 'arguments>request', "
            "'2026-11-30T10:00:00.000000Z')"
        )
    Store(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT announced_at FROM problems").fetchall() == [
            ("2026-11-30T10:00:00.000000Z",)
        ]


@pytest.mark.slow
def test_serve_logs_a_line_per_migration_it_applies_with_time_and_level(tmp_path):
    from conftest import LiveServer

    shutil.copy(OLD_DATABASE, tmp_path / "old.db")
    server = LiveServer(tmp_path / "old.db").start()
    server.stop()
    lines = [line for line in server.logs().splitlines() if "applied migration" in line]
    # migration 1 (0.1.0's schema, IF NOT EXISTS) is recorded as applied too
    assert len(lines) == len(CURRENT)
    assert re.match(
        r"\d{4}-\d\d-\d\dT[\d:.]+Z INFO webapp\.store\.migrations: database .*old\.db: applied "
        r"migration "
        r"0001_initial\Z",
        lines[0],
    )


@pytest.mark.slow
def test_serve_on_an_empty_postgresql_database_logs_its_migrations(cluster, tmp_path):
    from conftest import LiveServer

    server = LiveServer(cluster.url, log_path=tmp_path / "serve.log").start()
    server.stop()
    lines = [line for line in server.logs().splitlines() if "applied migration" in line]
    assert len(lines) == len(migrations.discover("postgresql"))
    assert " INFO webapp.store.migrations: database postgresql://" in lines[0] and lines[
        0
    ].endswith("0001_initial")
