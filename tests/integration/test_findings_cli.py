"""``proctor findings`` and the ledger ``proctor run`` keeps, over real runs of the scripted
agent: a check that fails, passes, fails again and is dismissed; a crash while the ledger is
written; an unreadable ledger; runs written by an older proctor."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from tests.conftest import MakeCase, Run, run_cases, write_case

CONFIG = {
    "agents": ["scripted"],
    "timeoutSec": 30,
    "evaluators": [{"use": "file-exists", "must": ["hello.txt"], "gate": True}],
}
FAILING = {"turns": [{"say": "Nothing to do."}]}
PASSING = {"turns": [{"write": {"path": "hello.txt", "content": "hello\n"}}]}
ID = "4ade1b6124"  # sha256("hello\x1fscripted\x1fdefault\x1ffile-exists")[:10]
V1_RUN = Path(__file__).parents[1] / "fixtures" / "results-v1" / "example-suite"


def run_with(proctor: Run, make_case: MakeCase, tmp_path: Path, plan: dict[str, Any]) -> Path:
    """``proctor run`` of the case ``hello`` with ``plan``; the new run folder."""
    make_case("hello", config=CONFIG, plan=plan)
    before = set((tmp_path / "out").glob("run-*"))
    result, out = run_cases(proctor, tmp_path)
    assert result.code == (0 if plan is PASSING else 1), result.err
    (run_dir,) = set(out.glob("run-*")) - before
    return run_dir


def copy_run(source: Path, run: Path) -> None:
    """``source`` copied to ``run`` as another run: its ``run.json`` given the folder's name
    as its run id (a copy that keeps its id is the same run, which the ledger applies once)."""
    shutil.copytree(source, run)
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "runId": run.name}))


def findings(proctor: Run, out: Path, *args: str) -> list[dict[str, Any]]:
    result = proctor("findings", str(out), "--json", *args)
    assert result.code == 0, result.err
    found: list[dict[str, Any]] = result.json()["findings"]
    return found


def events(finding: dict[str, Any]) -> list[str]:
    return [entry["event"] for entry in finding["history"]]


def test_a_check_fails_passes_fails_again_and_is_dismissed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run1 = run_with(proctor, make_case, tmp_path, FAILING)
    (finding,) = findings(proctor, out)
    assert (finding["id"], finding["state"], finding["check"]) == (ID, "open", "file-exists")
    assert finding["firstSeenRun"] == finding["lastSeenRun"] == run1.name
    assert finding["message"] == "missing: hello.txt"
    table = proctor("findings", str(out))
    assert table.code == 0
    assert ID in table.out and "hello / scripted / default" in table.out
    report = proctor("report", str(run1))
    assert f"| new | `{ID}` | hello / scripted / default | file-exists |" in report.out

    run2 = run_with(proctor, make_case, tmp_path, PASSING)
    assert findings(proctor, out) == [], "only open findings without --all"
    (finding,) = findings(proctor, out, "--all")
    assert (finding["state"], events(finding)) == ("resolved", ["new", "resolved"])
    assert f"| resolved | `{ID}` |" in proctor("report", str(run2)).out

    run3 = run_with(proctor, make_case, tmp_path, FAILING)
    (finding,) = findings(proctor, out)
    assert (finding["state"], finding["failures"], finding["lastSeenRun"]) == (
        "open",
        2,
        run3.name,
    )
    assert events(finding) == ["new", "resolved", "reopened"]
    assert f"| reopened | `{ID}` |" in proctor("report", str(run3)).out

    dismissed = proctor("findings", "dismiss", ID, "--reason", "known flake", "--dir", str(out))
    assert dismissed.code == 0, dismissed.err
    assert findings(proctor, out) == []
    run_with(proctor, make_case, tmp_path, FAILING)
    (finding,) = findings(proctor, out, "--all")
    assert (finding["state"], finding["failures"]) == ("dismissed", 3), (
        "a failure keeps it dismissed"
    )
    assert finding["history"][-1] == {
        "event": "dismissed",
        "runId": None,
        "at": finding["history"][-1]["at"],
        "reason": "known flake",
    }
    table = proctor("findings", str(out), "--all").out.splitlines()
    assert table[0].endswith("failures  why dismissed") and table[1].endswith(
        "3         known flake"
    )
    ledger = json.loads((out / "findings.json").read_text())
    assert ledger["schemaVersion"] == 6 and len(ledger["runs"]) == 4
    assert len(ledger["findings"]) == 1, "never proposed twice"


def test_bad_dismissals_and_folders_are_one_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run1 = run_with(proctor, make_case, tmp_path, FAILING)
    unknown = proctor("findings", "dismiss", "nope", "--reason", "x", "--dir", str(out))
    assert unknown.code == 2
    assert f"{out / 'findings.json'}: no finding 'nope'" in unknown.err
    assert "Traceback" not in unknown.err
    missing = proctor("findings", "dismiss", ID, "--dir", str(out))
    assert missing.code == 2 and "--reason" in missing.err
    empty = proctor("findings", "dismiss", ID, "--reason", " ", "--dir", str(out))
    assert empty.code == 2 and "--reason" in empty.err
    nowhere = proctor("findings", str(tmp_path / "absent"))
    assert nowhere.code == 2 and "not a results directory (no such folder)" in nowhere.err
    (tmp_path / "notes.txt").write_text("x")
    a_file = proctor("findings", str(tmp_path / "notes.txt"))
    assert a_file.code == 2 and "notes.txt: not a results directory (a file)" in a_file.err
    a_run = proctor("findings", str(run1))
    assert a_run.code == 2 and "a run folder" in a_run.err
    unknown_option = proctor("findings", str(out), "--bogus")
    assert unknown_option.code == 2 and "No such option '--bogus'" in unknown_option.err
    assert "proctor findings [OPTIONS] [RESULTS_DIR]" in unknown_option.err
    assert "findings list" not in unknown_option.err  # the hidden subcommand is never named
    assert findings(proctor, out)[0]["state"] == "open", "nothing was dismissed"


def test_the_ledger_or_a_run_folders_file_named_as_the_results_directory_names_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ledger file, a run folder, or a file or folder in one, given where the results
    directory belongs, is told which results directory holds it, never to give the ledger as a
    --config (which would then be refused as an unknown key)."""
    out = tmp_path / "out"
    run = run_with(proctor, make_case, tmp_path, FAILING)
    monkeypatch.chdir(tmp_path)
    cases = [
        ("out/findings.json", "the findings ledger, not a results"),
        (f"out/{run.name}", "a run folder"),
        (f"out/{run.name}/run.json", f"a file of the run folder out/{run.name}, not a results"),
        (f"out/{run.name}/trials", f"a folder of the run folder out/{run.name}, not a results"),
    ]
    for given, what in cases:
        listed = proctor("findings", given)
        assert listed.code == 2 and "--config" not in listed.err, listed.err
        assert listed.err.startswith(f"proctor: error: {given}: {what}"), listed.err
        assert "; findings live in the results directory that holds it: `proctor findings out`" in (
            listed.err
        )
        dismissed = proctor("findings", "dismiss", ID, "--reason", "x", "--dir", given)
        assert dismissed.code == 2, dismissed.err
        assert "`proctor findings dismiss ID --reason TEXT --dir out`" in dismissed.err
    monkeypatch.chdir(run)  # the run folder itself, as `.`: the folder above it
    here = proctor("findings", ".")
    assert here.code == 2 and "holds it: `proctor findings ..`" in here.err, here.err
    assert findings(proctor, out)[0]["state"] == "open", "nothing was dismissed"


