"""What a ``--resume`` adds to a run the findings ledger took in while interrupted: the checks
of the trials it ran, over the run's outcome of each check. Controls: a run taken in finished
(not kept as interrupted) takes nothing, and a resume applied twice adds nothing again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.models.findings import FindingsLedger
from proctor.models.io import write_record
from proctor.models.run import (
    ResolvedCaseRecord,
    ResolvedEvaluator,
    ResolvedRecord,
    RunManifest,
)
from proctor.models.trial import EvaluatorResult, Timings, TrialRecord
from proctor.paths import RunPaths
from proctor.report.checks import CheckKey, CheckResult, stored_run_checks_since
from proctor.report.findings import load_ledger, run_events, update_ledger
from proctor.report.ledger_steps import apply_resume, apply_run, dismiss, resume_checks

RUN = "run-20261201T120000Z-aaaaaa"
EARLIER = "run-20261130T120000Z-bbbbbb"
CUT = "2026-12-01T12:05:00.000Z"
DONE = "2026-12-01T12:09:00.000Z"
"""When the resume finished the run."""


def key(case: str) -> CheckKey:
    return CheckKey(case, "scripted", "default", "file-exists")


def fails(case: str) -> CheckResult:
    return CheckResult(key(case), True, f"{case}: missing")


def passes(case: str) -> CheckResult:
    return CheckResult(key(case), False)


def taken_in(*results: CheckResult, ledger: FindingsLedger | None = None) -> FindingsLedger:
    """The ledger after RUN, taken in interrupted at CUT with ``results``."""
    return apply_run(ledger or FindingsLedger(), RUN, results, interrupted_at=CUT)


def state(ledger: FindingsLedger, case: str) -> tuple[str, int, list[tuple[str, str | None]]]:
    (finding,) = [f for f in ledger.findings if f.case == case]
    return finding.state, finding.failures, [(e.event, e.run_id) for e in finding.history]


def kept(ledger: FindingsLedger) -> dict[str, tuple[str, list[str]]]:
    return {run: (held.finished_at, held.failed) for run, held in ledger.interrupted_runs.items()}


def test_a_run_taken_in_interrupted_is_kept_so_and_one_taken_in_finished_is_not() -> None:
    ledger = taken_in(fails("a"), passes("b"))
    assert kept(ledger) == {RUN: (CUT, [ledger.findings[0].id])}
    finished = apply_run(FindingsLedger(), RUN, [fails("a")])
    assert finished.interrupted_runs == {}
    # The control: a run not kept as interrupted takes nothing of a resume.
    assert apply_resume(finished, RUN, [fails("b")], finished_at=DONE) is finished


def test_a_check_the_run_had_not_reached_is_applied_as_any_run_s() -> None:
    ledger = taken_in(fails("a"))
    after = apply_resume(ledger, RUN, [fails("b")], finished_at=DONE)
    assert state(after, "b") == ("open", 1, [("new", RUN)])
    assert [f.last_checked_run for f in after.findings] == [RUN, RUN]
    assert kept(after) == {RUN: (DONE, sorted(f.id for f in after.findings))}
    assert after.runs == [RUN]
    assert kept(ledger)[RUN][0] == CUT  # a new value: the ledger given is left


def test_a_check_the_run_failed_is_counted_once_whatever_its_resumed_repeats_say() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a"), fails("b")])
    ledger = taken_in(fails("a"), ledger=earlier)  # b was not reached
    after = apply_resume(ledger, RUN, [passes("b"), fails("a")], finished_at=DONE)
    assert state(after, "b") == ("resolved", 1, [("new", EARLIER), ("resolved", RUN)])
    assert state(after, "a")[:2] == ("open", 2)  # a run counts once, however many repeats
    # A pass of another repeat does not undo the run's failure.
    passed = apply_resume(ledger, RUN, [passes("a")], finished_at=DONE)
    assert state(passed, "a")[:2] == ("open", 2)


def test_a_check_the_run_passed_that_a_resumed_repeat_fails_is_failed_by_the_run() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a")])
    ledger = taken_in(passes("a"), ledger=earlier)
    assert state(ledger, "a")[0] == "resolved"
    after = apply_resume(ledger, RUN, [fails("a")], finished_at=DONE)
    # As if the run had failed it from the start: its pass is taken back.
    assert state(after, "a") == ("open", 2, [("new", EARLIER)])
    assert after.findings[0].last_seen_run == RUN
    # A pass of a check the run passed already says nothing new.
    same = apply_resume(ledger, RUN, [passes("a")], finished_at=DONE)
    assert same.findings == ledger.findings


def test_a_dismissed_finding_the_run_passed_then_failed_stays_dismissed() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a")])
    dismissed = dismiss(earlier, earlier.findings[0].id, "flaky", "2026-12-01T11:00:00Z")
    ledger = taken_in(passes("a"), ledger=dismissed)
    assert ledger.findings[0].passed_since_dismissal
    after = apply_resume(ledger, RUN, [fails("a")], finished_at=DONE)
    (finding,) = after.findings
    assert (finding.state, finding.passed_since_dismissal, finding.failures) == (
        "dismissed",
        False,
        2,
    )
    assert [e.event for e in finding.history] == ["new", "dismissed"]
    # The control: the same within one run that was never cut short.
    whole = apply_run(dismissed, RUN, [passes("a"), fails("a")])
    assert whole.findings == after.findings


def test_a_pass_the_run_made_is_taken_back_after_a_newer_run_or_a_dismissal() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a")])
    ledger = taken_in(passes("a"), ledger=earlier)
    newer = "run-20261201T130000Z-cccccc"
    failing = apply_run(ledger, newer, [fails("a")])  # reopened by the newer run
    after = apply_resume(failing, RUN, [fails("a")], finished_at=DONE, held_back={key("a")})
    # As if the run had failed it from the start: nothing resolved it, nothing reopened it.
    assert state(after, "a") == ("open", 3, [("new", EARLIER)])
    fid = ledger.findings[0].id
    dismissed = dismiss(ledger, fid, "flaky", "2026-12-01T12:30:00Z")
    after = apply_resume(dismissed, RUN, [fails("a")], finished_at=DONE)
    assert state(after, "a") == ("dismissed", 2, [("new", EARLIER), ("dismissed", None)])
    assert run_events(after, RUN) == []  # the run's report no longer says it resolved it


def test_a_pass_the_run_made_is_a_newer_passing_run_s_once_taken_back() -> None:
    # The newer run passed the check too: as if the run had failed it from the start, the
    # newer run resolved it (it was the newer run's pass that did, not the run's).
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a")])
    ledger = taken_in(passes("a"), ledger=earlier)
    newer = "run-20261201T130000Z-cccccc"
    passing = apply_run(ledger, newer, [passes("a")])
    assert state(passing, "a") == ("resolved", 1, [("new", EARLIER), ("resolved", RUN)])
    after = apply_resume(passing, RUN, [fails("a")], finished_at=DONE, held_back={key("a")})
    assert state(after, "a") == ("resolved", 2, [("new", EARLIER), ("resolved", newer)])
    assert after.findings[0].last_checked_run == newer
    assert run_events(after, RUN) == []
    # Dismissed first: the newer run's pass is the pass since the dismissal.
    fid = earlier.findings[0].id
    dismissed = dismiss(earlier, fid, "flaky", "2026-12-01T11:00:00Z")
    passed = apply_run(taken_in(passes("a"), ledger=dismissed), newer, [passes("a")])
    after = apply_resume(passed, RUN, [fails("a")], finished_at=DONE, held_back={key("a")})
    (finding,) = after.findings
    assert (finding.state, finding.passed_since_dismissal) == ("dismissed", True)
    assert [(e.event, e.run_id) for e in finding.history][-1] == ("passed", newer)
    # A newer run that failed it after the pass: its reopening goes with the pass (the run
    # had failed it already), and a dismissed finding stays dismissed without a pass.
    failing = apply_run(taken_in(passes("a"), ledger=dismissed), newer, [fails("a")])
    assert state(failing, "a")[0] == "open"
    after = apply_resume(failing, RUN, [fails("a")], finished_at=DONE, held_back={key("a")})
    (finding,) = after.findings
    assert (finding.state, finding.passed_since_dismissal, finding.failures) == (
        "dismissed",
        False,
        3,
    )
    assert [e.event for e in finding.history] == ["new", "dismissed"]


def test_a_resume_is_applied_once_and_one_cut_short_again_adds_again() -> None:
    ledger = taken_in(fails("a"))
    later = "2026-12-01T13:00:00.000Z"
    again = apply_resume(ledger, RUN, [fails("b")], finished_at=later)
    assert kept(again)[RUN][0] == later
    # The control: the run read at that time already adds nothing.
    assert apply_resume(again, RUN, [fails("d")], finished_at=later) is again
    done = apply_resume(again, RUN, [fails("a"), fails("b"), fails("c")], finished_at=DONE)
    assert [f.case for f in done.findings] == ["a", "b", "c"]
    assert [f.failures for f in done.findings] == [1, 1, 1]


def test_a_check_a_newer_run_recorded_is_held_back_from_the_resume() -> None:
    ledger = taken_in(passes("a"), ledger=apply_run(FindingsLedger(), EARLIER, [fails("a")]))
    after = apply_resume(
        ledger, RUN, [fails("a"), fails("b")], finished_at=DONE, held_back={key("b")}
    )
    assert all(f.case != "b" for f in after.findings)  # proposed by nothing held back
    assert state(after, "a")[0] == "open"


def test_the_checks_still_to_apply_leave_out_those_the_run_failed() -> None:
    ledger = taken_in(fails("a"), passes("b"))
    fresh = resume_checks(ledger, RUN, [fails("a"), passes("a"), fails("b"), fails("c")])
    assert [(r.key.case, r.failed) for r in fresh] == [("b", True), ("c", True)]


def record(case: str, passed: bool, started: str | None, repeat: int = 1) -> TrialRecord:
    return TrialRecord(
        case=case,
        agent="scripted",
        repeat=repeat,
        status="passed" if passed else "failed",
        evaluators=[EvaluatorResult(use="file-exists", passed=passed, score=100 * passed)],
        timings=Timings(started_at=started),
    )


def stored(root: Path, *trials: TrialRecord, finished: str | None = None) -> RunPaths:
    """A run folder holding ``trials`` (of the cases a to d); with ``finished``, a run.json
    that says it was interrupted then."""
    paths = RunPaths(root)
    cases = [
        ResolvedCaseRecord(
            case=c,
            path=f"cases/{c}",
            agents=["scripted"],
            timeout_sec=30,
            repeats=2,
            combiner="gated-mean",
            pass_threshold=60,
            evaluators=[ResolvedEvaluator(use="file-exists")],
        )
        for c in "abcd"
    ]
    write_record(paths.resolved_json, ResolvedRecord(cases=cases))
    for trial in trials:
        write_record(paths.trial(trial.case, "scripted", "default", trial.repeat).trial_json, trial)
    if finished is not None:
        manifest = RunManifest(
            run_id=root.name,
            proctor_version="0",
            started_at=f"{root.name[4:8]}-{root.name[8:10]}-{root.name[10:12]}T12:00:00Z",
            finished_at=finished,
            interrupted=True,
        )
        write_record(paths.run_json, manifest)
    return paths


def test_a_stored_run_s_checks_split_at_the_time_it_was_taken_in(tmp_path: Path) -> None:
    paths = stored(
        tmp_path / RUN,
        record("a", False, "2026-12-01T12:00:01.000Z"),
        record("b", True, "2026-12-01T12:06:00.000Z"),  # run by the resume
        record("c", False, None),  # no start recorded: taken in
        record("d", False, "2026-12-01T13:06:00+01:00"),  # 12:06 UTC
    )
    taken, added = stored_run_checks_since(paths.root, CUT)
    assert [(r.key.case, r.failed) for r in taken] == [("a", True), ("c", True)]
    assert [(r.key.case, r.failed) for r in added] == [("b", False), ("d", True)]
    whole, nothing = stored_run_checks_since(paths.root, "not a time")
    assert len(whole) == 4 and nothing == []


def test_a_late_run_s_resume_holds_nothing_back_that_the_run_counted(tmp_path: Path) -> None:
    """A run cut short after one repeat failed, a newer run, then the resume, whose repeat
    fails too: the run's failure was counted when it was taken in, so nothing is held back
    (and no warning says so); a check it had not reached is held back as a late run's."""
    late = stored(tmp_path / RUN, record("a", False, "2026-12-01T12:00:01Z"), finished=CUT)
    newer = "run-20261201T130000Z-cccccc"
    stored(
        tmp_path / newer,
        record("a", False, "2026-12-01T13:00:01Z"),
        record("b", True, "2026-12-01T13:00:01Z"),
        finished="2026-12-01T13:01:00Z",
    )
    first = update_ledger(tmp_path)
    assert first.applied == [RUN, newer] and first.notes == []
    for trial in (
        record("a", False, "2026-12-01T14:00:00Z", repeat=2),
        record("b", False, "2026-12-01T14:00:00Z"),
    ):
        write_record(late.trial(trial.case, "scripted", "default", trial.repeat).trial_json, trial)
    manifest = RunManifest.model_validate_json(late.run_json.read_text())
    manifest.finished_at, manifest.interrupted = "2026-12-01T14:01:00Z", False
    write_record(late.run_json, manifest)
    resumed = update_ledger(tmp_path)
    assert resumed.applied == [RUN]
    assert resumed.notes == [
        f"{RUN} started before {newer}, which the findings ledger holds: 1 of its 1 check "
        "was held back, since a newer run had recorded them (a failure of a finding already "
        "listed adds to its failures; they propose, reopen or resolve nothing)"
    ]
    (finding,) = resumed.ledger.findings
    assert (finding.case, finding.failures) == ("a", 2)  # once per run
    assert update_ledger(tmp_path).applied == []  # the control: applied once


