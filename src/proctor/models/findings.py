"""``findings.json``: the findings ledger of a results directory.

A finding is one failing check (case × agent × condition × evaluator, or a task rule) tracked
across the runs of a suite: proposed once, resolved when its check passes, reopened when it
fails again, dismissed by a person. ``docs/findings.md`` describes the states and transitions;
:mod:`proctor.report.findings` applies runs to the ledger.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import ClassVar, Literal, Self

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel

from proctor.models.base import OWN_RECORD, CamelModel, RecordModel

_REWRITTEN = ConfigDict(extra="forbid", strict=True)
"""The ledger is read and written back whole: a key it does not know would be dropped by the
rewrite (someone else's file, a key misspelt by hand), so it is refused instead; and a value of
another type (``"failures": true``) is an error, not a number."""

FindingState = Literal["open", "resolved", "dismissed"]

FindingEventKind = Literal["new", "reopened", "resolved", "dismissed", "passed"]
"""What happened to a finding: ``new``, ``reopened`` and ``resolved`` come from a run;
``dismissed`` from a person; ``passed`` is a run in which a dismissed finding's check passed."""

FINDING_ID = re.compile(r"[0-9a-fA-F]+")
"""A finding's id: hex digits (see :attr:`Finding.id`); one edited by hand may hold capitals."""

RUN_EVENTS: tuple[FindingEventKind, ...] = ("new", "reopened", "resolved", "passed")
"""The events a run reports (a dismissed finding's ``passed`` too: its next failure reopens
it)."""


def numbered_checks(names: list[str]) -> list[str]:
    """A case's evaluators' check names as the ledger keeps them: a name that repeats gets
    ``#2``, ``#3``, … from its second time on (``command``, ``command#2``)."""
    seen: Counter[str] = Counter()
    numbered = []
    for name in names:
        seen[name] += 1
        numbered.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return numbered


class FindingEvent(CamelModel):
    """One entry of a finding's history."""

    model_config = _REWRITTEN

    event: FindingEventKind
    run_id: str | None = None
    """The run that caused it (``None`` for a dismissal)."""
    at: str | None = None
    """When a person dismissed the finding (ISO-8601 UTC)."""
    reason: str | None = None
    """Why it was dismissed."""


class Finding(CamelModel):
    """One failing check and what became of it across runs."""

    model_config = _REWRITTEN

    id: str = Field(json_schema_extra={"pattern": "^[0-9a-fA-F]+$"})
    """First 10 hex digits of the SHA-256 of case, agent, condition and check joined by \\x1f;
    when another suite's finding already has that id, of suite, case, agent, condition and
    check. A finding keeps its id."""
    suite: str | None = None
    """The suite whose check it is: its source as ``proctor run --source`` gave it, relative to
    the folder holding the results directory when under it (``suites/api``), else absolute.
    None for a finding of a ledger written before proctor kept it, until a run takes it up."""
    case: str
    agent: str
    condition: str
    check: str
    """The evaluator's label (else its ``use``), or ``rule:<name>`` for a task rule."""
    state: FindingState = "open"
    first_seen_run: str = Field(min_length=1)
    """The run in which it first failed."""
    last_seen_run: str = Field(min_length=1)
    """The last run in which it failed."""
    last_checked_run: str | None = None
    """The last run that ran its check, passing or failing (None in a ledger written before
    proctor kept it): an open finding that the latest runs did not check belongs to a case
    renamed or removed, or to a part of the suite not run since."""
    failures: int = Field(default=1, ge=0)
    """Runs in which the check failed (a run counts once, however many repeats failed)."""
    message: str = ""
    """What the check said when it last failed."""
    passed_since_dismissal: bool = False
    """A dismissed finding whose check has passed since: its next failure reopens it."""
    history: list[FindingEvent] = []

    @field_validator("id")
    @classmethod
    def _hex_id(cls, value: str) -> str:
        """Hex digits, as proctor writes ids: an id edited by hand into something else
        (``zz``) is refused, as the ledger's other damage is."""
        if not FINDING_ID.fullmatch(value):
            raise ValueError(f"{value!r} is not a finding id (hex digits, as proctor writes them)")
        return value


class InterruptedRun(CamelModel):
    """A run the ledger took in while interrupted, as it stands in the ledger."""

    model_config = _REWRITTEN

    finished_at: str = Field(min_length=1)
    """The run's ``finishedAt`` as the ledger last read it: the trials that started after it
    are a ``--resume``'s."""
    failed: list[str] = []
    """The findings whose check the run has failed so far (counted in their ``failures``): a
    resumed trial's failure of one is not counted again."""


class FindingsLedger(RecordModel):
    """``findings.json`` in a results directory: every finding, and the runs applied to it.

    Schema 3 added the suites (``suite``, ``runSuites``); a schema 2 ledger reads as one
    whose findings and runs name none. Schema 4 added ``interruptedRuns``; a schema 3 ledger
    reads as one that holds none (a resume of a run it took in is not applied). Schema 5 added
    ``copies``; a schema 4 ledger reads as one that holds none (each copy is said again, once,
    and recorded). Schema 6 added ``runIds``; a schema 5 ledger reads as one that holds none
    (each run's is learnt from its folder's ``run.json`` while that folder reads)."""

    model_config = _REWRITTEN
    current_schema_version: ClassVar[int] = 6
    first_schema_version: ClassVar[int] = 2
    schema_version: int = 6

    runs: list[str] = []
    """Run folder names applied, in the order they were applied (each is applied once)."""
    run_suites: dict[str, str] = {}
    """Run folder name → the suite it ran (see :attr:`Finding.suite`), for runs that name one:
    two suites sharing a results directory keep their findings apart."""
    interrupted_runs: dict[str, InterruptedRun] = {}
    """Run folder name → what the ledger holds of it, for runs taken in while interrupted:
    when a ``proctor run --resume`` has finished one again (another ``finishedAt``), the checks
    of the trials that started after the time it was read are added."""
    copies: dict[str, str] = {}
    """Run folder name → the run id its ``run.json`` gives, for the folders found to be a copy
    of a run the ledger took in (or took in from another folder): never applied (its failures
    would count twice), said once when found, and not read again."""
    run_ids: dict[str, str] = {}
    """Run folder name → the run id its ``run.json`` gave when the run was applied: a copy of
    it found later is known as one even once that folder is removed or named like a run id
    that is not its own."""
    findings: list[Finding] = []
    """In the order they were first proposed."""

    @field_validator("findings")
    @classmethod
    def _one_of_each(cls, findings: list[Finding]) -> list[Finding]:
        counts = Counter(f.id for f in findings)
        twice = sorted(i for i, n in counts.items() if n > 1)
        if twice:
            raise ValueError(f"finding {twice[0]!r} is listed twice")
        # One finding per check: the same check under two ids (a hand edit) would leave one
        # of them open for good, never checked again.
        seen: dict[tuple[str | None, str, str, str, str], str] = {}
        for finding in findings:
            key = (finding.suite, finding.case, finding.agent, finding.condition, finding.check)
            if key in seen:
                raise ValueError(
                    f"findings {seen[key]!r} and {finding.id!r} are the same check "
                    f"({finding.case} / {finding.agent} / {finding.condition} / {finding.check})"
                )
            seen[key] = finding.id
        return findings

    @field_validator("runs")
    @classmethod
    def _each_run_once(cls, runs: list[str]) -> list[str]:
        twice = sorted(run for run, n in Counter(runs).items() if n > 1)
        if twice:
            raise ValueError(f"run {twice[0]!r} is listed twice (each run is applied once)")
        return runs

    @field_validator("interrupted_runs")
    @classmethod
    def _interrupted_applied(
        cls, runs: dict[str, InterruptedRun], info: ValidationInfo
    ) -> dict[str, InterruptedRun]:
        applied = set(info.data.get("runs", ()))
        missing = sorted(run for run in runs if run not in applied)
        if missing:
            raise ValueError(
                f"run {missing[0]!r} is listed interrupted, but 'runs' (the runs applied) does "
                "not list it"
            )
        return runs

    @field_validator("findings")
    @classmethod
    def _runs_applied(cls, findings: list[Finding], info: ValidationInfo) -> list[Finding]:
        """A finding names only runs applied: a ledger whose ``runs`` lost some would apply
        them again, counting their failures twice."""
        applied = set(info.data.get("runs", ()))
        for finding in findings:
            named = [finding.first_seen_run, finding.last_seen_run, finding.last_checked_run]
            named += [event.run_id for event in finding.history]
            missing = next((run for run in named if run is not None and run not in applied), None)
            if missing is not None:
                raise ValueError(
                    f"finding {finding.id!r} names run {missing!r}, which 'runs' (the runs "
                    "applied) does not list"
                )
        return findings

    @model_validator(mode="after")
    def _written_whole(self, info: ValidationInfo) -> Self:
        """A ledger read from its file has ``schemaVersion``, ``runs`` and ``findings``, as
        proctor writes every ledger (:func:`~proctor.models.io.upgraded` leaves a file without
        ``schemaVersion`` as it is, for this to say so): without them (a file emptied by hand
        to ``{}``) every run would be applied again, and the dismissals lost without a word."""
        if info.context and info.context.get(OWN_RECORD):
            for name in ("schema_version", "runs", "findings"):
                if name not in self.model_fields_set:
                    key = to_camel(name)
                    raise ValueError(f"field '{key}' is required but missing")
        return self

    @model_validator(mode="after")
    def _failed_listed(self) -> Self:
        """An interrupted run's failures name findings the ledger lists."""
        ids = {finding.id for finding in self.findings}
        for run, held in self.interrupted_runs.items():
            unknown = next((i for i in held.failed if i not in ids), None)
            if unknown is not None:
                raise ValueError(
                    f"interrupted run {run!r} names finding {unknown!r}, which 'findings' does "
                    "not list"
                )
        return self
