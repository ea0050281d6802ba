"""What is said of a stored run that has not finished: that it is still running (its figures are
those of the trials so far, exit 75, no verdict yet) or that it stopped, and how to finish it.
One wording for ``proctor report``, ``proctor compare`` and the Python API
(:func:`proctor.load_run`, :func:`proctor.recompute_run`)."""

from __future__ import annotations

from proctor.exit_codes import ExitCode
from proctor.models.suite import SuiteRecord
from proctor.models.trial import INTERRUPTED_PREFIX
from proctor.report.stored import StoredRun

NO_RESUME = (
    "it has no readable run.json, so `proctor run --resume` cannot finish it: start a new run "
    "instead"
)
"""How to finish a run that stopped and has no ``run.json`` to resume it from."""


def stopped_short_notes(run: StoredRun) -> list[str]:
    """What a person reading a run that has not finished should know: it is still running
    (its figures are those of the trials so far), or it stopped, and how to finish it."""
    name = run.paths.root
    if run.running_pid is not None:
        return [
            f"{name} is still running (process {run.running_pid}): these are the figures of the "
            "trials so far, not its result"
        ]
    if not run.stopped_short:
        return []
    if run.manifest is None:  # no run.json to resume it from
        return [f"{name} stopped before it finished: {NO_RESUME}"]
    if run.manifest.finished_at is not None and not run.manifest.interrupted:
        return []  # finished, its missing trials counted as errors (noted above)
    planned, records = run.planned, run.records
    cut_short = any(r.reason.startswith(INTERRUPTED_PREFIX) for r in records)
    if planned and len(records) >= planned and not cut_short:
        # Killed (or stopped) while its aggregate was written: no trial is left to run.
        return [
            f"{name} stopped once every trial had ended, before the run finished: "
            f"{run.manifest.finish_hint(name)}"
        ]
    return [f"{name} stopped before every trial ran: {run.manifest.finish_hint(name)}"]


def still_running(
    suite: SuiteRecord, running: str, finished: str, *, interrupted: bool = False
) -> SuiteRecord:
    """The aggregate of a run still running (``running``: `RUN is still running (process
    PID)`; ``finished``: how many of its trials finished): the figures of the trials so far,
    and exit 75 (no verdict yet), never a verdict or 130, and ``interrupted`` false: nothing
    was interrupted (``interrupted``: of runs read together, another one stopped)."""
    _, _, so_far = suite.exit_reason.partition("; of the finished ones: ")
    reason = f"{running}: {finished}, no verdict yet" + (
        f"; of the finished ones: {so_far}" if so_far else ""
    )
    return suite.model_copy(
        update={
            "exit_code": int(ExitCode.STILL_RUNNING),
            "exit_reason": reason,
            "interrupted": interrupted,
        }
    )


def as_of_now(run: StoredRun, suite: SuiteRecord) -> SuiteRecord:
    """The aggregate recomputed of one run: as it is, or, while the run is still running,
    :func:`still_running` (`RUN is still running (process PID): 1 of 4 trials finished so
    far, no verdict yet; …`)."""
    if run.running_pid is None:
        return suite
    records, planned = run.records, run.planned
    of = f" of {planned}" if planned else ""
    return still_running(
        suite,
        f"{run.paths.root.name} is still running (process {run.running_pid})",
        f"{len(records)}{of} trial{'' if (planned or len(records)) == 1 else 's'} finished so far",
    )
