"""Reporters: the registry behind ``--reporter`` on ``run`` and ``report``, JUnit XML read back
with a JUnit library, and the Markdown summary appended to GitHub's step summary."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Properties, TestCase

from proctor.util.text import markdown_literal
from tests.conftest import MakeCase, Run, run_cases, single_run_dir

WRITE = {"turns": [{"write": {"path": "hello.txt", "content": "hi\n"}}]}
MUST = {"evaluators": [{"use": "file-exists", "must": ["hello.txt"], "gate": True}]}


def suite(make_case: MakeCase) -> None:
    make_case("good", plan=WRITE, config={**MUST, "repeats": 2})
    make_case("bad", plan={"turns": [{"say": "no"}]}, config=MUST)
    make_case("crash", plan={"turns": [{"exit": 3}]})


def properties(case: TestCase) -> dict[str, str]:
    found = case.child(Properties)
    return {p.name: p.value for p in found} if found is not None else {}


def test_run_junit_has_a_suite_per_group_and_a_case_per_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    suite(make_case)
    result, out = run_cases(proctor, tmp_path, "--reporter", "junit")
    assert result.code == 1, result.err
    run_dir = single_run_dir(out)
    assert result.out == (run_dir / "junit.xml").read_text()
    xml = JUnitXml.fromfile(str(run_dir / "junit.xml"))
    suites = {s.name: s for s in xml}
    assert set(suites) == {
        "bad/scripted/default",
        "crash/scripted/default",
        "good/scripted/default",
        "gates",  # the failed gate, as a failed test of its own
    }
    (gate,) = suites["gates"]
    assert (gate.classname, gate.name, gate.is_passed) == ("gates", "bad/scripted/default", False)
    good = list(suites["good/scripted/default"])
    assert [(c.classname, c.name, c.is_passed) for c in good] == [
        ("good.scripted.default", "repeat 1", True),
        ("good.scripted.default", "repeat 2", True),
    ]
    assert properties(good[0])["status"] == "passed" and properties(good[0])["score"] == "100.0"
    (bad,) = suites["bad/scripted/default"]
    (failure,) = bad.result
    assert isinstance(failure, Failure) and failure.type == "failed"
    assert "gate failed: file-exists: missing: hello.txt" in failure.message
    (crash,) = suites["crash/scripted/default"]
    (error,) = crash.result
    assert isinstance(error, Error) and error.type == "agent-error"
    assert "exited with code 3" in error.message
    assert (
        suites["good/scripted/default"].tests == 2 and suites["bad/scripted/default"].failures == 1
    )


def test_testcase_names_are_stable_across_runs(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    suite(make_case)
    names = []
    for out in (tmp_path / "a", tmp_path / "b"):
        proctor(
            "run", "--source", str(tmp_path / "cases"), "--out", str(out), "--reporter", "junit"
        )
        xml = JUnitXml.fromfile(str(single_run_dir(out) / "junit.xml"))
        names.append(sorted((c.classname, c.name) for s in xml for c in s))
    assert names[0] == names[1]


def test_cases_a_dot_b_and_a_b_are_two_classes_of_the_junit_file(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Their plain classnames are one (a_b.scripted.default): a CI would merge their testcases."""
    make_case("a.b", plan=WRITE, config=MUST)
    make_case("a_b", plan=WRITE, config=MUST)
    result, out = run_cases(proctor, tmp_path, "--reporter", "junit")
    assert result.code == 0, result.err
    xml = JUnitXml.fromfile(str(single_run_dir(out) / "junit.xml"))
    assert sorted((c.classname, c.name) for s in xml for c in s) == [
        ("a_b.scripted.default", "repeat 1"),  # its names as they are
        ("a_b.scripted.default~8a4e43c9", "repeat 1"),  # SHA-256 of a.b/scripted/default
    ]


