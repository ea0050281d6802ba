"""Scale: one run of many scripted trials on this machine, and `proctor report` over it.

Runs a trivial case ``--trials`` times (default 10,000) at ``--concurrency`` (default 2), sampling
the orchestrator's resident memory twice a second, then times ``proctor report`` over the run.
Prints the wall time, the time per trial, the orchestrator's memory at the start, the middle and
the end of the run (flat is the goal) and its peak, and the report's time. Nothing is asserted.

Usage: ``.venv/bin/python bench/scale_bench.py [--trials N] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    proctor = str(Path(sys.executable).with_name("proctor"))
    root = Path(tempfile.mkdtemp(prefix="proctor-scale-bench-"))
    try:
        case = root / "cases" / "trivial"
        case.mkdir(parents=True)
        (case / "prompt.md").write_text("Write hello.txt.\n")
        plan = {"turns": [{"write": {"path": "hello.txt", "content": "hello\n"}}]}
        (case / "plan.json").write_text(json.dumps(plan))
        config = {
            "repeats": args.trials,
            "evaluators": [{"use": "file-exists", "must": ["hello.txt"]}],
        }
        (case / "config.json").write_text(json.dumps(config))
        out = root / "out"
        argv = [proctor, "run", "--source", str(case.parent), "--out", str(out)]
        argv += ["--concurrency", str(args.concurrency)]
        began = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples: list[tuple[float, float]] = []
        while proc.poll() is None:
            value = rss_mb(proc.pid)
            if value is not None:
                samples.append((time.perf_counter() - began, value))
            time.sleep(0.5)
        wall = time.perf_counter() - began
        (run_dir,) = out.glob("run-*")
        began = time.perf_counter()
        subprocess.run([proctor, "report", str(run_dir)], capture_output=True, check=False)
        report = time.perf_counter() - began
        finished = len(list(run_dir.glob("trials/*/*/*/*/trial.json")))
        at = [samples[int(len(samples) * f)][1] for f in (0.05, 0.5, 0.95)] if samples else []
        print(f"trials {finished} of {args.trials} at concurrency {args.concurrency}")
        print(f"wall_s               {wall:10.1f}")
        print(f"per_trial_ms         {1000 * wall / max(finished, 1):10.2f}")
        print(
            f"orchestrator_rss_mb  {' / '.join(f'{v:.0f}' for v in at)} (5% / 50% / 95% of the run)"
        )
        print(f"orchestrator_peak_mb {max((v for _, v in samples), default=0):10.1f}")
        print(f"report_s             {report:10.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
