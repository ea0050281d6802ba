"""The wall time of a stored run: from its journal's stretches (the first run and each
``--resume``), its ``suite.json``, or, of a run of ``proctor record``, its session's span.

    wall_ms, lower_bound = run_wall(load_run(run_dir))
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from proctor.models.journal import stretches
from proctor.models.run import RunManifest
from proctor.models.suite import SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.report.stored import StoredRun


def run_wall(run: StoredRun) -> tuple[float | None, bool]:
    """The run's wall time in milliseconds, and whether it is a lower bound. Its journal's
    stretches (the first run and each ``--resume``) give it: ``suite.json``'s when the last
    stretch wrote it as it finished (it counts the earlier ones from the journal too), else
    their sum, which a resume killed after it (``suite.json`` is then stale) or a run killed
    before it wrote one needs. A stretch its orchestrator did not finish (killed, or running
    still) counts to the last line it wrote: the time is then a lower bound. A run without a
    journal has ``suite.json``'s. A run of ``proctor record`` has its session's span."""
    if run.manifest is not None and run.manifest.by_record:
        return session_span(run.records), False
    return wall_of(run.suite, run.paths.journal)


def session_span(records: Sequence[TrialRecord]) -> float | None:
    """The wall time of a run of ``proctor record``: its session's, from its transcript's
    first to its last time (its trial's ``timings``), not the time the recording took; None
    when the transcript gives no times."""
    spans = [r.timings.total_ms for r in records if r.timings.started_at is not None]
    return round(sum(spans), 3) if spans and len(spans) == len(records) else None


def wall_of(
    suite: SuiteRecord | None, journal: Path, manifest: RunManifest | None = None
) -> tuple[float | None, bool]:
    """:func:`run_wall` of a run's ``suite.json`` (None when it has none), journal and
    ``run.json``."""
    recorded = suite.totals if suite is not None else None
    if manifest is not None and manifest.by_record:  # the session's span, as record wrote it
        return (recorded.wall_ms if recorded is not None else None), False
    try:
        spans = stretches(journal)
    except OSError:  # not a regular file, or unreadable: as a run without a journal
        spans = []
    if not spans:
        return (recorded.wall_ms, recorded.wall_lower_bound) if recorded else (None, False)
    cut = any(not s.finished for s in spans)
    if spans[-1].finished and recorded is not None and recorded.wall_ms is not None:
        return recorded.wall_ms, cut
    return round(sum(s.ms for s in spans), 3), cut
