"""A group with no scored trial (each in an error status) fails no gate: the run exits 3, and
the Markdown and HTML reports show the group with no verdict, never FAIL. Where a gate
evaluator did fail in one of its error trials the run exits 1, and the reports name that."""

from __future__ import annotations

from proctor.models.config import Gate
from proctor.models.process import ProcessMetrics
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.html import render_html
from proctor.report.html_model import matrix, point_of
from proctor.report.markdown import render_markdown

GATE = Gate(min_pass_rate=1.0)


def rec(case: str, status: str, repeat: int = 1, *, gate_failed: bool = False) -> TrialRecord:
    record = TrialRecord(
        case=case,
        agent="a",
        repeat=repeat,
        status=status,  # type: ignore[arg-type]
        passed=status == "passed",
        score=100.0 if status == "passed" else None,
        reason=f"{status} for a reason",
    )
    if gate_failed:
        record.evaluators = [EvaluatorResult(use="command", passed=False, score=0, gate=True)]
    return record


def row_of(text: str, case: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"| {case} |"))


def gate_section(html: str) -> str:
    return html[html.index('id="gate"') : html.index('id="matrix"')]


def matrix_row(html: str, case: str) -> str:
    table = html[html.index('id="matrix"') :]
    row = table[table.index(f'data-case="{case}"') :]
    return row[: row.index("</tr>")]


def test_a_group_whose_trials_all_errored_has_no_verdict_in_the_markdown_report() -> None:
    records = [rec("p", "passed"), rec("e", "agent-error"), rec("e", "infra-error", 2)]
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_code == 3, suite.exit_reason
    (errored,) = [g for g in suite.groups if g.case == "e"]
    assert not errored.gate_passed and errored.gate_failed_in_errors == 0  # the JSON as before
    text = render_markdown(suite, records)
    row = row_of(text, "e")
    assert row.endswith("| no verdict (no scored trial: 2 in error) |") and "FAIL" not in row
    assert row_of(text, "p").endswith("| pass |")
    assert "- Groups passing the gate: 1/2; 1 with no verdict: no scored trial" in text


def test_a_group_whose_trials_all_errored_has_no_verdict_in_the_html_report() -> None:
    records = [rec("p", "passed"), rec("e", "agent-error"), rec("e", "infra-error", 2)]
    suite = aggregate(records, GATE, run_id="r")
    html = render_html(suite, records)
    gate = gate_section(html)
    assert (
        'e · a · default</td><td colspan="4">no verdict (no scored trial: 2 in error)</td>' in gate
    )
    checks = gate.split("<table>", 1)[1]  # no failed check listed (the Gate line names them all)
    assert "minPassRate" not in checks and "n/a" not in checks
    row = matrix_row(html, "e")
    assert "no verdict</span></td>" in row and "failed" not in row
    cells = {c.case: c for c in matrix([point_of(r, "") for r in records], suite)}
    assert cells["e"].gate_passed is None and cells["p"].gate_passed is True


def test_a_gate_evaluator_that_failed_in_an_error_trial_reads_as_a_failure() -> None:
    """The run exits 1 (a gate failed in a trial that then ended in an error status): the
    group with no scored trial is shown failed, naming that, in both reports."""
    records = [
        rec("p", "passed"),
        rec("e", "eval-error", gate_failed=True),
        rec("e", "agent-error", 2),
    ]
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_code == 1, suite.exit_reason
    (errored,) = [g for g in suite.groups if g.case == "e"]
    assert errored.gate_failed_in_errors == 1
    said = "a gate evaluator failed in 1 trial that then ended in an error status"
    assert row_of(render_markdown(suite, records), "e").endswith(f"| FAIL ({said}) |")
    html = render_html(suite, records)
    assert f'e · a · default</td><td colspan="4"><strong>failed</strong>: {said}</td>' in (
        gate_section(html)
    )
    assert "<strong>failed</strong>" in matrix_row(html, "e")


def test_a_scored_group_whose_gate_passed_fails_for_a_gate_failed_in_an_error_trial() -> None:
    """Its gate over its scored trials passed, but the run exits 1 for its error trial: the
    reports say failed, not pass."""
    records = [rec("e", "passed"), rec("e", "eval-error", 2, gate_failed=True)]
    suite = aggregate(records, Gate(min_pass_rate=0.5), run_id="r")
    assert suite.exit_code == 1 and suite.groups[0].gate_passed
    said = "a gate evaluator failed in 1 trial that then ended in an error status"
    assert row_of(render_markdown(suite, records), "e").endswith(f"| FAIL ({said}) |")
    html = render_html(suite, records)
    assert said in gate_section(html) and "<strong>failed</strong>" in matrix_row(html, "e")


def test_a_run_whose_every_trial_is_an_infra_error_counts_no_gate_failed_in_it() -> None:
    """Exit 2 whatever a gate said: no group reads as failed for a gate in an error trial."""
    records = [rec("e", "infra-error", gate_failed=True)]
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_code == 2 and suite.groups[0].gate_failed_in_errors == 0
    assert "no verdict" in row_of(render_markdown(suite, records), "e")


