"""A/B conditions end to end: matrix, order, pairs in suite.json, the A/B gate, compare."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from junitparser import JUnitXml

from tests.conftest import MakeCase, Run, run_cases, single_run_dir, write_case

PLANS = {
    "conditions": {
        "baseline": {
            "variants": [
                [
                    {"read": "a.py"},
                    {"read": "b.py"},
                    {"read": "c.py"},
                    {"write": {"path": "ok.txt", "content": "1"}},
                ],
                [{"read": "a.py"}, {"read": "b.py"}, {"say": "gave up"}],
            ]
        },
        "with-map": {"turns": [{"read": "c.py"}, {"write": {"path": "ok.txt", "content": "1"}}]},
    }
}
CONFIG = {
    "repeats": 4,
    "expectedFiles": ["c.py"],
    "conditions": {
        "baseline": {},
        "with-map": {"promptPrefix": "MAP: look in c.py", "env": {"HINT": "c"}},
    },
    "evaluators": [{"use": "file-exists", "must": ["ok.txt"]}],
}


def _case(tmp_path: Path) -> Path:
    cases = tmp_path / "cases"
    write_case(
        cases, "hunt", config=CONFIG, plan=PLANS, src={"a.py": "a", "b.py": "b", "c.py": "c"}
    )
    return cases


def test_conditions_run_as_pairs_and_the_report_shows_the_difference(
    proctor: Any, tmp_path: Path
) -> None:
    cases = _case(tmp_path)
    result = proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--json",
        "--concurrency",
        "1",
    )
    suite = result.json()
    groups = {g["condition"]: g for g in suite["groups"]}
    assert groups["baseline"]["passes"] == 2 and groups["with-map"]["passes"] == 4
    ab = suite["ab"]
    assert (ab["treatment"], ab["baseline"]) == ("with-map", "baseline")
    assert len(ab["pairs"]) == 4 and ab["incomplete"] == []
    tool_calls = ab["overall"]["comparisons"]["toolCalls"]
    assert tool_calls["treatment"] == 2 and tool_calls["baseline"] == 3
    assert [r["condition"] for r in suite["repeated"]] == ["baseline", "with-map"]
    run_dir = single_run_dir(tmp_path / "out")
    trial = json.loads((run_dir / "trials/hunt/scripted/baseline/1/trial.json").read_text())
    assert trial["condition"] == "baseline"
    treated = json.loads((run_dir / "trials/hunt/scripted/with-map/1/trial.json").read_text())
    events = [
        json.loads(x)
        for x in (run_dir / "trials/hunt/scripted/with-map/1/trajectory.jsonl")
        .read_text()
        .splitlines()
    ]
    assert events[0]["text"].startswith("MAP: look in c.py\n\n")
    assert treated["process"]["context"]["firstRelevantStep"] == 0
    order = json.loads((run_dir / "resolved.json").read_text())["matrix"]
    assert [m["condition"] for m in order[:4]] == ["baseline", "with-map", "with-map", "baseline"]

    compared = proctor("compare", str(run_dir), "--json")
    assert compared.code == 0 and compared.json()["treatment"] == "with-map"
    md = proctor("compare", str(run_dir), "--treatment", "baseline", "--baseline", "with-map")
    assert "# A/B: `baseline` (treatment) vs `with-map` (baseline)" in md.out
    bad = proctor("compare", str(run_dir), "--treatment", "nope")
    assert bad.code == 2 and "nope" in bad.err
    repeated = proctor("report", str(run_dir), "--repeated", "--min-samples", "5")
    assert "(no case has enough samples)" in repeated.out
    # The repeated-run table is Markdown: with another reporter alone it is refused, not
    # appended to JSON or XML; after the Markdown report when both are asked for.
    for other in ("json", "junit", "html"):
        refused = proctor("report", str(run_dir), "--reporter", other, "--repeated")
        assert refused.code == 2 and "--reporter markdown" in refused.err, refused.err
    # With both, stdout holds one document, the Markdown report with its table; --write
    # writes the JSON too.
    both = proctor("report", str(run_dir), "--reporter", "markdown,json", "--repeated")
    table, _, rest = both.out.partition("## Repeated runs")
    assert table and rest and '"runId"' not in both.out
    assert "printed the markdown report only; --write writes json" in both.err


def test_ab_gate_fails_when_the_treatment_drops(proctor: Any, tmp_path: Path) -> None:
    cases = _case(tmp_path)
    top = tmp_path / "proctor.json"
    top.write_text(
        json.dumps(
            {
                "gate": {
                    "minPassRate": 0,
                    "ab": {
                        "treatment": "baseline",
                        "baseline": "with-map",
                        "maxPassRateDrop": 0.05,
                    },
                }
            }
        )
    )
    result = proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--config",
        str(top),
        "--json",
    )
    assert result.code == 1
    assert result.json()["abGate"]["passed"] is False
    assert "A/B gate failed" in result.json()["exitReason"]
    lenient = tmp_path / "lenient.json"
    lenient.write_text(
        json.dumps(
            {
                "gate": {
                    "minPassRate": 0,
                    # 4 pairs, +50 points: the score interval's lower bound is -10 points, so
                    # the data rule out a drop larger than 0.2, not every drop.
                    "ab": {"treatment": "with-map", "baseline": "baseline", "maxPassRateDrop": 0.2},
                }
            }
        )
    )
    again = proctor(
        "report",
        str(single_run_dir(tmp_path / "out")),
        "--config",
        str(lenient),
        "--reporter",
        "json",
    )
    assert again.code == 0 and again.json()["abGate"]["passed"] is True
    # JUnit tells a CI's test view what the exit code tells: the A/B gate is a test of its own.
    for config, code, passed in ((top, 1, False), (lenient, 0, True)):
        junit = proctor(
            "report",
            str(single_run_dir(tmp_path / "out")),
            "--config",
            str(config),
            "--reporter",
            "junit",
        )
        assert junit.code == code
        (gates,) = [s for s in JUnitXml.fromstring(junit.out) if s.name == "gates"]
        (gate,) = gates
        assert gate.name.startswith("A/B ") and gate.is_passed is passed
        assert gates.failures == (0 if passed else 1)
        whole = JUnitXml.fromstring(junit.out)
        assert whole.failures == sum(suite.failures for suite in whole)  # counted at the top


def test_condition_filter_and_first_condition(proctor: Any, tmp_path: Path) -> None:
    cases = _case(tmp_path)
    only = proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "o1"),
        "--condition",
        "with-map",
        "--json",
    )
    assert [g["condition"] for g in only.json()["groups"]] == ["with-map"]
    assert only.json()["ab"] is None
    dry = proctor(
        "run",
        "--source",
        str(cases),
        "--dry-run",
        "--first-condition",
        "with-map",
        "--repeats",
        "2",
    )
    matrix = json.loads(dry.out[dry.out.index("{") :])["matrix"]
    assert [m["condition"] for m in matrix] == ["with-map", "baseline", "with-map", "baseline"]
    unknown = proctor("run", "--source", str(cases), "--condition", "nope")
    assert (
        unknown.code == 2
        and "case 'hunt' has no such condition (its conditions: baseline, with-map)" in unknown.err
    )
    # A first condition the case has, left out by --condition, is said as such.
    left_out = ("--condition", "baseline", "--first-condition", "with-map", "--dry-run")
    refused = proctor("run", "--source", str(cases), *left_out)
    assert refused.code == 2
    assert "--first-condition with-map: that condition is left out by --condition baseline" in (
        refused.err
    )
    typo = proctor("run", "--source", str(cases), "--first-condition", "nope", "--dry-run")
    assert typo.code == 2
    assert (
        "--first-condition nope: no case has that condition (conditions: baseline, with-map)"
        in typo.err
    )


def test_the_default_ab_pair_is_two_conditions_that_ran_together(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {"turns": [{"say": "hi"}]}
    make_case("x", config={"conditions": {"baseline": {}, "with-skill": {}}}, plan=plan)
    make_case("y", config={"conditions": {"control": {}, "variant": {}}}, plan=plan)
    make_case("z", config={"conditions": {"control": {}, "variant": {}}}, plan=plan)
    result, out = run_cases(proctor, tmp_path, "--json")
    suite = json.loads((single_run_dir(out) / "suite.json").read_text())
    assert (suite["ab"]["treatment"], suite["ab"]["baseline"]) == ("variant", "control")
    assert suite["ab"]["overall"]["pairs"] == 2 and suite["ab"]["incomplete"] == [], result.err


def test_an_ab_gate_comparing_a_condition_with_itself_is_a_config_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"conditions": {"a": {}, "b": {}}}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"ab": {"treatment": "a", "baseline": "a"}}}))
    result, _ = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 2
    assert "treatment and baseline are both 'a'" in (result.out + result.err)


def test_ab_gate_conditions_missing_from_the_run_are_config_errors(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"conditions": {"a": {}, "b": {}}}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"ab": {"treatment": "b", "baseline": "a"}}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config), "--condition", "a")
    assert result.code == 2 and "condition 'b' is left out by --condition" in result.err
    run_cases(proctor, tmp_path)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"gate": {"ab": {"treatment": "c", "baseline": "a"}}}))
    report = proctor("report", str(single_run_dir(out)), "--config", str(other))
    assert report.code == 2 and "condition 'c' is not in this run" in report.err


def test_repeats_neither_side_ran_are_listed_by_report_and_compare(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {"turns": [{"say": "hi"}]}
    config = {"conditions": {"control": {}, "variant": {}}, "repeats": 2}
    make_case("x", config=config, plan=plan)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    run = single_run_dir(out)
    # As if the run had stopped before repeat 2 of either side started.
    for side in ("control", "variant"):
        for path in sorted((run / "trials" / "x" / "scripted" / side / "2").rglob("*"))[::-1]:
            path.rmdir() if path.is_dir() else path.unlink()
        (run / "trials" / "x" / "scripted" / side / "2").rmdir()
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    reason = "neither side ran (the run stopped before this repeat)"
    compared = proctor("compare", str(run), "--json")
    assert compared.code == 0, compared.err
    assert [(i["repeat"], i["reason"]) for i in compared.json()["incomplete"]] == [(2, reason)]
    reported = proctor("report", str(run), "--write")
    suite = json.loads((run / "suite.json").read_text())
    assert [(i["repeat"], i["reason"]) for i in suite["ab"]["incomplete"]] == [(2, reason)]
    assert reported.code == 130, reported.err  # fewer trials than planned: stopped short


def test_compare_of_two_runs_says_when_one_stopped_before_every_trial_ran(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    first, out = run_cases(proctor, tmp_path)
    second = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert first.code == second.code == 0, second.err
    base, candidate = sorted(out.glob("run-*"))
    # As if the candidate run had been stopped before its repeat 2 started.
    trial = candidate / "trials" / "x" / "scripted" / "default" / "2"
    for path in sorted(trial.rglob("*"))[::-1]:
        path.rmdir() if path.is_dir() else path.unlink()
    trial.rmdir()
    manifest = json.loads((candidate / "run.json").read_text())
    (candidate / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    compared = proctor("compare", str(base), str(candidate))
    assert compared.code == 0, compared.err
    assert f"note: {candidate} stopped before every trial ran" in compared.err
    assert f"`proctor run --resume {candidate}` finishes it" in compared.err
    assert str(base) not in compared.err  # the run that finished: nothing to say


def test_runs_read_together_leave_out_a_case_that_never_planned_both_conditions(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    both = {"conditions": {"baseline": {}, "treatment": {}}, "repeats": 2}
    make_case("c1", config=both, plan={"turns": [{"say": "hi"}]})
    make_case("c2", config={"conditions": {"baseline": {}}, "repeats": 2})
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
        assert result.code == 0, result.err
        runs.append(str(single_run_dir(out)))
    one = json.loads(proctor("compare", runs[0], "--treatment", "treatment", "--json").out)
    together = json.loads(proctor("compare", *runs, "--treatment", "treatment", "--json").out)
    assert one["incomplete"] == [] and together["incomplete"] == []  # c2 is no pair
    assert [c["case"] for c in together["cases"]] == ["c1"]
    pooled = json.loads(proctor("report", *runs, "--reporter", "json").out)
    assert pooled["ab"]["incomplete"] == []


def test_the_ab_markdown_prints_every_rate_with_its_denominator(
    proctor: Any, tmp_path: Path
) -> None:
    """The outcome rates as the pass rate: counts of trials and points ("3/3 (100%) | 0
    pts"), not "1 | 1 | +0 | [-0.6, +0.6]"."""
    examples = Path(__file__).parents[2] / "examples" / "cases"
    out = str(tmp_path / "out")
    run = proctor("run", "--source", str(examples), "--case", "find-the-bug", "--out", out)
    rows = {
        line.split("|")[1].strip(): line
        for line in run.out.splitlines()
        if line.startswith("| ") and line.split("|", 2)[1].strip().endswith(" rate")
    }
    assert {"file hit rate", "wrong context rate"} <= set(rows), run.out
    for row in rows.values():
        cells = [cell.strip() for cell in row.split("|")[1:-1]]
        assert re.fullmatch(r"\d+/\d+ \(\d+%\)", cells[1]), row
        assert cells[3].endswith("pts") and cells[4].endswith("pts"), row


def test_compare_help_says_treatment_and_baseline_read_the_runs_as_one_sample_set(
    proctor: Run,
) -> None:
    shown = " ".join(proctor("compare", "--help").out.split())
    assert "(one run)" not in shown  # they work over several runs, pooled
    assert "Condition treated as the treatment (the RUNs read as one sample set" in shown


def test_compare_of_a_run_with_itself_says_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("x", plan={"turns": [{"say": "hi"}]})
    ran, out = run_cases(proctor, tmp_path)
    assert ran.code == 0, ran.err
    run = single_run_dir(out)
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    compared = proctor("compare", str(run), str(copy))
    assert compared.code == 0, compared.err
    assert f"note: {run} and {copy} are the same run" in compared.err
    assert "every group is compared with itself" in compared.err


def test_ab_gate_conditions_only_of_cases_left_out_by_case_are_said_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {"turns": [{"say": "hi"}]}
    make_case("x", config={"conditions": {"a": {}, "b": {}}}, plan=plan)
    make_case("y", plan=plan)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"ab": {"treatment": "b", "baseline": "a"}}}))
    only_y = ("--config", str(config), "--case", "y", "--dry-run")
    result, _ = run_cases(proctor, tmp_path, *only_y)
    assert result.code == 2
    assert "condition 'b' is only of cases left out by --case y (conditions: default)" in (
        result.err
    )
    assert "choose a case that has it too, or give this run a --config without gate.ab" in (
        result.err
    )
    assert "not defined by any case" not in result.err
    first = proctor(
        "run", "--source", str(tmp_path / "cases"), "--case", "y", "--first-condition", "b"
    )
    assert first.code == 2
    assert "--first-condition b: that condition is only of cases left out by --case y" in (
        first.err
    )
