"""Which trials may run again (``--retry-errors N``), and where their earlier attempts go.

A trial runs again only when it ended in ``agent-error`` or ``infra-error`` for a cause that
says nothing about the agent: the provider rate-limited, was overloaded or failed (a 5xx), the
network failed, or the agent or its worker crashed before doing anything. A ``failed`` or
``timeout`` trial never runs again, nor does an authentication, quota or other agent error:
retrying those would let a second draw hide a real outcome and bias the pass rate. Every
attempt is kept: the earlier ones under ``attempts/<n>/`` of the trial's folder, listed in its
record's ``attempts``.
"""

from __future__ import annotations

import re
from pathlib import Path

from proctor.errors import ProctorError
from proctor.execute.events import TrialRetried
from proctor.llm.failures import LABELS, RETRYABLE, has_status, retried_attempt
from proctor.models.io import read_record, write_record
from proctor.models.trial import AttemptRecord, TrialRecord
from proctor.paths import TrialPaths
from proctor.util.files import remove_tree

ATTEMPTS = "attempts"
RETRYABLE_STATUSES = frozenset({"agent-error", "infra-error"})
TRANSIENT_KINDS = tuple(LABELS[kind] for kind in sorted(RETRYABLE))
TRANSIENT_LABELS = tuple(f"{label}:" for label in TRANSIENT_KINDS)
"""Reasons that start like this name a transient provider failure ("rate limited: …")."""
CRASHES = ("worker process died",)
ANSWERING_FAILED = re.compile(r"answering model \S+ failed: ")
"""How the reason of a trial whose answering model failed begins (then the failure's label)."""


def is_transient(record: TrialRecord) -> bool:
    """Whether the trial ended for a transient cause that a new attempt may not meet."""
    if record.status not in RETRYABLE_STATUSES:
        return False
    reason = record.reason
    if reason.startswith(TRANSIENT_LABELS) or reason.startswith(CRASHES):
        return True
    answering = ANSWERING_FAILED.match(reason)  # proctor's answering model's own failure
    if answering is not None:  # "… failed: provider overloaded (529): …"
        failure = reason[answering.end() :]
        return any(failure.startswith((f"{label}:", f"{label} (")) for label in TRANSIENT_KINDS)
    if reason.startswith("API error:") and has_status(reason, r"5\d\d"):
        return True
    steps = record.process.steps.tool_calls if record.process is not None else 0
    started_nothing = not record.usage and not steps
    return started_nothing and "before its turn ended" in reason


def keep_attempt(trial_root: Path, number: int) -> str:
    """Move the trial's files to ``attempts/<number>/`` inside its folder, leaving the folder
    ready for the next attempt; the new folder's path relative to the trial's."""
    attempts = trial_root / ATTEMPTS
    holder = trial_root.with_name(f".{trial_root.name}.{ATTEMPTS}")
    if holder.is_dir() and not attempts.is_dir():
        pass  # a crash between the renames left the attempts here: carry on with them
    elif attempts.is_dir():
        if holder.exists():
            remove_tree(holder, strict=True)
        attempts.rename(holder)
    else:
        holder.mkdir(exist_ok=True)
    trial_root.rename(holder / str(number))
    trial_root.mkdir()
    holder.rename(attempts)
    return f"{ATTEMPTS}/{number}"


def earlier_attempts(trial_root: Path) -> list[AttemptRecord]:
    """The attempts already kept in ``attempts/<n>/`` of a trial's folder, in order: a run
    resumed after a crash between two attempts goes on from them (they count against
    ``--retry-errors``, and the final record lists them). None for a fresh trial."""
    folder = trial_root / ATTEMPTS
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            record = read_record(entry / "trial.json", TrialRecord)
        except ProctorError:
            continue  # cut off before its record was written: nothing to list
        found.append((int(entry.name), record))
    return [
        AttemptRecord(
            status=record.status,
            reason=record.reason,
            folder=f"{ATTEMPTS}/{number}",
            cost=record.cost,
        )
        for number, record in sorted(found, key=lambda item: item[0])
    ]


def retries(attempts: list[AttemptRecord]) -> int:
    """How many of a trial's earlier ``attempts`` count against ``--retry-errors``: those that
    ended in an error a retry ran again, not those that met a key a provider refused (a resume
    runs such a trial again whatever ``--retry-errors`` says, the key mended)."""
    return sum(1 for a in attempts if retried_attempt(a))


def due_again(trial_root: Path, record: TrialRecord, retry_errors: int) -> int | None:
    """For a resume given ``--retry-errors N``: the number of the attempt that a finished
    trial's files become when it is to run again (it ended in an error a retry runs again, and
    fewer than N of the attempts it kept before were retries: see :func:`retries`), else
    None."""
    if not is_transient(record):
        return None
    earlier = earlier_attempts(trial_root)
    return len(earlier) + 1 if retries(earlier) < retry_errors else None


def clear_for_rerun(trial_root: Path) -> None:
    """Empty a trial's folder before it runs again, keeping its earlier attempts."""
    if not trial_root.is_dir():
        return
    for entry in trial_root.iterdir():
        if entry.name == ATTEMPTS and entry.is_dir() and not entry.is_symlink():
            continue
        if entry.is_dir() and not entry.is_symlink():
            remove_tree(entry)
        else:
            entry.unlink(missing_ok=True)


class Attempts:
    """Each trial's earlier attempts in a run, and the one decision both executors make when a
    trial ends: run it again (its files kept as an attempt) or record it (with the attempts
    before it listed). A resumed run goes on from the attempts its trials' folders kept."""

    def __init__(self, retry_errors: int) -> None:
        self.retry_errors = retry_errors
        self.by_trial: dict[int, list[AttemptRecord]] = {}

    def count(self, index: int) -> int:
        return len(self.by_trial.get(index, []))

    def settle(self, index: int, record: TrialRecord, trial: TrialPaths) -> TrialRetried | None:
        """When the trial is to run again, the event that says so (its files kept as an
        attempt); else None, and ``record`` lists the earlier attempts (and is written anew
        when there were any)."""
        if index not in self.by_trial:
            self.by_trial[index] = earlier_attempts(trial.root)
        earlier = self.by_trial[index]
        if retries(earlier) < self.retry_errors and is_transient(record):
            number = len(earlier) + 1
            folder = keep_attempt(trial.root, number)
            # Attempts that met a refused key came on top of the retries it may make.
            most = self.retry_errors + 1 + len(earlier) - retries(earlier)
            earlier.append(
                AttemptRecord(
                    status=record.status, reason=record.reason, folder=folder, cost=record.cost
                )
            )
            return TrialRetried(record, number, most, folder)
        if earlier:
            record.attempts = earlier
            write_record(trial.trial_json, record)
        return None
