"""`proctor report RUN RUN…` and `proctor compare` over several runs: each mistake (a run whose
annotations.json does not read, a results directory, a run given twice, a run with no trial
yet) is one sentence naming the run or its file, and runs of different suites, gates and case
sets are read as one sample set with the right figures, in every reporter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.conftest import Run, write_case

CHECK = [{"use": "file-exists", "must": ["a.txt"]}]
WRITES = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}
NO_WRITE = {"turns": [{"say": "nothing written"}]}


def _run(proctor: Run, tmp_path: Path, name: str, cases: dict[str, dict], *args: str) -> Path:
    """One run of ``cases`` (name → case config and plan) under ``tmp_path/name``."""
    source = tmp_path / f"{name}-cases"
    for case, spec in cases.items():
        write_case(source, case, config=spec["config"], plan=spec["plan"])
    out = tmp_path / name
    proctor("run", "--source", str(source), "--out", str(out), *args)
    (run,) = out.glob("run-*")
    return run


def _two_runs(proctor: Run, tmp_path: Path) -> tuple[Path, Path]:
    fix = {"config": {"repeats": 2, "evaluators": CHECK}, "plan": WRITES}
    flaky = {"config": {"repeats": 1, "evaluators": CHECK}, "plan": NO_WRITE}
    first = _run(proctor, tmp_path, "first", {"fix": fix})
    second = _run(proctor, tmp_path, "second", {"fix": fix, "other": flaky})
    return first, second


def test_a_broken_annotations_file_of_one_run_stops_the_report_naming_it(
    proctor: Run, tmp_path: Path
) -> None:
    first, second = _two_runs(proctor, tmp_path)
    assert proctor("report", str(first), str(second)).code == 1  # control: reads
    annotations = second / "annotations.json"
    annotations.write_text("{bad")
    goal_labels = tmp_path / "labels.json"
    goal_labels.write_text(json.dumps({"fix": "easy"}))
    for argv in (
        ["report", str(first), str(second)],
        ["report", str(second), str(first), "--reporter", "json"],
        ["report", str(first), str(second), "--reporter", "junit"],
        ["compare", str(first), str(second), "--buckets", str(goal_labels)],
        ["compare", str(first), str(second), "--goal-labels", str(goal_labels), "--json"],
        ["compare", str(second), "--buckets", str(goal_labels)],
        ["compare", str(first), str(second), str(first / ".." / ".." / "second" / second.name)],
    ):
        result = proctor(*argv)
        assert result.code == 2 and result.out == "", (argv, result.out, result.err)
        (line,) = result.err.splitlines()
        if "given twice" in line:  # the run given twice is said before its marks are read
            continue
        assert line.startswith(f"proctor: error: {annotations}: not a readable JSON file"), (
            argv,
            line,
        )
        assert "nothing was recomputed" in line
    annotations.write_text(json.dumps({"schemaVersion": 1, "annotations": [{"trial": 3}]}))
    field = proctor("report", str(first), str(second), "--goal-labels", str(goal_labels))
    assert field.code == 2
    assert f"{annotations}: field 'annotations[0].trial'" in field.err


def test_runs_of_different_suites_gates_and_cases_are_one_sample_set(
    proctor: Run, tmp_path: Path
) -> None:
    fix = {"config": {"repeats": 2, "evaluators": CHECK}, "plan": WRITES}
    fails = {"config": {"repeats": 2, "evaluators": CHECK}, "plan": NO_WRITE}
    first = _run(proctor, tmp_path, "first", {"fix": fix})
    lenient = tmp_path / "lenient.json"
    lenient.write_text(json.dumps({"gate": {"minPassRate": 0.5}}))
    second = _run(
        proctor, tmp_path, "second", {"fix": fix, "fails": fails}, "--config", str(lenient)
    )
    # The first run's gate (minPassRate 1): `fails` 0/2 fails it; the note says the gates differ.
    both = proctor("report", str(first), str(second), "--reporter", "json")
    assert both.code == 1, both.err
    assert (
        f"the runs' gates differ: the first run's ({first.name}: minPassRate 1.0) is used for "
        f"every trial, not {second.name}'s minPassRate 0.5 (--config FILE gives another)"
    ) in both.err, both.err
    suite = both.json()
    assert suite["gate"]["minPassRate"] == 1.0
    assert suite["runId"] == f"{first.name}+{second.name}"
    groups = {g["case"]: g for g in suite["groups"]}
    assert (groups["fix"]["n"], groups["fix"]["passes"]) == (4, 4)
    assert (groups["fails"]["n"], groups["fails"]["passes"]) == (2, 0)
    assert (suite["totals"]["n"], suite["totals"]["passes"]) == (6, 4)
    # In the other order, the second run's lenient gate passes `fix` and fails `fails` (0 < 0.5).
    reversed_ = proctor("report", str(second), str(first), "--reporter", "json")
    assert reversed_.json()["gate"]["minPassRate"] == 0.5 and reversed_.code == 1
    # Every reporter of the runs read together: the same figures, the runs named.
    markdown = proctor("report", str(first), str(second))
    assert markdown.out.startswith(f"# proctor run {first.name}+{second.name}\n")
    assert "- Trials: 6 (failed 2, passed 4)" in markdown.out
    assert "- Pass rate: 67% (4/6 scored trials" in markdown.out
    assert f"- `{second.name}/trials/fails/scripted/default/2` **failed**" in markdown.out
    # The Markdown says the gate used and the run that had another, that the runs are of
    # different suites, and the wall time as the sum of the runs'.
    assert (
        f"- The runs' gates differ: the first run's (`{first.name}`) is used for every trial; "
        f"this run had another: `{second.name}`: minPassRate 0.5 (`--config FILE` gives "
        "another).\n"
    ) in markdown.out, markdown.out
    sources = [json.loads((run / "run.json").read_text())["source"] for run in (first, second)]
    assert (
        f"- The runs are of different suites (`run.json`'s `source`): `{first.name}`: "
        f"`{sources[0]}`; `{second.name}`: `{sources[1]}`.\n"
    ) in markdown.out
    assert (
        f"the runs are of different suites (run.json's source): {first.name}: {sources[0]}; "
        f"{second.name}: {sources[1]}; their trials are read as one sample set all the same"
    ) in markdown.err
    walls = [
        json.loads((run / "suite.json").read_text())["totals"]["wallMs"] for run in (first, second)
    ]
    assert f"- Time: {sum(walls) / 1000:.2f}s wall (the sum of the 2 runs'); " in markdown.out
    assert suite["totals"]["wallMs"] == pytest.approx(sum(walls))
    junit = proctor("report", str(first), str(second), "--reporter", "junit")
    assert junit.code == 1 and junit.out.count("<testcase ") == 6 + 1  # + the gates' testcase
    assert junit.out.count("<failure") == 3  # the 2 failed trials and their group's gate
    # Each trial named by its run's place and its own repeat (stable from build to build), its
    # run's folder and its own a property each and the system-out's first line.
    cases = {
        (c.get("classname"), c.get("name")): c
        for c in ElementTree.fromstring(junit.out).iter("testcase")
    }
    assert sorted(name for cls, name in cases if cls == "fix.scripted.default") == [
        "run 1 repeat 1", "run 1 repeat 2", "run 2 repeat 1", "run 2 repeat 2"
    ]  # fmt: skip
    fails = cases[("fails.scripted.default", "run 2 repeat 2")]
    props = {p.get("name"): p.get("value") for p in fails.iter("property")}
    assert (props["run"], props["trial"]) == (
        second.name,
        f"{second.name}/trials/fails/scripted/default/2",
    )
    assert fails.findtext("system-out") == f"trial {second.name}/trials/fails/scripted/default/2"
    html = proctor("report", str(first), str(second), "--reporter", "html")
    assert html.code == 1 and f"{first.name}+{second.name}" in html.out
    # Pooled, the second run's repeat 2 is repeat 4: its heading names its own folder too.
    assert f"repeat 4 <small>({second.name}/trials/fails/scripted/default/2)</small>" in html.out
    # The page says, as the Markdown does, which runs it read and what they do not share.
    assert f"<li>Runs read as one sample set: {first.name}, {second.name} (their" in html.out
    assert (
        f"<li>The runs&#39; gates differ: the first run&#39;s ({first.name}: minPassRate 1.0) is "
        f"used for every trial, not {second.name}&#39;s minPassRate 0.5 (--config FILE gives "
        "another).</li>"
    ) in html.out, html.out
    assert "<li>The runs are of different suites (run.json&#39;s source): " in html.out
    written = proctor("report", str(first), str(second), "--reporter", "junit", "--write")
    assert written.code == 2 and written.out == ""
    assert "--write rewrites one run's files: give one RUN_DIR with it" in written.err
    assert not (first / "junit.xml").exists() and not (second / "junit.xml").exists()
    # compare of the two runs: the case only the second ran is listed as such.
    compared = proctor("compare", str(first), str(second), "--json")
    assert compared.code == 0, compared.err
    (group,) = compared.json()["groups"]
    assert (group["case"], group["beforeScored"], group["afterScored"]) == ("fix", 2, 2)


def test_a_results_directory_or_a_run_twice_among_runs_is_refused_by_name(
    proctor: Run, tmp_path: Path
) -> None:
    first, second = _two_runs(proctor, tmp_path)
    results = second.parent
    for command in ("report", "compare"):
        among = proctor(command, str(first), str(results))
        assert among.code == 2 and among.out == ""
        (line,) = among.err.splitlines()
        assert line == (
            f"proctor: error: {results}: a results directory, not a run folder; name a run "
            f"folder (the newest: {second})"
        )
        twice = proctor(command, str(first), str(second), str(first))
        assert twice.code == 2 and twice.out == ""
        assert "the same run is given twice" in twice.err and str(first) in twice.err
        # A level higher still: a folder of results directories (a manifest's pairs, say).
        above = proctor(command, str(tmp_path))
        assert above.code == 2 and above.err == (
            f"proctor: error: {tmp_path}: a folder of results directories (first, second), not "
            f"a run folder; name their run folders ({tmp_path}/*/run-*)\n"
        ), above.err


def test_a_mark_in_runs_read_together_is_named_by_its_run_and_own_repeat(
    proctor: Run, tmp_path: Path
) -> None:
    first, second = _two_runs(proctor, tmp_path)
    marked = proctor(
        "annotate", str(second), "fix/scripted/default/1", "--verdict", "failed", "--note", "x"
    )
    assert marked.code == 0, marked.err
    report = proctor("report", str(first), str(second))
    # Pooled, the second run's repeat 1 is repeat 3: the mark names the trial as annotate did.
    assert f"- Annotated by hand: 1 trial: {second.name}/fix/scripted/default/1 failed" in (
        report.out
    ), report.out
    assert f"- `{second.name}/trials/fix/scripted/default/1` **failed**: annotated" in report.out
    alone = proctor("report", str(second))
    assert "- Annotated by hand: 1 trial: fix/scripted/default/1 failed" in alone.out


def test_a_run_with_no_trial_yet_among_runs_is_named_with_how_to_finish_it(
    proctor: Run, tmp_path: Path
) -> None:
    first, second = _two_runs(proctor, tmp_path)
    stopped = tmp_path / "stopped"
    shutil.copytree(second, stopped)
    # As a stop just after the run folder was made leaves it: no trial record, another run id.
    shutil.rmtree(stopped / "trials")
    manifest = json.loads((stopped / "run.json").read_text())
    manifest.update(interrupted=True, trialsFinished=0, runId="run-stopped")
    (stopped / "run.json").write_text(json.dumps(manifest))
    (stopped / "suite.json").unlink()
    report = proctor("report", str(first), str(stopped), "--reporter", "json")
    assert report.code == 130, report.err
    assert f"{stopped} stopped before every trial ran: `proctor run --resume {stopped}`" in (
        report.err
    )
    suite = report.json()
    assert suite["totals"]["n"] == 2 and suite["exitReason"].startswith(
        "interrupted after 2 of 5 trials finished"
    )
    compared = proctor("compare", str(first), str(stopped))
    assert compared.code == 2 and compared.out == ""
    (line,) = compared.err.splitlines()
    assert line.startswith(f"proctor: error: {stopped}: no trial of this run has a record")


def test_compare_says_which_runs_it_read_and_names_a_run_given_as_dot(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _two_runs(proctor, tmp_path)
    two = proctor("compare", str(first), str(second))
    assert two.code == 0, two.err
    assert f"- Baseline run: `{first.name}`; candidate run: `{second.name}`.\n" in two.out
    proctor("annotate", str(second), "fix/scripted/default/2", "--verdict", "excluded",
            "--note", "off")  # fmt: skip
    monkeypatch.chdir(second)  # a run given as "." is named by its folder
    pooled = proctor("compare", str(first), ".", "--json")
    assert pooled.code == 0, pooled.err
    (mark,) = pooled.json()["annotations"]
    assert (mark["run"], mark["trial"]) == (second.name, "fix/scripted/default/2")
    text = proctor("compare", str(first), ".")
    assert f"Annotated by hand: 1 trial: {second.name}/fix/scripted/default/2 excluded" in (
        text.out
    )
    assert f"- Baseline run: `{first.name}`; candidate run: `{second.name}`." in text.out


def test_a_note_of_a_run_read_with_others_names_it_once(proctor: Run, tmp_path: Path) -> None:
    first, second = _two_runs(proctor, tmp_path)
    (second / "resolved.json").write_text("{bad")
    report = proctor("report", str(first), str(second))
    assert report.code == 1, report.err
    (note,) = [line for line in report.err.splitlines() if "resolved.json" in line]
    # The note names the file, in the run: no second prefix naming the run again.
    assert note.startswith(f"proctor: note: {second}/resolved.json: not a readable JSON file")
    # The same gate (the default, read without resolved.json): nothing said of it.
    assert "gates differ" not in report.out + report.err


def test_a_run_whose_gate_does_not_read_is_not_said_to_have_had_another_gate(
    proctor: Run, tmp_path: Path
) -> None:
    """Its resolved.json unreadable, a run's gate is unknown: its own note says so, and no
    note says it had the default gate, which it is read with."""
    fix = {"config": {"repeats": 1, "evaluators": CHECK}, "plan": WRITES}
    lenient = tmp_path / "lenient.json"
    lenient.write_text(json.dumps({"gate": {"minPassRate": 0.5}}))
    first = _run(proctor, tmp_path, "first", {"fix": fix}, "--config", str(lenient))
    second = _run(proctor, tmp_path, "second", {"fix": fix})
    differ = proctor("report", str(first), str(second))
    assert "the runs' gates differ" in differ.err  # the control: both gates read
    (second / "resolved.json").write_text("garbage")
    both = proctor("report", str(first), str(second))
    assert both.code == 0, both.err
    assert f"{second.name}/resolved.json: not a readable JSON file" in both.err
    assert "gates differ" not in both.err + both.out, both.err
