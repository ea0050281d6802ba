"""A worker's C allocator keeps the memory it frees (see proctor.util.memory)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A buffer of 40 MB (a block of lines holding a long tool output) allocated, zeroed and freed,
# again and again; the page faults of the loop.
_LOOP = """
import resource, sys
from proctor.util.memory import keep_freed_memory
kept = keep_freed_memory() if sys.argv[1] == "keep" else None
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(12):
    data = bytearray(40 << 20)
    del data
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(how: str) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", _LOOP, how], capture_output=True, text=True, check=True
    ).stdout.split()
    return out[0], int(out[1])


def test_freed_buffers_are_reused_without_faulting_their_pages_in_again() -> None:
    kept, faults = _faults("keep")
    if kept != "True":
        pytest.skip("not glibc: the allocator is left as it is")
    _, by_default = _faults("default")
    pages = (40 << 20) // 4096
    # Kept: each page of the buffer faults in once (a bytearray is zeroed: every page is
    # touched). By default (the control): each buffer is a mapping of its own, given back
    # when freed, and its pages fault in again each time round.
    assert faults < 2 * pages, faults
    assert by_default > 8 * pages, by_default
