"""Hand freed heap back to the system after a large body.

Glibc keeps it otherwise, and a worker that parsed one 60 MB body would stay that large until it
restarts."""

import ctypes
import functools


@functools.cache
def _malloc_trim():
    """Return glibc's malloc_trim, or None where the C library has none (musl, macOS)."""
    # the symbols the process has loaded already (find_library would run ldconfig)
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


def give_back_memory() -> bool:
    """Ask the C allocator to return its free pages to the system.

    Say whether it could be asked."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def resident_bytes() -> int:
    """Return this process's resident set size (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    import resource

    return pages * resource.getpagesize()