def test_a_projects_own_run_json_makes_no_run_folder_of_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project's own ``run.json`` at its root (a script's settings, no run's manifest) makes
    no run folder of the project: its ``./proctor-results``, the default, is read as the results
    directory, named or not; and a results directory kept inside a run folder is one."""
    (tmp_path / "run.json").write_text('{"tasks": []}')
    make_case("hello", config=CONFIG, plan=FAILING)
    monkeypatch.chdir(tmp_path)
    assert proctor("run", "--source", "cases").code == 1
    for args in [(), ("proctor-results",), (str(tmp_path / "proctor-results"),)]:
        listed = proctor("findings", *args)
        assert listed.code == 0 and ID in listed.out, listed.err
    here = proctor("findings", ".")
    assert here.code == 2 and "run folder" not in here.err, here.err
    assert "name one: `proctor findings proctor-results`" in here.err, here.err
    (run,) = (tmp_path / "proctor-results").glob("run-*")
    shutil.copytree(tmp_path / "proctor-results", tmp_path / "copy")
    (tmp_path / "copy").rename(run / "kept")  # a results directory inside a run folder
    kept = proctor("findings", str(run / "kept"))
    assert kept.code == 0 and ID in kept.out, kept.err
    (run / "kept" / "notes").mkdir()  # a folder in it is in no run folder either
    notes = proctor("findings", str(run / "kept" / "notes"))
    assert notes.code == 2 and "run folder" not in notes.err, notes.err
    assert "notes: not a results directory (no run-* folder" in notes.err, notes.err


def test_a_dismissal_may_name_its_folder_first_and_its_reason_is_shown_not_obeyed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    twice = proctor("findings", str(out), "dismiss", ID, "--reason", "x", "--dir", str(out))
    assert twice.code == 2 and "the results directory is given twice" in twice.err
    assert findings(proctor, out)[0]["state"] == "open"  # the control: nothing dismissed
    reason = "flaky \x1b[31mhost"
    done = proctor("findings", str(out), "dismiss", ID, "--reason", reason)
    assert done.code == 0, done.err
    assert done.out == f"dismissed {ID}: flaky \\x1b[31mhost\n"
    (finding,) = findings(proctor, out, "--all")
    assert (finding["state"], finding["history"][-1]["reason"]) == ("dismissed", reason)
    table = proctor("findings", str(out), "--all").out
    assert "\x1b" not in table and "flaky \\x1b[31mhost" in table
    # A unique prefix in upper case names the finding; a reason of two lines shows as one.
    again = proctor("findings", str(out), "dismiss", ID[:6].upper(), "--reason", "flaky\nhost")
    assert again.code == 0, again.err
    assert again.out == (
        f"{ID} was already dismissed (flaky \\x1b[31mhost); its reason is now: flaky host\n"
    )
    assert findings(proctor, out, "--all")[0]["history"][-1]["reason"] == "flaky\nhost"
    # The same reason again: said, and the ledger left as it was (no second event).
    events = len(findings(proctor, out, "--all")[0]["history"])
    same = proctor("findings", str(out), "dismiss", ID, "--reason", "flaky\nhost")
    assert same.code == 0, same.err
    assert same.out == f"{ID} was already dismissed: flaky host (nothing changed)\n"
    assert len(findings(proctor, out, "--all")[0]["history"]) == events


def test_a_dismissed_finding_that_passed_since_says_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    assert proctor("findings", "dismiss", ID, "--reason", "flaky", "--dir", str(out)).code == 0
    rows = proctor("findings", str(out), "--all").out.splitlines()
    assert rows[1].split()[:2] == [ID, "dismissed"] and "passed since" not in rows[1]
    run_with(proctor, make_case, tmp_path, PASSING)
    rows = proctor("findings", str(out), "--all").out.splitlines()
    assert rows[1].startswith(f"{ID}  dismissed, passed since  hello / scripted / default")
    assert findings(proctor, out, "--all")[0]["passedSinceDismissal"] is True
    again = proctor("findings", "dismiss", ID, "--reason", "flaky", "--dir", str(out))
    assert again.out == (
        f"{ID} was already dismissed and its check has passed since: dismissed again from "
        "now: flaky\n"
    )
    assert findings(proctor, out, "--all")[0]["passedSinceDismissal"] is False


def test_a_dismissal_asked_for_as_json_prints_the_finding_as_json(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    after = proctor("findings", "dismiss", ID, "--reason", "flaky", "--dir", str(out), "--json")
    assert after.code == 0, after.err
    finding = json.loads(after.out)
    assert (finding["id"], finding["state"], finding["history"][-1]["reason"]) == (
        ID, "dismissed", "flaky",
    )  # fmt: skip
    before = proctor("findings", "--json", str(out), "dismiss", ID, "--reason", "again")
    assert before.code == 0 and json.loads(before.out)["history"][-1]["reason"] == "again"
    listing = proctor("findings", "--all", "dismiss", ID, "--reason", "x", "--dir", str(out))
    assert listing.code == 2 and "`dismiss` takes no --all" in listing.err
    # The group's flags between the folder and `dismiss`, as after it.
    between = proctor("findings", str(out), "--json", "dismiss", ID, "--reason", "third")
    assert between.code == 0, between.err
    assert json.loads(between.out)["history"][-1]["reason"] == "third"
    every = proctor("findings", str(out), "--all", "dismiss", ID, "--reason", "x")
    assert every.code == 2 and "`dismiss` takes no --all" in every.err


def test_a_check_label_with_line_breaks_and_escapes_is_shown_on_one_line_not_obeyed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    label = "fl\nag \x1b[31mRED"
    evaluator = {"use": "file-exists", "must": ["hello.txt"], "gate": True, "label": label}
    make_case("hello", config={**CONFIG, "evaluators": [evaluator]}, plan=FAILING)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 1, result.err
    (finding,) = findings(proctor, out)
    assert finding["check"] == label  # kept as written
    rows = proctor("findings", str(out)).out.splitlines()
    assert len(rows) == 2 and rows[1].split("  ")[3:4] == ["fl ag \\x1b[31mRED"], rows
    (run_dir,) = out.glob("run-*")
    section = (run_dir / "suite.md").read_text().split("## Findings")[1]
    assert "| fl ag \\x1b[31mRED |" in section and "\x1b" not in section


def test_a_crash_while_writing_the_ledger_keeps_the_previous_one(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from proctor.models import io
    from proctor.report import ledger_store as ledger_module

    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    before = (out / "findings.json").read_bytes()
    half_written: list[str] = []

    def crash_before_rename(src: str, dst: str) -> None:
        half_written.append(Path(src).read_text())
        raise OSError("simulated crash between the temp file and the rename")

    def crashing_write(path: Path, model: Any, **options: Any) -> None:
        with monkeypatch.context() as patch:
            patch.setattr(io.os, "replace", crash_before_rename)
            io.write_record(path, model, **options)

    monkeypatch.setattr(ledger_module, "write_record", crashing_write)
    run2 = run_with(proctor, make_case, tmp_path, PASSING)  # its exit code is the run's own
    assert run2.name in half_written[0], "the new ledger reached its temp file"
    assert (out / "findings.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith("run-")) == [
        "findings.json"
    ], "no temp file left behind"
    assert "findings ledger not updated: " in caplog.text
    assert "findings.json: cannot be written (simulated crash" in caplog.text

    monkeypatch.undo()
    (finding,) = findings(proctor, out, "--all")
    assert finding["state"] == "resolved", "the run the crash missed is applied next time"


def test_an_unreadable_ledger_never_fails_a_run_and_is_left_alone(
    proctor: Run, make_case: MakeCase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "findings.json").write_text('{"schemaVersion": 2, "findings": [{"id": 7}]}')
    before = (out / "findings.json").read_bytes()
    with caplog.at_level(logging.WARNING, logger="proctor"):
        run1 = run_with(proctor, make_case, tmp_path, FAILING)  # exit 1: the gate, as always
    assert (out / "findings.json").read_bytes() == before
    assert "findings ledger not updated" in caplog.text and "findings[0]" in caplog.text
    listed = proctor("findings", str(out))
    assert listed.code == 2 and "Traceback" not in listed.err
    assert f"{out / 'findings.json'}: field 'findings[0].id': expected a string" in listed.err
    report = proctor("report", str(run1))
    assert report.code == 1 and "findings not shown" in report.err
    assert (out / "findings.json").read_bytes() == before


def test_runs_of_an_older_proctor_are_tracked_and_unfinished_runs_wait(
    proctor: Run, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(V1_RUN, out / "run-20261201T135643Z-0e447e")
    unfinished = out / "run-20261201T140000Z-aaaaaa"
    shutil.copytree(V1_RUN, unfinished)
    manifest = json.loads((unfinished / "run.json").read_text())
    del manifest["finishedAt"]
    (unfinished / "run.json").write_text(json.dumps(manifest))

    listed = proctor("findings", "--all", "--json", str(out))
    assert listed.code == 0, listed.err
    ledger = listed.json()
    assert ledger["runs"] == ["run-20261201T135643Z-0e447e"]
    cells = {(f["case"], f["check"]) for f in ledger["findings"]}
    assert ("wrong-fix", "command") in cells, cells
    assert all(f["state"] == "open" for f in ledger["findings"])
    again = proctor("findings", "--all", "--json", str(out))
    assert again.json() == ledger, "applying is idempotent"
    # The run that waits is named, with what finishes it: no proctor runs it (killed).
    assert (
        f"proctor: note: {unfinished.name} has not finished, and no proctor is running it (it "
        f"was killed): `proctor run --resume {unfinished}` finishes it, and its checks count "
        "then"
    ) in listed.err
    # One whose orchestrator is alive (this process, here) is still running.
    from proctor.models.run import JournalEntry
    from proctor.session.journal import append
    from proctor.util.processes import process_start

    alive = JournalEntry(
        event="run-started", time="2026-12-01T14:00:00Z", pid=os.getpid(),
        pid_start=process_start(os.getpid()),
    )  # fmt: skip
    append(unfinished / "journal.jsonl", alive)
    running = proctor("findings", str(out))
    assert f"{unfinished.name} is still running: its checks count when it finishes" in (running.err)
    assert "was killed" not in running.err


def test_a_run_whose_manifest_is_written_already_names_the_proctor_running_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read the moment its run.json is there, a run starting is running, never killed."""
    from proctor.cli.findings import _unfinished
    from proctor.models.findings import FindingsLedger
    from proctor.session import start

    seen: list[list[str]] = []
    write = start.write_record

    def watched(path: Path, record: Any) -> None:
        write(path, record)
        if path.name == "run.json" and not seen:
            seen.append(_unfinished(path.parent.parent, FindingsLedger()))

    monkeypatch.setattr(start, "write_record", watched)
    make_case("hello", config=CONFIG, plan=PASSING)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    (run_dir,) = out.glob("run-*")
    assert seen == [[f"{run_dir.name} is still running: its checks count when it finishes"]]


