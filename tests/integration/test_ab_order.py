"""Which condition ran first: a number of pairs the order cannot be balanced over (an odd
`--repeats` of two conditions, an odd `plan-repeats --pairs`) is said when planned, and the A/B
report counts which side ran first more often."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.models.trial import TrialRecord
from proctor.report.ab import analyse_ab, render_ab_markdown
from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


def test_an_odd_number_of_repeats_is_said_and_counted_in_the_report(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config={**AB, "repeats": 3}, plan=PLAN)
    out = tmp_path / "out"
    ran = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert ran.code == 0, ran.err
    assert (
        "proctor: note: the order of the conditions is not balanced: baseline runs first in 2 "
        "of 3 repeats, treatment in 1 (a multiple of 2 repeats balances it)"
    ) in ran.err
    (run,) = out.glob("run-*")
    order = json.loads((run / "suite.json").read_text())["ab"]["order"]
    assert (order["baselineFirst"], order["treatmentFirst"], order["unknown"]) == (2, 1, 0)
    assert order["note"].startswith("order not balanced: 'baseline' ran first in 2 of 3 pairs")
    assert "- Order not balanced: `baseline` ran first in 2 of 3 pairs, `treatment` in 1" in ran.out
    even = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out), "--repeats", "2")
    assert even.code == 0 and "not balanced" not in even.err + even.out
    chosen = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out),
        "--first-condition", "treatment",
    )  # fmt: skip
    assert "proctor: note: the order" not in chosen.err  # the order asked for
    assert "- Order not balanced: `treatment` ran first in 3 of 3 pairs" in chosen.out


def test_an_odd_number_of_planned_pairs_is_said_when_planned_and_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "3", "--output", str(manifest)
    )
    said = (
        f"proctor: note: {manifest}: the order of the conditions is not balanced: baseline "
        "runs first in 2 of 3 pairs, treatment in 1 (a multiple of 2 pairs balances it)"
    )
    assert planned.code == 0 and said in planned.err
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert ran.code == 0 and said in ran.err
    assert "- Order not balanced: `baseline` ran first in 2 of 3 pairs" in ran.out
    even = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "4", "--output",
        str(tmp_path / "m4.json"),
    )  # fmt: skip
    assert even.code == 0 and "not balanced" not in even.err


def _trial(condition: str, repeat: int, started: str | None) -> TrialRecord:
    return TrialRecord.model_validate(
        {"case": "c", "agent": "a", "condition": condition, "repeat": repeat,
         "status": "passed", "passed": True, "timings": {"startedAt": started}}
    )  # fmt: skip


def test_a_pair_whose_start_times_are_not_known_counts_as_unknown() -> None:
    records = [
        _trial("b", 1, "2026-01-01T00:00:00.000Z"),
        _trial("t", 1, "2026-01-01T00:00:01.000Z"),
        _trial("b", 2, "2026-01-01T00:00:03.000Z"),
        _trial("t", 2, "2026-01-01T00:00:02.000Z"),
        _trial("b", 3, None),
        _trial("t", 3, "2026-01-01T00:00:05.000Z"),
        _trial("b", 4, "2026-01-01T00:00:06.000Z"),
        _trial("t", 4, "2026-01-01T00:00:06.000Z"),  # the same millisecond
    ]
    report = analyse_ab(records, "t", "b")
    assert [p.first for p in report.pairs] == ["b", "t", None, None]
    assert (report.order.treatment_first, report.order.baseline_first) == (1, 1)
    assert report.order.unknown == 2 and report.order.note == ""
    assert "Order not balanced" not in render_ab_markdown(report)
    report = analyse_ab(records[:2] + records[4:6], "t", "b")
    assert report.order.note == (
        "order not balanced: 'b' ran first in 1 of 2 pairs, 't' in 0, 1 not known, so what "
        "running first does is not cancelled out of the deltas (an even number of pairs, in "
        "alternating order, balances it)"
    )
