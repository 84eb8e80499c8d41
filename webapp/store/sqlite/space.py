"""What the disk holding a SQLite file says.

So that a store error names its real cause.

Out of space, SQLite often says something else: "disk I/O error" when it cannot grow its shared
memory file, "unable to open database file" when it cannot make one; an operator reads those as
failing hardware. On a read-only mount it says "unable to open database file" too.
"""

import os

# below this, "database or disk is full" is the disk's doing, not a size limit
NEARLY_NONE = 1024 * 1024
# below this, an I/O error is the disk's room (SQLite's shared memory grows 32 KiB at a time)
NO_ROOM = 64 * 1024
# what SQLite says when it could not get space
SPACE_WORDS = ("full", "disk i/o", "unable to open")
# ... or could not write at all
WRITE_WORDS = ("readonly", "read-only", "unable to open", "disk i/o")


def free_bytes(path) -> int | None:
    """Bytes free for an unprivileged writer on the disk holding a file.

    None: not known."""
    try:
        stats = os.statvfs(os.path.dirname(os.path.abspath(str(path))))
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def explained(path, message: str) -> str:
    """A store error's message, first saying if the disk is full or read-only.

    Whether the database's disk is full or it cannot be written."""
    text = message.lower()
    if str(path) == ":memory:" or not any(word in text for word in SPACE_WORDS + WRITE_WORDS):
        # locked or busy: the disk is not the cause
        return message
    # the file's name only: this message also reaches API clients, who need not learn server paths
    name = os.path.basename(str(path))
    cause = _unwritable(str(path), name) if any(word in text for word in WRITE_WORDS) else None
    free = free_bytes(path)
    room = NEARLY_NONE if "full" in text else NO_ROOM
    if (
        cause is None
        and free is not None
        and free < room
        and any(word in text for word in SPACE_WORDS)
    ):
        cause = f"the disk holding {name} is full ({free // 1024} KiB free)"
    return f"{cause}: {message}" if cause else message


def _unwritable(path: str, name: str) -> str | None:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"the disk holding {name} is mounted read-only"
    except OSError:
        return None
    for target, what in ((path, name), (folder, f"the folder of {name}")):
        if os.path.exists(target) and not os.access(target, os.W_OK):
            # root passes permission bits, but not an immutable file (chattr +i)
            return (
                f"{what} cannot be written (its permissions or attributes, e.g. chattr +i, forbid "
                "it)"
            )
    return None
