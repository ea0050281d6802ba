"""--no-evaluate, --only-evaluator, --skip-evaluator and --no-collect-cost: each changes what a
run evaluates or prices, is recorded in resolved.json, and is said in the report."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

CHECKS = {
    "evaluators": [
        {"use": "file-exists", "must": ["a.txt"], "label": "has-a"},
        {"use": "command", "run": "grep -q b a.txt", "label": "says-b"},
    ]
}
WRITES_A = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}


def resolved(out: Path) -> dict[str, object]:
    return dict(json.loads((single_run_dir(out) / "resolved.json").read_text()))


def test_no_evaluate_runs_and_records_without_scoring(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config=CHECKS, plan=WRITES_A)
    cases = str(tmp_path / "cases")
    failing = proctor("run", "--source", cases, "--out", str(tmp_path / "control"))
    assert failing.code == 1  # control: evaluated, says-b fails
    result, out = run_cases(proctor, tmp_path, "--no-evaluate")
    run_dir = single_run_dir(out)
    assert result.code == 0, result.err
    trial = load_trial(run_dir, "x")
    assert (trial["status"], trial["evaluators"], trial["passed"]) == ("skipped", [], None)
    assert (
        trial["reason"]
        == "not evaluated: the run was told not to evaluate this case (--no-evaluate)"
    )
    assert (run_dir / "trials/x/scripted/default/1/trajectory.jsonl").is_file()  # recorded
    assert (
        "- Not evaluated: 1 trial ran and was recorded without evaluation (--no-evaluate); it "
        "is not scored\n" in result.out
    )
    assert json.loads((run_dir / "resolved.json").read_text())["evaluate"] is False
    report = proctor("report", str(run_dir))
    assert report.code == 0 and "Not evaluated" in report.out


def test_only_and_skip_evaluator_by_label_or_use(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config=CHECKS, plan=WRITES_A)
    only, out = run_cases(proctor, tmp_path, "--only-evaluator", "has-a")
    assert only.code == 0
    assert [e["use"] for e in load_trial(single_run_dir(out), "x")["evaluators"]] == ["file-exists"]
    assert resolved(out)["onlyEvaluators"] == ["has-a"]
    skipped = tmp_path / "skipped"
    skip = proctor(
        "run",
        "--source",
        str(tmp_path / "cases"),
        "--out",
        str(skipped),
        "--skip-evaluator",
        "command",
    )
    assert skip.code == 0
    trial = load_trial(single_run_dir(skipped), "x")
    assert [e["use"] for e in trial["evaluators"]] == ["file-exists"]
    assert resolved(skipped)["skipEvaluators"] == ["command"]


def test_a_case_left_without_evaluators_is_not_evaluated_the_others_are(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config=CHECKS, plan=WRITES_A)
    make_case(
        "y", config={"evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}, plan=WRITES_A
    )
    result, out = run_cases(
        proctor, tmp_path, "--skip-evaluator", "has-a", "--skip-evaluator", "says-b"
    )
    run_dir = single_run_dir(out)
    assert load_trial(run_dir, "x")["status"] == "skipped"
    assert load_trial(run_dir, "x")["reason"].endswith(
        "(--skip-evaluator has-a, --skip-evaluator says-b left out every one of its evaluators)"
    )
    assert load_trial(run_dir, "y")["status"] == "passed"
    assert result.code == 0, result.err
    assert "every scored group passed its gate; 1 group not gated" in result.err
    # --dry-run says so too: "-" alone would read as a case without evaluators.
    args = ["--skip-evaluator", "has-a", "--skip-evaluator", "says-b", "--dry-run"]
    planned = proctor("run", "--source", str(tmp_path / "cases"), *args).out.splitlines()
    row = next(line for line in planned if line.startswith("x "))
    assert row.endswith(
        "- (not evaluated: --skip-evaluator has-a, --skip-evaluator says-b left out every one "
        "of its evaluators)"
    )
    assert next(line for line in planned if line.startswith("y ")).endswith("  file-exists")


def test_an_unknown_evaluator_name_is_a_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config=CHECKS, plan=WRITES_A)
    result, out = run_cases(proctor, tmp_path, "--only-evaluator", "has-c")
    assert result.code == 2 and not out.exists()
    assert "--only-evaluator has-c: no case has an evaluator with that use or label" in result.err
    both = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out),
        "--only-evaluator", "file-exists", "--skip-evaluator", "file-exists",
    )  # fmt: skip
    assert both.code == 2 and not out.exists()
    assert "--only-evaluator and --skip-evaluator both name file-exists" in both.err


def test_an_unknown_evaluator_name_is_said_with_the_nearest_and_the_names_there_are(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The names were listed all, however many, and the near one not singled out."""
    make_case("x", config=CHECKS, plan=WRITES_A)
    many = [{"use": "file-exists", "must": ["a.txt"], "label": f"c{i:02}"} for i in range(25)]
    make_case("y", config={"evaluators": [*CHECKS["evaluators"], *many]}, plan=WRITES_A)
    checked = proctor("validate", "--source", str(tmp_path / "cases"), "--skip-evaluator", "has_a")
    assert checked.code == 2
    listed = ", ".join(["c00", "c01", *(f"c{i:02}" for i in range(2, 20))])
    assert checked.err.splitlines()[0] == (
        "proctor: error: --skip-evaluator has_a: no case has an evaluator with that use or "
        f"label (did you mean 'has-a'? evaluators: {listed}, …)"
    )
    make_case("y", config=CHECKS, plan=WRITES_A)
    result, _ = run_cases(proctor, tmp_path, "--only-evaluator", "says_b")
    assert result.err.strip() == (
        "proctor: error: --only-evaluator says_b: no case has an evaluator with that use or "
        "label (did you mean 'says-b'? evaluators: command, file-exists, has-a, says-b)"
    )


