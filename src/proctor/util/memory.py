"""The C allocator of a short-lived worker process, told to keep the memory it frees."""

from __future__ import annotations

_MMAP_THRESHOLD = -3
_TRIM_THRESHOLD = -1
_TOP_PAD = -2
"""glibc's ``mallopt`` parameters (``malloc.h``)."""

MMAP_FROM = 64 << 20
"""Allocations smaller than this come from the heap, not a mapping of their own (glibc before
2.35 refuses more than 32 MiB on a 64-bit machine: the others are set all the same)."""
TRIM_FROM = 256 << 20
"""Free memory at the heap's top is given back to the system past this much only."""
TOP_PAD = 16 << 20
"""What the heap grows by beyond each need."""


def keep_freed_memory() -> bool:
    """Set this process's C allocator (glibc's) to keep the memory it frees for its next
    allocations; whether it could (False on another C library, or none found).

    A worker reading a transcript allocates a buffer of a megabyte or more for each block of
    lines it reads, then frees it. By default glibc maps each such buffer on its own, or gives
    the freed top of its heap back to the system, and the next block's pages fault in again,
    zeroed by the kernel: on a history of long sessions, half a worker's page faults and a
    tenth of its system time. Kept, they are reused. A worker's peak memory is what it was;
    it is only not returned before the worker exits."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, or a C library without it
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    settings = ((_MMAP_THRESHOLD, MMAP_FROM), (_TRIM_THRESHOLD, TRIM_FROM), (_TOP_PAD, TOP_PAD))
    # Each set on its own: one a C library refuses leaves the others in force.
    done = [mallopt(parameter, value) == 1 for parameter, value in settings]
    return all(done)
