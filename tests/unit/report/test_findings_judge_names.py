"""An eval's judges are checks named by their criteria (``eval: judge.closed_qa('…')``); a
ledger an earlier release wrote names them by their kind alone (``eval: judge.closed_qa``,
``#2`` for the second), and those findings are taken up, keeping their ids and histories."""

from __future__ import annotations

from proctor.models.findings import FindingsLedger
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.report.checks import CheckKey, CheckResult, run_checks
from proctor.report.findings import apply_run, dismiss, finding_id


def _judge(name: str, passed: bool, kind: str | None = "closed_qa") -> EvaluatorResult:
    details = {"name": name, **({"judge": kind} if kind else {})}
    return EvaluatorResult(
        use="eval", passed=passed, score=100 if passed else 20, details=details, message=name
    )


def _trial(*results: EvaluatorResult) -> TrialRecord:
    return TrialRecord(
        case="judged", agent="scripted", repeat=1, status="failed", evaluators=list(results)
    )


def test_two_judges_of_a_kind_each_keep_their_finding_whichever_order_they_ran() -> None:
    fixed = "judge.closed_qa('Says what was fixed?')"
    ran = "judge.closed_qa('Says the tests ran?')"
    ledger = apply_run(
        FindingsLedger(), "run-1", run_checks([_trial(_judge(fixed, True), _judge(ran, False))])
    )
    ledger = apply_run(
        ledger, "run-2", run_checks([_trial(_judge(ran, False), _judge(fixed, True))])
    )
    (finding,) = ledger.findings
    assert finding.check == f"eval: {ran}"
    assert finding.state == "open" and finding.failures == 2
    assert [e.event for e in finding.history] == ["new"]


CELL = ("judged", "scripted", "default")
FIXED = "judge.closed_qa('Says what was fixed?')"
SECRET = "judge.closed_qa('Leaks no secret?')"


def _old(*checks: str, dismissed: int | None = None, suite: str | None = "evals") -> FindingsLedger:
    """A ledger an earlier release wrote: each of ``checks`` failed once; the finding at
    ``dismissed`` dismissed."""
    ledger = apply_run(
        FindingsLedger(),
        "run-1",
        [CheckResult(CheckKey(*CELL, check), True, "low") for check in checks],
        suite=suite,
    )
    if dismissed is not None:
        ledger = dismiss(ledger, ledger.findings[dismissed].id, "known flaky", "2026-12-01")
    return ledger


def _checks(ledger: FindingsLedger) -> dict[str, tuple[str, int]]:
    return {f.check: (f.state, f.failures) for f in ledger.findings}


def test_a_finding_named_by_the_kind_of_the_trial_s_one_judge_of_it_is_taken_up() -> None:
    ledger = _old("eval: judge.closed_qa")
    (before,) = ledger.findings
    assert before.id == finding_id(CheckKey(*CELL, "eval: judge.closed_qa"))
    checks = run_checks([_trial(_judge(FIXED, False), _judge("check(x)", True, kind=None))])
    assert [c.earlier for c in checks] == ["eval: judge.closed_qa", None]
    ledger = apply_run(ledger, "run-2", checks, suite="evals")
    (finding,) = ledger.findings
    assert finding.id == before.id  # the same finding: its id, its history
    assert finding.check == f"eval: {FIXED}"
    assert finding.failures == 2 and [e.event for e in finding.history] == ["new"]
    assert finding.last_checked_run == "run-2"


def test_a_finding_of_a_ledger_without_suites_is_taken_up_too() -> None:
    ledger = _old("eval: judge.closed_qa", suite=None)
    ledger = apply_run(ledger, "run-2", run_checks([_trial(_judge(FIXED, False))]), suite="evals")
    (finding,) = ledger.findings
    assert (finding.suite, finding.check, finding.failures) == ("evals", f"eval: {FIXED}", 2)


def test_two_judges_of_a_kind_take_up_no_dismissal_named_by_the_kind() -> None:
    # Which judge the old name was is the order grades came back then: either.
    ledger = _old("eval: judge.closed_qa", dismissed=0)
    checks = run_checks([_trial(_judge(SECRET, False), _judge(FIXED, True))])
    assert [c.earlier for c in checks] == [None, None]
    ledger = apply_run(ledger, "run-2", checks, suite="evals")
    assert _checks(ledger) == {
        "eval: judge.closed_qa": ("dismissed", 1),  # left unchecked, as it was
        f"eval: {SECRET}": ("open", 1),  # its failure is a finding of its own, open
    }


def test_a_judge_left_alone_in_the_test_takes_up_nothing_its_kind_numbered() -> None:
    # The test had two (the second `#2`); one is gone: the one left may be either.
    ledger = _old("eval: judge.closed_qa", "eval: judge.closed_qa#2", dismissed=0)
    ledger = apply_run(ledger, "run-2", run_checks([_trial(_judge(SECRET, False))]), suite="evals")
    assert _checks(ledger) == {
        "eval: judge.closed_qa": ("dismissed", 1),
        "eval: judge.closed_qa#2": ("open", 1),
        f"eval: {SECRET}": ("open", 1),
    }


def test_repeats_of_another_judge_each_take_up_nothing() -> None:
    # Each repeat has one judge of the kind, each another: the old name is either.
    ledger = _old("eval: judge.closed_qa")
    one, two = _trial(_judge(FIXED, False)), _trial(_judge(SECRET, False))
    two.repeat = 2
    checks = run_checks([one, two])
    ledger = apply_run(ledger, "run-2", checks, suite="evals")
    assert _checks(ledger) == {
        "eval: judge.closed_qa": ("open", 1),
        f"eval: {FIXED}": ("open", 1),
        f"eval: {SECRET}": ("open", 1),
    }


def test_repeats_graded_in_other_orders_leave_each_old_finding_whole() -> None:
    # Repeat 1 fails FIXED, repeat 2 SECRET; their grades came back in other orders.
    ledger = _old("eval: judge.closed_qa", "eval: judge.closed_qa#2")
    one = _trial(_judge(FIXED, False), _judge(SECRET, True))
    two = _trial(_judge(SECRET, False), _judge(FIXED, True))
    two.repeat = 2
    ledger = apply_run(ledger, "run-2", run_checks([one, two]), suite="evals")
    checked = [f.check for f in ledger.findings if f.last_checked_run == "run-2"]
    assert sorted(checked) == sorted([f"eval: {FIXED}", f"eval: {SECRET}"])  # one each
    unchecked = [f.check for f in ledger.findings if f.last_checked_run != "run-2"]
    assert unchecked == ["eval: judge.closed_qa", "eval: judge.closed_qa#2"]  # both, as they were


def test_a_judge_that_is_one_of_its_kind_in_some_repeats_only_takes_up_nothing() -> None:
    one = _trial(_judge(FIXED, False))
    two = _trial(_judge(FIXED, False), _judge(SECRET, True))
    two.repeat = 2
    assert [c.earlier for c in run_checks([one, two])] == [None, None]


def test_other_assertions_have_no_earlier_name() -> None:
    checks = run_checks([_trial(_judge("check(equals 2)", False, kind=None))])
    assert [(c.key.check, c.earlier) for c in checks] == [("eval: check(equals 2)", None)]
