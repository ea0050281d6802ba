"""``proctor run --resume RUN_DIR``: the resume, and the lines it prints after its report."""

from __future__ import annotations

from pathlib import Path

from proctor.cli.signals import echo_unless_gone
from proctor.execute.context import was_interrupted
from proctor.execute.events import RunEvent, RunStarted, Subscriber
from proctor.session.request import RunResult
from proctor.util.masking import mask
from proctor.util.text import one_line


def resume_command(
    run_dir: Path,
    names: tuple[str, ...],
    budget: float | None,
    as_json: bool = False,
    retry: int | None = None,
    concurrency: int | None = None,
    keep_workspace: bool = False,
    mirror: bool = False,
) -> int:
    """``--resume RUN_DIR``: the run's unfinished trials (with ``--retry-errors N``, ``retry``:
    its kept errors a retry runs again too; ``concurrency``: ``--concurrency N``, else the
    run's own; ``keep_workspace`` and ``mirror``: ``--keep-workspace`` and ``--mirror``, for
    the trials it runs), then its aggregate written anew."""
    from proctor.cli.display import CostWarnings, make_display, run_budget, spent_before
    from proctor.report.reporters import printed
    from proctor.session.resume import resume_run

    budget = budget or run_budget(run_dir)  # (given, it wins, as over a run's proctor.json)
    warnings = CostWarnings(budget, spent=spent_before(run_dir, retry or 0) if budget else 0.0)
    result, kept = resume_run(
        run_dir,
        names,
        [_nothing_left(make_display(mirror), run_dir), warnings],
        ends_command=True,
        retry_errors=retry,
        concurrency=concurrency,
        kept_as=(keep_workspace, mirror),
    )
    echo_unless_gone(result.outputs[printed(names or result.reporters, as_json)], nl=False)
    if said := _not_in_ledger(result):
        echo_unless_gone(f"proctor: note: {mask(one_line(said))}", err=True)
    left = f", {result.left} left for another --resume{_left_apart(result)}" if result.left else ""
    how = f"resume with --retry-errors {f'above {retry}' if retry else 'N'}"  # (N: attempts)
    errors = (n := result.kept_rerunnable) and (
        f" ({n} of them {('an error', 'errors')[n > 1]} --retry-errors would run again (a worker "
        f"that died or a provider's transient failure): {how} to run {('it', 'them')[n > 1]} again)"
    )
    again = [f"{result.errors_rerun} retried after an error"] if result.errors_rerun else []
    if n := result.refused_rerun:  # (kept apart from the trials it kept)
        again.append(f"{n} run again as {('it', 'they')[n > 1]} had met a refused key")
    ran = f" ({'; '.join(again)})" if again else ""
    done = f"{kept} kept{errors or ''}, {result.ended_now} run now{ran}{left}"
    echo_unless_gone(f"proctor: resumed {result.paths.root}: {done}", err=True)
    echo_unless_gone(
        f"proctor: exit {result.suite.exit_code}: {mask(one_line(result.suite.exit_reason))}",
        err=True,
    )
    return result.suite.exit_code


def _not_in_ledger(result: RunResult) -> str | None:
    """Why the findings ledger holds nothing of the resumed run, when it is a later repetition
    of a ``--repeat-check`` (as ``proctor report`` of its folder says it); None otherwise, or
    when its ``run.json`` does not read."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import RunManifest
    from proctor.report.findings import later_repetition

    if result.suite.findings is not None:  # the ledger holds the run
        return None
    try:
        manifest = read_record(result.paths.run_json, RunManifest)
    except (ProctorError, OSError):
        return None
    return later_repetition(result.paths.root.name, manifest.repetition)


def _nothing_left(display: Subscriber, run_dir: Path) -> Subscriber:
    """``display``, save that a resume with no trial to run says so, not ``running 0
    trials`` (its report and exit code are the run's, as ``proctor report`` gives them)."""

    def shown(event: RunEvent) -> None:
        if isinstance(event, RunStarted) and event.total == 0:
            said = f"proctor: nothing left to run: every trial of {run_dir} has its result"
            echo_unless_gone(mask(one_line(said)), err=True)
            return
        display(event)

    return shown


def _left_apart(result: RunResult) -> str:
    """The trials a resume left for another counted apart, as the report counts them: those a
    stop cut short (recorded as interrupted) and those never started; empty when none was
    cut short."""
    cut = sum(was_interrupted(r.reason) for r in result.report_records)
    if not cut:
        return ""
    rest = result.left - cut
    return f" ({cut} cut short, recorded as interrupted{f'; {rest} not started' if rest else ''})"
