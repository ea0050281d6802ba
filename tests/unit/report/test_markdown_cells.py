"""Names and labels with ``|`` or line breaks keep every Markdown table whole: the A/B tables,
the findings of a run and the repeated-run view, as the main table already was."""

from __future__ import annotations

import re

from proctor.models.config import Gate
from proctor.models.findings import FindingsLedger
from proctor.models.trial import TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.findings import CheckKey, CheckResult, apply_run, render_run_events
from proctor.report.markdown import render_markdown
from proctor.report.repeated import render_repeated_markdown, repeated_runs

ODD = "pipe|case\nnext line"


def cells(line: str) -> int:
    """The cells of a table line: ``|`` not escaped by a backslash."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def assert_tables_whole(markdown: str) -> None:
    width = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            width = None
            continue
        if width is None:
            width = cells(line)
        assert cells(line) == width, line


def trials() -> list[TrialRecord]:
    return [
        TrialRecord.model_validate(
            {
                "case": ODD,
                "agent": "scripted",
                "condition": condition,
                "repeat": repeat,
                "status": "passed" if repeat % 2 else "failed",
                "labels": {"category": "cat|egory", "bucket": "b\nx"},
            }
        )
        for condition in ("baseline", "treat")
        for repeat in (1, 2, 3)
    ]


def test_ab_and_main_tables_stay_whole() -> None:
    records = trials()
    suite = aggregate(records, Gate(), run_id="r")
    assert suite.ab is not None
    text = render_markdown(suite, records)
    assert "pipe\\|case next line" in text
    assert_tables_whole(text)


def test_repeated_view_stays_whole() -> None:
    text = render_repeated_markdown(repeated_runs(trials()))
    assert "pipe\\|case next line" in text
    assert_tables_whole(text)


def test_findings_of_a_run_stay_whole() -> None:
    key = CheckKey(ODD, "scripted", "default", "lab|el\nnext")
    ledger = apply_run(FindingsLedger(), "r1", [CheckResult(key, failed=True)])
    text = render_run_events(ledger, "r1") or ""
    assert "lab\\|el next" in text
    assert_tables_whole(text)


def test_control_an_unescaped_cell_breaks_the_check() -> None:
    import pytest

    with pytest.raises(AssertionError):
        assert_tables_whole("| a | b |\n|---|---|\n| x|y | z |\n")
