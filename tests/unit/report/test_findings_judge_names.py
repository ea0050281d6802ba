"""An eval's judges are checks named by their criteria (``eval: judge.closed_qa('…')``); a
ledger an earlier release wrote names them by their kind alone (``eval: judge.closed_qa``,
``#2`` for the second), and those findings are taken up, keeping their ids and histories."""

from __future__ import annotations

from proctor.models.findings import FindingsLedger
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.report.checks import CheckKey, CheckResult, run_checks
from proctor.report.findings import apply_run, finding_id


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


def test_a_finding_named_by_the_judge_s_kind_alone_is_taken_up() -> None:
    cell = ("judged", "scripted", "default")
    old = CheckKey(*cell, "eval: judge.closed_qa#2")
    ledger = apply_run(FindingsLedger(), "run-1", [CheckResult(old, True, "low")])
    (before,) = ledger.findings
    assert before.id == finding_id(old)
    checks = run_checks(
        [_trial(_judge("judge.closed_qa('a')", True), _judge("judge.closed_qa('b')", False))]
    )
    assert [c.earlier for c in checks] == ["eval: judge.closed_qa", "eval: judge.closed_qa#2"]
    ledger = apply_run(ledger, "run-2", checks)
    (finding,) = ledger.findings
    assert finding.id == before.id  # the same finding: its id, its history
    assert finding.check == "eval: judge.closed_qa('b')"
    assert finding.failures == 2 and [e.event for e in finding.history] == ["new"]
    assert finding.last_checked_run == "run-2"


def test_other_assertions_have_no_earlier_name() -> None:
    checks = run_checks([_trial(_judge("check(equals 2)", False, kind=None))])
    assert [(c.key.check, c.earlier) for c in checks] == [("eval: check(equals 2)", None)]
