"""`proctor run --manifest`: a task of the manifest that has none of its conditions (a case
without conditions, labelled with the A/B cases in the goal labels file) runs in no pair; a
note says so once, before the first pair, instead of the manifest running fewer tasks than it
lists without a word."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


def test_a_task_without_the_manifests_conditions_is_said_not_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("ab-task", config=AB, plan=PLAN)
    make_case("plain-task", plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("ab-task,single_goal\nplain-task,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "2", "--output", str(manifest)
    )
    assert planned.code == 0, planned.err
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    result = proctor(*argv, "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    note = (
        f"proctor: note: {manifest}: task plain-task has none of the manifest's conditions "
        "(baseline, treatment): no pair runs it (1 of its 2 tasks run)\n"
    )
    assert result.err.count(note) == 1, result.err
    assert result.err.index(note) < result.err.index("all-pair-1")
    make_case("plain-task", config=AB, plan=PLAN)  # now an A/B case too: nothing to say
    again = proctor(*argv, "--out", str(tmp_path / "out3"))
    assert again.code == 0 and "none of the manifest's conditions" not in again.err, again.err
