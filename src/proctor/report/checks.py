"""The checks of a run, as the findings ledger (:mod:`proctor.report.findings`) reads them.

A *check* is one evaluator of one case × agent × condition, or one task rule of it. Over the
repeats of a run a check fails, passes or is unknown: :func:`run_checks` merges what each
scored trial says of it; :func:`stored_run_checks` reads a stored run folder's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from proctor.models.findings import numbered_checks
from proctor.models.io import read_record
from proctor.models.run import ResolvedRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.trial_records import iter_records

EVIDENCE_STATUSES = frozenset({"passed", "failed"})
"""Trial statuses whose evaluator results and rules count as evidence. A timeout, an error or
a skip says nothing about a check: it never opens, resolves or reopens a finding."""


def is_evidence(record: TrialRecord) -> bool:
    """Whether a trial's checks count (see :data:`EVIDENCE_STATUSES`), by the trial's own
    outcome: a trial ``proctor annotate`` marked failed counts as it ended (a timeout or an
    error so marked still says nothing), one it excluded never counts."""
    if record.annotation is not None and record.annotation.verdict == "excluded":
        return False
    own = record.status_before_annotation or record.status
    return own in EVIDENCE_STATUSES


class CheckKey(NamedTuple):
    case: str
    agent: str
    condition: str
    check: str
    """The evaluator's label (else its ``use``; ``#2``, ``#3`` for a repeated one), or
    ``rule:<name>``."""


@dataclass(frozen=True)
class CheckResult:
    """A check's outcome in one run: failed in some scored trial, or passed in all of them."""

    key: CheckKey
    failed: bool
    message: str = ""
    earlier: str | None = None
    """The name an earlier release gave the check, when it was another and is certain: a
    trial's one judge of a kind, of an eval written as code, was ``eval: judge.closed_qa``
    before its name said its criteria. The ledger's finding of that name is taken up by this
    check, unless the name may be another check's too (see
    :func:`proctor.report.ledger_steps.apply_run`)."""


Labels = Sequence[tuple[str, str | None]]
"""A case's evaluators in order, as ``(use, label)``, from the run's ``resolved.json``."""


def evaluator_checks(record: TrialRecord, labels: Labels = ()) -> list[str]:
    """The check name of each of ``record``'s evaluator results: the label the case gave that
    evaluator (``labels[i]``, when its ``use`` matches), else, for an assertion of an eval
    written as code, ``eval: `` and the assertion (``eval: message_includes('one')``), else
    its ``use``; a name that repeats within the trial gets ``#2``, ``#3``, … from its second
    occurrence on."""
    names: list[str] = []
    for index, result in enumerate(record.evaluators):
        use, label = labels[index] if index < len(labels) else (result.use, None)
        name = label if label and use == result.use else result.use
        asserted = result.details.get("name") if result.use == "eval" else None
        if name == "eval" and isinstance(asserted, str) and asserted:
            name = f"eval: {asserted}"  # by what it asserts, not by its place in the test
        names.append(name)
    return numbered_checks(names)


def earlier_checks(record: TrialRecord) -> list[str | None]:
    """The name an earlier release gave each of ``record``'s evaluator results' checks, where
    it was another and is certain (see :attr:`CheckResult.earlier`): a judge's assertion was
    named by its kind alone, ``eval: judge.<kind>``, which names the judge only when it is the
    trial's one judge of that kind. Two or more of a kind were ``eval: judge.<kind>``, ``#2``,
    … by the order their grades came back, which says nothing of which judge each was: they
    have none. None for every other result."""
    kinds = [
        result.details.get("judge") if result.use == "eval" else None
        for result in record.evaluators
    ]
    counts = Counter(kind for kind in kinds if isinstance(kind, str))
    return [
        f"eval: judge.{kind}" if isinstance(kind, str) and counts[kind] == 1 else None
        for kind in kinds
    ]


def trial_checks(record: TrialRecord, labels: Labels = ()) -> list[CheckResult]:
    """What one trial says about its checks: nothing unless its own outcome is evidence (see
    :func:`is_evidence`); an evaluator that errored, a result the verdict leaves out
    (``counted: false``: a soft assertion of an eval written as code, an external program's
    metrics without a score) and a rule that did not apply say nothing either."""
    if not is_evidence(record):
        return []
    cell = (record.case, record.agent, record.condition)
    names = evaluator_checks(record, labels)
    results = [
        CheckResult(CheckKey(*cell, name), not result.passed, result.message, earlier)
        for name, earlier, result in zip(
            names, earlier_checks(record), record.evaluators, strict=True
        )
        if not result.error and result.counted
    ]
    results += [
        CheckResult(CheckKey(*cell, f"rule:{rule.rule}"), rule.fired, rule.message)
        for rule in record.rules
        if rule.applicable
    ]
    return results


