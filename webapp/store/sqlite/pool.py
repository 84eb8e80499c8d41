"""Connections a process keeps open between the requests that use them.

A new SQLite connection reads the whole schema at its first statement (~0.3 ms: the tables,
indexes and triggers of every migration), and the close of a process's last connection folds the
write-ahead log into the file and deletes it, which the next open makes again. A request paid both:
about a tenth of an ingest request's CPU (issue 36). A request's store now takes an idle connection
of the same file and gives it back when the request ends.

Kept: at most MOST_IDLE connections a process, any file, the last given back first taken. One is
not taken again when its file was replaced or removed since it was opened (another inode at the
path) or its permissions changed (a file turned read-only must refuse writes, as a new open would),
nor after a storage fault (the store closes it then, faults.py), nor in a child process: a forked
worker must never close its parent's connections (SQLite would fold and delete a log the parent
still writes), so a child forgets them without closing them.
"""

import atexit
import os
import sqlite3
import threading

MOST_IDLE = 4

_lock = threading.Lock()
# (path, identity of its file, connection), the most recently given back last
_idle: list[tuple[str, tuple[int, ...], sqlite3.Connection]] = []
# a parent's connections, held in a forked child so that nothing closes them there
_inherited: list = []


def identity(path: str) -> tuple[int, ...] | None:
    """Return the device, inode and mode of the file at path.

    None: no file there, or a database in memory (never kept: each is its own)."""
    if path == ":memory:" or path.startswith("file:"):
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_mode


def take(path: str) -> tuple[sqlite3.Connection, tuple[int, ...]] | None:
    """Return an idle connection to the file at path, and its file's identity, or None."""
    with _lock:
        for index in range(len(_idle) - 1, -1, -1):
            if _idle[index][0] == path:
                _, opened, conn = _idle.pop(index)
                break
        else:
            return None
    if identity(path) == opened:
        return conn, opened
    # the file was replaced, removed or its permissions changed: this connection holds the old one
    conn.close()
    return None


def give_back(path: str, opened: tuple[int, ...], conn: sqlite3.Connection) -> None:
    """Keep a connection no transaction is open on for the next store of its file."""
    if conn.in_transaction:
        conn.rollback()
    with _lock:
        _idle.append((path, opened, conn))
        oldest = _idle.pop(0)[2] if len(_idle) > MOST_IDLE else None
    if oldest is not None:
        oldest.close()


def close_all() -> None:
    """Close every idle connection (at exit, so the last close folds each log in)."""
    with _lock:
        idle = [conn for _, _, conn in _idle]
        _idle.clear()
    for conn in idle:
        conn.close()


def _forget_in_child() -> None:
    global _lock
    _inherited.extend(_idle)
    _idle.clear()
    # the parent's lock may have been held by another of its threads at the fork
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(close_all)