def run_reporting(proctor: Run, make_case: MakeCase, tmp_path: Path, plan: dict[str, Any]) -> Path:
    """:func:`run_with`, asking for the JUnit and HTML reports too."""
    make_case("hello", config=CONFIG, plan=plan)
    before = set((tmp_path / "out").glob("run-*"))
    result, out = run_cases(proctor, tmp_path, "--reporter", "junit,html")
    assert result.code == (0 if plan is PASSING else 1), result.err
    (run_dir,) = set(out.glob("run-*")) - before
    return run_dir


def junit_findings(xml: str) -> dict[str, str]:
    """The ``finding <id>`` properties of a JUnit report's testsuites."""
    root = ElementTree.fromstring(xml.encode())
    return {
        prop.get("name", ""): prop.get("value", "")
        for prop in root.iter("property")
        if prop.get("name", "").startswith("finding ")
    }


def test_every_report_of_a_run_says_what_it_did_to_the_findings(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run1 = run_reporting(proctor, make_case, tmp_path, FAILING)
    new = {"event": "new", "id": ID, "case": "hello", "agent": "scripted"}
    new |= {"condition": "default", "check": "file-exists"}
    # The run's own files, written again once the ledger took the run in.
    assert json.loads((run1 / "suite.json").read_text())["findings"] == [new]
    assert (
        f"| new | `{ID}` | hello / scripted / default | file-exists |"
        in (run1 / "suite.md").read_text()
    )
    assert junit_findings((run1 / "junit.xml").read_text()) == {f"finding {ID}": "new: file-exists"}
    page = (run1 / "report.html").read_text()
    assert '<section id="findings">' in page and f"<code>{ID}</code>" in page
    # `proctor report` reads them from the ledger, in each format.
    as_json = proctor("report", str(run1), "--reporter", "json")
    assert as_json.code == 1 and as_json.json()["findings"] == [new]
    junit = proctor("report", str(run1), "--reporter", "junit")
    assert junit_findings(junit.out) == {f"finding {ID}": "new: file-exists"}
    # With several reporters, stdout holds the Markdown report, with the section.
    both = proctor("report", str(run1), "--reporter", "markdown,junit")
    assert f"| new | `{ID}` |" in both.out and "<?xml" not in both.out and both.code == 1
    # Control: the same failure again is nothing new, and every report says so.
    run2 = run_reporting(proctor, make_case, tmp_path, FAILING)
    assert json.loads((run2 / "suite.json").read_text())["findings"] == []
    assert "No new, reopened or resolved findings" in (run2 / "suite.md").read_text()
    assert junit_findings((run2 / "junit.xml").read_text()) == {}
    assert "No new, reopened or resolved findings" in (run2 / "report.html").read_text()
    run3 = run_reporting(proctor, make_case, tmp_path, PASSING)
    resolved = proctor("report", str(run3), "--reporter", "json").json()["findings"]
    assert resolved == [new | {"event": "resolved"}]
    # A run the ledger does not hold says nothing of findings (not "none").
    (tmp_path / "out" / "findings.json").unlink()
    shutil.copytree(run3, tmp_path / "elsewhere" / run3.name)
    alone = proctor("report", str(tmp_path / "elsewhere" / run3.name), "--reporter", "json")
    assert alone.json()["findings"] is None
    page = proctor("report", str(tmp_path / "elsewhere" / run3.name), "--reporter", "html").out
    assert '<section id="findings">' not in page


def test_a_crash_between_two_runs_keeps_the_first(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.models.io import write_record
    from proctor.report import ledger_store as ledger_module

    out = tmp_path / "out"
    for name in ("run-20261201T135643Z-0e447e", "run-20261201T140000Z-bbbbbb"):
        copy_run(V1_RUN, out / name)
    manifest = json.loads((out / "run-20261201T140000Z-bbbbbb" / "run.json").read_text())
    manifest["startedAt"] = "2026-12-01T14:00:00.000Z"
    (out / "run-20261201T140000Z-bbbbbb" / "run.json").write_text(json.dumps(manifest))
    writes: list[Path] = []

    def second_write_crashes(path: Path, model: Any, **options: Any) -> None:
        writes.append(path)
        if len(writes) == 2:
            raise OSError("simulated crash while applying the second run")
        write_record(path, model, **options)

    monkeypatch.setattr(ledger_module, "write_record", second_write_crashes)
    crashed = proctor("findings", str(out))
    assert crashed.code == 2 and "Traceback" not in crashed.err
    assert "findings.json: cannot be written (simulated crash" in crashed.err
    ledger = json.loads((out / "findings.json").read_text())
    assert ledger["runs"] == ["run-20261201T135643Z-0e447e"], "the first run's update is kept"
    monkeypatch.undo()
    assert proctor("findings", str(out)).code == 0
    ledger = json.loads((out / "findings.json").read_text())
    assert ledger["runs"] == ["run-20261201T135643Z-0e447e", "run-20261201T140000Z-bbbbbb"]
    assert all(f["failures"] == 2 for f in ledger["findings"] if f["state"] == "open")


@pytest.mark.parametrize(
    ("ledger", "said"),
    [
        ({"tool": "semgrep", "results": []}, "tool"),  # another program's file
        ({"schemaVersion": 2, "Findings": []}, "Findings"),  # a key misspelt by hand
        ({"schemaVersion": 2, "findings": [{**{"id": "a", "case": "c", "agent": "a",
          "condition": "d", "check": "x", "firstSeenRun": "r", "lastSeenRun": "r"},
          "failures": True}]}, "failures"),
    ],
)  # fmt: skip
def test_a_ledger_with_keys_or_values_proctor_does_not_write_is_left_alone(
    proctor: Run, make_case: MakeCase, tmp_path: Path, ledger: dict[str, Any], said: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "findings.json").write_text(json.dumps(ledger))
    before = (out / "findings.json").read_bytes()
    run_with(proctor, make_case, tmp_path, FAILING)
    assert (out / "findings.json").read_bytes() == before  # never rewritten without it
    listed = proctor("findings", str(out))
    assert listed.code == 2 and said in listed.err and "Traceback" not in listed.err


def test_a_finding_listed_twice_is_refused(proctor: Run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    one = {"id": "a", "case": "c", "agent": "a", "condition": "d", "check": "x",
           "firstSeenRun": "r", "lastSeenRun": "r"}  # fmt: skip
    ledger = {"schemaVersion": 2, "runs": ["r"], "findings": [one, one]}
    (out / "findings.json").write_text(json.dumps(ledger))
    listed = proctor("findings", str(out))
    assert listed.code == 2 and "field 'findings': finding 'a' is listed twice" in listed.err
    # The same check under another id: one of the two would stay open for good.
    other = {**one, "id": "abcdef0123"}
    ledger["findings"] = [one, other]
    (out / "findings.json").write_text(json.dumps(ledger))
    listed = proctor("findings", str(out))
    assert listed.code == 2
    assert "findings 'a' and 'abcdef0123' are the same check (c / a / d / x)" in listed.err
    ledger["findings"] = [one, {**other, "check": "y"}]  # the control: two checks
    (out / "findings.json").write_text(json.dumps(ledger))
    assert proctor("findings", str(out)).code == 0


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda ledger: {}, "findings.json: field 'schemaVersion' is required but missing"),
        (lambda ledger: {"schemaVersion": 1}, "schemaVersion 1 is older than any proctor wrote"),
        (lambda ledger: {"schemaVersion": 4}, "findings.json: field 'runs' is required but missing"),
        (lambda ledger: {k: v for k, v in ledger.items() if k != "findings"},
         "findings.json: field 'findings' is required but missing"),
        (lambda ledger: {**ledger, "findings": [{**ledger["findings"][0], "id": "zz"}]},
         "field 'findings[0].id': 'zz' is not a finding id (hex digits, as proctor writes"),
        (lambda ledger: {**ledger, "findings": [{**ledger["findings"][0], "id": ID + " "}]},
         f"'{ID} ' is not a finding id"),
    ],
)  # fmt: skip
def test_a_ledger_emptied_or_with_an_id_proctor_does_not_write_is_refused(
    proctor: Run, make_case: MakeCase, tmp_path: Path, edit: Any, said: str
) -> None:
    """Read as empty, ``{}`` would have every run applied again and the dismissals lost; an
    id that is not hex digits could not be named to ``proctor findings dismiss``."""
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    path = out / "findings.json"
    edited = json.dumps(edit(json.loads(path.read_text())))
    path.write_text(edited)
    listed = proctor("findings", str(out))
    assert listed.code == 2 and said in listed.err and "Traceback" not in listed.err, listed.err
    assert len(listed.err.strip().splitlines()) == 1, listed.err  # one sentence
    run_with(proctor, make_case, tmp_path, FAILING)
    assert path.read_text() == edited  # a run leaves it as it is