def test_report_renders_any_registered_reporter_and_refuses_others(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    suite(make_case)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    assert not (run_dir / "junit.xml").exists(), "only when asked"
    # One document on stdout: the Markdown report when it is named, else the first named.
    both = proctor("report", str(run_dir), "--reporter", "junit,markdown")
    assert both.out.startswith("# proctor run") and "<?xml" not in both.out and both.code == 1
    assert "printed the markdown report only; --write writes junit" in both.err
    first = proctor("report", str(run_dir), "--reporter", "junit,json")
    assert first.out.startswith("<?xml") and '"runId"' not in first.out
    unknown = proctor("report", str(run_dir), "--reporter", "pdf")
    assert unknown.code == 2
    assert "unknown reporter pdf (known: html, json, junit, markdown)" in unknown.err
    # A no-break space is no separator: the name that only looks right is shown escaped.
    looks = proctor("report", str(run_dir), "--reporter", "json\u00a0")
    assert looks.code == 2 and 'unknown reporter "json\\u00a0" (known: ' in looks.err, looks.err
    two = proctor("report", str(run_dir), "--reporter", "pdf,xml")
    assert two.code == 2 and "unknown reporters pdf, xml (known: " in two.err
    for blank in (",", " , "):
        nothing = proctor("report", str(run_dir), "--reporter", blank)
        assert nothing.code == 2 and "no reporter named" in nothing.err, nothing.err
    refused, _ = run_cases(proctor, tmp_path, "--reporter", "xml")
    assert refused.code == 2 and "unknown reporter xml" in refused.err
    written = proctor("report", str(run_dir), "--reporter", "junit", "--write")
    assert (run_dir / "junit.xml").read_text() == written.out


def test_the_markdown_summary_is_appended_to_the_github_step_summary(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    make_case("good", plan=WRITE, config=MUST)
    result, _ = run_cases(proctor, tmp_path, "--json")
    text = summary.read_text()
    assert text.startswith("earlier step\n# proctor run ") and "good" in text
    assert result.out.startswith("{"), "stdout keeps the chosen reporter"
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    run_cases(proctor, tmp_path)
    assert summary.read_text() == text, "control: without the variable nothing is appended"
    # A summary that cannot be written (a folder) stops nothing, and is said.
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    assert f"$GITHUB_STEP_SUMMARY {tmp_path} cannot be written" in result.err


def test_report_write_rewrites_the_files_the_run_wrote_so_none_is_left_stale(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("bad", plan={"turns": [{"say": "no"}]}, config=MUST)
    ran, out = run_cases(proctor, tmp_path, "--reporter", "markdown,junit")
    assert ran.code == 1, ran.err
    run_dir = single_run_dir(out)
    assert JUnitXml.fromfile(str(run_dir / "junit.xml")).failures == 2  # the trial, its gate
    marked = proctor(
        "annotate", str(run_dir), "bad/scripted/default/1", "--verdict", "excluded", "--note", "x"
    )
    assert marked.code == 0, marked.err
    # No --reporter: the Markdown report is printed and suite.md written, as before, and the
    # junit.xml the run wrote is rewritten with them, agreeing with suite.json.
    written = proctor("report", str(run_dir), "--write")
    assert written.code == 0 and written.out.startswith("# proctor run"), written.err
    assert json.loads((run_dir / "suite.json").read_text())["exitCode"] == 0
    assert JUnitXml.fromfile(str(run_dir / "junit.xml")).failures == 0
    assert not (run_dir / "report.html").exists()  # only the run's own reporters


def test_report_of_a_run_killed_midway_says_it_stopped_short(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"repeats": 3}, plan={"turns": [{"say": "hi"}]})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0
    run_dir = single_run_dir(out)
    manifest = json.loads((run_dir / "run.json").read_text())
    manifest.pop("finishedAt")  # as if killed before the end
    (run_dir / "run.json").write_text(json.dumps(manifest))
    for trial in (run_dir / "trials/a/scripted/default").iterdir():
        if trial.name != "1":
            (trial / "trial.json").unlink()
    report = proctor("report", str(run_dir), "--reporter", "json")
    assert report.code == 130, report.out + report.err
    assert json.loads(report.out)["exitReason"].startswith("interrupted after 1 of 3 trials")


def test_control_report_of_a_finished_run_keeps_its_exit_code(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    _, out = run_cases(proctor, tmp_path)
    assert proctor("report", str(single_run_dir(out))).code == 0


def test_a_pipe_in_a_case_name_stays_in_its_table_cell(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a|b", plan={"turns": [{"say": "hi"}]})
    _, out = run_cases(proctor, tmp_path)
    md = (single_run_dir(out) / "suite.md").read_text()
    rows = [
        line
        for line in md.splitlines()
        if line.startswith("| a") and not line.startswith("| agent |")
    ]
    assert rows and all(row.startswith("| a\\|b |") for row in rows)


def test_report_survives_a_hand_edited_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"write": {"path": "x.py", "content": "1\n"}}]})
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    path = run_dir / "trials/a/scripted/default/1/trial.json"
    trial = json.loads(path.read_text())
    trial["rules"] = [{"fired": True}, {"rule": ["x"], "fired": True}]
    trial["process"]["effort"]["elapsedSeconds"] = "slow"
    trial["process"]["effort"]["cost"] = "cheap"
    path.write_text(json.dumps(trial))
    report = proctor("report", str(run_dir))
    assert report.code == 0, report.err


