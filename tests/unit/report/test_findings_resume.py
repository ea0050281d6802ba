"""What a ``--resume`` adds to a run the findings ledger took in while interrupted: the checks
of the trials it ran, over the run's outcome of each check. Controls: a run taken in finished
(not kept as interrupted) takes nothing, and a resume applied twice adds nothing again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.models.findings import FindingsLedger
from proctor.models.io import write_record
from proctor.models.run import ResolvedCaseRecord, ResolvedEvaluator, ResolvedRecord
from proctor.models.trial import EvaluatorResult, Timings, TrialRecord
from proctor.paths import RunPaths
from proctor.report.checks import CheckKey, CheckResult, stored_run_checks_since
from proctor.report.findings import load_ledger
from proctor.report.ledger_steps import apply_resume, apply_run

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


def test_a_run_taken_in_interrupted_is_kept_so_and_one_taken_in_finished_is_not() -> None:
    assert taken_in(fails("a")).interrupted_runs == {RUN: CUT}
    finished = apply_run(FindingsLedger(), RUN, [fails("a")])
    assert finished.interrupted_runs == {}
    # The control: a run not kept as interrupted takes nothing of a resume.
    assert apply_resume(finished, RUN, [fails("a")], [fails("b")], finished_at=DONE) is finished


def test_a_check_the_run_had_not_reached_is_applied_as_any_run_s() -> None:
    ledger = taken_in(fails("a"))
    after = apply_resume(ledger, RUN, [fails("a")], [fails("b")], finished_at=DONE)
    assert state(after, "b") == ("open", 1, [("new", RUN)])
    assert [f.last_checked_run for f in after.findings] == [RUN, RUN]
    assert after.interrupted_runs == {RUN: DONE} and after.runs == [RUN]
    assert ledger.interrupted_runs == {RUN: CUT}  # a new value: the ledger given is left


def test_a_pass_the_resume_records_resolves_and_a_failure_the_run_counted_counts_once() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a"), fails("b")])
    ledger = taken_in(fails("a"), ledger=earlier)  # b was not reached
    after = apply_resume(ledger, RUN, [fails("a")], [passes("b"), fails("a")], finished_at=DONE)
    assert state(after, "b") == ("resolved", 1, [("new", EARLIER), ("resolved", RUN)])
    assert state(after, "a")[:2] == ("open", 2)  # a run counts once, however many repeats


def test_a_check_the_run_passed_that_a_resumed_repeat_fails_is_failed_by_the_run() -> None:
    earlier = apply_run(FindingsLedger(), EARLIER, [fails("a")])
    ledger = taken_in(passes("a"), ledger=earlier)
    assert state(ledger, "a")[0] == "resolved"
    after = apply_resume(ledger, RUN, [passes("a")], [fails("a")], finished_at=DONE)
    assert state(after, "a") == (
        "open",
        2,
        [("new", EARLIER), ("resolved", RUN), ("reopened", RUN)],
    )
    # A pass of a check the run passed already says nothing new.
    same = apply_resume(ledger, RUN, [passes("a")], [passes("a")], finished_at=DONE)
    assert same.findings == ledger.findings


def test_a_resume_is_applied_once_and_one_cut_short_again_adds_again() -> None:
    ledger = taken_in(fails("a"))
    later = "2026-12-01T13:00:00.000Z"
    again = apply_resume(ledger, RUN, [fails("a")], [fails("b")], finished_at=later)
    assert again.interrupted_runs == {RUN: later}
    # The control: the run read at that time already adds nothing.
    assert apply_resume(again, RUN, [fails("a")], [fails("d")], finished_at=later) is again
    done = apply_resume(again, RUN, [fails("a"), fails("b")], [fails("c")], finished_at=DONE)
    assert [f.case for f in done.findings] == ["a", "b", "c"]
    assert [f.failures for f in done.findings] == [1, 1, 1]


def test_a_check_a_newer_run_recorded_is_held_back_from_the_resume() -> None:
    ledger = taken_in(passes("a"), ledger=apply_run(FindingsLedger(), EARLIER, [fails("a")]))
    after = apply_resume(
        ledger, RUN, [], [fails("a"), fails("b")], finished_at=DONE, held_back={key("b")}
    )
    assert all(f.case != "b" for f in after.findings)  # proposed by nothing held back
    assert state(after, "a")[0] == "open"


def record(case: str, passed: bool, started: str | None) -> TrialRecord:
    return TrialRecord(
        case=case,
        agent="scripted",
        repeat=1,
        status="passed" if passed else "failed",
        evaluators=[EvaluatorResult(use="file-exists", passed=passed, score=100 * passed)],
        timings=Timings(started_at=started),
    )


def test_a_stored_run_s_checks_split_at_the_time_it_was_taken_in(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / RUN)
    cases = [
        ResolvedCaseRecord(
            case=c,
            path=f"cases/{c}",
            agents=["scripted"],
            timeout_sec=30,
            repeats=1,
            combiner="gated-mean",
            pass_threshold=60,
            evaluators=[ResolvedEvaluator(use="file-exists")],
        )
        for c in "abcd"
    ]
    write_record(paths.resolved_json, ResolvedRecord(cases=cases))
    for trial in (
        record("a", False, "2026-12-01T12:00:01.000Z"),
        record("b", True, "2026-12-01T12:06:00.000Z"),  # run by the resume
        record("c", False, None),  # no start recorded: taken in
        record("d", False, "2026-12-01T13:06:00+01:00"),  # 12:06 UTC
    ):
        write_record(paths.trial(trial.case, "scripted", "default", 1).trial_json, trial)
    taken, added = stored_run_checks_since(paths.root, CUT)
    assert [(r.key.case, r.failed) for r in taken] == [("a", True), ("c", True)]
    assert [(r.key.case, r.failed) for r in added] == [("b", False), ("d", True)]
    whole, nothing = stored_run_checks_since(paths.root, "not a time")
    assert len(whole) == 4 and nothing == []


def test_a_schema_3_ledger_reads_as_one_that_keeps_no_run_as_interrupted(
    tmp_path: Path,
) -> None:
    (tmp_path / "findings.json").write_text(json.dumps({"schemaVersion": 3, "runs": [RUN]}))
    ledger = load_ledger(tmp_path)
    assert ledger.runs == [RUN] and ledger.interrupted_runs == {}


@pytest.mark.parametrize("kept", [{"run-x": CUT}, {RUN: 5}])
def test_a_ledger_whose_interrupted_runs_do_not_read_is_refused(
    tmp_path: Path, kept: dict[str, object]
) -> None:
    (tmp_path / "findings.json").write_text(
        json.dumps({"schemaVersion": 4, "runs": [RUN], "interruptedRuns": kept})
    )
    with pytest.raises(Exception, match="findings.json"):
        load_ledger(tmp_path)