@pytest.mark.parametrize(
    ("runs", "said"),
    [
        ([], f"field 'findings': finding '{ID}' names run 'r', which 'runs' (the runs"),
        (["r", "r"], "field 'runs': run 'r' is listed twice (each run is applied once)"),
    ],
)
def test_a_ledger_whose_runs_do_not_hold_its_findings_runs_is_refused(
    proctor: Run, make_case: MakeCase, tmp_path: Path, runs: list[str], said: str
) -> None:
    """A run left out of ``runs`` would be applied again, its failures counted twice."""
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    run_with(proctor, make_case, tmp_path, FAILING)
    (finding,) = findings(proctor, out)
    assert finding["failures"] == 2  # the control
    path = out / "findings.json"
    ledger = json.loads(path.read_text())
    one = {**ledger["findings"][0], "firstSeenRun": "r", "lastSeenRun": "r"}
    one.update(lastCheckedRun="r", history=[{"event": "new", "runId": "r"}])
    edited = json.dumps({**ledger, "runs": runs, "findings": [one]})
    path.write_text(edited)
    listed = proctor("findings", str(out))
    assert listed.code == 2 and said in listed.err, listed.err
    assert path.read_text() == edited  # left as it is


@pytest.mark.parametrize("damage", ["cut", "gone"])
def test_an_interrupted_run_counts_in_its_place_and_a_damaged_one_is_skipped(
    proctor: Run, tmp_path: Path, damage: str
) -> None:
    out = tmp_path / "out"
    first, stopped, damaged = (out / f"run-20261201T1{n}0000Z-aaaaa{n}" for n in (3, 4, 5))
    for run in (first, stopped, damaged):
        copy_run(V1_RUN, run)
    manifest = json.loads((stopped / "run.json").read_text())
    manifest["interrupted"] = True
    (stopped / "run.json").write_text(json.dumps(manifest))
    if damage == "cut":
        (damaged / "resolved.json").write_text('{"schemaVersion": 1, "cases": [')
    else:  # without its labels, its checks would be proposed again under other names
        (damaged / "resolved.json").unlink()
    listed = proctor("findings", "--all", "--json", str(out))
    assert listed.code == 0, listed.err
    assert listed.json()["runs"] == [first.name, stopped.name]
    assert f"{damaged / 'resolved.json'}" in listed.err and "not applied" in listed.err
    checks = {f["check"] for f in listed.json()["findings"]}
    assert "command" in checks and all(f["failures"] == 2 for f in listed.json()["findings"])


