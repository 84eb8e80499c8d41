"""docs/deploy.md's runbook, run as written.

The PostgreSQL role and database, the nightly backup unit."""

import os
import re
import shutil
import subprocess
import sys

import psycopg
import pytest
from conftest import ROOT, LiveServer
from helpers import ndjson, order_call
from pgcluster import cluster  # noqa: F401 (a fixture)

from webapp.store import Store

DEPLOY = ROOT / "docs" / "deploy.md"
BACKUP_UNIT = ROOT / "docs" / "tracediff-backup.service"


def sql_steps() -> list[str]:
    """The statements of the runbook's PostgreSQL step."""
    step = DEPLOY.read_text().split("**2. PostgreSQL**", 1)[1]
    [block] = re.findall(r"```sql\n(.*?)```", step, re.S)[:1]
    return [statement.strip() for statement in block.split(";") if statement.strip()]


def tracediff(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "webapp", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
def test_the_postgresql_steps_make_a_role_that_owns_tracediff_without_being_a_superuser(
    cluster, tmp_path
):
    with psycopg.connect(cluster.url, autocommit=True) as admin:
        for statement in sql_steps():
            admin.execute(statement)
    url = cluster.url.replace("postgres@", "tracediff:change-me@").rsplit("/", 1)[0] + "/tracediff"
    server = LiveServer(url, log_path=tmp_path / "serve.log").start()
    server.stop()
    assert "applied migration 0001_initial" in server.logs()
    listed = tracediff("tools", "list", "--db", url)
    assert listed.returncode == 0, listed.stderr
    with psycopg.connect(url) as conn:
        assert conn.execute(
            "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
        ).fetchone() == (False,)
        assert conn.execute(
            "SELECT extname FROM pg_extension WHERE extname = 'unaccent'"
        ).fetchone()
        owners = {
            row[0]
            for row in conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = 'public'")
        }
        assert owners == {"tracediff"}


def backup_command(folder, tracediff_command) -> list[str]:
    """The unit's ExecStart as systemd runs it ($$ and %% unescaped), writing into `folder`."""
    [line] = re.findall(r"^ExecStart=(.+)$", BACKUP_UNIT.read_text(), re.M)
    line = line.replace("$$", "$").replace("%%", "%").replace("/var/backups/tracediff", str(folder))
    line = line.replace("/opt/tracediff/bin/tracediff", tracediff_command)
    assert line.startswith("/bin/sh -c '") and line.endswith("'")
    return ["/bin/sh", "-c", line[len("/bin/sh -c '") : -1]]


@pytest.mark.slow
def test_the_backup_unit_is_valid_with_its_timer():
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    verified = subprocess.run(
        ["systemd-analyze", "verify", str(BACKUP_UNIT), str(BACKUP_UNIT.with_suffix(".timer"))],
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0 and verified.stderr == "", verified.stderr


@pytest.mark.slow
def test_the_backup_unit_copies_a_sqlite_database_and_dumps_a_postgresql_one(cluster, tmp_path):
    folder = tmp_path / "backups"
    folder.mkdir()
    command = f"{sys.executable} -m webapp"
    database = tmp_path / "t.db"
    for target in (str(database), cluster.url):
        ingest = subprocess.run(
            [sys.executable, "-m", "webapp", "ingest", "-", "--db", target],
            input=ndjson(*order_call()),
            capture_output=True,
            cwd=ROOT,
            timeout=120,
        )
        assert ingest.returncode == 0, ingest.stderr
        done = subprocess.run(
            backup_command(folder, command),
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "TRACEDIFF_DATABASE": target},
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    [copy] = folder.glob("tracediff-*.db")
    store = Store.open(copy, create=False)
    assert store.count_events() == 3
    store.close()
    [dump] = folder.glob("tracediff-*.dump")
    with psycopg.connect(cluster.url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE restored")
    restored = cluster.url.rsplit("/", 1)[0] + "/restored"
    done = subprocess.run(["pg_restore", "-d", restored, str(dump)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with psycopg.connect(restored) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (3,)
