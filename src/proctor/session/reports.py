"""A run's reports and its findings ledger: the reporters' files rendered into the run folder,
the results directory's ledger updated with the finished run, and the reports that show
findings rendered again with what the run did to it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.session.request import RunRequest, RunResult
from proctor.session.step_summary import append_step_summary, suite_md
from proctor.util.logs import say
from proctor.util.signals import HeldStops, ignore_stops

if TYPE_CHECKING:
    from proctor.models.suite import FindingChange, SuiteRecord

SHOW_FINDINGS = ("json", "markdown", "junit", "html")
"""The reporters that show what a run did to the findings ledger."""


def write_reports(
    paths: RunPaths,
    suite: SuiteRecord,
    records: list[TrialRecord],
    names: tuple[str, ...],
    *,
    step_summary: bool = True,
) -> dict[str, str]:
    """Render every reporter asked for (and the two every run folder holds) into its file;
    the Markdown report is appended to the CI's job summary unless ``step_summary`` is off (a
    repetition of ``--repeat-check``, whose own summary is appended instead)."""
    from proctor.report.reporters import ALWAYS_WRITTEN, render_into

    outputs = render_into(paths.root, suite, records, [*ALWAYS_WRITTEN, *names])
    if step_summary:
        append_step_summary(outputs["markdown"], suite_md(paths.root))
    return outputs


def update_ledger(
    request: RunRequest, paths: RunPaths, result: RunResult, late: HeldStops, *, held: bool
) -> None:
    """The findings ledger updated with the run (its aggregate written, ``late`` still noting
    stops), and the reports that show findings written again with what it did."""
    from proctor.report.findings import update_after_run  # never raises: see docs/findings.md

    changes = None
    try:
        if result.suite.interrupted:
            late.ignore()  # as after any stop (the command restores them)
        else:
            late.release()  # a stop noted since the aggregate was written is raised here
        # Not held: it may wait for another's lock; an update cut short is the next run's.
        again = result.ended_now == 0
        changes = update_after_run(paths.root.parent, paths.root.name, held=held, resumed=again)
    except KeyboardInterrupt:
        ignore_stops()  # the run is written whole: it ends as its files say, and is told so
        say(
            "note",
            "stopped once every trial had ended: the run's results stand; the findings ledger's "
            f"update was cut short (the next run in {paths.root.parent} applies it)",
        )
    final = HeldStops().hold()  # the run's reports are written all the same, whole
    try:
        if changes is None:  # a Ctrl-C after the ledger took the run in: what it holds
            changes = held_changes(paths)
        _report_findings(request, paths, result, changes)
    finally:
        try:
            final.ignore() if request.ends_command else final.release()
        except KeyboardInterrupt:  # changes nothing now: the run ends as its files say
            ignore_stops()


def held_changes(paths: RunPaths) -> list[FindingChange] | None:
    """What the findings ledger holds of the run, read as it stands (None when it holds
    nothing of it, or cannot be read)."""
    from proctor.report.findings import load_ledger, run_changes

    try:
        return run_changes(load_ledger(paths.root.parent), paths.root.name)
    except Exception:  # the ledger's own update said why, if it failed
        return None


def _report_findings(
    request: RunRequest, paths: RunPaths, result: RunResult, changes: list[FindingChange] | None
) -> None:
    """The reports that show findings written again with what the run did to the ledger
    (``changes``; None when the ledger does not hold the run), the HTML report written, and
    the Markdown report appended to the CI's job summary."""
    from proctor.report.reporters import render_into

    again = []
    if changes is not None:
        # The ledger takes a run in once its records are closed, after its reports were written.
        result.suite = result.suite.model_copy(update={"findings": changes})
        again = [name for name in result.outputs if name in SHOW_FINDINGS]
    if "html" in request.reporters:  # rendered once, now: the costliest, and it shows them too
        again.append("html")
    if again:
        result.outputs.update(render_into(paths.root, result.suite, result.report_records, again))
    if request.repetition is None:  # a repetition of --repeat-check: its own summary instead
        append_step_summary(result.outputs["markdown"], suite_md(paths.root))