def test_no_collect_cost_leaves_every_cost_unknown(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", plan=WRITES_A)
    result, out = run_cases(proctor, tmp_path, "--no-collect-cost")
    cost = load_trial(single_run_dir(out), "x")["cost"]
    assert (cost["collected"], cost["totalUsd"], cost["byModel"]) == (False, None, {})
    assert "- Cost: not collected (--no-collect-cost)" in result.out
    assert resolved(out)["collectCost"] is False
    control = tmp_path / "control"
    proctor("run", "--source", str(tmp_path / "cases"), "--out", str(control))
    assert load_trial(single_run_dir(control), "x")["cost"]["collected"] is True


METRICS_ONLY = """#!/bin/sh
cat > /dev/null
echo '{"values": [{"name": "readability", "value": 10}, {"name": "size", "value": 40}]}'
"""


def test_external_values_without_score_metric_are_rolled_up_not_scored(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    measures = {"use": "external", "command": "measure.sh"}
    checks = {"evaluators": [measures, {"use": "file-exists", "must": ["a.txt"]}], "repeats": 2}
    folder = make_case("x", config=checks, plan=WRITES_A)
    (folder / "measure.sh").write_text(METRICS_ONLY)
    (folder / "measure.sh").chmod(0o755)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.out  # readability 10 does not fail the trial
    run_dir = single_run_dir(out)
    trial = load_trial(run_dir, "x")
    assert (trial["status"], trial["score"]) == ("passed", 100)
    assert [e["counted"] for e in trial["evaluators"]] == [False, True]
    suite = json.loads((run_dir / "suite.json").read_text())
    readability = suite["totals"]["metrics"]["readability"]
    assert (readability["n"], readability["median"]) == (2, 10)
    assert suite["groups"][0]["metrics"]["size"]["median"] == 40
    assert "- Metrics (median, range): readability 10.0 (10.0–10.0, n=2)" in result.out