def test_a_folder_named_list_is_a_results_directory_and_a_plain_folder_is_not_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_with(proctor, make_case, tmp_path, FAILING)
    shutil.move(tmp_path / "out", tmp_path / "list")
    monkeypatch.chdir(tmp_path)
    listed = proctor("findings", "list", "--json")
    assert listed.code == 0, listed.err
    assert [f["id"] for f in listed.json()["findings"]] == [ID]
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("x")
    plain = proctor("findings", str(tmp_path / "plain"))
    assert plain.code == 2 and "not a results directory (no run-* folder" in plain.err


def test_a_run_folder_whose_name_is_not_utf8_is_skipped_with_a_note(
    proctor: Run, tmp_path: Path
) -> None:
    import os

    out = tmp_path / "out"
    good = out / "run-20261201T100000Z-aaaaa1"
    shutil.copytree(V1_RUN, good)
    odd = os.fsencode(out) + b"/run-\xff-aaaaa2"
    shutil.copytree(os.fsencode(V1_RUN), odd)
    listed = proctor("findings", "--json", str(out))
    assert listed.code == 0, listed.err
    assert listed.json()["runs"] == [good.name]
    assert "not UTF-8" in listed.err and "Traceback" not in listed.err


@pytest.mark.parametrize(
    "started", ["20000101T000000Z", "29991231T235959Z"], ids=["late", "control"]
)
def test_a_run_older_than_the_ledger_s_newest_run_reopens_nothing(
    proctor: Run, make_case: MakeCase, tmp_path: Path, started: str
) -> None:
    """A run killed, then resumed after newer runs (here a failing run applied after the pass
    that resolved its finding): its failure is counted, and the finding stays resolved. The
    same run named as newer than the pass (the control) reopens it."""
    out = tmp_path / "out"
    failing = run_with(proctor, make_case, tmp_path, FAILING)
    run_with(proctor, make_case, tmp_path, PASSING)
    (finding,) = findings(proctor, out, "--all")
    assert finding["state"] == "resolved" and finding["failures"] == 1
    resumed = out / f"run-{started}-aaaaaa"
    copy_run(failing, resumed)
    listed = proctor("findings", str(out), "--json", "--all")
    assert listed.code == 0, listed.err
    (finding,) = listed.json()["findings"]
    assert finding["failures"] == 2
    if started.startswith("2000"):
        assert finding["state"] == "resolved" and finding["lastSeenRun"] == failing.name
        assert events(finding) == ["new", "resolved"]
        assert f"{resumed.name} started before" in listed.err
        assert "1 of its 1 check was held back, since a newer run had recorded them" in (listed.err)
    else:
        assert finding["state"] == "open" and finding["lastSeenRun"] == resumed.name
        assert events(finding) == ["new", "resolved", "reopened"]


