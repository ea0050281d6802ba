"""A Markdown report rendered as a web page (a CI's job summary) shows a case name or a reason
as written: ``<Button>`` in it is not read as an HTML tag and dropped."""

from __future__ import annotations

from proctor.models.config import Gate
from proctor.models.trial import TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.markdown import render_markdown
from proctor.util.text import markdown_text


def test_a_tag_start_is_escaped_outside_code_spans_only() -> None:
    assert markdown_text("Use <Button> or `a <b> c`, </div>, <!-- x -->") == (
        "Use \\<Button> or `a <b> c`, \\</div>, \\<!-- x -->"
    )
    assert markdown_text("score 1 < 2, a<=b, <3") == "score 1 < 2, a<=b, <3"  # no tag: kept
    assert markdown_text("``a ` <b>`` <c> `open <d>") == "``a ` <b>`` \\<c> `open \\<d>"


def test_the_report_shows_names_and_reasons_as_written() -> None:
    record = TrialRecord(
        case="fix-<Button>",
        agent="scripted",
        repeat=1,
        status="failed",
        passed=False,
        score=0.0,
        reason="unanswered question: Should I wrap <Button> in `<Form>`?",
    )
    suite = aggregate([record], Gate(min_pass_rate=1.0), run_id="r")
    text = render_markdown(suite, [record])
    assert "| fix-\\<Button> | scripted | default |" in text
    assert "**failed**: unanswered question: Should I wrap \\<Button> in `<Form>`?" in text
    assert "gate failed for 1 group(s): fix-\\<Button>/scripted/default." in text
    assert "`trials/fix-<Button>/scripted/default/1`" in text  # a code span shows it as it is
    assert "<Button>" not in text.replace("\\<Button>", "").replace("`trials/fix-<Button>", "")
