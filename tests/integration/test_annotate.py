"""`proctor annotate`: a person's mark on a trial changes what `report` and `compare` count,
shows in the report, and leaves the trial's own record as written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeCase, Run, run_cases, single_run_dir

WRITES = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}
CHECK = {"repeats": 2, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}


def test_a_trial_marked_failed_fails_the_gate_and_shows(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    result, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    assert result.code == 0 and proctor("report", str(run_dir)).code == 0  # control
    written = (run_dir / "trials/fix/scripted/default/2/trial.json").read_text()
    marked = proctor(
        "annotate", str(run_dir), "fix/scripted/default/2",
        "--verdict", "failed", "--note", "drifted to another bug",
    )  # fmt: skip
    assert marked.code == 0, marked.err
    report = proctor("report", str(run_dir), "--reporter", "json")
    suite = json.loads(report.out)
    assert report.code == 1 and suite["totals"]["passes"] == 1
    markdown = proctor("report", str(run_dir)).out
    assert "Annotated by hand: 1 trial: fix/scripted/default/2 failed" in markdown
    assert (run_dir / "trials/fix/scripted/default/2/trial.json").read_text() == written


def test_excluded_leaves_the_statistics_and_a_new_mark_replaces_the_old(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    trial = "fix/scripted/default/1"
    proctor("annotate", str(run_dir), trial, "--verdict", "failed", "--note", "first thought")
    proctor("annotate", str(run_dir), trial, "--verdict", "excluded", "--note", "wrong task")
    marks = json.loads((run_dir / "annotations.json").read_text())["annotations"]
    assert [(m["trial"], m["verdict"]) for m in marks] == [(trial, "excluded")]
    report = proctor("report", str(run_dir), "--reporter", "json")
    totals = json.loads(report.out)["totals"]
    assert report.code == 0 and (totals["scored"], totals["passes"]) == (1, 1)
    compare = proctor("compare", str(run_dir), str(run_dir), "--json")
    assert compare.code in (0, 1), compare.err


def test_bad_marks_are_sentences(proctor: Run, make_case: MakeCase, tmp_path: Path) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    missing = proctor(
        "annotate", run_dir, "fix/scripted/default/9", "--verdict", "failed", "--note", "x"
    )
    assert missing.code == 2 and "no trial fix/scripted/default/9" in missing.err
    malformed = proctor("annotate", run_dir, "fix-1", "--verdict", "failed", "--note", "x")
    assert malformed.code == 2 and "expected case/agent/condition/repeat" in malformed.err
    for repeat in ("\u00b2", "\u0661"):  # ² and ١: digits to Python, but no repeat's number
        odd = proctor("annotate", run_dir, f"fix/scripted/default/{repeat}",
                      "--verdict", "failed", "--note", "x")  # fmt: skip
        assert odd.code == 2 and "expected case/agent/condition/repeat" in odd.err, odd.err
    # A trial.json outside the run's trials, reached through `..`, is no trial of the run.
    (out / "x/1").mkdir(parents=True)
    (out / "x/1/trial.json").write_text("{}")
    outside = proctor("annotate", run_dir, "../../x/1", "--verdict", "failed", "--note", "x")
    assert outside.code == 2 and "expected case/agent/condition/repeat" in outside.err
    assert not (Path(run_dir) / "annotations.json").exists()
    wrong = proctor(
        "annotate", run_dir, "fix/scripted/default/1", "--verdict", "maybe", "--note", "x"
    )
    assert wrong.code == 2 and "Traceback" not in wrong.err


def test_a_folder_inside_the_run_is_told_the_run_folder(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    for inside in (run_dir / "trials", run_dir / "trials/fix/scripted/default/1"):
        told = proctor(
            "annotate", str(inside), "fix/scripted/default/1", "--verdict", "failed", "--note", "n"
        )
        assert told.code == 2, told.err
        assert told.err == (
            f"proctor: error: {inside}: a folder inside the run folder {run_dir}, not a run "
            "folder; name the run folder of the trial\n"
        )
    assert not (run_dir / "annotations.json").exists()


def test_an_unreadable_annotations_file_is_never_overwritten(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    mark = ("annotate", str(run_dir), "fix/scripted/default/1", "--verdict", "failed")
    assert proctor(*mark, "--note", "first").code == 0
    annotations = run_dir / "annotations.json"
    broken = annotations.read_text().rstrip().rstrip("}") + ",}"  # a hand edit gone wrong
    annotations.write_text(broken)
    again = proctor(*mark, "--note", "second")
    assert again.code == 2 and "a new mark would lose the marks it holds" in again.err
    assert str(annotations) in again.err and "Traceback" not in again.err
    assert "a comma before the closing '}' (JSON allows no trailing comma)" in again.err
    assert annotations.read_text() == broken
    wrong = json.loads(broken.replace(",}", "}"))
    wrong["annotations"][0]["verdict"] = "passed"  # a verdict annotate never writes
    annotations.write_text(json.dumps(wrong))
    again = proctor(*mark, "--note", "second")
    assert again.code == 2
    assert again.err.startswith(
        f"proctor: error: {annotations}: field 'annotations[0].verdict': expected 'failed' or "
        "'excluded', got \"passed\"; a new mark would lose"
    )  # the file and the field, no class name of proctor's


def test_marks_made_at_once_are_all_kept_and_a_padded_repeat_is_the_same_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config={**CHECK, "repeats": 8}, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    argv = [sys.executable, "-m", "proctor", "annotate", str(run_dir)]
    marking = [
        subprocess.Popen(
            [*argv, f"fix/scripted/default/{r}", "--verdict", "failed", "--note", f"n{r}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for r in range(1, 9)
    ]
    said = [p.communicate(timeout=60)[1] for p in marking]
    assert [p.returncode for p in marking] == [0] * 8, said
    marks = json.loads((run_dir / "annotations.json").read_text())["annotations"]
    assert sorted(m["note"] for m in marks) == [f"n{r}" for r in range(1, 9)]
    padded = proctor("annotate", str(run_dir), "fix/scripted/default/01", "--verdict",
                     "excluded", "--note", "padded")  # fmt: skip
    assert padded.code == 0, padded.err
    marks = json.loads((run_dir / "annotations.json").read_text())["annotations"]
    assert len(marks) == 8 and {m["trial"] for m in marks if m["note"] == "padded"} == {
        "fix/scripted/default/1"
    }


def test_compare_lists_the_marks_and_refuses_an_unreadable_annotations_file(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    proctor("annotate", str(run_dir), "fix/scripted/default/2", "--verdict", "failed",
            "--note", "drifted")  # fmt: skip
    text = proctor("compare", str(run_dir), str(run_dir))
    assert text.code == 0, text.err
    name = run_dir.name
    assert (
        f"Annotated by hand: 2 trials: {name}/fix/scripted/default/2 failed (drifted)" in text.out
    )
    data = proctor("compare", str(run_dir), str(run_dir), "--json").json()
    assert data["annotations"][0] == {
        "run": name, "trial": "fix/scripted/default/2", "verdict": "failed", "note": "drifted"
    }  # fmt: skip
    (run_dir / "annotations.json").write_text("{bad")
    damaged = proctor("compare", str(run_dir), str(run_dir))
    assert damaged.code == 2 and str(run_dir / "annotations.json") in damaged.err
    assert "nothing was recomputed" in damaged.err and damaged.out == ""


def test_report_refuses_an_annotations_file_that_does_not_read(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A `failed` mark left out would let the gate pass: the report stops (exit 2), as a
    --resume does, naming the file and the mistake; the viewer shows the run regardless."""
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    marked = proctor("annotate", str(run_dir), "fix/scripted/default/2", "--verdict", "failed",
                     "--note", "drifted")  # fmt: skip
    assert marked.code == 0 and proctor("report", str(run_dir)).code == 1  # control
    annotations = run_dir / "annotations.json"
    wrong = json.loads(annotations.read_text())
    wrong["annotations"][0]["verdict"] = "fail"  # a hand edit gone wrong
    annotations.write_text(json.dumps(wrong))
    for argv in ([str(run_dir)], [str(run_dir), "--reporter", "json"]):
        report = proctor("report", *argv)
        assert report.code == 2 and report.out == "", (argv, report.err)
        (line,) = report.err.splitlines()
        assert line.startswith(f"proctor: error: {annotations}: field 'annotations[0].verdict'")
        assert "nothing was recomputed" in line and "Traceback" not in report.err
    annotations.write_text("{bad")
    broken = proctor("report", str(run_dir))
    assert broken.code == 2 and "nothing was recomputed" in broken.err
    assert "line 1, column 2" in broken.err, broken.err
    from proctor.view.records import read_trial_rows

    rows = read_trial_rows(run_dir, sorted(run_dir.glob("trials/*/*/*/*/trial.json")))
    assert len(rows) == 2  # the viewer reads the run without the marks, no crash
    from proctor.view.stored import suite_of

    assert suite_of(run_dir) is not None


