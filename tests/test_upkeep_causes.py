"""Data care when the disk says no.

Each cause named (full, read-only, locked), retention's partial work counted and logged, sizes
measured and labelled right, no file left beside a failed backup."""

import contextlib
import os
import re
import shutil
import subprocess
import time

import httpx
import pytest
from conftest import ROOT, LiveServer
from test_upkeep import MB, fill_store, free_bytes, leave_free, small_disk, tracediff  # noqa: F401 (fixture)

from webapp.store import Store

MIB_LINE = re.compile(r"database and WAL: ([\d.]+) MiB -> ([\d.]+) MiB")


def one_error_line(answer) -> str:
    assert answer.returncode == 1, (answer.stdout, answer.stderr)
    assert "Traceback" not in answer.stderr and answer.stderr.strip().count("\n") == 0, (
        answer.stderr
    )
    return answer.stderr.strip()


def fill_completely(folder) -> None:
    """Another program takes every byte the disk has left."""
    other = os.open(folder / "other-program.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    # ENOSPC
    with contextlib.suppress(OSError):
        while os.write(other, b"x" * 65536):
            pass
    with contextlib.suppress(OSError):
        while os.write(other, b"x" * 512):
            pass
    os.close(other)


@pytest.fixture(scope="module")
def old_and_new(tmp_path_factory):
    """A closed database (no WAL) of 400 traces from 2020 and 100 from now, ~10 MB."""
    path = tmp_path_factory.mktemp("source") / "t.db"
    fill_store(path, 20, old=True)
    store = Store(path)
    store.close()
    from test_durability import body
    from test_upkeep import batch_of

    from webapp.ingest import parse_body

    store = Store(path)
    for n in range(100, 105):
        store.add_events(parse_body(body(batch_of(n, old=False))).events)
    store.project_all()
    store.close()
    assert not os.path.exists(f"{path}-wal")
    return path


@pytest.mark.slow
def test_a_store_error_on_a_full_disk_says_the_disk_is_full_not_disk_io(small_disk, old_and_new):
    database = small_disk / "t.db"
    shutil.copy(old_and_new, database)
    fill_completely(small_disk)
    assert free_bytes(small_disk) < 64 * 1024
    for command in (("prune", "--days", "30"), ("tools", "list"), ("reanalyze",)):
        line = one_error_line(
            tracediff(*command, "--db", str(database), env={"TRACEDIFF_MIN_FREE_MB": "0"})
        )
        assert re.search(r"the disk holding t\.db is full \(\d+ KiB free\)", line), (command, line)


@pytest.mark.slow
def test_prune_on_a_read_only_mount_or_an_immutable_file_says_so_and_not_to_free_space(
    small_disk, old_and_new, tmp_path
):
    shutil.copy(old_and_new, small_disk / "t.db")
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    line = one_error_line(tracediff("prune", "--days", "30", "--db", str(small_disk / "t.db")))
    assert "mounted read-only" in line and "Free some space" not in line, line

    # tmp_path is on an ext4 disk here: chattr +i works there
    immutable = tmp_path / "immutable.db"
    shutil.copy(old_and_new, immutable)
    if subprocess.run(["chattr", "+i", str(immutable)], capture_output=True).returncode:
        pytest.skip("chattr +i is not supported on this filesystem")
    try:
        line = one_error_line(tracediff("prune", "--days", "30", "--db", str(immutable)))
    finally:
        subprocess.run(["chattr", "-i", str(immutable)], check=True)
    assert (
        "immutable.db cannot be written" in line
        and "chattr -i" in line
        and "Free some space" not in line
    ), line


@pytest.mark.slow
def test_prune_vacuum_without_room_says_the_deletion_worked_and_what_vacuum_needs(
    small_disk, tmp_path
):
    # no incremental auto_vacuum: only VACUUM shrinks it
    old = tmp_path / "made-by-0.1.0.db"
    shutil.copy(ROOT / "tests" / "fixtures" / "databases" / "tracediff-0.1.0.db", old)
    # 200 traces to delete, 600 to keep: a VACUUM that must write ~4 MB
    fill_store(old, 10)
    fill_store(old, 30, old=False)
    shutil.copy(old, small_disk / "t.db")
    leave_free(small_disk, 2 * MB)
    pruned = tracediff(
        "prune",
        "--days",
        "30",
        "--vacuum",
        "--db",
        str(small_disk / "t.db"),
        env={"TRACEDIFF_MIN_FREE_MB": "0"},
    )
    line = one_error_line(pruned)
    assert "deleted 200 traces" in pruned.stdout
    assert "the 200 traces were deleted, but VACUUM failed" in line and "SQLITE_TMPDIR" in line, (
        line
    )
    assert "size of the database" in line and "cannot prune" not in line, line


@pytest.mark.slow
def test_prune_measures_before_it_writes_and_labels_mebibytes(tmp_path, old_and_new):
    database = tmp_path / "t.db"
    shutil.copy(old_and_new, database)
    size = os.path.getsize(database)
    pruned = tracediff("prune", "--days", "30", "--db", str(database))
    assert pruned.returncode == 0, pruned.stderr
    before, after = map(float, MIB_LINE.search(pruned.stdout).groups())
    assert before == round(size / MB, 1) and after == round(os.path.getsize(database) / MB, 1), (
        pruned.stdout
    )
    copy = tmp_path / "copy.db"
    backed_up = tracediff("backup", str(copy), "--db", str(database))
    assert f"({os.path.getsize(copy) / MB:.1f} MiB)" in backed_up.stdout, backed_up.stdout


@pytest.mark.slow
def test_a_backup_that_fails_for_room_leaves_no_file_beside_it(small_disk, old_and_new):
    # the copy (~10 MB) cannot fit
    leave_free(small_disk, 2 * MB)
    target = small_disk / "b.db"
    line = one_error_line(tracediff("backup", str(target), "--db", str(old_and_new)))
    assert line.startswith(f"Error: cannot back up to {target}"), line
    assert sorted(os.listdir(small_disk)) == ["other-program.log"]


@pytest.mark.slow
@pytest.mark.parametrize("free", [MB, 64 * 1024], ids=["1MiB-free", "64KiB-free"])
def test_retention_on_a_nearly_full_disk_counts_and_logs_what_it_deleted_and_why_it_stopped(
    small_disk, old_and_new, tmp_path, free
):
    database = small_disk / "t.db"
    shutil.copy(old_and_new, database)
    leave_free(small_disk, free)
    server = LiveServer(
        database,
        workers=1,
        log_path=tmp_path / "server.log",
        env={"TRACEDIFF_RETENTION_DAYS": "30", "TRACEDIFF_MIN_FREE_MB": "0"},
    ).start()
    try:
        deadline = time.monotonic() + 60
        while "webapp.ops.analyser: retention" not in server.logs() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        metrics = httpx.get(server.url + "/metrics", timeout=10).text
    finally:
        server.stop()
    logs = server.logs()
    counted = float(
        re.search(r"^tracediff_retention_deleted_traces_total ([\d.]+)$", metrics, re.M).group(1)
    )
    store = Store(database, create=False)
    old_left = store.db.execute(
        "SELECT count(*) FROM traces WHERE trace_id LIKE 'old%'"
    ).fetchone()[0]
    store.close()
    deleted = 400 - old_left
    print(
        f"\n[upkeep] retention with {free // 1024} KiB free: {deleted} of 400 old traces deleted, "
        f"{old_left} left"
    )
    assert counted == deleted, (metrics, logs)
    assert sum(map(int, re.findall(r"retention: deleted (\d+) trace", logs))) == deleted, logs
    # it stopped early (64 KiB is too little for any deletion): a warning says why
    if old_left or free < MB:
        assert re.search(r"WARNING webapp\.ops\.analyser: retention stopped .*full", logs), logs
