"""Process trees and marked processes: what a trial's clean-up finds, with controls."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from proctor.util.processes import (
    MARKER_VARIABLE,
    descendants,
    has_children,
    kill_descendants,
    process_tag,
    processes_marked,
    tag_running,
)

# A child that starts a grandchild and prints its pid, then both sleep.
TWO_LEVELS = (
    "import subprocess, sys, time\n"
    "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(g.pid, flush=True)\n"
    "time.sleep(60)\n"
)


@contextmanager
def spawned(code: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        yield proc
    finally:
        kill_descendants(proc.pid)
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_tree_is_found_to_the_grandchild_and_killed() -> None:
    with spawned(TWO_LEVELS) as child:
        assert child.stdout is not None
        grandchild = int(child.stdout.readline())
        assert has_children(child.pid) is True
        assert descendants(child.pid) == [grandchild]
        assert child.pid in descendants(os.getpid())
        assert kill_descendants(child.pid) >= 1  # a zombie not yet reaped counts again
        deadline = time.monotonic() + 5
        while alive(grandchild) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(grandchild)
        assert alive(child.pid)  # only what is below the pid


def test_a_process_without_children_has_no_descendants() -> None:
    with spawned("import time; time.sleep(60)") as child:
        assert has_children(child.pid) is False
        assert descendants(child.pid) == []


def test_a_gone_process_has_nothing_below_it() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert has_children(proc.pid) is None
    assert descendants(proc.pid) == []


PSUTIL_PROBE = (
    "import os, subprocess, sys\n"
    "from proctor.util.processes import descendants\n"
    "if sys.argv[1] == 'child':\n"
    "    p = subprocess.Popen(['sleep', '30'])\n"
    "found = descendants(os.getpid())\n"
    "print(len(found), 'psutil' in sys.modules)\n"
    "if sys.argv[1] == 'child':\n"
    "    p.kill()\n"
)


def test_psutil_is_loaded_only_when_there_is_a_tree_to_walk() -> None:
    def probe(mode: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", PSUTIL_PROBE, mode], capture_output=True, text=True, check=True
        ).stdout.strip()

    assert probe("alone") == "0 False"
    assert probe("child") == "1 True"  # control: a child is there, psutil walks the tree


def test_marked_processes_are_found_by_their_environment() -> None:
    marker = uuid.uuid4().hex
    env = {**os.environ, MARKER_VARIABLE: marker}
    with (
        spawned("import time; time.sleep(60)", env=env) as marked,
        spawned("import time; time.sleep(60)") as unmarked,
    ):
        deadline = time.monotonic() + 5
        while not processes_marked(marker) and time.monotonic() < deadline:
            time.sleep(0.01)  # the environment is readable once the exec is done
        found = processes_marked(marker)
        assert found == [marked.pid]
        assert unmarked.pid not in found
        assert processes_marked(uuid.uuid4().hex) == []


def test_a_process_tag_names_one_running_process() -> None:
    child = subprocess.Popen(["sleep", "30"])
    try:
        tag = process_tag(child.pid)
        assert tag.startswith(f"{socket.gethostname()}:{child.pid}:") and tag_running(tag)
        assert tag_running(process_tag())  # this process
    finally:
        child.kill()
        child.wait()
    assert not tag_running(tag)  # gone
    host, pid, start = tag.rsplit(":", 2)
    assert not tag_running(f"{host}:{os.getpid()}:{start}")  # another process under that pid
    assert tag_running(f"elsewhere.example:{pid}:{start}")  # another host: cannot tell
    assert not tag_running("garbage") and not tag_running("h:x:1")
