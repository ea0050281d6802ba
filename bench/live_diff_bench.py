"""The diff so far of a running trial: the time of one look at a workspace of many files.

Builds a workspace of ``--files`` files (default 20,000, 20 lines each, in folders of 200) and
takes its snapshot two ways: ``fixture``, every file as the fixture has it (the usual trial),
and ``kept``, every file written just before the snapshot (by setup lines, or a seeded eval),
so kept aside and compared by content. Two seconds later (the agent's first step comes after
the snapshot), it makes the diff so far ``--looks`` times (default 30), each after a step that
edits one file and adds one, as :class:`~proctor.execute.live.LiveDiff` does while the agent
runs. Prints, for each way, the median and the largest look in ms, the median per file of the
workspace in µs, and the CPU time of all the looks.

Usage: ``.venv/bin/python bench/live_diff_bench.py [--files N] [--looks K] [--ways fixture,kept]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from proctor.execute.live import LiveDiff
from proctor.workspace.diff import RACY_NS, take_snapshot

OLD = 1_600_000_000_000_000_000  # a fixture file's time, long before any snapshot


def build(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"d{i // 200}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_text(f"x = {i}\n" * 20)
        os.utime(folder / f"f{i}.py", ns=(OLD, OLD))


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def looks(base: Path, files: int, count: int, way: str) -> tuple[list[float], float]:
    fixture, ws, out = base / "fixture", base / f"ws-{way}", base / f"trial-{way}"
    shutil.copytree(fixture, ws, copy_function=shutil.copy2)
    out.mkdir()
    snap = take_snapshot(ws, fixture if way == "fixture" else None, base / f"kept-{way}")
    if way == "kept":
        assert len(snap.kept_paths) == files
    time.sleep(RACY_NS / 1e9 + 0.1)
    live = LiveDiff(snap, ws, out / "workspace.diff")
    took: list[float] = []
    used = cpu()
    for step in range(count):
        (ws / "d0" / "f0.py").write_text(f"changed {step}\n")
        (ws / f"new{step}.py").write_text("new\n")
        started = time.monotonic()
        live.look()
        took.append(time.monotonic() - started)
    return took, cpu() - used


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--looks", type=int, default=30)
    parser.add_argument("--ways", default="fixture,kept", help="fixture, kept or both")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="proctor-live-diff-bench-"))
    try:
        build(base / "fixture", args.files)
        print(f"workspace: {args.files} files; {args.looks} looks")
        for way in args.ways.split(","):
            took, used = looks(base, args.files, args.looks, way)
            median = statistics.median(took)
            print(
                f"{way:8} look median {median * 1000:8.1f} ms  max {max(took) * 1000:8.1f} ms  "
                f"per file {median / args.files * 1e6:6.1f} µs  cpu {used:6.2f} s"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
