"""Expected traces: did the agent follow a ``from`` → ``to`` path through the code?

A trace is a pair of files or symbols (``{"from": "api/routes.py", "to": "login_redirect"}``).
It counts as followed when some explore step (read, search or edit) touches ``from`` and a
later-or-same step touches ``to``. A file matches by its normalised path; a symbol matches when
its name appears in a step's input or output text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from proctor.metrics.trace import Step, normalise_path

EXPLORE_KINDS = ("read", "search", "edit", "write")


def _touches(step: Step, target: str, workspace: str | None) -> bool:
    wanted = normalise_path(target, workspace)
    if wanted and wanted in step.files:
        return True
    text = json.dumps(step.call.input or {}) + (step.result.output or "" if step.result else "")
    return bool(target) and target in text


def trace_metrics(
    steps: Sequence[Step], traces: Sequence[Mapping[str, str]], workspace: str | None = None
) -> dict[str, object]:
    """``{"expected": n, "followed": k, "coverage": k/n, "missed": [...]}``; coverage is None
    when no trace is expected."""
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
    return {
        "expected": n,
        "followed": followed,
        "coverage": None if n == 0 else round(followed / n, 6),
        "missed": missed,
    }
