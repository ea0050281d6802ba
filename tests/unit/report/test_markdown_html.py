"""A Markdown report rendered as a web page (a CI's job summary) shows a case name or a reason
as written: ``<Button>`` in it is not read as an HTML tag and dropped."""

from __future__ import annotations

from proctor.models.config import Gate
from proctor.models.trial import CaseLabels, TrialRecord
from proctor.report.ab import compare_runs, render_runs_markdown
from proctor.report.aggregate import aggregate
from proctor.report.html import render_html
from proctor.report.markdown import render_markdown
from proctor.util.text import code_span, markdown_name, markdown_quoting, markdown_text


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
    assert "gate failed for 1 group: fix-\\<Button>/scripted/default." in text
    assert "`trials/fix-<Button>/scripted/default/1`" in text  # a code span shows it as it is
    assert "<Button>" not in text.replace("\\<Button>", "").replace("`trials/fix-<Button>", "")


def test_a_code_span_holds_a_name_with_backticks_whole() -> None:
    assert code_span("fix-add") == "`fix-add`"
    assert code_span("a`b") == "``a`b``"  # `a`b` would end the span at the name's backtick
    assert code_span("x``y") == "```x``y```"
    assert code_span("`tick") == "`` `tick ``"  # padded: a fence next to a backtick merges
    assert code_span(" a ") == "`  a  `"  # CommonMark strips one space from each side


def _ab_records(case: str, bucket: str) -> list[TrialRecord]:
    return [
        TrialRecord(
            case=case,
            agent="scripted",
            condition=condition,
            repeat=repeat,
            status="passed" if passed else "failed",
            passed=passed,
            score=100.0 if passed else 0.0,
            labels=CaseLabels(bucket=bucket),
        )
        for repeat in (1, 2, 3)
        for condition, passed in (("baseline", repeat != 2), ("with-skill", True))
    ]


def test_the_ab_section_shows_a_case_with_a_backtick_and_a_tag_like_label_as_written() -> None:
    records = _ab_records("a`b", "<ui>")
    suite = aggregate(records, Gate(min_pass_rate=0.0), run_id="r")
    text = render_markdown(suite, records)
    assert "| ``a`b`` | scripted | 3/3 | 2/3 |" in text  # the A/B cases table
    assert "- ``trials/a`b/scripted/baseline/2`` **failed**" in text
    assert "| \\<ui> | 3 | 3/3 | 2/3 |" in text  # By bucket: the label is no HTML tag
    assert "| <ui> |" not in text


def test_a_run_comparison_shows_a_case_with_a_backtick_as_written() -> None:
    before, after = _ab_records("a`b", "x"), _ab_records("a`b", "x")[:2]
    text = render_runs_markdown(compare_runs(before, after + _ab_records("<c>", "x")))
    assert "| ``a`b`` | scripted | baseline |" in text
    assert "- `<c>` / scripted / baseline (3 trials)" in text


def test_a_name_is_no_emphasis_while_a_snake_case_name_stays_as_written() -> None:
    assert markdown_name("*star*") == "\\*star\\*"
    assert markdown_name("__init__") == "\\_\\_init\\_\\_"
    assert markdown_name("fix_a_bug") == "fix_a_bug"  # inside a word: no emphasis, kept
    assert markdown_name("a~b~") == "a\\~b\\~"
    assert markdown_name("re \\d and \\*") == "re \\d and \\\\\\*"  # only an escaping backslash
    assert markdown_quoting("found **/*.orig in `ls *.py`") == (
        "found \\*\\*/\\*.orig in `ls *.py`"  # a code span shows its text as it is
    )


def test_the_report_shows_names_with_emphasis_marks_as_written() -> None:
    records = [
        TrialRecord(case=case, agent="scripted", repeat=1, status="failed", passed=False, score=0)
        for case in ("*star*", "__init__", "fix_a_bug")
    ]
    suite = aggregate(records, Gate(min_pass_rate=1.0), run_id="r")
    text = render_markdown(suite, records)
    assert "| \\*star\\* | scripted | default | 0/1 |" in text
    assert "| \\_\\_init\\_\\_ | scripted | default | 0/1 |" in text
    assert "| fix_a_bug | scripted | default | 0/1 |" in text
    assert "3 groups: \\*star\\*/scripted/default, \\_\\_init\\_\\_/scripted/default" in text
    assert "- `trials/*star*/scripted/default/1` **failed**" in text  # a code span: as it is


def test_names_holding_backticks_pair_into_no_code_span() -> None:
    """Two backticks of names in one exit reason (or one name) would be read as a code span:
    escaped, while a single one is kept as written, and an escaped one starts no span."""
    assert markdown_name("a`b") == "a`b"
    assert markdown_name("x`y`z") == "x\\`y\\`z"
    assert markdown_name("a`b/s/d, c`d/s/d") == "a\\`b/s/d, c\\`d/s/d"
    assert markdown_text(markdown_name("x`<b>, y`")) == "x\\`\\<b>, y\\`"  # the tag too
    assert markdown_text("\\`<b>` <c>`") == "\\`\\<b>` <c>`"  # \\` opens no span
    assert markdown_text("``a` <b>") == "``a` \\<b>"  # runs of unequal length: no span
    records = [
        TrialRecord(case=case, agent="s", repeat=1, status="failed", passed=False, score=0)
        for case in ("a`b", "c`d")
    ]
    suite = aggregate(records, Gate(min_pass_rate=1.0), run_id="r")
    text = render_markdown(suite, records)
    assert ": gate failed for 2 groups: a\\`b/s/default, c\\`d/s/default." in text
    assert "| a`b | s | default | 0/1 |" in text  # one backtick in a cell: as it is


