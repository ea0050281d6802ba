"""Expected traces: did the agent follow a ``from`` → ``to`` path through the code?

A trace is a pair of files or symbols (``{"from": "api/routes.py", "to": "login_redirect"}``).
It counts as followed when some explore step (read, search or edit) touches ``from`` and a
later-or-same step touches ``to``. A target with a ``/`` or a ``.`` is a file: it matches a
step naming that very file (same normalised path), never text that mentions it. Any other
target is a symbol: it matches when it occurs in a string of the step's input or in its output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.metrics.trace import EXPLORE_KINDS, Step, normalise_path, step_texts
from proctor.models.process import TraceMetrics


def is_file_target(target: str) -> bool:
    """Whether a trace target names a file (``api/routes.py``, ``setup.cfg``), not a symbol."""
    return any(ch in target for ch in "/\\.")


def _touches(step: Step, target: str, workspace: str | None) -> bool:
    """Whether a step touches a target; a blank target, which any text contains, touches none."""
    if not target.strip():
        return False
    if is_file_target(target):
        return normalise_path(target, workspace) in step.files
    return any(target in text for text in step_texts(step))


def trace_metrics(
    steps: Sequence[Step], traces: Sequence[Mapping[str, str]], workspace: str | None = None
) -> TraceMetrics:
    """How many expected traces were followed, and which were missed; coverage is None when
    no trace is expected."""
    explore = [s for s in steps if s.kind in EXPLORE_KINDS]
    followed, missed = 0, []
    for trace in traces:
        start, end = trace.get("from", ""), trace.get("to", "")
        first = next((i for i, s in enumerate(explore) if _touches(s, start, workspace)), None)
        hit = first is not None and any(_touches(s, end, workspace) for s in explore[first:])
        if hit:
            followed += 1
        else:
            missed.append(f"{start} -> {end}")
    n = len(traces)
    return TraceMetrics(
        expected=n,
        followed=followed,
        coverage=None if n == 0 else round(followed / n, 6),
        missed=missed,
    )
