"""The viewer's benchmarks, on synthetic runs written with the real record models.

(a) indexing 10,000 trials (ten runs of 1,000) from scratch: target < 30 s;
(b) the Run page of a run of 1,000 trials, after indexing (server time, median of 5): < 300 ms;
(c) the first page of a trial whose trajectory has 100,000 events, the first visit (the
    byte offsets scanned then) and later ones (median of 5): < 1 s.

Nothing is asserted: the table says which target was met. Usage:
``.venv/bin/python bench/view_bench.py [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from proctor.view import ResultsIndex, ViewSettings, build_app
from proctor.view.synthetic import write_run, write_trajectory_lines


def _timed(action: object) -> float:
    start = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="Write the synthetic results here and keep them.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = args.keep or Path(tmp)
        results.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        names = [f"run-20261201T{i:06d}Z-bench{i}" for i in range(10)]
        for name in names:
            write_run(results, name, trials=1000, cases=50, conditions=("a", "b"))
        print(f"wrote 10 runs of 1,000 trials in {time.perf_counter() - start:.1f} s", flush=True)

        index = ResultsIndex(results)
        indexing = _timed(lambda: index.refresh(force=True))
        trials = index.query("SELECT count(*) FROM trials")[0][0]

        big = results / names[0] / "trials" / "case-000" / "scripted" / "a" / "1"
        write_trajectory_lines(big / "trajectory.jsonl", 100_000)
        client = TestClient(build_app(ViewSettings(results=results), index))
        run_url = f"/runs/{names[0]}"
        client.get(run_url)
        run_page = statistics.median(_timed(lambda: client.get(run_url)) for _ in range(5))
        trial_url = f"/runs/{names[0]}/trials/case-000/scripted/a/1"
        first_visit = _timed(lambda: client.get(trial_url))
        later = statistics.median(_timed(lambda: client.get(trial_url)) for _ in range(5))
        last_page = _timed(lambda: client.get(trial_url + "?page=500"))

    rows = [
        (f"index {trials:,} trials from scratch", indexing, 30.0),
        ("run page, 1,000 trials (median of 5)", run_page, 0.3),
        ("trial page, 100,000 events: first visit", first_visit, 1.0),
        ("trial page, 100,000 events: later (median of 5)", later, 1.0),
        ("trial page, 100,000 events: last page", last_page, 1.0),
    ]
    print(f"{'measure':<50} {'seconds':>9} {'target':>8}  ")
    for label, value, target in rows:
        mark = "ok" if value < target else "MISSED"
        print(f"{label:<50} {value:>9.3f} {target:>8.1f}  {mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