def case_labels(resolved: ResolvedRecord | None) -> dict[str, list[tuple[str, str | None]]]:
    """Each case's evaluators as ``(use, label)``, in order, from a run's ``resolved.json``."""
    if resolved is None:
        return {}
    return {c.case: [(e.use, e.label) for e in c.evaluators] for c in resolved.cases}


def merge_checks(results: Iterable[CheckResult]) -> list[CheckResult]:
    """One result per check, in order of first appearance: failed when any result failed
    (with the first failure's message), else passed. Its earlier name is the one all its
    results give, else none (trials that disagree on it leave it uncertain)."""
    merged: dict[CheckKey, CheckResult] = {}
    earlier: dict[CheckKey, str | None] = {}
    for result in results:
        before = merged.get(result.key)
        if before is None:
            earlier[result.key] = result.earlier
        elif earlier[result.key] != result.earlier:
            earlier[result.key] = None
        if before is None or (result.failed and not before.failed):
            merged[result.key] = result
    return [replace(result, earlier=earlier[key]) for key, result in merged.items()]


def run_checks(
    records: Iterable[TrialRecord], resolved: ResolvedRecord | None = None
) -> list[CheckResult]:
    """Every check a run has evidence about, over all its repeats (see :func:`merge_checks`).
    A check with no evidence in the run is absent: unknown, it changes nothing."""
    labels = case_labels(resolved)
    return merge_checks(
        result for record in records for result in trial_checks(record, labels.get(record.case, []))
    )


def stored_trial_checks(
    run_dir: Path, notes: list[str] | None = None
) -> Iterator[tuple[TrialRecord, list[CheckResult]]]:
    """Each trial of a stored run folder with what it says of its checks (see
    :func:`trial_checks`), one record at a time: a run of many thousands of trials is never
    held whole. Nothing when the folder holds no trial. What does not read as written (a
    ``trial.json``, counted as an infra-error, which says nothing of its checks) is a sentence
    added to ``notes``."""
    paths = RunPaths(run_dir)
    if not paths.trial_jsons():
        return
    # Without its labels a check would be named by its `use`, and a finding already open would
    # be proposed again under that name: a run whose resolved.json is damaged or gone (every
    # proctor writes one, before run.json) raises, and is not applied.
    labels = case_labels(read_record(paths.resolved_json, ResolvedRecord))
    for record in iter_records(run_dir, notes):
        yield record, trial_checks(record, labels.get(record.case, []))


def stored_run_checks(run_dir: Path, notes: list[str] | None = None) -> list[CheckResult]:
    """The checks of a stored run folder (none when it holds no trial); what does not read is
    added to ``notes``."""
    checks = stored_trial_checks(run_dir, notes)
    return merge_checks(result for _, results in checks for result in results)


def stored_run_checks_since(
    run_dir: Path, since: str, notes: list[str] | None = None
) -> tuple[list[CheckResult], list[CheckResult]]:
    """The checks of a stored run folder in two parts: those of its trials that started by
    ``since`` (an ISO-8601 time: when an interrupted run first finished), and those of its
    trials that started after it (run by a ``--resume``). A trial whose start is not recorded,
    or does not read as a time, is of the first part; so is every trial when ``since`` does not
    read as one. What does not read is added to ``notes``."""
    cut = started_instant(since)
    before: list[CheckResult] = []
    after: list[CheckResult] = []
    for record, results in stored_trial_checks(run_dir, notes):
        (after if started_after(record, cut) else before).extend(results)
    return merge_checks(before), merge_checks(after)


def started_after(record: TrialRecord, cut: datetime | None) -> bool:
    """Whether a trial started after ``cut`` (a resume's, when ``cut`` is when its run first
    finished); False when either is not known."""
    start = started_instant(record.timings.started_at)
    return cut is not None and start is not None and start > cut


def started_instant(text: str | None) -> datetime | None:
    """An ISO-8601 time with its offset; None when it is absent or has none."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