def test_a_run_overlapping_a_newer_one_proposes_the_checks_the_newer_run_did_not_record(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Run A starts, run B starts after it and finishes first, then A finishes: A's failure
    of a check B did not run is proposed; its failure of the check B passed is held back."""
    out = tmp_path / "out"
    make_case("hello", config=CONFIG, plan=FAILING)
    make_case("slow", config=CONFIG, plan=FAILING)
    elsewhere = tmp_path / "elsewhere"
    run_a = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(elsewhere))
    assert run_a.code == 1, run_a.err
    shutil.rmtree(tmp_path / "cases" / "slow")
    run_b = run_with(proctor, make_case, tmp_path, PASSING)
    assert findings(proctor, out, "--all") == []
    (source,) = elsewhere.glob("run-*")
    late = out / "run-20000101T000000Z-aaaaaa"  # started before B
    shutil.copytree(source, late)
    listed = proctor("findings", str(out), "--json", "--all")
    assert listed.code == 0, listed.err
    (finding,) = listed.json()["findings"]
    assert (finding["case"], finding["state"]) == ("slow", "open")
    assert finding["firstSeenRun"] == finding["lastCheckedRun"] == late.name
    assert events(finding) == ["new"]
    assert listed.json()["runs"] == [run_b.name, late.name]
    assert (
        f"{late.name} started before {run_b.name}, which the findings ledger holds: 1 of its "
        "2 checks was held back, since a newer run had recorded them"
    ) in listed.err
    assert "its other checks were applied" in listed.err
    assert f"| new | `{finding['id']}` | slow / scripted / default |" in (
        proctor("report", str(late)).out
    )


def test_an_open_finding_of_a_renamed_case_is_shown_unchecked(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A case renamed after it failed: no run checks the old name again, so nothing resolves
    its finding; `findings` says the latest run did not check it, and how to close it."""
    out = tmp_path / "out"
    run1 = run_with(proctor, make_case, tmp_path, FAILING)
    (finding,) = findings(proctor, out)
    assert finding["lastCheckedRun"] == run1.name
    table = proctor("findings", str(out))
    assert "last checked" in table.out.splitlines()[0]
    assert "not checked by the latest run" not in table.out  # the control: it was checked
    shutil.rmtree(tmp_path / "cases" / "hello")
    make_case("hello-renamed", config=CONFIG, plan=PASSING)
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    (finding,) = findings(proctor, out)
    assert (finding["state"], finding["lastCheckedRun"]) == ("open", run1.name)
    table = proctor("findings", str(out))
    assert f"1 open finding ({ID}) was not checked by the latest run of its suite (run-" in (
        table.out
    )
    assert "`proctor findings dismiss ID --reason TEXT` closes one that is gone" in table.out


def test_an_open_finding_of_a_case_the_latest_run_skipped_is_not_said_to_be_gone(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A case folder that no longer loads (its prompt.md lost) is skipped by the run, with the
    reason: its finding is unchecked, and `findings` says so, with the reason, instead of
    calling it gone and suggesting a dismissal."""
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    make_case("other", config=CONFIG, plan=PASSING)
    (tmp_path / "cases" / "hello" / "prompt.md").unlink()
    result, _ = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    assert "skipped case 'hello'" in result.err
    (finding,) = findings(proctor, out)
    assert (finding["id"], finding["state"]) == (ID, "open")
    table = proctor("findings", str(out)).out
    assert (f"1 open finding ({ID}) was not checked by the latest run of its suite (run-") in table
    assert "which skipped its case (hello: missing required file prompt.md)" in table
    assert "closes one that is gone" not in table
    # The control: a run of a suite the case was removed from says it may be gone (one that
    # left it out by --case says so: see test_findings_partial_run.py).
    shutil.rmtree(tmp_path / "cases" / "hello")
    assert run_cases(proctor, tmp_path)[0].code == 0
    assert "closes one that is gone" in proctor("findings", str(out)).out


def test_an_open_finding_an_interrupted_run_never_reached_is_not_said_to_be_gone(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The latest run was stopped before it ran the case (then resumed, by a ledger that took
    the run in before it kept what a resume adds): the finding is unchecked, not gone, and no
    dismissal is suggested."""
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    latest = run_with(proctor, make_case, tmp_path, FAILING)
    shutil.rmtree(latest / "trials" / "hello")  # never reached
    manifest = json.loads((latest / "run.json").read_text())
    (out / "findings.json").unlink()  # the ledger rebuilt from the runs as they now read
    table = proctor("findings", str(out)).out
    assert "closes one that is gone" in table  # the control: a run that was not cut short
    cases = (
        (False, False, "it. A finding stays open until a run checks it: `proctor run --resume"),
        (False, True, "it (the findings ledger took that run in before it kept what a"),
        (True, True, "it, then resumed (the findings ledger took that run in before it kept"),
    )
    killed = dict(manifest, interrupted=False, resumedAt=["2026-12-04T12:00:00Z"])
    (latest / "run.json").write_text(json.dumps(killed))  # killed, then resumed: finished
    (out / "findings.json").unlink()
    assert "closes one that is gone" in proctor("findings", str(out)).out
    for resumed, older, said in cases:
        manifest.update(interrupted=True, resumedAt=["2026-12-04T12:00:00Z"] if resumed else [])
        (latest / "run.json").write_text(json.dumps(manifest))
        (out / "findings.json").unlink()
        proctor("findings", str(out))
        if older:  # as an older proctor wrote it: no run kept as interrupted
            ledger = json.loads((out / "findings.json").read_text())
            ledger.update(schemaVersion=3, interruptedRuns={})
            (out / "findings.json").write_text(json.dumps(ledger))
        table = proctor("findings", str(out)).out
        assert f"1 open finding ({ID}) was not checked by the latest run of its suite" in table
        assert f"{latest.name}), which was interrupted before it checked {said}" in table
        assert "closes one that is gone" not in table


def test_an_open_finding_whose_case_errored_is_not_said_to_be_gone(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    make_case("hello", config={**CONFIG, "setup": ["false"]}, plan=PASSING)
    result, _ = run_cases(proctor, tmp_path)
    assert result.code != 0, result.err  # an infra-error: no evidence
    (finding,) = findings(proctor, out)
    assert finding["state"] == "open"
    table = proctor("findings", str(out)).out
    assert f"1 open finding ({ID}) was left without a result by the latest run of its suite" in (
        table
    )
    assert "closes one that is gone" not in table
    # A passing trial excluded by `proctor annotate` is no evidence either, as the ledger reads it.
    latest = run_with(proctor, make_case, tmp_path, PASSING)
    marked = ("annotate", str(latest), "hello/scripted/default/1", "--verdict", "excluded")
    assert proctor(*marked, "--note", "flaky host").code == 0
    (out / "findings.json").unlink()  # the ledger rebuilt from the runs as they now read
    (finding,) = findings(proctor, out)
    assert finding["state"] == "open"
    assert "left without a result" in proctor("findings", str(out)).out
    # The control: the case ran and passed, its evaluator relabelled: that check is gone.
    relabelled = [{"use": "file-exists", "label": "greeting", "must": ["hello.txt"], "gate": True}]
    make_case("hello", config={**CONFIG, "evaluators": relabelled}, plan=PASSING)
    assert run_cases(proctor, tmp_path)[0].code == 0
    table = proctor("findings", str(out)).out
    assert f"1 open finding ({ID}) was not checked by the latest run" in table
    assert "closes one that is gone" in table and "left without a result" not in table


def test_an_open_finding_whose_case_a_no_evaluate_run_ran_names_that_cause(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    result, _ = run_cases(proctor, tmp_path, "--no-evaluate")
    assert result.code == 0, result.err  # its trials are `skipped`: recorded, not evaluated
    (finding,) = findings(proctor, out)
    assert finding["state"] == "open"
    table = proctor("findings", str(out)).out
    assert f"1 open finding ({ID}) was left without a result by the latest run of its suite" in (
        table
    )
    assert (
        "the case ran, but its trials were not evaluated (--no-evaluate), which is no evidence "
        "either way. A finding stays open until a run checks it."
    ) in table
    assert "an error, a timeout, a skip" not in table and "closes one that is gone" not in table


@pytest.mark.parametrize("damage", ["annotated failed", "a list", "cut"])
def test_a_case_whose_latest_trial_records_no_check_is_left_without_a_result(
    proctor: Run, make_case: MakeCase, tmp_path: Path, damage: str
) -> None:
    """As the ledger reads the run: an errored trial annotated failed ran no evaluator; a
    trial.json that is not a record is an infra-error. None is a renamed check."""
    out = tmp_path / "out"
    first = run_with(proctor, make_case, tmp_path, FAILING)
    make_case("hello", config={**CONFIG, "setup": ["false"]}, plan=PASSING)
    run_cases(proctor, tmp_path)
    (latest,) = set(out.glob("run-*")) - {first}
    trial = latest / "trials" / "hello" / "scripted" / "default" / "1" / "trial.json"
    if damage == "annotated failed":
        marked = ("annotate", str(latest), "hello/scripted/default/1", "--verdict", "failed")
        assert proctor(*marked, "--note", "broken host").code == 0
    else:
        trial.write_text("[]" if damage == "a list" else "{")
    (out / "findings.json").unlink()  # the ledger rebuilt from the runs as they now read
    listed = proctor("findings", str(out))
    assert listed.code == 0, listed.err
    assert f"1 open finding ({ID}) was left without a result" in listed.out


def test_an_open_finding_of_an_older_ledger_is_known_unchecked_by_its_last_failure(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    run_with(proctor, make_case, tmp_path, FAILING)
    ledger = json.loads((out / "findings.json").read_text())
    del ledger["findings"][0]["lastCheckedRun"]  # as a ledger written before proctor kept it
    (out / "findings.json").write_text(json.dumps(ledger))
    shutil.rmtree(tmp_path / "cases" / "hello")
    make_case("hello-renamed", config=CONFIG, plan=PASSING)
    assert run_cases(proctor, tmp_path)[0].code == 0
    assert f"1 open finding ({ID}) was not checked by the latest run" in (
        proctor("findings", str(out)).out
    )


def run_suite(proctor: Run, suite: Path, out: Path, plan: dict[str, Any]) -> None:
    """``proctor run`` of the suite ``suite`` (its case ``hello`` playing ``plan``) into
    ``out``."""
    write_case(suite, "hello", config=CONFIG, plan=plan)
    result = proctor("run", "--source", str(suite), "--out", str(out))
    assert result.code == (0 if plan is PASSING else 1), result.err


def test_two_suites_sharing_a_results_dir_keep_their_findings_apart(
    proctor: Run, tmp_path: Path
) -> None:
    out = tmp_path / "out"

    run_suite(proctor, tmp_path / "suite-a", out, FAILING)
    run_suite(
        proctor, tmp_path / "suite-b", out, PASSING
    )  # the same case name in another suite resolves nothing of a's
    (finding,) = findings(proctor, out)
    assert (finding["id"], finding["suite"], finding["state"]) == (ID, "suite-a", "open")
    assert "not checked by the latest run" not in proctor("findings", str(out)).out
    run_suite(
        proctor, tmp_path / "suite-b", out, FAILING
    )  # b's own failure is a finding of its own, with an id of its own
    found = {f["suite"]: f for f in findings(proctor, out)}
    assert set(found) == {"suite-a", "suite-b"} and found["suite-b"]["id"] != ID
    assert events(found["suite-a"]) == ["new"] and found["suite-a"]["failures"] == 1
    table = proctor("findings", str(out)).out.splitlines()
    assert table[0].split()[:3] == ["id", "state", "suite"]
    run_suite(proctor, tmp_path / "suite-a", out, PASSING)
    found = {f["suite"]: f for f in findings(proctor, out, "--all")}
    assert (found["suite-a"]["state"], found["suite-b"]["state"]) == ("resolved", "open")
    ledger = json.loads((out / "findings.json").read_text())
    assert sorted(set(ledger["runSuites"].values())) == ["suite-a", "suite-b"]


def test_one_case_run_by_its_folder_checks_the_findings_of_its_suite(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--source suite/hello` (a fix checked on the one case) is a run of the suite that holds
    the case: its failure is the same finding, never a second one, and its pass resolves it;
    `--source .` inside the case folder alike."""
    out, suite = tmp_path / "out", tmp_path / "suite"
    run_suite(proctor, suite, out, FAILING)
    write_case(suite, "other", config=CONFIG, plan=PASSING)
    alone = proctor("run", "--source", str(suite / "hello"), "--out", str(out))
    assert alone.code == 1, alone.err
    (finding,) = findings(proctor, out)
    assert (finding["id"], finding["suite"], finding["failures"]) == (ID, "suite", 2)
    write_case(suite, "hello", config=CONFIG, plan=PASSING)
    monkeypatch.chdir(suite / "hello")
    inside = proctor("run", "--source", ".", "--out", str(out))
    assert inside.code == 0, inside.err
    (finding,) = findings(proctor, out, "--all")
    assert (finding["id"], finding["state"]) == (ID, "resolved")
    runs = json.loads((out / "findings.json").read_text())["runSuites"]
    assert set(runs.values()) == {"suite"} and len(runs) == 3


def test_a_finding_an_earlier_release_kept_under_its_case_s_folder_is_taken_up(
    proctor: Run, tmp_path: Path
) -> None:
    """An earlier release named a run of `--source suite/hello` the suite `suite/hello`; a
    run of the case now is one of `suite`, and takes that finding up: its pass resolves it."""
    out, suite = tmp_path / "out", tmp_path / "suite"
    run_suite(proctor, suite, out, FAILING)
    ledger_file = out / "findings.json"
    ledger = json.loads(ledger_file.read_text())
    ledger["findings"][0]["suite"] = "suite/hello"  # as that release wrote it
    ledger["runSuites"] = dict.fromkeys(ledger["runSuites"], "suite/hello")
    ledger_file.write_text(json.dumps(ledger))
    write_case(suite, "hello", config=CONFIG, plan=PASSING)
    alone = proctor("run", "--source", str(suite / "hello"), "--out", str(out))
    assert alone.code == 0, alone.err
    (finding,) = findings(proctor, out, "--all")
    assert (finding["id"], finding["suite"], finding["state"]) == (ID, "suite", "resolved")


def test_a_finding_of_a_ledger_without_suites_is_taken_up_by_the_suite_that_checks_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = run_with(proctor, make_case, tmp_path, FAILING)
    strip_suites(out)
    shutil.rmtree(first)  # the run is gone: nothing tells its suite but a run that checks it
    run_with(proctor, make_case, tmp_path, PASSING)
    (finding,) = findings(proctor, out, "--all")
    assert (finding["id"], finding["suite"], finding["state"]) == (ID, "cases", "resolved")


def strip_suites(out: Path) -> None:
    """Make ``out``'s ledger one that a proctor keeping no suites wrote."""
    ledger = json.loads((out / "findings.json").read_text())
    for finding in ledger["findings"]:
        del finding["suite"]
    del ledger["runSuites"]
    ledger["schemaVersion"] = 2
    (out / "findings.json").write_text(json.dumps(ledger))


def test_an_older_ledgers_findings_get_their_suite_from_the_run_that_saw_them(
    proctor: Run, tmp_path: Path
) -> None:
    out = tmp_path / "out"

    run_suite(proctor, tmp_path / "suite-b", out, FAILING)
    strip_suites(out)
    run_suite(
        proctor, tmp_path / "suite-a", out, PASSING
    )  # another suite's pass: b's finding is read as b's, and stays open
    (finding,) = findings(proctor, out)
    assert (finding["id"], finding["suite"], finding["state"]) == (ID, "suite-b", "open")
    assert json.loads((out / "findings.json").read_text())["schemaVersion"] == 6


def test_one_suite_reached_through_a_link_is_one_suite(proctor: Run, tmp_path: Path) -> None:
    real = tmp_path / "real"
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    write_case(real / "suites" / "api", "hello", config=CONFIG, plan=FAILING)
    failed = proctor("run", "--source", str(real / "suites" / "api"), "--out", str(real / "out"))
    assert failed.code == 1, failed.err
    write_case(real / "suites" / "api", "hello", config=CONFIG, plan=PASSING)
    source = str(real / "suites" / "api")  # the results reached through the link this time
    passed = proctor("run", "--source", source, "--out", str(tmp_path / "link" / "out"))
    assert passed.code == 0, passed.err
    (finding,) = findings(proctor, real / "out", "--all")
    assert (finding["suite"], finding["state"]) == ("suites/api", "resolved")


def test_a_ledger_rebuilt_after_the_checkout_moved_names_its_suites_as_before(
    proctor: Run, tmp_path: Path
) -> None:
    before = tmp_path / "before"
    run_suite(proctor, before / "suites" / "api", before / "results", FAILING)
    after = tmp_path / "after"
    before.rename(after)  # the whole checkout moved, its results with it
    (after / "results" / "findings.json").unlink()  # and the ledger started over
    run_suite(proctor, after / "suites" / "api", after / "results", FAILING)
    (finding,) = findings(proctor, after / "results")
    assert (finding["suite"], finding["failures"]) == ("suites/api", 2)


def test_a_resume_of_a_run_the_ledger_holds_says_what_it_adds_is_not_applied(
    proctor: Run, make_case: MakeCase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run_dir = run_with(proctor, make_case, tmp_path, FAILING)
    assert "resume added" not in caplog.text  # control: a run of its own is applied
    (run_dir / "trials" / "hello" / "scripted" / "default" / "1" / "trial.json").unlink()
    with caplog.at_level(logging.WARNING, logger="proctor"):
        again = proctor("run", "--resume", str(run_dir))  # the trial cut short, run now
    assert again.code == 1, again.err
    assert (
        f"the findings ledger took {run_dir.name} in as it was when it first finished; what "
        "this resume added is not applied to it"
    ) in caplog.text


def test_a_resume_with_nothing_left_to_run_says_nothing_of_the_ledger(
    proctor: Run, make_case: MakeCase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run_dir = run_with(proctor, make_case, tmp_path, FAILING)
    with caplog.at_level(logging.WARNING, logger="proctor"):
        again = proctor("run", "--resume", str(run_dir))  # every trial finished: none to run
    assert again.code == 1, again.err
    assert "not applied" not in caplog.text


def test_a_run_says_what_it_did_to_the_findings(
    proctor: Run, make_case: MakeCase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    told = "proctor: findings: "
    with caplog.at_level(logging.WARNING, logger="proctor"):
        run_with(proctor, make_case, tmp_path, FAILING)
        assert f"{told}1 new (`proctor findings {out}` lists them)" in caplog.text
        caplog.clear()
        run_with(proctor, make_case, tmp_path, FAILING)
        assert told not in caplog.text  # control: the same failure again is nothing new
        run_with(proctor, make_case, tmp_path, PASSING)
        # Only open findings are listed without --all: the command to see a resolved one.
        assert f"{told}1 resolved (`proctor findings {out} --all` lists them)" in caplog.text


def another_process_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ledger update of this process made just after another process's (`proctor
    findings`, a run beside it), which applied the runs first."""
    from proctor.report import findings as ledger_module

    real = ledger_module.update_ledger

    def raced(results_dir: Path) -> ledger_module.LedgerUpdate:
        real(results_dir)  # the other process
        return real(results_dir)

    monkeypatch.setattr(ledger_module, "update_ledger", raced)


def test_a_run_whose_ledger_update_another_process_made_first_still_says_what_it_did(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    another_process_first(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="proctor"):
        run_dir = run_with(proctor, make_case, tmp_path, FAILING)
    assert "proctor: findings: 1 new" in caplog.text
    assert "resume" not in caplog.text
    assert json.loads((run_dir / "suite.json").read_text())["findings"][0]["event"] == "new"


def test_a_ctrl_c_while_the_ledger_waits_keeps_the_run_s_reports(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
) -> None:
    """The run is written whole when the ledger is updated: Ctrl-C cuts that update short
    (the next run applies it), and the run ends as its files say (it exited 130 while
    suite.json said 1, printing nothing)."""
    from proctor.report import findings as ledger_module

    def interrupted(results_dir: Path) -> ledger_module.LedgerUpdate:
        raise KeyboardInterrupt  # Ctrl-C while another process holds the ledger's lock

    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setattr(ledger_module, "update_ledger", interrupted)
    make_case("hello", config=CONFIG, plan=FAILING)
    result, out = run_cases(proctor, tmp_path, "--reporter", "html")
    assert result.code == 1, result.err
    (run_dir,) = out.glob("run-*")
    assert (run_dir / "report.html").is_file()
    assert "# proctor run" in summary.read_text()
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["findings"] is None and suite["exitCode"] == 1 and not suite["interrupted"]
    assert "findings ledger's update was cut short" in result.err
    assert f"results in {run_dir}" in result.err and "<html" in result.out


def test_a_ctrl_c_after_the_ledger_took_the_run_in_keeps_what_it_did_in_the_reports(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
) -> None:
    from proctor.report import findings as ledger_module

    real = ledger_module.update_ledger

    def saved_then_interrupted(results_dir: Path) -> ledger_module.LedgerUpdate:
        real(results_dir)
        raise KeyboardInterrupt  # Ctrl-C just after the ledger was saved

    monkeypatch.setattr(ledger_module, "update_ledger", saved_then_interrupted)
    make_case("hello", config=CONFIG, plan=FAILING)
    result, out = run_cases(proctor, tmp_path, "--reporter", "html")
    assert result.code == 1, result.err
    (run_dir,) = out.glob("run-*")
    findings = json.loads((run_dir / "suite.json").read_text())["findings"]
    assert [f["event"] for f in findings] == ["new"]
    assert "Findings" in (run_dir / "report.html").read_text()


def test_a_resume_the_ledger_did_not_hold_before_is_applied_whoever_applies_it(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_dir = run_with(proctor, make_case, tmp_path, FAILING)
    (tmp_path / "out" / "findings.json").unlink()  # as after a first attempt killed mid-run
    (run_dir / "trials" / "hello" / "scripted" / "default" / "1" / "trial.json").unlink()
    another_process_first(monkeypatch)
    with caplog.at_level(logging.WARNING, logger="proctor"):
        again = proctor("run", "--resume", str(run_dir))
    assert again.code == 1, again.err
    assert "resume added is not applied" not in caplog.text
    assert "proctor: findings: 1 new" in caplog.text


def test_findings_and_dismiss_read_the_results_directory_proctor_json_names(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a folder named, both read where `proctor run` writes: `out` of ./proctor.json,
    else ./proctor-results; an id the default's ledger does not hold names the ledgers
    looked in, and the other results directory that holds it."""
    run_with(proctor, make_case, tmp_path, FAILING)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "proctor.json").write_text(json.dumps({"out": "out"}))
    listed = proctor("findings", "--json")
    assert listed.code == 0, listed.err
    assert [f["id"] for f in listed.json()["findings"]] == [ID]
    other = tmp_path / "proctor-results"
    other.mkdir()
    ledger = json.loads((tmp_path / "out" / "findings.json").read_text())
    ledger["findings"][0]["id"] = "abcdef0123"
    (other / "findings.json").write_text(json.dumps(ledger))
    elsewhere = proctor("findings", "dismiss", "abcdef", "--reason", "x")
    assert elsewhere.code == 2
    assert (
        "out/findings.json (the results directory ./proctor.json's out names): no finding "
        "'abcdef' (`proctor findings out --all` lists them); proctor-results/findings.json has "
        "it: `proctor findings proctor-results dismiss abcdef --reason TEXT` dismisses it there"
    ) in elsewhere.err
    nowhere = proctor("findings", "dismiss", "999999", "--reason", "x")
    assert nowhere.code == 2 and "; not in proctor-results/findings.json either" in nowhere.err
    dismissed = proctor("findings", "dismiss", ID[:6], "--reason", "known")
    assert dismissed.code == 0 and dismissed.out == f"dismissed {ID}: known\n", dismissed.err
    there = proctor("findings", "proctor-results", "dismiss", "abcdef", "--reason", "y")
    assert there.code == 0 and there.out == "dismissed abcdef0123: y\n", there.err
    named = proctor("findings", "dismiss", "abcdef", "--reason", "x", "--dir", "out")
    assert named.code == 2 and named.err.rstrip().endswith("--all` lists them)"), "named: no hint"
    (tmp_path / "proctor.json").unlink()
    default = proctor("findings", "dismiss", ID, "--reason", "x")
    assert default.code == 2
    assert (
        "proctor-results/findings.json (the default results directory): no finding" in default.err
    )
    shutil.rmtree(other)
    gone = proctor("findings")
    assert (
        gone.code == 2
        and (
            "proctor-results: not a results directory (no such folder; the default results "
            "directory); name the one your runs are in: `proctor findings RESULTS_DIR`"
        )
        in gone.err
    )


def test_a_finished_run_resumed_says_its_findings_were_taken_in_before(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A resume with nothing left to run said "findings: 1 new" again, each time, as if the
    ledger had just proposed them."""
    out = tmp_path / "out"
    run1 = run_with(proctor, make_case, tmp_path, FAILING)
    resumed = proctor("run", "--resume", str(run1))
    assert resumed.code == 1, resumed.err
    assert "proctor: findings of this run, taken into the ledger before: 1 new (" in resumed.err
    assert len(findings(proctor, out)) == 1
