"""One figure reads the same wherever a report shows it: seconds with two decimals, counts
whole with a thousands separator, dollars to the hundredth of a cent, in ``suite.md``'s
sections, the A/B tables, ``proctor compare`` and the HTML report."""

from __future__ import annotations

import re

from proctor.models.config import ABGate, Gate
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import Timings, TrialRecord
from proctor.report.ab import compare_runs, render_runs_markdown
from proctor.report.aggregate import aggregate
from proctor.report.html import render_html
from proctor.report.markdown import render_markdown
from proctor.report.repeated import render_repeated_markdown, repeated_runs


def _trial(condition: str, repeat: int, agent_ms: float, tokens: int) -> TrialRecord:
    return TrialRecord(
        case="c",
        agent="s",
        condition=condition,
        repeat=repeat,
        status="passed",
        passed=True,
        score=100.0,
        timings=Timings(total_ms=agent_ms + 200, agent_ms=agent_ms, harness_ms=200),
        tool_calls=8 if condition == "b" else 4,
        usage={"m": ModelUsage(input_tokens=tokens - 1000, output_tokens=1000, responses=2)},
    )


# Medians 0.3333 s and 2,749 tokens (b), 0.1666 s and 956 tokens (t): 0.33 and 0.17 s.
RECORDS = [
    *(_trial("b", r, ms, 2749) for r, ms in ((1, 313.3), (2, 333.3), (3, 373.3))),
    *(_trial("t", r, ms, 1956) for r, ms in ((1, 156.6), (2, 166.6), (3, 176.6))),
]


def _suite_md() -> str:
    suite = aggregate(RECORDS, Gate(ab=ABGate(treatment="t", baseline="b")), run_id="r")
    return render_markdown(suite, RECORDS)


def _row(text: str, first: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| {first} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_elapsed_seconds_read_alike_in_the_effort_and_the_a_b_tables() -> None:
    """The effort table said 0.33 / 0.17 and the A/B table below it 0.3 / 0.2 for the same
    medians."""
    text = _suite_md()
    assert "| c | s | b | 3/3 100% [44–100%] | 1.00 (k=3) | 1.00 | 0.33 (0.31–0.37) |" in text
    assert "| c | s | t | 3/3 100% [44–100%] | 1.00 (k=3) | 1.00 | 0.17 (0.16–0.18) |" in text
    assert _row(text, "median elapsed (s)")[1:4] == ["0.17", "0.33", "-0.17"]
    assert "(agent 1.52s, harness 1.20s)" in text  # the Time line's seconds, as the tables'
    repeated = render_repeated_markdown(repeated_runs(RECORDS))
    assert "| 0.33 (0.31–0.37) | 8 (8–8) | 2,749 (2,749–2,749) |" in repeated


def test_token_counts_have_a_thousands_separator_in_every_section() -> None:
    """The A/B table said 2,749, the effort table 2749 (2749–2749), the Tokens line in 15606
    and the by-source table 15606."""
    text = _suite_md()
    assert "| 2,749 (2,749–2,749) |" in text and "| 1,956 (1,956–1,956) |" in text
    assert _row(text, "median tokens")[1:4] == ["1,956", "2,749", "-793"]
    assert "- Tokens: m: in 8,115, out 6,000, cache read 0, cache write 0" in text
    assert "| m | 8,115 | 6,000 | 0 | 0 |" in text
    assert not re.search(r"(?<![\d,.])\d{4,}(?![\d,])", text.split("## Repeats")[1]), text


def test_a_run_comparison_shows_seconds_and_counts_as_the_run_report_does() -> None:
    text = render_runs_markdown(compare_runs(RECORDS, RECORDS))
    assert "| 0.33 → 0.33 | 8 → 8 | 2,749 → 2,749 |" in text
    assert "- Elapsed is the agent's time, its transcript's first to last event (its" in text


def _html() -> str:
    return render_html(
        aggregate(RECORDS, Gate(ab=ABGate(treatment="t", baseline="b")), run_id="r"), RECORDS
    )


def test_the_html_report_says_what_its_elapsed_seconds_are_as_the_markdown_does() -> None:
    """Its A/B table showed the median elapsed seconds with no word of what they time."""
    html = _html()
    table = html.split('id="ab-overall"')[1].split("<h3>")[0]
    assert "median elapsed (s)" in table
    assert "Elapsed is the agent&#39;s time, its transcript&#39;s first to last event (" in table


def test_the_html_report_shows_figures_as_the_markdown_does() -> None:
    html = _html()
    assert 'class="short num">0.33</td>' in html and 'class="short num">2,749</td>' in html
    # The matrix's tokens and the trials table's times and tokens, as the Markdown's.
    assert '<td class="num">2,749</td>' in html and '<td class="num">0.51 s</td>' in html
