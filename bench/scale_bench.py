"""Scale: one run of many scripted trials on this machine, and `proctor report` over it.

Runs a trivial case ``--trials`` times (default 10,000) at ``--concurrency`` (default 2), sampling
the orchestrator's resident memory twice a second, then times ``proctor report`` over the run.
Prints the wall time, the time per trial, the orchestrator's memory at the start, the middle and
the end of the run (flat is the goal) and its peak, and the report's time. Nothing is asserted.

With ``--executor ray`` the same suite runs on a local Ray cluster started for the run (a head
and a second node on 127.0.0.1, one CPU each, with their own HOME and RAY_TMPDIR, stopped by
PID afterwards); the orchestrator is then the Ray driver, and the cluster's start-up time is
printed apart (it is not in the run's wall time).

Usage: ``.venv/bin/python bench/scale_bench.py [--trials N] [--concurrency C] [--executor ray]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def wait_for_nodes(address: str, env: dict[str, str], count: int) -> None:
    """Until ``count`` nodes are alive in the cluster (asked by a short-lived driver)."""
    probe = (
        "import ray, sys, time\n"
        "ray.init(address=sys.argv[1], log_to_driver=False, logging_level='ERROR')\n"
        "while sum(n['Alive'] for n in ray.nodes()) < int(sys.argv[2]): time.sleep(0.2)\n"
    )
    argv = [sys.executable, "-c", probe, address, str(count)]
    subprocess.run(argv, env=env, timeout=120, check=True, capture_output=True)


@contextmanager
def ray_cluster(root: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A head and a second node on 127.0.0.1 (each ``ray start --block``, stopped by PID);
    yields the head's address and the environment a driver joins it with."""
    ray = str(Path(sys.executable).with_name("ray"))
    (root / "home").mkdir()
    env = {
        **os.environ,
        "HOME": str(root / "home"),
        "RAY_TMPDIR": str(root / "ray"),
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
    common = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--block"]
    head = [ray, "start", "--head", f"--port={address.split(':')[1]}", "--include-dashboard=false"]
    nodes: list[subprocess.Popen[bytes]] = []
    try:
        for argv in (head, [ray, "start", f"--address={address}"]):
            nodes.append(
                subprocess.Popen(
                    [*argv, *common],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
            wait_for_nodes(address, env, len(nodes))
        yield address, env
    finally:
        for node in reversed(nodes):
            node.send_signal(signal.SIGTERM)
            try:
                node.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(node.pid, signal.SIGKILL)
                node.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--executor", choices=["local", "ray"], default="local")
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
        with contextmanager_for(args.executor, root) as (address, env):
            if address:
                argv += ["--executor", "ray", "--ray-address", address]
            began = time.perf_counter()
            proc = subprocess.Popen(
                argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
            )
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
        print(
            f"trials {finished} of {args.trials} at concurrency {args.concurrency} "
            f"({args.executor} executor)"
        )
        print(f"wall_s               {wall:10.1f}")
        print(f"per_trial_ms         {1000 * wall / max(finished, 1):10.2f}")
        print(
            f"orchestrator_rss_mb  {' / '.join(f'{v:.0f}' for v in at)} (5% / 50% / 95% of the run)"
        )
        print(f"orchestrator_peak_mb {max((v for _, v in samples), default=0):10.1f}")
        print(f"report_s             {report:10.2f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def contextmanager_for(executor: str, root: Path) -> Iterator[tuple[str, dict[str, str] | None]]:
    """Nothing to start for the local executor; a local Ray cluster for ``ray``."""
    if executor != "ray":
        yield "", None
        return
    began = time.perf_counter()
    with ray_cluster(root) as (address, env):
        print(f"ray_cluster_start_s  {time.perf_counter() - began:10.1f}")
        yield address, env


if __name__ == "__main__":
    main()
