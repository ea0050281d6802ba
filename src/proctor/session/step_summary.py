"""The CI's job summary (``$GITHUB_STEP_SUMMARY``): the Markdown report a run appends to it,
cut to fit GitHub's limit, the sentence a run refused before its first trial leaves there,
and the stretch (a manifest's pairs) within which runs append nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proctor.util.logs import say
from proctor.util.text import fitted_summary

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"

STEP_SUMMARY_MAX_BYTES = 1024 * 1024
"""GitHub's limit on one step's job summary: a larger one is not shown at all."""

_summary_held = False
"""Within :func:`step_summary_held`: runs append nothing to the job summary."""


@contextmanager
def step_summary_held() -> Iterator[None]:
    """The runs within append no report to the CI's job summary: the pairs of ``--manifest``,
    whose verdict is theirs read as one sample set, summarised once afterwards."""
    global _summary_held
    before, _summary_held = _summary_held, True
    try:
        yield
    finally:
        _summary_held = before


def append_step_summary(markdown: str, whole: str = "`suite.md` in the run folder") -> None:
    """``markdown`` appended to the CI's job summary (``$GITHUB_STEP_SUMMARY``), when there is
    one; cut at a line to fit the summary's 1 MiB with what the step wrote there before, with
    a last line saying where the report is ``whole``."""
    summary = os.environ.get(STEP_SUMMARY)
    if summary and not _summary_held:
        try:
            room = STEP_SUMMARY_MAX_BYTES - (
                os.path.getsize(summary) if os.path.exists(summary) else 0
            )
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(fitted_summary(markdown + "\n", room, whole))
        except OSError as exc:  # a courtesy: the results are in the run folder; said
            why = exc.strerror or str(exc)
            said = f"${STEP_SUMMARY} {summary} cannot be written ({why})"
            say("note", f"{said}; the report is in the run folder")


def append_refusal_summary(sentence: str, command: str = "run") -> None:
    """A run (of ``proctor run``, ``eval`` or ``record``: ``command``) stopped for a reason the
    user can fix (exit 2: a bad ``config.json``, an option, an unwritable folder), said in the
    CI's job summary as stderr says it (``sentence``, masked): the summary of a run refused
    before its first trial would stay empty."""
    from proctor.util.text import markdown_literal

    append_step_summary(f"## proctor {command}: exit 2\n\n{markdown_literal(sentence)}")


def suite_md(folder: Path) -> str:
    """Where a run's Markdown report is whole, as a job summary cut short names it."""
    return f"`{folder / 'suite.md'}`"