def test_a_schema_3_ledger_reads_as_one_that_keeps_no_run_as_interrupted(
    tmp_path: Path,
) -> None:
    (tmp_path / "findings.json").write_text(
        json.dumps({"schemaVersion": 3, "runs": [RUN], "findings": []})
    )
    ledger = load_ledger(tmp_path)
    assert ledger.runs == [RUN] and ledger.interrupted_runs == {}


@pytest.mark.parametrize(
    "held",
    [
        {"run-x": {"finishedAt": CUT}},  # a run not applied
        {RUN: CUT},  # not an object
        {RUN: {"finishedAt": CUT, "failed": ["0123456789"]}},  # a finding not listed
    ],
)
def test_a_ledger_whose_interrupted_runs_do_not_read_is_refused(
    tmp_path: Path, held: dict[str, object]
) -> None:
    (tmp_path / "findings.json").write_text(
        json.dumps({"schemaVersion": 4, "runs": [RUN], "interruptedRuns": held})
    )
    with pytest.raises(Exception, match="findings.json"):
        load_ledger(tmp_path)


def test_a_dismissal_s_reason_is_kept_as_written() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a")])
    reason = "  indented\n  second line\n"
    dismissed = dismiss(earlier, earlier.findings[0].id, reason, "2026-12-01T11:00:00Z")
    assert dismissed.findings[0].history[-1].reason == reason
    with pytest.raises(ConfigError, match="an empty reason"):  # the control: blank is none
        dismiss(earlier, earlier.findings[0].id, " \n ", "2026-12-01T11:00:00Z")
