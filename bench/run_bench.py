"""proctor's benchmarks: wall-clock medians measured here, never asserted in tests.

(a) ``proctor --help``; (b) ``proctor run`` of one trivial trial (one ``write``, one
``file-exists``); (c) the same case with 200 repeats at ``--concurrency 2``, as wall time per trial
(median of 3 runs); (d) a three-step headless Claude Code trial on the scripted model.
Targets on a 2-core machine: (a) <= 0.25 s, (b) <= 1.5 s, (c) <= 60 ms per trial.

proctor's own modules are byte-compiled first, as an installed proctor is: with
``PYTHONDONTWRITEBYTECODE`` set (many container images set it) an editable checkout would
otherwise compile every module on every command, and the benchmark would time the compiler.
"""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROCTOR = [sys.executable, "-m", "proctor"]
BIN = Path(sys.executable).with_name("proctor")
if BIN.exists():
    PROCTOR = [str(BIN)]


def timed(argv: list[str], expect: int = 0, **kwargs: object) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, **kwargs)  # type: ignore[call-overload]
    elapsed = time.perf_counter() - t0
    if proc.returncode != expect:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    return elapsed


def trivial_case(root: Path) -> Path:
    case = root / "cases" / "trivial"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Write hello.txt.\n")
    (case / "plan.json").write_text(
        json.dumps({"turns": [{"write": {"path": "hello.txt", "content": "hello\n"}}]})
    )
    (case / "config.json").write_text(
        json.dumps({"evaluators": [{"use": "file-exists", "must": ["hello.txt"]}]})
    )
    return root / "cases"


THREE_STEPS = {
    "turns": [
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "cat hello.txt"},
        {"say": "Done."},
    ]
}


def real_cli_overhead(root: Path, runs: int = 5) -> dict[str, object]:
    """A three-step headless Claude Code trial on the scripted model: the harness's time
    (total minus the agent phase) next to the agent phase and the CLI's own duration_ms."""
    case = root / "real" / "three-steps"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Write hello.txt and show it.\n")
    (case / "plan.json").write_text(json.dumps(THREE_STEPS))
    (case / "config.json").write_text(json.dumps({"agents": ["claude-code"]}))
    totals, agents, clis = [], [], []
    for i in range(runs):
        out = root / f"real-out-{i}"
        proc = subprocess.run(
            [*PROCTOR, "run", "--source", str(case), "--out", str(out), "--model", "scripted"],
            capture_output=True,
        )
        if proc.returncode != 0:
            return {"real_cli": f"skipped: claude-code run exited {proc.returncode}"}
        trial_dir = next(out.glob("run-*/trials/three-steps/claude-code/default/1"))
        trial = json.loads((trial_dir / "trial.json").read_text())
        totals.append(trial["timings"]["totalMs"])
        agents.append(trial["timings"]["agentMs"])
        for line in (trial_dir / "agent-stdout.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event.get("type") == "result":
                clis.append(event.get("duration_ms", 0))
    return {
        "real_cli_trial_ms": statistics.median(totals),
        "real_cli_agent_phase_ms": statistics.median(agents),
        "real_cli_own_duration_ms": statistics.median(clis) if clis else None,
        "real_cli_harness_ms": statistics.median(
            t - a for t, a in zip(totals, agents, strict=True)
        ),
    }


def byte_compile() -> None:
    """Write the ``.pyc`` files of the proctor being measured (this interpreter's)."""
    import proctor

    compileall.compile_dir(Path(proctor.__file__).parent, quiet=1)


def main() -> None:
    repeats = int(os.environ.get("BENCH_REPEATS", "200"))
    many_runs = int(os.environ.get("BENCH_MANY_RUNS", "3"))
    results: dict[str, object] = {}
    byte_compile()
    help_times = [timed([*PROCTOR, "--help"]) for _ in range(11)]
    results["help_median_s"] = statistics.median(help_times)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases = trivial_case(root)
        one = [
            timed([*PROCTOR, "run", "--source", str(cases), "--out", str(root / f"o{i}")])
            for i in range(7)
        ]
        results["one_trial_median_s"] = statistics.median(one)
        many = statistics.median(
            timed(
                [
                    *PROCTOR,
                    "run",
                    "--source",
                    str(cases),
                    "--out",
                    str(root / f"many-{i}"),
                    "--repeats",
                    str(repeats),
                    "--concurrency",
                    "2",
                ]
            )
            for i in range(many_runs)
        )
        results["many_trials"] = repeats
        results["many_wall_s"] = many
        results["many_per_trial_ms"] = 1000 * many / repeats
        results.update(real_cli_overhead(root))
    targets = {"help_median_s": 0.25, "one_trial_median_s": 1.5, "many_per_trial_ms": 60}
    print(f"{'benchmark':28} {'measured':>10} {'target':>8}")
    for key, target in targets.items():
        value = float(results[key])  # type: ignore[arg-type]
        verdict = "ok" if value <= target else "OVER"
        print(f"{key:28} {value:10.3f} {target:8g}  {verdict}")
    for key in (
        "real_cli_trial_ms",
        "real_cli_agent_phase_ms",
        "real_cli_own_duration_ms",
        "real_cli_harness_ms",
        "real_cli",
    ):
        if key in results:
            print(f"{key:28} {results[key]}")
    out = Path(__file__).with_name("results")
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
