"""Listening sockets at a stop.

Who still holds one, and making one ignore new connections (Linux)."""

import ctypes
import os
import socket
import struct

# linux/asm-generic/socket.h
SO_ATTACH_FILTER = 26
# classic BPF run on each TCP segment for the socket (data starts at the TCP header):
# drop a segment whose flags are SYN without ACK (a new connection), keep everything else
_DROP_SYN = [
    # ldb [13]        the TCP flags byte
    (0x30, 0, 0, 13),
    # and #SYN|ACK
    (0x54, 0, 0, 0x12),
    # jeq #SYN        -> drop, else keep
    (0x15, 0, 1, 0x02),
    # ret #0          drop
    (0x06, 0, 0, 0),
    # ret #-1         keep the whole segment
    (0x06, 0, 0, 0xFFFFFFFF),
]


def held_by(pid: int, listener) -> bool:
    """Say whether process `pid` still has this socket open.

    True when it cannot be told."""
    target = f"socket:[{os.fstat(listener.fileno()).st_ino}]"
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return True
    for name in names:
        try:
            if os.readlink(f"{folder}/{name}") == target:
                return True
        # closed meanwhile
        except OSError:
            continue
    return False


def ignore_new_connections(listener) -> bool:
    """Make a TCP listening socket drop new SYNs while handshakes under way complete.

    Say if it could.

    The sender of a dropped SYN sends it again about a second later; by then the socket is closed
    and the connection is refused, which a client retries, instead of accepted and reset at the
    close.
    """
    if listener.family not in (socket.AF_INET, socket.AF_INET6):
        return False
    program = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *op) for op in _DROP_SYN))
    fprog = struct.pack("HP", len(_DROP_SYN), ctypes.addressof(program))
    try:
        listener.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    # not Linux: the stop keeps its short window
    except OSError:
        return False
    return True


def _started(pid: int) -> int:
    """When process `pid` started, in clock ticks since boot (0: gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # the fields after the command name, which may hold spaces; starttime is field 22
            return int(stat.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return 0


def has_newer_sibling(parent: int) -> bool:
    """Say whether `parent` started a child after this one (a reload's new workers)."""
    try:
        with open(f"/proc/{parent}/task/{parent}/children") as children:
            pids = [int(pid) for pid in children.read().split()]
    except (OSError, ValueError):
        return False
    mine = _started(os.getpid())
    return any(pid != os.getpid() and _started(pid) > mine for pid in pids)
