"""A trial in a large repository: prepare and collect time, and the worker's peak memory.

Builds a fixture of ``--files`` files (default 20,000) totalling ``--size-mb`` (default 176 MB)
in 200 folders, a case that edits one file, adds one and deletes one, and runs it ``--trials``
times (default 3) one at a time with the scripted agent. Prints the median ``prepareMs`` and
``collectMs`` of the trials, the peak memory of the largest worker (and, for scale, of the
orchestrator), and whether ``workspace.diff`` is the diff of the fixture and the final
workspace computed file by file. Targets: prepare <= 1 s, worker peak <= 100 MB.

Usage: ``.venv/bin/python bench/workspace_bench.py [--files N] [--size-mb M] [--trials T]``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = """
import resource, runpy, sys
sys.argv = ["proctor", *sys.argv[1:]]
try:
    runpy.run_module("proctor", run_name="__main__")
except SystemExit:
    pass
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print({"orchestrator_kb": me, "largest_child_kb": children}, file=sys.stderr)
"""


def build(root: Path, files: int, size_mb: float) -> Path:
    case = root / "cases" / "big-repo"
    src = case / "src"
    rng = random.Random(0)
    per_file = int(size_mb * 1e6 / files)
    line = "value = 0x{:08x}  # a line of a large repository\n"
    for i in range(files):
        folder = src / f"pkg{i % 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(line.format(rng.getrandbits(32)) for _ in range(per_file // 47 + 1))
        (folder / f"mod{i:05d}.py").write_text(body[:per_file])
    (case / "prompt.md").write_text("Change one module, add one, delete one.\n")
    plan = {
        "turns": [
            {"write": {"path": "pkg000/mod00000.py", "content": "value = 1\n"}},
            {"write": {"path": "pkg001/new.py", "content": "added = True\n"}},
            {"shell": "rm pkg002/mod00002.py"},
            {"say": "Done."},
        ]
    }
    (case / "plan.json").write_text(json.dumps(plan))
    (case / "config.json").write_text(json.dumps({"timeoutSec": 300}))
    return case


def expected_diff(fixture: Path, workspace: Path) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from proctor.workspace.diff import snapshot, unified_diff

    return unified_diff(snapshot(fixture), snapshot(workspace))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--size-mb", type=float, default=176)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="proctor-workspace-bench-"))
    try:
        case = build(root, args.files, args.size_mb)
        out = root / "out"
        argv = ["run", "--source", str(case), "--out", str(out), "--repeats", str(args.trials)]
        argv += ["--concurrency", "1", "--keep-workspace"]
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False
        )
        memory = eval(proc.stderr.strip().splitlines()[-1])  # the probe's own dict line
        trials = sorted(out.glob("run-*/trials/big-repo/scripted/default/*"))
        timings = [json.loads((t / "trial.json").read_text())["timings"] for t in trials]
        same = all(
            (t / "workspace.diff").read_text() == expected_diff(case / "src", t / "workspace")
            for t in trials
        )
        print(f"fixture: {args.files} files, {args.size_mb:.0f} MB; {len(trials)} trials")
        prepare = statistics.median(t["prepareMs"] for t in timings)
        collect = statistics.median(t["collectMs"] for t in timings)
        print(f"prepare_median_ms   {prepare:10.1f}  target 1000")
        print(f"collect_median_ms   {collect:10.1f}")
        print(f"worker_peak_mb      {memory['largest_child_kb'] / 1024:10.1f}  target 100")
        print(f"orchestrator_peak_mb{memory['orchestrator_kb'] / 1024:10.1f}")
        print(f"diff_as_file_by_file {same}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
