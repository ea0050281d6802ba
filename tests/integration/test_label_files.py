"""--buckets and --goal-labels: label files applied at report time, over the tasks' own."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run, run_cases, single_run_dir

AB = {
    "repeats": 1,
    "conditions": {"baseline": {}, "treatment": {}},
    "evaluators": [{"use": "file-exists", "must": ["a.txt"]}],
}
WRITES = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}


def test_buckets_slice_compare_and_goal_labels_filter_report(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    for name in ("one", "two"):
        make_case(name, config=AB, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    buckets = tmp_path / "buckets.csv"
    buckets.write_text("# task id, bucket\none,easy\ntwo,hard\n")
    compared = proctor(
        "compare", run_dir, "--treatment", "treatment", "--baseline", "baseline",
        "--json", "--buckets", str(buckets),
    )  # fmt: skip
    assert compared.code == 0, compared.err
    by_bucket = json.loads(compared.out)["byDimension"]["bucket"]
    assert sorted(by_bucket) == ["easy", "hard"]
    unlabelled = json.loads(
        proctor(
            "compare", run_dir, "--treatment", "treatment", "--baseline", "baseline", "--json"
        ).out
    )
    assert "bucket" not in unlabelled.get("byDimension", {}) or list(
        unlabelled["byDimension"]["bucket"]
    ) == ["(none)"]  # control: without the file there are no buckets
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps({"one": "strong_multi_goal"}))
    report = proctor(
        "report", run_dir, "--goal-labels", str(shapes), "--goal-shape", "strong_multi_goal"
    )
    # The repeated view's rows (case, agent, …); the A/B report's `## By goal shape` has its own.
    rows = [
        line
        for line in report.out.splitlines()
        if "strong_multi_goal" in line and not line.startswith("| strong_multi_goal |")
    ]
    assert rows and all(line.startswith("| one |") for line in rows)
    assert "| strong_multi_goal | 1 | 1/1 | 1/1 |" in report.out  # By goal shape
    typo = proctor("report", run_dir, "--goal-labels", str(shapes), "--goal-shape", "strong")
    assert typo.code == 2
    assert "--goal-shape strong: no trial has that goal shape (shapes: strong_multi_goal)" in (
        typo.err
    )
    assert typo.out == ""  # refused before any report is printed


def test_a_bad_label_file_is_a_sentence(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("one", config=AB, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("one,easy,extra\n")
    result = proctor("report", str(single_run_dir(out)), "--buckets", str(bad))
    assert result.code == 2 and f"--buckets {bad}:1: expected 'task id,label'" in result.err
    # A label of the user's own is a label (plan-repeats alone needs the three shapes).
    custom = tmp_path / "custom.csv"
    custom.write_text("one,exploratory\nanother,single_goal\n")
    shaped = proctor(
        "report", str(single_run_dir(out)), "--goal-labels", str(custom), "--repeated",
        "--goal-shape", "exploratory",
    )  # fmt: skip
    assert shaped.code in (0, 1), shaped.err  # more tasks: read, and the others named
    assert (
        f"proctor: note: --goal-labels {custom}: 'another': not one of the run's tasks, its "
        "label unused"
    ) in shaped.err
    # A file that names none of the run's tasks is likely the wrong one: said.
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("noone,single_goal\n")
    result = proctor("report", str(single_run_dir(out)), "--goal-labels", str(wrong))
    assert f"--goal-labels {wrong}: the file names none of the run's tasks (one)" in result.err
    # compare reads each run apart: the note names the run whose tasks the file does not
    # name, once, though the run is read twice
    run_dir = single_run_dir(out)
    again = proctor("compare", str(run_dir), str(run_dir), "--goal-labels", str(wrong))
    note = f"--goal-labels {wrong}: the file names none of the tasks of {run_dir} (one)"
    assert again.err.count(note) == 1, again.err


def test_buckets_are_shown_in_the_markdown_of_a_run_comparison(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    for name in ("one", "two"):
        make_case(name, config=AB, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    buckets = tmp_path / "buckets.csv"
    buckets.write_text("one,easy\ntwo,hard\n")
    compared = proctor("compare", run_dir, run_dir, "--buckets", str(buckets))
    assert compared.code == 0, compared.err
    section = compared.out.split("## By bucket\n", 1)[1].split("\n## ", 1)[0]
    assert "| bucket | groups | before passed | after passed | classifications |" in section
    assert "| easy | 2 | 2/2 | 2/2 | no claim 2 |" in section  # one case, two conditions
    assert "| hard | 2 | 2/2 | 2/2 | no claim 2 |" in section
    assert "## By bucket" not in proctor("compare", run_dir, run_dir).out


def test_goal_shapes_are_shown_in_the_markdown_of_both_comparisons(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    for name in ("one", "two"):
        make_case(name, config=AB, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    shapes = tmp_path / "shapes.csv"
    shapes.write_text("one,single_goal\ntwo,strong_multi_goal\n")
    # Two runs: the groups of each goal shape, as `## By bucket` counts them.
    compared = proctor("compare", run_dir, run_dir, "--goal-labels", str(shapes))
    assert compared.code == 0, compared.err
    section = compared.out.split("## By goal shape\n", 1)[1].split("\n## ", 1)[0]
    assert "| goal shape | groups | before passed | after passed | classifications |" in section
    assert "| single_goal | 2 | 2/2 | 2/2 | no claim 2 |" in section
    assert "| strong_multi_goal | 2 | 2/2 | 2/2 | no claim 2 |" in section
    # One run's conditions: the paired deltas of each goal shape, in the Markdown and the JSON.
    ab = ("compare", run_dir, "--treatment", "treatment", "--baseline", "baseline")
    paired = proctor(*ab, "--goal-labels", str(shapes))
    assert paired.code == 0, paired.err
    section = paired.out.split("## By goal shape\n", 1)[1].split("\n## ", 1)[0]
    assert "| goal shape | pairs | treatment passed | baseline passed |" in section
    assert "| single_goal | 1 | 1/1 | 1/1 |" in section
    as_json = json.loads(proctor(*ab, "--goal-labels", str(shapes), "--json").out)
    assert sorted(as_json["byDimension"]["goalShape"]) == ["single_goal", "strong_multi_goal"]
    # Without the file, no goal shape: no section.
    assert "## By goal shape" not in proctor("compare", run_dir, run_dir).out
    assert "## By goal shape" not in proctor(*ab).out


def test_a_task_id_the_run_lacks_is_named_with_the_task_it_may_misspell(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`zzz,hard` and `fix-ad,easy` beside a task the run has were dropped without a word, the
    misspelt task landing in `(none)`: a note names them (a note: one file serves many runs)."""
    for name in ("fix-add", "one"):
        make_case(name, config=AB, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    buckets = tmp_path / "buckets.csv"
    buckets.write_text("one,easy\nfix-ad,hard\nzzz,hard\n")
    said = (
        f"proctor: note: --buckets {buckets}: 'fix-ad' (did you mean 'fix-add'?), 'zzz': none "
        "of {whose}, their labels unused"
    )
    reported = proctor("report", str(run_dir), "--buckets", str(buckets))
    assert reported.code == 0, reported.err
    assert said.format(whose="the run's tasks") in reported.err
    compared = proctor("compare", str(run_dir), str(run_dir), "--buckets", str(buckets))
    assert compared.err.count(said.format(whose=f"the tasks of {run_dir}")) == 1, compared.err
    # Every id a task of the run: no note.
    right = tmp_path / "right.csv"
    right.write_text("one,easy\nfix-add,hard\n")
    quiet = proctor("report", str(run_dir), "--buckets", str(right))
    assert quiet.code == 0 and "note" not in quiet.err, quiet.err


def test_runs_read_as_one_and_a_manifest_s_left_out_tasks_are_said_as_such(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`report` of several runs said "the run's tasks"; the pairs of a manifest planned with
    --goal-shape were told that the tasks it left out on purpose were none of theirs."""
    for name in ("t1", "t2", "t3"):
        make_case(name, config=AB, plan=WRITES)
    goals = tmp_path / "goals.csv"
    goals.write_text("t1,single_goal\nt2,single_goal\nt3,strong_multi_goal\n")
    manifest = tmp_path / "m.json"
    planned = ("plan-repeats", "--goal-labels", str(goals), "--goal-shape", "single_goal")
    assert proctor(*planned, "--pairs", "2", "--output", str(manifest)).code == 0
    out = tmp_path / "out"
    ran = proctor("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
                  "--out", str(out))  # fmt: skip
    assert ran.code == 0, ran.err
    (first,) = (out / "pair-1").glob("run-*")
    (second,) = (out / "pair-2").glob("run-*")
    # The goal labels the manifest was planned from: t3 left out on purpose, no note.
    for runs in ([first, second], [first]):
        shaped = proctor("report", *map(str, runs), "--goal-labels", str(goals))
        assert shaped.code == 0 and "note: --goal-labels" not in shaped.err, shaped.err
    compared = proctor("compare", str(first), str(second), "--goal-labels", str(goals))
    assert compared.code == 0 and "note: --goal-labels" not in compared.err, compared.err
    # A bucket file's id no task has is still named, "the runs' tasks" of runs read as one.
    buckets = tmp_path / "buckets.csv"
    buckets.write_text("t1,easy\nt3,hard\nzzz,hard\n")
    both = ("--buckets", str(buckets), "--goal-labels", str(goals))
    pooled = proctor("report", str(first), str(second), *both)
    assert pooled.code == 0, pooled.err
    said = f"proctor: note: --buckets {buckets}: 'zzz': not one of the runs' tasks, its label"
    assert said in pooled.err and "'t3'" not in pooled.err, pooled.err
    alone = proctor("report", str(first), *both)
    assert "'zzz': not one of the run's tasks" in alone.err and "'t3'" not in alone.err
    # Without the goal labels, what t3's shape is is unknown: named, as any id.
    unknown = proctor("report", str(first), str(second), "--buckets", str(buckets))
    assert "'t3', 'zzz': none of the runs' tasks, their labels unused" in unknown.err
    # Runs of no manifest: every id they lack is named.
    plain, plain_out = run_cases(proctor, tmp_path, "--case", "t1", "--case", "t2")
    assert plain.code == 0, plain.err
    unplanned = proctor("report", str(single_run_dir(plain_out)), "--goal-labels", str(goals))
    assert "'t3': not one of the run's tasks, its label unused" in unplanned.err


def test_compare_counts_a_task_whose_records_are_all_lost_as_one_of_the_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    for name in ("one", "two"):
        make_case(name, config=AB, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    for record in (run_dir / "trials" / "two").rglob("trial.json"):
        record.unlink()  # every trial of `two` lost its record: an infra-error each
    shapes = tmp_path / "shapes.csv"
    shapes.write_text("one,single_goal\ntwo,strong_multi_goal\n")
    compared = proctor("compare", str(run_dir), str(run_dir), "--goal-labels", str(shapes))
    assert compared.code in (0, 1), compared.err
    assert "not one of the tasks" not in compared.err, compared.err
    assert "| strong_multi_goal | 2 |" in compared.out, compared.out
