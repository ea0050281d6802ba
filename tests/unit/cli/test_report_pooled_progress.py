"""How many trials runs read together planned, when one of them is still running."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from proctor.cli.report import _pooled_progress


def _run(name: str, records: int, planned: int | None) -> SimpleNamespace:
    return SimpleNamespace(
        paths=SimpleNamespace(root=Path(name)), records=[object()] * records, planned=planned
    )


def test_the_trials_planned_are_not_summed_over_the_runs_that_say_alone() -> None:
    live = _run("live", 1, 4)
    _, finished = _pooled_progress([(live, 42)], [live, _run("other", 3, 3)])
    assert finished == "1 of 4 of its trials finished so far (4 of 7 over the 2 runs read)"
    # A run without run.json does not say how many it planned: nor do the runs read with it
    # (4 of 4 would read as done).
    _, finished = _pooled_progress([(live, 42)], [live, _run("unknown", 3, None)])
    assert finished == "1 of 4 of its trials finished so far (4 over the 2 runs read)"