def test_control_characters_in_a_reason_leave_the_junit_file_well_formed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    # An unanswered question whose text carries ANSI colour codes ends the trial with it.
    make_case("asks", plan={"turns": [{"ask": "Delete \u001b[1mall\u001b[0m files?"}]})
    _, out = run_cases(proctor, tmp_path, "--reporter", "junit")
    text = (single_run_dir(out) / "junit.xml").read_text()
    root = ET.fromstring(text.encode())  # raises on a character XML cannot hold
    shown = " ".join(e.get("message", "") for e in root.iter() if e.get("message"))
    assert "\\x1b[1mall" in shown, text


def test_a_full_disk_or_read_only_folder_is_one_sentence_not_a_traceback(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from proctor.report import reporters

    suite(make_case)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)

    def full(path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(reporters, "write_text_atomic", full)
    written = proctor("report", str(run_dir), "--reporter", "junit", "--write")
    assert written.code == 2 and "Traceback" not in written.err
    assert f"{run_dir / 'junit.xml'}: No space left on device" in written.err


def test_a_folder_where_a_report_goes_or_a_read_only_run_names_the_report_file(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    import os

    suite(make_case)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    (run_dir / "junit.xml").mkdir()
    blocked = proctor("report", str(run_dir), "--reporter", "junit", "--write")
    assert blocked.code == 2 and "Traceback" not in blocked.err, blocked.err
    assert f"{run_dir / 'junit.xml'}:" in blocked.err
    (run_dir / "junit.xml").rmdir()
    if os.geteuid() == 0:
        return  # root writes into a read-only folder
    run_dir.chmod(0o555)
    try:
        refused = proctor("report", str(run_dir), "--reporter", "junit", "--write")
    finally:
        run_dir.chmod(0o755)
    assert refused.code == 2 and f"{run_dir / 'junit.xml'}:" in refused.err, refused.err
    assert ".tmp" not in refused.err


def test_a_lone_surrogate_in_a_record_is_printed_escaped(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    suite(make_case)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    trial = next(run_dir.glob("trials/*/*/*/*/trial.json"))
    record = json.loads(trial.read_text())
    record["reason"] = "half an emoji: \ud83d"
    trial.write_text(json.dumps(record))
    codes = set()
    for reporter in ("markdown", "json", "junit", "html"):
        shown = proctor("report", str(run_dir), "--reporter", reporter)
        assert "Traceback" not in shown.err and "UnicodeEncodeError" not in shown.err, shown.err
        codes.add(shown.code)
    assert len(codes) == 1 and codes != {2}
    html = proctor("report", str(run_dir), "--reporter", "html")
    assert "\\ud83d" in html.out


def test_a_gate_evaluator_failed_in_an_error_trial_is_said_as_that_not_as_a_failed_gate(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    # Repeat 1 passes the gate; repeat 2 writes the wrong file and crashes, and its gate
    # evaluator then fails.
    gate = {"use": "file-exists", "must": ["ok.txt"], "gate": True}
    crash = [{"write": {"path": "no.txt", "content": "x"}}, {"exit": 3}]
    plan = {"variants": [[{"write": {"path": "ok.txt", "content": "x"}}], crash]}
    make_case("c", config={"repeats": 2, "evaluators": [gate]}, plan=plan)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 1, result.err  # exit 1, as documented
    suite = json.loads((single_run_dir(out) / "suite.json").read_text())
    assert suite["groups"][0]["gatePassed"] is True  # its gate over its scored trials
    assert suite["exitReason"] == (
        "a gate evaluator failed in a trial that then ended in an error status, in 1 "
        "group: c/scripted/default"
    )
    assert "gate failed for" not in suite["exitReason"]


def test_what_the_agent_wrote_in_a_reason_is_shown_in_the_markdown_never_obeyed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    # An unanswered question's text is the trial's reason: a terminal's title and clear-screen
    # sequences in it, and a line break.
    question = "Proceed?\n \x1b]0;pwned\x07\x1b[2J\x1b[31mRED"
    make_case("q", plan={"turns": [{"ask": question, "options": ["Yes", "No"]}]})
    result, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    record = json.loads((run_dir / "trials/q/scripted/default/1/trial.json").read_text())
    assert "\x1b]0;pwned" in record["reason"]  # kept as written in the record
    markdown = (run_dir / "suite.md").read_text()
    for shown in (markdown, result.out, result.err):
        assert "\x1b" not in shown and "\x07" not in shown
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mRED" in markdown
    reported = proctor("report", str(run_dir))
    assert "\x1b" not in reported.out and "\\x1b]0;pwned" in reported.out


def test_a_median_of_two_trials_tool_calls_reads_as_the_json_holds_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    shells = [{"shell": "true"}] * 3
    make_case("m", config={"repeats": 2}, plan={"variants": [shells, shells[:2]]})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    run_dir = single_run_dir(out)
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["groups"][0]["effort"]["toolCalls"]["median"] == 2.5
    process = (run_dir / "suite.md").read_text().split("## Repeats, effort and process")[1]
    (row,) = [line for line in process.splitlines() if line.startswith("| m |")]
    assert "| 2.5 (2–3) |" in row


def test_run_prints_one_document_and_writes_every_reporter(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`run --json --reporter junit`: stdout is the JSON alone (a script parses it), and
    junit.xml is written; `--reporter markdown,junit` prints the Markdown report alone."""
    suite(make_case)
    result, out = run_cases(proctor, tmp_path, "--json", "--reporter", "junit")
    run_dir = single_run_dir(out)
    assert json.loads(result.out)["runId"] == run_dir.name
    assert (run_dir / "junit.xml").read_text().startswith("<?xml")
    shutil.rmtree(out)
    result, out = run_cases(proctor, tmp_path, "--reporter", "markdown,junit")
    assert result.out.startswith("# proctor run") and "<?xml" not in result.out
    assert (single_run_dir(out) / "junit.xml").is_file()


def test_a_run_refused_before_its_first_trial_says_why_in_the_step_summary(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-refused-run-key-0123456789")
    case = make_case("good", plan=WRITE, config=MUST)
    (case / "config.json").write_text('{"repeats": "sk-ant-refused-run-key-0123456789"}')
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 2
    (sentence,) = [line for line in result.err.splitlines() if "error:" in line]
    said = sentence.removeprefix("proctor: error: ")
    assert "field 'repeats'" in said and "sk-ant-refused" not in said
    # As stderr says it, what Markdown would read as markup escaped: the test folder's "_"s
    # (a pair of them would start emphasis) are shown as written.
    shown = summary.read_text()
    assert shown.startswith("## proctor run: exit 2\n\n") and "_" in said
    assert "\\_" in shown and re.sub(r"\\(.)", r"\1", shown.split("\n\n", 1)[1]) == said + "\n"
    usage = proctor("run", "--bogus")
    assert usage.code == 2 and "No such option '--bogus'" in summary.read_text()
    summary.unlink()
    assert proctor("history", "--bogus").code == 2
    assert not summary.exists(), "another command writes no job summary"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("eval", "--dir", "{tmp}"), "no evals folder"),
        (("eval", "--bogus"), "No such option '--bogus'"),
        (("record", "{tmp}/nosuch", "--workspace", "{tmp}"), "nosuch"),
        (("record", "--bogus"), "No such option '--bogus'"),
    ],
)
def test_eval_and_record_refused_say_why_in_the_step_summary_too(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], said: str
) -> None:
    """They append their report there when they run, as `run` does: a refusal too."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = proctor(*(word.replace("{tmp}", str(tmp_path)) for word in argv))
    assert result.code == 2, result.err
    (sentence,) = [line for line in result.err.splitlines() if "error:" in line]
    assert said in sentence
    heading = f"## proctor {argv[0]}: exit 2"
    shown = markdown_literal(sentence.removeprefix("proctor: error: "))
    assert summary.read_text() == f"{heading}\n\n{shown}\n"
