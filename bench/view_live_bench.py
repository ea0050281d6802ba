"""Following a run in progress: what each poll of its pages costs while nothing changed.

A synthetic run of ``--trials`` trial folders (300 by default), its orchestrator this process
(so it is in progress), indexed once; then, each the median of 21:

(a) refreshing the index (what every request does, at most once a second);
(b) a poll of the Run page's followed part that finds nothing changed (a 304);
(c) a poll of a Trial page's followed part that finds nothing changed (a 304);

and a trial that ends (its ``trial.json`` written, then its journal line, as a run writes
them) must show at the next refresh. Nothing is asserted but that: the table says which
target was met. Usage: ``.venv/bin/python bench/view_live_bench.py [--trials N]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from starlette.testclient import TestClient

from proctor.models.io import write_record
from proctor.models.run import JournalEntry
from proctor.view import ResultsIndex, ViewSettings, build_app
from proctor.view.synthetic import trial_record, write_run

RUN = "run-20261201T000000Z-live"


def _median_ms(action: Callable[[], object], before: Callable[[], object]) -> float:
    times = []
    for _ in range(21):
        before()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=300, help="Trial folders of the run.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp)
        paths = write_run(
            results, RUN, trials=args.trials, cases=10, finished=False, events_per_trial=2
        )
        index = ResultsIndex(results)
        index.refresh(force=True)
        client = TestClient(build_app(ViewSettings(results=results), index))

        def stale() -> None:  # the next request refreshes, as one a second later would
            index.refresh(force=True)
            index._last_refresh = 0.0

        refresh = _median_ms(lambda: index.refresh(force=True), lambda: None)
        run_url = f"/fragments/runs/{RUN}"
        run_tag = client.get(run_url).headers["etag"]
        run_poll = _median_ms(
            lambda: client.get(run_url, headers={"if-none-match": run_tag}), stale
        )
        trial_url = f"/fragments/runs/{RUN}/trials/case-000/scripted/default/1"
        trial_tag = client.get(trial_url).headers["etag"]
        trial_poll = _median_ms(
            lambda: client.get(trial_url, headers={"if-none-match": trial_tag}), stale
        )
        codes = {
            client.get(run_url, headers={"if-none-match": run_tag}).status_code,
            client.get(trial_url, headers={"if-none-match": trial_tag}).status_code,
        }

        before = index.run_row(RUN)["trials"]  # type: ignore[index]
        record = trial_record("case-999", "scripted", "default", 1)
        write_record(paths.trial("case-999", "scripted", "default", 1).trial_json, record)
        line = JournalEntry(
            event="trial-finished",
            time="2026-12-01T00:00:05Z",
            case="case-999",
            agent="scripted",
            condition="default",
            repeat=1,
            status="passed",
        )
        with paths.journal.open("a", encoding="utf-8") as fh:
            fh.write(line.model_dump_json(by_alias=True, exclude_none=True) + "\n")
        index.refresh(force=True)
        after = index.run_row(RUN)["trials"]  # type: ignore[index]

    print(f"a run in progress of {args.trials} trial folders; polls answered {sorted(codes)}")
    rows = [
        ("refresh of the index, nothing changed", refresh, 5.0),
        ("Run page poll, nothing changed (304)", run_poll, 10.0),
        ("Trial page poll, nothing changed (304)", trial_poll, 10.0),
    ]
    print(f"{'measure (median of 21)':<45} {'ms':>9} {'target':>8}")
    for label, value, target in rows:
        mark = "ok" if value < target else "MISSED"
        print(f"{label:<45} {value:>9.2f} {target:>8.1f}  {mark}")
    shown = "ok" if after == before + 1 else "MISSED"
    print(f"a trial that ended shows at the next refresh: {before} -> {after} trials  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
