"""Which condition runs first: a number of pairs the order cannot be balanced over (an odd
`--repeats` of two conditions, an odd `plan-repeats --pairs`) is said when planned."""

from __future__ import annotations

import json
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
        "of 3 case repeats, treatment in 1 (a multiple of 2 repeats, or of 2 cases, balances it)"
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
        "treatment runs first in 2 of 2 case repeats, baseline in 0: a difference may come from "
        "the "
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


def test_one_repeat_of_an_even_number_of_cases_is_balanced(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The order alternates from case to case as from repeat to repeat: one repeat of four
    cases ran baseline first in all four, and the note asked for more repeats."""
    for name in ("t1", "t2", "t3", "t4"):
        make_case(name, config=AB, plan=PLAN)
    out = tmp_path / "out"
    ran = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out), "--repeats", "1")
    assert ran.code == 0 and "not balanced" not in ran.err, ran.err
    (run,) = out.glob("run-*")
    matrix = json.loads((run / "resolved.json").read_text())["matrix"]  # the order planned
    planned = [(cell["case"], cell["condition"]) for cell in matrix]
    firsts = [next(c for case, c in planned if case == name) for name in ("t1", "t2", "t3", "t4")]
    assert firsts == ["baseline", "treatment", "baseline", "treatment"]
    three = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out), "--repeats", "1",
        "--case", "t[123]", "--dry-run",
    )  # fmt: skip
    assert (
        "proctor: note: the order of the conditions is not balanced: baseline runs first in 2 "
        "of 3 case repeats, treatment in 1 (a multiple of 2 repeats, or of 2 cases, balances it)"
    ) in three.err, three.err


def test_ordinary_runs_read_together_are_not_told_of_a_manifest(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    out = tmp_path / "out"
    for _ in range(2):
        ran = proctor(
            "run", "--source", str(tmp_path / "cases"), "--out", str(out), "--repeats", "1"
        )
        assert ran.code == 0, ran.err
    runs = [str(run) for run in sorted(out.glob("run-*"))]
    said = (
        "proctor: note: over the runs read, the order of the conditions is not balanced: "
        "baseline runs first in 2 of 2 case repeats, treatment in 0: a difference may come from "
        "the order as much as from the conditions (a run of the same cases and repeats runs the "
        "conditions in the same order again, so more such runs leave it as it is; `proctor "
        "plan-repeats` plans runs whose orders balance)"
    )
    report = proctor("report", *runs)
    assert report.code == 0 and said in report.err and "manifest" not in report.err, report.err
    pooled = ("--treatment", "treatment", "--baseline", "baseline")
    compared = proctor("compare", *runs, *pooled)
    assert compared.code == 0 and said in compared.err, compared.err


def test_cases_of_the_same_conditions_rotate_together_whatever_they_list_or_lie_between(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """c3 lists the conditions the other way round and y runs a third between x and z: each
    set of conditions' cases rotate among themselves, so one repeat of them is balanced."""
    make_case("c1", config=AB, plan=PLAN)
    make_case("c3", config={"conditions": {"treatment": {}, "baseline": {}}}, plan=PLAN)
    make_case("x", config=AB, plan=PLAN)
    three = {"conditions": {"baseline": {}, "treatment": {}, "third": {}}}
    make_case("y", config=three, plan={"conditions": {n: PLAN for n in three["conditions"]}})
    make_case("z", config=AB, plan=PLAN)
    argv = ("run", "--source", str(tmp_path / "cases"), "--repeats", "1")
    ran = proctor(*argv, "--out", str(tmp_path / "c"), "--case", "c[13]")
    assert ran.code == 0 and "not balanced" not in ran.err, ran.err
    (run,) = (tmp_path / "c").glob("run-*")
    matrix = json.loads((run / "resolved.json").read_text())["matrix"]
    assert [(cell["case"], cell["condition"]) for cell in matrix] == [
        ("c1", "baseline"), ("c1", "treatment"), ("c3", "treatment"), ("c3", "baseline"),
    ]  # fmt: skip
    again = proctor(*argv, "--out", str(tmp_path / "xyz"), "--case", "[xyz]")
    assert again.code == 0, again.err
    (run,) = (tmp_path / "xyz").glob("run-*")
    matrix = json.loads((run / "resolved.json").read_text())["matrix"]
    firsts = {cell["case"]: cell["condition"] for cell in reversed(matrix)}  # each case's first
    assert firsts == {"x": "baseline", "y": "baseline", "z": "treatment"}, matrix