def test_a_pass_rate_on_a_half_percent_is_rounded_half_up_in_every_report() -> None:
    """5 of 8 is 62.5%: shown 63%, as every other figure of the reports rounds a half (the
    float format rounds it half to even and showed 62%), alike in Markdown and HTML."""
    from proctor.report.html import render_html

    records = [
        TrialRecord(
            case="c",
            agent="scripted",
            condition=condition,
            repeat=repeat,
            status="passed" if passed else "failed",
            passed=passed,
            score=100.0 if passed else 0.0,
        )
        for condition, outcomes in (("with", [1, 1, 1, 1, 1, 0, 0, 0]), ("base", [0] * 7 + [1]))
        for repeat, passed in enumerate(map(bool, outcomes), 1)
    ]
    suite = aggregate(records, Gate(min_pass_rate=0.5), run_id="r")
    text = render_markdown(suite, records)
    assert "| 5/8 | 63% |" in text and "| 1/8 | 13% |" in text
    assert "5/8 (63%)" in text and "+50 pts" in text  # the A/B section's sides and delta
    assert "62%" not in text and "12%" not in text
    html = render_html(suite, records)
    assert "63% <span" in html and "13% <span" in html
    assert "62% <span" not in html


def test_the_html_ab_section_slices_by_a_label_only_when_some_pair_carries_it() -> None:
    """As the Markdown: a `By bucket` table for the buckets given, none of a label no pair
    carries (`By goal shape` with its one row `(none)`, in every report of a suite with no
    goal shapes)."""
    records = _ab_records("fix", "ui")
    suite = aggregate(records, Gate(min_pass_rate=0.0), run_id="r")
    page = render_html(suite, records, folders={})
    assert "<h3>By bucket</h3>" in page
    for title in ("repository", "category", "framework", "goal shape"):
        assert f"<h3>By {title}</h3>" not in page
    assert "## By goal shape" not in render_markdown(suite, records)  # as the Markdown


def test_the_html_ab_section_lists_each_incomplete_pair_with_its_reason() -> None:
    """As the Markdown's `Incomplete pairs`: a pair left out of every figure is listed with why,
    not only counted."""
    records = [
        r for r in _ab_records("fix", "ui") if (r.condition, r.repeat) != ("baseline", 2)
    ] + [
        TrialRecord(
            case="fix", agent="scripted", condition="baseline", repeat=2, status="agent-error"
        )
    ]
    suite = aggregate(records, Gate(min_pass_rate=0.0), run_id="r")
    assert "| `fix` | scripted | 2 | baseline agent-error |" in render_markdown(suite, records)
    page = render_html(suite, records, folders={})
    assert "<h3>Incomplete pairs</h3>" in page
    assert (
        '<tr><td>fix</td><td>scripted</td><td class="num">2</td>'
        "<td>baseline agent-error</td></tr>" in page
    )


def test_the_metrics_line_shows_an_external_program_s_metric_names_as_written() -> None:
    """A metric's name is what an ``external`` program printed: a tag in it would be dropped
    by a page rendering the report (and make the rest bold), a line break would end the
    summary's bullet."""
    record = TrialRecord.model_validate(
        {
            "case": "c",
            "agent": "scripted",
            "repeat": 1,
            "status": "passed",
            "passed": True,
            "score": 100.0,
            "evaluators": [
                {
                    "use": "external",
                    "passed": True,
                    "score": 100,
                    "counted": False,
                    "metrics": {"m<b>\nnext": 3.0, "__init__": 1.0},
                }
            ],
        }
    )
    suite = aggregate([record], Gate(), run_id="r")
    text = render_markdown(suite, [record])
    (line,) = [line for line in text.splitlines() if line.startswith("- Metrics")]
    assert "m\\<b> next 3.0 (3.0–3.0, n=1)" in line
    assert "\\_\\_init\\_\\_ 1.0" in line
    assert "next 3.0" not in text.replace(line, "")  # no line of its own


def test_the_cost_and_tokens_lines_show_a_model_named_by_the_transcript_as_written() -> None:
    """A model's name is what the agent's transcript says (a plan's ``model``)."""
    model = "<b>mod|el</b>\nx"
    record = TrialRecord.model_validate(
        {
            "case": "c",
            "agent": "scripted",
            "repeat": 1,
            "status": "passed",
            "passed": True,
            "score": 100.0,
            "usage": {model: {"inputTokens": 1, "outputTokens": 7}},
            "cost": {"totalUsd": None, "unpriced": [model]},
        }
    )
    suite = aggregate([record], Gate(), run_id="r")
    text = render_markdown(suite, [record])
    assert "- Cost: n/a (unpriced: \\<b>mod|el\\</b> x)" in text
    assert "- Tokens: \\<b>mod|el\\</b> x: in 1, out 7" in text
    assert "<b>" not in text.replace("\\<b>", "")


def test_names_holding_one_backtick_each_on_one_line_pair_into_no_code_span() -> None:
    """The Metrics, Tokens and Cost lines join several names: ``a`b`` and ``c`d`` paired
    their backticks into a code span across the two."""
    from proctor.report.markdown import _line_name

    line = f"{_line_name('a`b')} 1.0; {_line_name('c`d')} 2.0"
    assert line == "a\\`b 1.0; c\\`d 2.0"
