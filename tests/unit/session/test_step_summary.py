"""The report appended to GitHub's job summary fits its 1 MiB, which GitHub would otherwise
refuse whole, leaving the job with no summary at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.session.step_summary import (
    STEP_SUMMARY_MAX_BYTES,
    append_step_summary,
    step_summary_held,
    suite_md,
)
from proctor.util.text import fitted_summary


def test_a_report_that_fits_is_appended_whole() -> None:
    assert fitted_summary("# a\n| x |\n", 100, "there") == "# a\n| x |\n"


def test_a_long_report_is_cut_at_a_line_and_says_where_it_is_whole() -> None:
    text = "".join(f"| row {n} é |\n" for n in range(1000))
    cut = fitted_summary(text, 500, suite_md(Path("/r/run-1")))
    assert len(cut.encode("utf-8")) <= 500
    head, note = cut.rsplit("\n\n", 1)
    assert text.startswith(head + "\n") and head.endswith("|")  # whole lines only
    assert note == (
        "**The report was cut here to fit the job summary's limit of 1 MiB; the whole "
        "report is `/r/run-1/suite.md`.**\n"
    )
    assert fitted_summary(text, 10, "there") == "", "no room: nothing rather than a bare note"


def test_the_summary_file_stays_within_the_limit_with_what_the_step_wrote_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n" * 1000)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    report = "".join(f"- `trials/case-{n}/a/default/1` **failed**: why\n" for n in range(40000))
    assert len(report) > STEP_SUMMARY_MAX_BYTES
    append_step_summary(report, suite_md(tmp_path / "run-1"))
    written = summary.read_bytes()
    assert len(written) <= STEP_SUMMARY_MAX_BYTES
    assert written.startswith(b"earlier step\n" * 1000 + b"- `trials/case-0/")
    assert written.endswith(f"`{tmp_path / 'run-1' / 'suite.md'}`.**\n".encode())


def test_runs_within_a_hold_append_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with step_summary_held():
        append_step_summary("# a pair's own report\n")
    append_step_summary("# the pooled report\n")
    assert summary.read_text() == "# the pooled report\n\n"


def test_a_warning_before_the_run_masks_every_registered_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from proctor.session.start import warn
    from proctor.util.logs import cli_prefixes
    from proctor.util.masking import register_secret

    register_secret("svc-planted-warning-1")
    with cli_prefixes():
        warn("codingagents.x: /bin/x is version 'svc-planted-warning-1', not 1.0")
    assert [r.getMessage() for r in caplog.records] == [
        "proctor: warning: codingagents.x: /bin/x is version '***', not 1.0"
    ]


def test_a_job_summary_that_cannot_be_written_is_a_note_on_the_proctor_logger(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A script's logging shows it as any other of proctor's messages; the command line prints
    it as before, `proctor: note: $GITHUB_STEP_SUMMARY … cannot be written (…)`."""
    from proctor.session.step_summary import append_step_summary
    from proctor.util.logs import cli_prefixes

    summary = tmp_path / "folder"
    summary.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with cli_prefixes():
        append_step_summary("# report")
    assert capsys.readouterr().err == ""
    assert [r.getMessage() for r in caplog.records] == [
        f"proctor: note: $GITHUB_STEP_SUMMARY {summary} cannot be written (Is a directory); "
        "the report is in the run folder"
    ]
