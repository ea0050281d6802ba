"""Which condition runs first: a number of pairs the order cannot be balanced over (an odd
`--repeats` of two conditions, an odd `plan-repeats --pairs`) is said when planned."""

from __future__ import annotations

from pathlib import Path

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
    even = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out), "--repeats", "2")
    assert even.code == 0 and "not balanced" not in even.err + even.out
    chosen = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out),
        "--first-condition", "treatment",
    )  # fmt: skip
    assert "proctor: note: the order" not in chosen.err  # the order asked for


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
    even = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "4", "--output",
        str(tmp_path / "m4.json"),
    )  # fmt: skip
    assert even.code == 0 and "not balanced" not in even.err


def test_runs_read_together_whose_order_is_not_balanced_are_said_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A manifest split between machines, its shares read together: reading only the pairs
    whose treatment ran first is said; every pair's run read together is not."""
    make_case("t1", config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "4", "--output", str(manifest)
    )
    assert planned.code == 0, planned.err
    out = tmp_path / "out"
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    assert proctor(*argv, "--out", str(out)).code == 0
    runs = {n: next((out / f"pair-{n}").glob("run-*")) for n in (1, 2, 3, 4)}
    said = (
        "proctor: note: over the runs read, the order of the conditions is not balanced: "
        "treatment runs first in 2 of 2 repeats, baseline in 0: a difference may come from the "
        "order as much as from the conditions"
    )
    share = proctor("report", str(runs[2]), str(runs[4]))
    assert share.code == 0 and said in share.err, share.err
    every = proctor("report", *(str(run) for run in runs.values()))
    assert every.code == 0 and "not balanced" not in every.err, every.err
    pooled = ("--treatment", "treatment", "--baseline", "baseline")
    compared = proctor("compare", str(runs[2]), str(runs[4]), *pooled)
    assert compared.code == 0 and said in compared.err, compared.err
    every = proctor("compare", *(str(run) for run in runs.values()), *pooled)
    assert every.code == 0 and "not balanced" not in every.err, every.err