def test_a_new_mark_says_which_mark_it_replaces(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    trial = "fix/scripted/default/1"
    first = proctor("annotate", run_dir, trial, "--verdict", "failed", "--note", "first thought")
    assert first.code == 0 and "replaces" not in first.err
    second = proctor("annotate", run_dir, trial, "--verdict", "excluded", "--note", "wrong task")
    assert second.code == 0
    assert "proctor: note: this replaces its mark of " in second.err
    assert ": failed: first thought\n" in second.err


def test_a_trial_of_a_run_still_running_that_has_not_ended_is_said_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    import os

    from proctor.session.journal import note

    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    pid = os.getpid()  # this process plays the run's orchestrator, still running
    note(run_dir / "journal.jsonl", "run-resumed")
    (run_dir / "trials/fix/scripted/default/2/trial.json").unlink()  # not ended yet
    marked = proctor(
        "annotate", str(run_dir), "fix/scripted/default/2", "--verdict", "failed", "--note", "x"
    )
    assert marked.code == 2
    assert f"no trial fix/scripted/default/2 yet: the run is still running (process {pid})" in (
        marked.err
    )
    # The same trial spelled as it is taken elsewhere (a padded repeat, a trailing slash).
    for spelled in ("fix/scripted/default/02", "fix/scripted/default/2/"):
        again = proctor("annotate", str(run_dir), spelled, "--verdict", "failed", "--note", "x")
        assert again.code == 2 and "not in the run's plan" not in again.err, again.err
        assert f"no trial fix/scripted/default/2 yet: the run is still running (process {pid})" in (
            again.err
        )


def test_a_run_whose_annotations_file_stops_reading_while_it_runs_says_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """annotations.json edited by hand while the run goes, into a file that does not read: the
    run's aggregate is computed without its marks, and the run says so (it was passed over)."""
    out = tmp_path / "out"
    breaks = (
        f"for d in {out}/run-*; do printf '{{\"annotations\": [,]}}' > $d/annotations.json; done"
    )
    make_case("fix", config=CHECK, plan={"turns": [{"shell": breaks}, *WRITES["turns"]]})
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    run_dir = single_run_dir(out)
    assert (run_dir / "annotations.json").read_text().startswith('{"annotations": [,]')  # control
    assert f"proctor: warning: {run_dir / 'annotations.json'}: not a readable JSON file" in (
        result.err
    )
    assert f"mend it, then `proctor report {run_dir} --write`" in result.err


def test_a_near_miss_names_the_nearest_trials_and_the_suite_md_spelling_is_taken(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    mark = ("--verdict", "failed", "--note", "x")
    typo = proctor("annotate", run_dir, "fxi/scripted/defualt/1", *mark)
    assert typo.code == 2 and typo.err == (
        f"proctor: error: {run_dir}: no trial fxi/scripted/defualt/1 (no "
        "trials/fxi/scripted/defualt/1/trial.json; did you mean 'fix/scripted/default/1' or "
        "'fix/scripted/default/2'?)\n"
    )
    short = proctor("annotate", run_dir, "fix/scripted/default", *mark)
    assert short.code == 2 and "expected case/agent/condition/repeat" in short.err
    assert "(did you mean 'fix/scripted/default/" in short.err, short.err
    far = proctor("annotate", run_dir, "zzz/q/w/1", *mark)
    assert far.code == 2 and "did you mean" not in far.err  # nothing close: no guess
    # suite.md lists the trials that did not pass as `trials/fix/scripted/default/2`.
    listed = proctor("annotate", run_dir, "trials/fix/scripted/default/2", *mark)
    assert listed.code == 0, listed.err
    marks = json.loads((Path(run_dir) / "annotations.json").read_text())["annotations"]
    assert [m["trial"] for m in marks] == ["fix/scripted/default/2"]


def test_a_trial_a_running_run_does_not_plan_is_not_said_to_be_coming(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    from proctor.session.journal import note

    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    note(run_dir / "journal.jsonl", "run-resumed")  # this process plays its orchestrator
    marked = proctor(
        "annotate", str(run_dir), "fxi/scripted/default/1", "--verdict", "failed", "--note", "x"
    )
    assert marked.code == 2 and "yet" not in marked.err and "still running" not in marked.err
    assert marked.err == (
        f"proctor: error: {run_dir}: no trial fxi/scripted/default/1 (not in the run's plan; "
        "did you mean 'fix/scripted/default/1' or 'fix/scripted/default/2'?)\n"
    )


def test_a_mark_on_a_run_the_findings_ledger_took_in_says_its_findings_stay(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    failing = {"repeats": 2, "evaluators": [{"use": "file-exists", "must": ["b.txt"]}]}
    make_case("fix", config=failing, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    ledger = out / "findings.json"
    (finding,) = json.loads(ledger.read_text())["findings"]
    mark = ("annotate", run_dir, "fix/scripted/default/1", "--verdict", "excluded", "--note", "x")
    marked = proctor(*mark)
    assert marked.code == 0, marked.err
    assert (
        f"proctor: note: {ledger} took this run in before the mark: its findings of "
        f"fix/scripted/default ({finding['id']}) stay as they were; the mark changes what "
        "`report` and `compare` count"
    ) in marked.err
    ledger.unlink()  # the control: no ledger holds the run, nothing to say
    again = proctor(*mark)
    assert again.code == 0 and "findings" not in again.err, again.err


def test_a_mark_on_a_group_with_no_finding_says_nothing_of_the_ledger(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    assert (out / "findings.json").is_file()
    marked = proctor("annotate", str(single_run_dir(out)), "fix/scripted/default/1",
                     "--verdict", "excluded", "--note", "x")  # fmt: skip
    assert marked.code == 0 and "findings" not in marked.err, marked.err


def test_a_trial_reached_through_a_link_is_refused_naming_the_link(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    record = run_dir / "trials/fix/scripted/default/1/trial.json"
    kept = tmp_path / "kept-trial.json"
    record.rename(kept)
    record.symlink_to(kept)
    marked = proctor(
        "annotate", str(run_dir), "fix/scripted/default/1", "--verdict", "excluded", "--note", "x"
    )
    assert marked.code == 2 and not (run_dir / "annotations.json").exists()
    assert marked.err.strip() == (
        f"proctor: error: {record}: a link, not a file of the run's own; reports count the trial as "
        "an infra-error, so it cannot be marked"
    )
    folder = run_dir / "trials/fix/scripted/default/2"
    folder.rename(tmp_path / "kept-2")
    folder.symlink_to(tmp_path / "kept-2")
    marked = proctor(
        "annotate", str(run_dir), "fix/scripted/default/2", "--verdict", "excluded", "--note", "x"
    )
    assert (
        marked.code == 2
        and f"proctor: error: {folder}: a link, not a folder of the run's own" in (marked.err)
    )


def test_a_trial_whose_record_is_a_folder_is_refused_saying_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    record = run_dir / "trials/fix/scripted/default/1/trial.json"
    record.unlink()
    record.mkdir()
    marked = proctor(
        "annotate", str(run_dir), "fix/scripted/default/1", "--verdict", "excluded", "--note", "x"
    )
    assert marked.code == 2 and marked.err.strip() == (
        f"proctor: error: {record}: a folder, not a record; reports count the trial as an "
        "infra-error, so it cannot be marked"
    )


def test_the_findings_named_after_a_mark_are_those_of_the_runs_own_suite(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Two suites sharing a results directory, each with a case `fix` of the same check: a
    mark on a run of one names that suite's finding, not the other's."""
    import shutil

    failing = {"repeats": 2, "evaluators": [{"use": "file-exists", "must": ["b.txt"]}]}
    make_case("fix", config=failing, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    first = single_run_dir(out)
    shutil.copytree(tmp_path / "cases", tmp_path / "other")
    other = proctor("run", "--source", str(tmp_path / "other"), "--out", str(out))
    assert other.code == 1, other.err
    second = next(run for run in out.glob("run-*") if run != first)
    ledger = json.loads((out / "findings.json").read_text())
    ids = {ledger["runSuites"][run.name]: [] for run in (first, second)}
    for finding in ledger["findings"]:
        ids[finding["suite"]].append(finding["id"])
    assert all(len(each) == 1 for each in ids.values()), ledger  # one finding each
    for run in (first, second):
        marked = proctor("annotate", str(run), "fix/scripted/default/1",
                         "--verdict", "failed", "--note", "x")  # fmt: skip
        assert marked.code == 0, marked.err
        (own,) = ids[ledger["runSuites"][run.name]]
        assert f"its findings of fix/scripted/default ({own}) stay" in marked.err, marked.err


def test_an_empty_part_of_the_trial_is_named(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    mark = ("--verdict", "failed", "--note", "x")
    said = {
        given: proctor("annotate", run_dir, given, *mark)
        for given in (
            "fix//default/1", "//scripted/default/1", "trials//scripted/default/1",
            "fix/scripted/default/", "",
        )
    }  # fmt: skip
    assert all(r.code == 2 and "Traceback" not in r.err for r in said.values())
    expected = "expected case/agent/condition/repeat, e.g. fix/codex/default/1"
    assert said["fix//default/1"].err.startswith(
        f'proctor: error: TRIAL "fix//default/1": {expected}; its agent is empty (did you mean '
    )
    assert f"{expected}; its case is empty" in said["//scripted/default/1"].err
    assert f"{expected}; its case is empty" in said["trials//scripted/default/1"].err
    assert f"{expected}; its repeat is missing" in said["fix/scripted/default/"].err
    assert said[""].err == f'proctor: error: TRIAL "": {expected}; it is empty\n'
    assert not (Path(run_dir) / "annotations.json").exists()
    # A slash a shell completes after the repeat is no part of the name.
    completed = proctor("annotate", run_dir, "fix/scripted/default/1/", *mark)
    assert completed.code == 0, completed.err


def test_a_space_at_the_end_of_a_part_is_shown_and_said(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    spaced = proctor(
        "annotate", run_dir, " fix/scripted/default/1", "--verdict", "failed", "--note", "x"
    )
    assert spaced.code == 2 and spaced.err.startswith(
        f'proctor: error: {run_dir}: no trial " fix/scripted/default/1" (no '
        "trials/ fix/scripted/default/1/trial.json; a part of the name begins or ends with a "
        "space; did you mean 'fix/scripted/default/1'"
    ), spaced.err


def test_a_trial_named_by_the_path_of_its_folder_is_that_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As a shell completes it, RUN/trials/fix/…/1/ (or its absolute path) names the trial; a
    trial folder of another run is refused, never marked in this one."""
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    for given in (
        f"{run_dir}/trials/fix/scripted/default/1/",
        str(Path(run_dir).resolve() / "trials/fix/scripted/default/2"),
    ):
        marked = proctor("annotate", str(run_dir), given, "--verdict", "failed", "--note", "x")
        assert marked.code == 0, marked.err
    marks = json.loads((run_dir / "annotations.json").read_text())["annotations"]
    assert [m["trial"] for m in marks] == ["fix/scripted/default/1", "fix/scripted/default/2"]
    other = tmp_path / "other/trials/fix/scripted/default/1"
    other.mkdir(parents=True)
    (other / "trial.json").write_text("{}")
    refused = proctor("annotate", str(run_dir), str(other), "--verdict", "failed", "--note", "x")
    assert refused.code == 2 and "expected case/agent/condition/repeat" in refused.err


def test_a_trial_folder_is_read_as_the_system_reads_it_and_another_runs_is_named(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The run reached through a link was refused as `expected case/agent/condition/repeat`;
    so was a trial folder of another run, which did not say so."""
    import shutil

    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    link = tmp_path / "linkrun"
    link.symlink_to(run_dir)
    mark = ("--verdict", "failed", "--note", "x")
    through = proctor("annotate", str(link), f"{run_dir}/trials/fix/scripted/default/2", *mark)
    assert through.code == 0, through.err
    back = proctor("annotate", str(run_dir), f"{link}/trials/fix/scripted/default/1/", *mark)
    assert back.code == 0, back.err
    marks = json.loads((run_dir / "annotations.json").read_text())["annotations"]
    assert [m["trial"] for m in marks] == ["fix/scripted/default/2", "fix/scripted/default/1"]
    other = tmp_path / "other-run"
    shutil.copytree(run_dir, other)
    given = f"{other}/trials/fix/scripted/default/2"
    refused = proctor("annotate", str(run_dir), given, *mark)
    assert refused.code == 2 and refused.err == (
        f'proctor: error: TRIAL "{given}": a trial folder of another run, {other}, not of '
        f"{run_dir}; give that run as RUN_DIR: proctor annotate {other} "
        "fix/scripted/default/2 …\n"
    )


def test_a_missing_trial_of_a_run_whose_plan_does_not_read_says_the_plan_does_not_read(
    proctor: Run, tmp_path: Path
) -> None:
    """A trial with no record, in a run whose resolved.json does not read: the refusal names
    the file and says it holds the plan (it said nothing of it, the plan read as planning no
    trial; one of a newer schema was refused for that file alone, the trial not named)."""
    from proctor.view.synthetic import write_run

    paths = write_run(tmp_path, "run-20261201T000000Z-ab", trials=1, cases=1)
    mark = ("--verdict", "failed", "--note", "x")
    for text, why in (("not json", "not a readable JSON file"), ('{"schemaVersion": 99}', "newer")):
        paths.resolved_json.write_text(text)
        marked = proctor("annotate", str(paths.root), "zzz/q/w/1", *mark)
        assert marked.code == 2, marked.err
        assert f"{paths.root}: no trial zzz/q/w/1 (no trials/zzz/q/w/1/trial.json; " in marked.err
        assert f"{paths.resolved_json}: " in marked.err and why in marked.err
        assert "it holds the run's plan" in marked.err, marked.err


def test_remove_takes_a_mark_away_and_says_what_it_was(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    run = str(run_dir)
    for repeat, note in ((1, "drifted"), (2, "wrong task")):
        marked = proctor(
            "annotate", run, f"fix/scripted/default/{repeat}",
            "--verdict", "failed", "--note", note,
        )  # fmt: skip
        assert marked.code == 0, marked.err
    assert proctor("report", run).code == 1  # control: the marks fail the gate
    removed = proctor("annotate", run, "fix/scripted/default/01", "--remove")
    assert removed.code == 0, removed.err
    assert "fix/scripted/default/1: mark removed" in removed.err
    assert "failed: drifted" in removed.err  # the note is said, not dropped unseen
    marks = json.loads((run_dir / "annotations.json").read_text())["annotations"]
    assert [m["trial"] for m in marks] == ["fix/scripted/default/2"]  # the other mark kept
    again = proctor("annotate", run, "fix/scripted/default/1", "--remove")
    assert again.code == 2 and "Traceback" not in again.err
    assert again.err == (
        f"proctor: error: {run}: trial fix/scripted/default/1 has no mark to remove (marked: "
        "fix/scripted/default/2)\n"
    )
    missing = proctor("annotate", run, "fix/scripted/default/9", "--remove")
    assert missing.code == 2 and "no trial fix/scripted/default/9" in missing.err
    assert proctor("annotate", run, "fix/scripted/default/2", "--remove").code == 0
    report = proctor("report", run, "--reporter", "json")
    assert report.code == 0 and json.loads(report.out)["totals"]["passes"] == 2
    # --remove takes no verdict or note; a mark without --remove still needs both.
    both = proctor("annotate", run, "fix/scripted/default/1", "--remove", "--note", "x")
    assert both.code == 2 and "--remove takes the trial's mark away: it takes no --note" in (
        both.err
    )
    bare = proctor("annotate", run, "fix/scripted/default/1", "--note", "x")
    assert bare.code == 2 and "Missing option '--verdict'" in bare.err


def test_remove_never_rewrites_an_annotations_file_that_does_not_read(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    trial = "fix/scripted/default/1"
    assert proctor("annotate", str(run_dir), trial, "--verdict", "failed", "--note", "x").code == 0
    annotations = run_dir / "annotations.json"
    broken = annotations.read_text().rstrip().rstrip("}") + ",}"
    annotations.write_text(broken)
    removed = proctor("annotate", str(run_dir), trial, "--remove")
    assert removed.code == 2 and str(annotations) in removed.err
    assert "removing a mark would lose the marks it holds" in removed.err
    assert annotations.read_text() == broken
