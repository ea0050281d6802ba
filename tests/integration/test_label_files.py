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
    rows = [line for line in report.out.splitlines() if "strong_multi_goal" in line]
    assert rows and all(line.startswith("| one |") for line in rows)
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
    # A goal shape that is none of the three is refused, as plan-repeats refuses it.
    weird = tmp_path / "weird.csv"
    weird.write_text("one,weird\n")
    for command in ("report", "compare"):
        result = proctor(command, str(single_run_dir(out)), "--goal-labels", str(weird))
        assert result.code == 2, result.err
        assert "--goal-labels: task 'one' has goal shape 'weird'; expected one of" in result.err
    # A task id no trial has is said, as a likely typo; the labels of the others apply.
    typo = tmp_path / "typo.csv"
    typo.write_text("one,single_goal\nnoone,single_goal\n")
    result = proctor("report", str(single_run_dir(out)), "--goal-labels", str(typo))
    assert result.code in (0, 1) and "--goal-labels: no trial of task(s) 'noone'" in result.err
