"""proctor's benchmarks: wall-clock medians measured here, never asserted in tests.

(a) ``proctor --help``; (b) ``proctor run`` of one trivial trial (one ``write``, one
``file-exists``); (c) the same case with 200 repeats at ``--concurrency 2``, as wall time per trial.
Targets on a 2-core machine: (a) <= 0.25 s, (b) <= 1.5 s, (c) <= 60 ms per trial.
"""

from __future__ import annotations

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


def main() -> None:
    repeats = int(os.environ.get("BENCH_REPEATS", "200"))
    results: dict[str, object] = {}
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
        many = timed(
            [*PROCTOR, "run", "--source", str(cases), "--out", str(root / "many"),
             "--repeats", str(repeats), "--concurrency", "2"]
        )  # fmt: skip
        results["many_trials"] = repeats
        results["many_wall_s"] = many
        results["many_per_trial_ms"] = 1000 * many / repeats
    targets = {"help_median_s": 0.25, "one_trial_median_s": 1.5, "many_per_trial_ms": 60}
    print(f"{'benchmark':28} {'measured':>10} {'target':>8}")
    for key, target in targets.items():
        value = float(results[key])  # type: ignore[arg-type]
        verdict = "ok" if value <= target else "OVER"
        print(f"{key:28} {value:10.3f} {target:8g}  {verdict}")
    out = Path(__file__).with_name("results")
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
