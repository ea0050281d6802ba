"""A run that starts no further trial once a provider refused a key: the agent's key (its
trial ended ``authentication failed: …``), or the key of proctor's own answering model or
judge (a key revoked after the check before the run). Every trial after it would meet the
same refusal (a headless Claude Code turn on a key is stopped at its first retry of a 401,
which it would retry until its ``timeoutSec``), or its agent would run for nothing but a
judge's error.

The trials already running finish; the others are not started, and the run ends as a stopped
one (``interrupted``, exit 130), so that ``proctor run --resume`` runs them once the key is
mended.
"""

from __future__ import annotations

import re

from proctor.execute.events import RunEvent, TrialFinished
from proctor.llm.failures import LABELS
from proctor.models.trial import TrialRecord

_AUTH = LABELS["auth"]
_ROLE_REFUSED = re.compile(
    rf"(?:answering model|judge) \S+ failed: {re.escape(_AUTH)}(?: \(\d+\))?: "
)
"""Where the reason of a trial whose answering model or judge was refused its key says so."""
_REFUSAL = re.compile(rf"{re.escape(_AUTH)}(?: \(\d+\))?")
"""The refusal in a trial's reason (``authentication failed (401)``), its end where a cause
stops quoting the reason."""


def refused_key(record: TrialRecord) -> bool:
    """Whether ``record``'s trial ended because a provider refused a key: its agent could not
    authenticate, or proctor's answering model or judge was refused."""
    if record.status == "agent-error":
        return record.reason.startswith((f"{_AUTH}:", f"{_AUTH} ("))
    if record.status in ("infra-error", "eval-error"):
        return _ROLE_REFUSED.search(record.reason) is not None
    return False


class StopOnRefusedKey:
    """A subscriber that notes the first trial that ended on a refused key; ``requested``
    (the executor's ``stop_requested``) then says to start no further trial."""

    def __init__(self) -> None:
        self.first: TrialRecord | None = None

    def __call__(self, event: RunEvent) -> None:
        if self.first is None and isinstance(event, TrialFinished) and refused_key(event.record):
            self.first = event.record

    def requested(self) -> bool:
        return self.first is not None

    def cause(self, not_started: int) -> str | None:
        """Why the run stopped short, for its exit reason after ``interrupted after 1 of 3
        trials finished (2 not started), as``: the trial, what refused it (its reason up to
        the refusal: the trial's line said the rest), and what to do; None when it did not
        stop for a key."""
        if self.first is None or not_started <= 0:
            return None
        record = self.first
        trial = f"{record.case}/{record.agent}/{record.condition}/{record.repeat}"
        refusal = _REFUSAL.search(record.reason)
        what = record.reason[: refusal.end()] if refusal else record.reason
        return (
            f"a provider refused a key in trial {trial} ({what}) and every trial after it "
            "would meet the same refusal until the key is mended"
        )
