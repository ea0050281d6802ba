"""A run whose trials were all skipped passed no gate: the exit reason, ``suite.md`` and the
Markdown report say nothing was gated, never that every group passed its gate next to 0/1."""

from __future__ import annotations

from proctor.models.config import Gate
from proctor.models.trial import TrialAnnotation, TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.markdown import render_markdown

GATE = Gate(min_pass_rate=1.0)


def rec(case: str, status: str, repeat: int = 1) -> TrialRecord:
    return TrialRecord(
        case=case,
        agent="a",
        repeat=repeat,
        status=status,  # type: ignore[arg-type]
        passed=status == "passed",
        score=100.0 if status == "passed" else None,
        reason="not today" if status == "skipped" else "ok",
    )


def test_every_trial_skipped_says_nothing_was_gated() -> None:
    records = [rec("s", "skipped"), rec("s", "skipped", 2)]
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_code == 0
    assert suite.exit_reason == "nothing was gated: every trial was skipped"
    text = render_markdown(suite, records)
    assert "every group passed its gate" not in text and "every gate passed" not in text
    assert "**Exit code 0**: nothing was gated: every trial was skipped." in text
    assert "- Groups passing the gate: 0/1; 1 not gated: every trial skipped" in text
    row = next(line for line in text.splitlines() if line.startswith("| s |"))
    assert row.endswith("| not gated (every trial skipped) |") and "FAIL" not in row


def test_some_groups_skipped_names_them_apart() -> None:
    records = [rec("p", "passed"), rec("s", "skipped")]
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_code == 0
    assert suite.exit_reason == (
        "every scored group passed its gate; 1 group not gated: every trial skipped"
    )
    text = render_markdown(suite, records)
    assert "**Exit code 0**: every scored group passed" in text  # not "every gate passed"
    assert "- Groups passing the gate: 1/2; 1 not gated: every trial skipped" in text


def test_a_run_that_scored_everything_keeps_its_wording() -> None:
    """The control: nothing skipped, every gate passed."""
    records = [rec("p", "passed")]
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_reason == "every group passed its gate"
    text = render_markdown(suite, records)
    assert "**Exit code 0** (every gate passed): every group passed its gate." in text
    assert "- Groups passing the gate: 1/1\n" in text


def test_a_group_excluded_by_hand_is_not_gated() -> None:
    """Every trial of a group left out by a person (annotate --verdict excluded): the group
    has no gate to pass, as any group whose every trial was skipped (the README's exit code
    table); excluding a trial never makes a run fail where it passed."""
    records = [rec("p", "passed"), rec("x", "skipped")]
    records[1].annotation = TrialAnnotation(
        trial="x/a/default/1", verdict="excluded", note="wrong task", at="t"
    )
    suite = aggregate(records, GATE, run_id="r")
    assert suite.exit_code == 0 and suite.groups[1].not_gated, suite.exit_reason
    text = render_markdown(suite, records)
    assert "not gated" in text


def test_a_group_excluded_by_hand_shows_not_gated_in_the_html_report_too() -> None:
    from proctor.report.html import render_html

    records = [rec("p", "passed"), rec("x", "skipped")]
    records[1].annotation = TrialAnnotation(
        trial="x/a/default/1", verdict="excluded", note="wrong task", at="t"
    )
    suite = aggregate(records, GATE, run_id="r")
    html = render_html(suite, records)
    gate = html[html.index('id="gate"') : html.index('id="matrix"')]
    assert 'x · a · default</td><td colspan="4">not gated: every trial skipped' in gate


def test_the_html_report_shows_a_skipped_group_as_not_gated() -> None:
    from proctor.report.html import render_html

    records = [rec("p", "passed"), rec("s", "skipped"), rec("e", "infra-error")]
    suite = aggregate(records, GATE, run_id="r")
    html = render_html(suite, records)
    gate = html[html.index('id="gate"') : html.index('id="matrix"')]
    assert 's · a · default</td><td colspan="4">not gated: every trial skipped' in gate
    # The control: a group whose trials errored has no verdict either, said apart (exit 3).
    assert 'e · a · default</td><td colspan="4">no verdict (no scored trial: 1 in error)' in gate
    matrix = html[html.index('id="matrix"') :]
    row = matrix[matrix.index('data-case="s"') :]
    assert row[: row.index("</tr>")].endswith('<span class="muted">–</span></td>')
    row = matrix[matrix.index('data-case="e"') :]
    assert "no verdict</span>" in row[: row.index("</tr>")]


def test_the_not_evaluated_line_names_the_causes_its_trials_give() -> None:
    """Each cause once, as the trials give it: an older record's reason lists every possible
    cause, and a trial of a condition no evaluator runs under names that, not the switches."""
    from proctor.models.trial import NOT_EVALUATED, NOT_EVALUATED_HERE, not_evaluated

    records = [rec("a", "skipped"), rec("a", "skipped", 2), rec("b", "skipped")]
    records[0].reason = records[1].reason = not_evaluated("--no-evaluate")
    records[2].reason = NOT_EVALUATED_HERE
    text = render_markdown(aggregate(records, GATE, run_id="r"), records)
    assert (
        "- Not evaluated: 3 trials ran and were recorded without evaluation (--no-evaluate; "
        "every evaluator of its case runs under other conditions); they are not scored\n"
    ) in text
    records = [rec("a", "skipped")]
    records[0].reason = NOT_EVALUATED
    text = render_markdown(aggregate(records, GATE, run_id="r"), records)
    assert "without evaluation (--no-evaluate, --only-evaluator/--skip-evaluator leaving" in text
