"""Readiness checks.

Each returns (ok, detail) and costs a few milliseconds at most."""

import os
import re
import shutil
from pathlib import Path

from ...store import StoreUnavailable
from ...store.urls import is_postgres_url

PAGE_TEMPLATES = ("base.html", "index.html", "trace.html", "compare.html", "subtree.html")
STATIC_FILES = ("app.css", "app.js", "favicon.svg")
_REFERENCE = re.compile(r"""\{%-?\s*(?:include|extends|import|from)\s+["']([^"']+)["']""")
_STATIC_REFERENCE = re.compile(r"""filename=["']([^"']+)["']""")


def database(store) -> tuple[bool, str]:
    """Commit one tiny row.

    A lock held by busy writers still counts as writable."""
    try:
        store.probe_write()
    except StoreUnavailable as error:
        text = str(error)
        # ingest and the analyser are writing: it works
        if "other writers kept it busy" in text:
            return True, "writable (busy: other writers hold the lock)"
        return False, f"cannot be written: {text}"
    return True, "writable"


def file_writable(db_path: str) -> tuple[bool, str]:
    """Check, without writing, that this process may write the database file.

    The file and its folder."""
    if is_postgres_url(db_path):
        return True, "a PostgreSQL server (readiness writes to it)"
    path, wal = Path(db_path), Path(f"{db_path}-wal")
    # SQLite creates the -wal file in the folder when it is missing
    for target in (path, wal if wal.exists() else path.parent):
        if target.exists() and not os.access(target, os.W_OK):
            return False, f"{target} is read-only for this process"
    return True, "writable"


def disk(db_path: str, min_free_mb: int) -> tuple[bool, str]:
    """Check the free space of the filesystem holding the database."""
    if is_postgres_url(db_path):
        return True, "on the PostgreSQL server (watch it there)"
    try:
        free = shutil.disk_usage(Path(db_path).resolve().parent).free
    except OSError as error:
        return False, f"cannot measure free space: {error.strerror or error}"
    detail = f"{free // (1024 * 1024)} MiB free"
    if free < min_free_mb * 1024 * 1024:
        return False, f"{detail}, below TRACEDIFF_READY_MIN_FREE_MB={min_free_mb}"
    return True, detail


def templates(folder: str) -> tuple[bool, str]:
    """Check that every page template and everything they include or extend is there."""
    missing, seen, todo = [], set(), list(PAGE_TEMPLATES)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            todo += _REFERENCE.findall((Path(folder) / name).read_text(encoding="utf-8"))
        except OSError:
            missing.append(name)
    if missing:
        return False, f"missing in {folder}: {', '.join(sorted(missing))}"
    return True, f"{len(seen)} templates"


def static(template_folder: str, folder: str) -> tuple[bool, str]:
    """Check that the static files the base page links to are there."""
    try:
        linked = _STATIC_REFERENCE.findall(
            (Path(template_folder) / "base.html").read_text(encoding="utf-8")
        )
    except OSError:
        linked = []
    names = sorted(set(linked) | set(STATIC_FILES))
    missing = [name for name in names if not (Path(folder) / name).is_file()]
    if missing:
        return False, f"missing in {folder}: {', '.join(missing)}"
    return True, f"{len(names)} files"


def analyser(store, mode: str, max_lag: int) -> tuple[bool, str]:
    """Check the oldest waiting event or call has waited at most max_lag seconds."""
    backlog = store.backlog()
    detail = (
        f"{backlog['calls_waiting']} call(s) and {backlog['events_waiting']} event(s) waiting, "
        f"the oldest for {backlog['oldest_waiting_seconds']:.1f} s"
    )
    if mode != "background":
        return True, f"{detail} (TRACEDIFF_ANALYZER={mode}: calls are analysed when read)"
    if backlog["oldest_waiting_seconds"] > max_lag:
        return False, f"{detail}, over TRACEDIFF_READY_MAX_LAG={max_lag}"
    return True, detail
