"""Checkpoints derived from a stored run: one per trial, at the moment the trial ended.

Each trial's ``trial.json`` gives the signals (only those it recorded):

- ``tokensSoFar`` (input plus output tokens of every model), ``inputTokens``, ``outputTokens``;
- ``costUsd`` (when the run priced the tokens), ``toolCalls``, ``minutesElapsed`` (the agent's
  phase, to one decimal);
- from the process metrics: ``reads``, ``redundantReads`` (read calls beyond the first of each
  file), ``repeatedFailures`` (failing check runs of a command that had already failed),
  ``loops`` and ``rework``.

The waste signal then follows the default thresholds of :mod:`.checkpoints`. A trial a person
excluded (``proctor annotate … --verdict excluded``) is no evidence, here as in every report:
it makes no checkpoint; nor does a trial with no transcript read (one stopped at its timeout
before the agent wrote any, one whose setup failed), whose figures would be zeros never
measured.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import JsonValue

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import escape_surrogates, read_record, read_trial
from proctor.models.run import AnnotationsRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths, newest_run_in
from proctor.util.text import plural

from .checkpoints import Checkpoint, CheckpointFile


def checkpoints_from_run(run_dir: Path, notes: list[str] | None = None) -> CheckpointFile:
    """One checkpoint per stored trial of ``run_dir``, in the run's stable trial order, but
    the trials a person excluded (said in a sentence appended to ``notes``)."""
    paths = RunPaths(run_dir)
    trial_jsons = paths.trial_jsons()
    if not trial_jsons:
        newest = newest_run_in(run_dir)
        if newest is not None:
            raise ConfigError(
                f"{run_dir}: --checkpoints names a results directory, not a run folder; name "
                f"one of its runs (the newest: {newest})"
            )
        raise ConfigError(
            f"{run_dir}: --checkpoints names a folder with no trials/*/*/*/*/trial.json "
            "(expected a run folder or a checkpoints file)"
        )
    excluded = _excluded(paths.annotations)
    checkpoints, left_out, unread = [], [], []
    for path in trial_jsons:
        # The trial as reports show it: a byte of a name that is not UTF-8 as ``\\xff``.
        name = escape_surrogates("/".join(path.relative_to(run_dir / "trials").parts[:-1]))
        if name in excluded:
            left_out.append(name)
            continue
        record, _ = read_trial(path)
        if _unmeasured(record):
            # No transcript was read (a trial stopped at its timeout before the agent wrote
            # one, a setup that failed): its zeros were never measured.
            unread.append(f"{name} ({record.status})")
            continue
        checkpoints.append(Checkpoint(id=name, signals=trial_signals(record)))
    if left_out and notes is not None:
        notes.append(
            f"{plural(len(left_out), 'trial')} excluded by hand (`proctor annotate`) made no "
            f"checkpoint: {', '.join(left_out)}"
        )
    if unread and notes is not None:
        notes.append(
            f"{plural(len(unread), 'trial')} with no transcript read (no figure measured) made "
            f"no checkpoint: {', '.join(unread)}"
        )
    return CheckpointFile(checkpoints=checkpoints)


def _unmeasured(record: TrialRecord) -> bool:
    """Whether ``record`` measured nothing: no transcript read, no tokens, no tool call."""
    transcript = record.transcript
    return (
        transcript.source is None
        and not transcript.events
        and not record.usage
        and not record.tool_calls
    )


def _excluded(annotations: Path) -> set[str]:
    """The trials ``annotations`` (the run's ``annotations.json``) marks ``excluded``."""
    if not annotations.exists():
        return set()
    try:
        record = read_record(annotations, AnnotationsRecord)
    except SchemaVersionError:
        raise
    except ConfigError as exc:
        raise ConfigError(
            f"{exc}; the trials it excludes would be taken as checkpoints: mend it, or move it "
            "away to take every trial"
        ) from exc
    return {a.trial for a in record.annotations if a.verdict == "excluded"}


def trial_signals(record: TrialRecord) -> dict[str, JsonValue]:
    """The figures a trial recorded, as an advisor would see them at the trial's end."""
    input_tokens = sum(u.input_tokens for u in record.usage.values())
    output_tokens = sum(u.output_tokens for u in record.usage.values())
    signals: dict[str, JsonValue] = {
        "tokensSoFar": input_tokens + output_tokens,
        "inputTokens": input_tokens,
        "outputTokens": output_tokens,
        "toolCalls": record.tool_calls,
        "minutesElapsed": round(record.timings.agent_ms / 60000, 1),
    }
    if record.cost.total_usd is not None:
        signals["costUsd"] = round(record.cost.total_usd, 4)
    process = record.process
    if process is not None:
        distinct = len(set(process.context.files_read))
        signals["reads"] = process.steps.reads
        signals["redundantReads"] = max(0, process.steps.reads - distinct) if distinct else 0
        signals["repeatedFailures"] = _repeated_failures(
            [(c.command, c.outcome) for c in process.checks]
        )
        signals["loops"] = process.loops
        signals["rework"] = process.rework
    return signals


def _repeated_failures(runs: list[tuple[str, str]]) -> int:
    """Failing runs of a command that had already failed before."""
    failed: Counter[str] = Counter()
    repeated = 0
    for command, outcome in runs:
        if outcome != "fail":
            continue
        repeated += 1 if failed[command] else 0
        failed[command] += 1
    return repeated