def test_a_gate_of_an_agent_that_crashed_before_its_first_tool_call_decides_nothing() -> None:
    """A provider it could not reach: the gate judged the workspace as the case left it. The
    run exits 3 (an error), not 1; once the agent made a call, or when no transcript shows
    that it made none, the gate counts."""
    idle = rec("e", "agent-error", gate_failed=True)
    idle.process = ProcessMetrics()
    suite = aggregate([rec("p", "passed"), idle], GATE, run_id="r")
    assert suite.exit_code == 3, suite.exit_reason
    (group,) = [g for g in suite.groups if g.case == "e"]
    assert group.gate_failed_in_errors == 0
    busy = idle.model_copy(update={"tool_calls": 1})
    assert aggregate([rec("p", "passed"), busy], GATE, run_id="r").exit_code == 1
    unread = idle.model_copy(update={"process": None})
    assert aggregate([rec("p", "passed"), unread], GATE, run_id="r").exit_code == 1
    judged = idle.model_copy(update={"status": "eval-error"})  # not a crash
    assert aggregate([rec("p", "passed"), judged], GATE, run_id="r").exit_code == 1


def test_a_group_whose_trials_a_stop_cut_short_says_so_not_in_error() -> None:
    """The trials a stop cut short are recorded in an error status with an interrupted:
    reason; the Markdown said the group had "2 in error", as if they had failed to run."""
    cut = [
        rec("c", "infra-error", r).model_copy(update={"reason": "interrupted: the run was stopped"})
        for r in (1, 2)
    ]
    records = [
        rec("p", "passed"),
        *cut,
        rec("m", "agent-error"),
        cut[0].model_copy(update={"case": "m", "repeat": 2}),
    ]
    suite = aggregate(records, GATE, run_id="r", interrupted=True)
    text = render_markdown(suite, records)
    assert row_of(text, "c").endswith(
        "| no verdict (no scored trial: 2 cut short by the stop (interrupted)) |"
    )
    assert row_of(text, "m").endswith(
        "| no verdict (no scored trial: 1 in error, 1 cut short by the stop (interrupted)) |"
    )


def test_the_html_gate_says_the_trials_a_stop_cut_short_as_the_markdown_does() -> None:
    """The HTML report's Gate section said "no verdict: no scored trial (2 in error)" of a
    group whose trials the stop cut short; it says them in the Markdown's words."""
    cut = [
        rec("c", "infra-error", r).model_copy(update={"reason": "interrupted: the run was stopped"})
        for r in (1, 2)
    ]
    records = [rec("p", "passed"), *cut, rec("m", "agent-error")]
    records.append(cut[0].model_copy(update={"case": "m", "repeat": 2}))
    suite = aggregate(records, GATE, run_id="r", interrupted=True)
    gate = gate_section(render_html(suite, records))
    said = '<td colspan="4">no verdict (no scored trial: {})</td>'
    assert said.format("2 cut short by the stop (interrupted)") in gate
    assert said.format("1 in error, 1 cut short by the stop (interrupted)") in gate
    assert "2 in error" not in gate


def test_the_markdown_count_of_trials_says_which_a_stop_cut_short() -> None:
    """``- Trials: 5 (infra-error 2, passed 3)`` read as two trials broken by infrastructure,
    when the stop had cut them short."""
    cut = rec("c", "infra-error", 2).model_copy(
        update={"reason": "interrupted: the run was stopped"}
    )
    records = [rec("c", "passed"), cut, rec("d", "infra-error"), rec("d", "passed", 2)]
    suite = aggregate(records, GATE, run_id="r", interrupted=True)
    text = render_markdown(suite, records)
    assert (
        "- Trials: 4 (infra-error 2, passed 2; 1 of the 2 infra-error was cut short by the stop "
        "(interrupted))" in text
    )
    assert (
        "2 trials ended in an error status (agent-error, infra-error, eval-error), 1 of them cut "
        "short by the stop (interrupted), which `--resume` runs again;" in text
    )
    only = [rec("c", "passed"), cut]
    text = render_markdown(aggregate(only, GATE, run_id="r", interrupted=True), only)
    assert "- Trials: 2 (infra-error 1, passed 1; the 1 infra-error was cut short" in text
    assert (
        "1 trial ended in an error status (agent-error, infra-error, eval-error), cut short by "
        "the stop (interrupted), which `--resume` runs again; it is excluded" in text
    )


def test_the_html_matrix_says_which_errors_a_stop_cut_short() -> None:
    """The matrix's errors column counted a trial the stop cut short as an error, nothing more."""
    cut = rec("c", "infra-error", 2).model_copy(
        update={"reason": "interrupted: the run was stopped"}
    )
    records = [rec("c", "passed"), cut, rec("e", "agent-error")]
    html = render_html(aggregate(records, GATE, run_id="r", interrupted=True), records)
    assert '<td class="num">1 <span class="muted cut-short"' in matrix_row(html, "c")
    assert "(1 cut short by the stop)</span></td>" in matrix_row(html, "c")
    assert "cut short" not in matrix_row(html, "e")
