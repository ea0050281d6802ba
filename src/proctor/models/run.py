"""``run.json``, ``config.json`` and ``resolved.json``: a run's manifest, its configuration as
given, and the configuration after defaults and layering with the matrix it expanded to."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import PurePath, PurePosixPath
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from proctor.models.base import MAX_PAIRS, CamelModel, RecordModel
from proctor.models.config import CliOverrides, Gate, Provision, TopConfig
from proctor.models.pricing import ModelPrice
from proctor.models.trial import TrialAnnotation


class AnnotationsRecord(RecordModel):
    """``annotations.json``: people's marks on a run's trials (``proctor annotate``)."""

    annotations: list[TrialAnnotation] = []


class SkippedCaseRecord(CamelModel):
    """A case that was found but not run, and why (in ``resolved.json`` and ``suite.json``)."""

    case: str
    reason: str


class HostInfo(CamelModel):
    hostname: str | None = None
    platform: str | None = None
    python: str | None = None
    cpus: int | None = None

    @classmethod
    def here(cls) -> HostInfo:
        """The machine this process runs on."""
        return cls(
            hostname=platform.node(),
            platform=platform.platform(),
            python=sys.version.split()[0],
            cpus=os.cpu_count(),
        )


class RunManifest(RecordModel):
    """``run.json``: what ran, where, when, and whether it finished."""

    run_id: str
    proctor_version: str
    started_at: str
    finished_at: str | None = None
    argv: list[str] = []
    host: HostInfo = Field(default_factory=HostInfo)
    source: str | None = None
    cwd: str | None = None
    """The folder the run was started from (``source`` and ``--config`` are relative to it);
    None when it records none: a run started from a current folder removed meanwhile (every
    path it read was whole)."""
    trials_planned: int = 0
    trials_finished: int = 0
    interrupted: bool = False
    stopped_because: str | None = None
    """Why proctor itself stopped the run before every trial ran (``a provider refused a key
    in trial a/claude-code/default/1 (authentication failed), …``), which its exit reason
    says; None when it did not (it finished, or a person or a signal stopped it)."""
    resumed_at: list[str] = []
    """When ``proctor run --resume`` took the run up again, each time."""
    reporters: list[str] = []
    """The reporters the run wrote and printed (``--reporter``, ``--json``): a ``--resume``
    given none writes the same again."""
    session_label: str | None = None
    """The run's label in a repeat manifest (``proctor run --manifest``)."""
    repetition: int | None = None
    """Which repetition of ``proctor run --repeat-check`` the run is (1 to N); the findings
    ledger applies the first only."""
    suite: str | None = None
    """The suite the run ran, as the findings ledger names it (the source, relative to the
    folder holding the results directory when under it; see ``docs/findings.md``), recorded
    at the start so that a ledger rebuilt after the folders moved names it the same."""
    eval_files: list[str] = []
    """The eval files a run of ``proctor eval`` ran cases of, relative to the project's
    ``evals`` folder (``builds/index.eval.py``): with ``suite``, what a report of several runs
    tells eval runs apart by (each writes its cases to a folder of its own)."""

    @property
    def by_eval(self) -> bool:
        """A run of ``proctor eval``: its cases are tests written as code, which only ``proctor
        eval`` runs (``run --resume`` cannot)."""
        if len(self.argv) > 1 and self.argv[1] == "eval":
            return True
        # (Its cases are written to <out>/evals-src/<timestamp>/, whoever started it.)
        return self.source is not None and PurePath(self.source).parent.name == "evals-src"

    @property
    def by_record(self) -> bool:
        """A run of ``proctor record``: one session a person drove, whose time is the
        session's, not the recording's."""
        return len(self.argv) > 1 and self.argv[1] == "record"

    def finish_hint(self, root: object) -> str:
        """How a person finishes this run when it stopped short."""
        if self.by_eval:
            return "`proctor eval` again runs its cases anew (an eval run cannot be resumed)"
        return f"`proctor run --resume {root}` finishes it"


JournalEvent = Literal[
    "run-started",
    "trials-started",
    "trial-started",
    "trial-retried",
    "trial-finished",
    "run-resumed",
    "run-finished",
]


class JournalEntry(RecordModel):
    """One line of a run's append-only ``journal.jsonl``."""

    event: JournalEvent
    time: str
    case: str | None = None
    agent: str | None = None
    condition: str | None = None
    repeat: int | None = None
    status: str | None = None
    """A finished trial's status; of ``trial-retried``, the status its attempt ended in."""
    attempt: int | None = None
    """Of ``trial-retried``: the number of the attempt that ended (1 for the trial's first),
    which the trial runs again after."""
    reason: str | None = None
    """Of ``trial-retried``: why that attempt ended (the transient error it is retried for)."""
    folder: str | None = None
    """Of ``trial-retried``: where that attempt's files went, relative to the trial's folder
    (``attempts/<attempt>``)."""
    pid: int | None = None
    """The worker process of a started trial."""
    pid_start: int | None = None
    """That process's start time (clock ticks after boot), to tell it from a later process
    that got the same pid."""
    node: str | None = None
    """The Ray node that ran a started trial (``10.0.0.7 (3f9c1a2b)``), on Ray."""
    scratch: str | None = None
    """Where the trials' workspaces and homes are (``trials-started``); removed at the end of
    the run, and by ``--resume`` when a dead orchestrator left it."""


class ConfigRecord(RecordModel):
    """``config.json``: the top-level configuration as written (keys the user set) and the
    command-line options that differ from their defaults."""

    config_file: str | None = None
    config: TopConfig = Field(default_factory=TopConfig)
    cli: CliOverrides = Field(default_factory=CliOverrides)


class ResolvedEvaluator(CamelModel):
    use: str
    gate: bool = False
    weight: float = 1.0
    label: str | None = None
    params: dict[str, Any] = {}
    """The evaluator's own parameters (their shape depends on ``use``)."""
    conditions: list[str] = []
    """The conditions it runs under; empty: every one."""


class ResolvedCondition(CamelModel):
    provision: Provision | None = None
    agent_model: str | None = None
    agent_effort: str | None = None
    prompt_prefix: str | None = None
    env: list[str] = []
    """Names only: values may be secrets."""


class ResolvedProfile(CamelModel):
    """An agent profile as resolved (``env`` values left out: they may be secrets)."""

    agent: str | None = None
    binary: str | None = None
    mode: str | None = None
    backend: str | None = None
    permission_mode: str | None = None
    agent_model: str | None = None
    agent_effort: str | None = None
    version: str | None = None
    args: list[str] = []
    env: list[str] = []
    forward_env: list[str] = []


class ResolvedTrialSettings(CamelModel):
    """How the trials of one case × agent × condition run, as the run resolved it (the
    command line over the condition, the case, ``proctor.json``'s profile and the adapter)."""

    agent: str
    condition: str
    mode: str | None = None
    """``headless`` or ``interactive`` (in a terminal)."""
    backend: str = "provider"
    """``provider`` (the agent's own model provider) or ``scripted`` (proctor's scripted
    model, ``--model scripted``)."""
    agent_model: str | None = None
    """The model asked of the agent; None: the CLI's own default."""
    agent_effort: str | None = None
    max_turns: int | None = None
    max_tool_calls: int | None = None
    serial_repeats: bool = False


class ResolvedCaseRecord(CamelModel):
    case: str
    path: str
    agents: list[str]
    timeout_sec: float
    repeats: int
    combiner: str
    pass_threshold: float
    tags: list[str] = []
    evaluators: list[ResolvedEvaluator] = []
    provision: Provision = Field(default_factory=Provision)
    setup: list[str] = []
    teardown: list[str] = []
    env: list[str] = []
    """Names only: values may be secrets."""
    fixture: str | None = None
    qna_rules: int = 0
    plan: bool = False
    content: str | None = None
    """A digest of what the agent is given (prompt, plan, answering rules, a zip fixture's size
    and time): ``--resume`` refuses a run whose cases changed since."""
    fixture_digest: str | None = None
    """A folder fixture's files (paths, sizes and times) as one digest: ``--resume`` refuses a
    run whose fixture changed since."""
    config_digest: str | None = None
    """The case's whole configuration, environment values included, as one digest (the values
    themselves are never recorded): ``--resume`` refuses a run whose configuration changed
    since. Absent from the records of older proctors."""
    provision_digest: str | None = None
    """The add-ons it provisions (its own and its conditions'), with the MCP servers'
    environment values, headers and credentials ``provision`` shows as ``***``, as one digest:
    ``--resume`` refuses a run whose servers changed since. None when nothing is masked there."""
    files_digest: str | None = None
    """Every file of the case folder outside its fixture (and of the plugin and skill folders it
    provisions from elsewhere) as one digest: ``--resume`` refuses a run whose case files
    changed since. Absent from the records of older proctors, and for a case of a tasks file."""
    conditions: dict[str, ResolvedCondition] = {}
    agent_model: str | None = None
    agent_effort: str | None = None
    expected_files: list[str] = []
    expected_symbols: list[str] = []
    trials: list[ResolvedTrialSettings] = []
    """How its trials run, one entry per agent × condition (its mode, model backend, agent
    model and effort, step budget); empty in the records of older proctors."""


class MatrixCell(CamelModel):
    case: str
    agent: str
    condition: str
    repeat: int


def _nested_params(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return entry
    common = {k: entry[k] for k in ("use", "gate", "weight", "label", "conditions") if k in entry}
    return {**common, "params": {k: v for k, v in entry.items() if k not in common}}


class ResolvedRecord(RecordModel):
    """``resolved.json``: the gate, the profiles, prices and cases after layering, the matrix,
    and the cases skipped with their reasons."""

    gate: Gate = Field(default_factory=Gate)
    concurrency: int | None = 1
    """Trials at once; None when neither the command line nor ``proctor.json`` set it on a Ray
    run, which then runs one trial per CPU of its cluster (as it grows)."""
    out: str = ""
    keep_workspace: bool = False
    config_file: str | None = None
    codingagents: dict[str, ResolvedProfile] = {}
    pricing: dict[str, ModelPrice] = {}
    cases: list[ResolvedCaseRecord] = []
    matrix: list[MatrixCell] = []
    skipped: list[SkippedCaseRecord] = []
    evaluate: bool = True
    """False: the run ran and recorded its trials without evaluating them (``--no-evaluate``)."""
    only_evaluators: list[str] = []
    skip_evaluators: list[str] = []
    collect_cost: bool = True
    """False: the run priced no token (``--no-collect-cost``)."""

    @classmethod
    def upgrade(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Version 1 wrote an evaluator's own parameters beside ``use``, ``gate`` and
        ``weight``; version 2 keeps them under ``params``."""
        for case in data.get("cases") or []:
            entries = case.get("evaluators") if isinstance(case, dict) else None
            if isinstance(entries, list):
                case["evaluators"] = [_nested_params(entry) for entry in entries]
        return data


class ManifestRun(CamelModel):
    """One run of the manifest: a pair of every task, its conditions in this order."""

    model_config = ConfigDict(extra="forbid")  # a key mistyped by hand is said, not lost

    pair: int
    order: list[str]
    results: str
    """The folder (under the results directory) its run folder goes to."""
    session: str
    """The label of the run, recorded in its ``run.json``."""


class RepeatManifest(RecordModel):
    """``proctor plan-repeats --output FILE``.

    Unknown keys are refused, here and in each run, unlike other records: a manifest is often
    written or edited by hand, and a mistyped key (``pair`` for ``pairs``, a run's
    ``condtion``) read leniently would be lost without a word. Every key proctor ever wrote in
    one is among the fields below."""

    model_config = ConfigDict(extra="forbid")
    goal_shape: str | None = None
    conditions: list[str] = Field(min_length=2)
    tasks: list[str] = Field(min_length=1)
    pairs: int = Field(ge=1, le=MAX_PAIRS)
    runs: list[ManifestRun] = Field(default=[], min_length=1)

    @model_validator(mode="after")
    def _each_run_a_pair(self) -> RepeatManifest:
        """Each run is one pair of every condition (in its own order), under its own folder
        inside the results directory; there are at most ``pairs`` of them, numbered from 1
        (fewer: the others run elsewhere, a manifest split between machines)."""
        if len(self.runs) > self.pairs:  # a run added by hand
            raise ValueError(
                f"field 'pairs': expected at least the number of runs 'runs' lists "
                f"({len(self.runs)}), got {self.pairs}"
            )
        pairs: set[int] = set()
        folders: set[str] = set()
        for n, run in enumerate(self.runs):
            if not 1 <= run.pair <= self.pairs:
                raise ValueError(
                    f"runs[{n}].pair: expected a pair number from 1 to {self.pairs}, got {run.pair}"
                )
            if sorted(run.order) != sorted(self.conditions):
                raise ValueError(
                    f"runs[{n}].order: expected each of the conditions {self.conditions} once, "
                    f"got {run.order}"
                )
            parts = PurePosixPath(run.results).parts
            if not parts or run.results.startswith(("/", "\\")) or ".." in parts:
                raise ValueError(
                    f"runs[{n}].results: expected a folder inside the results directory "
                    f"(relative, without '..'), got {run.results!r}"
                )
            if run.pair in pairs or run.results in folders:
                raise ValueError(f"runs[{n}]: pair {run.pair} or folder {run.results!r} twice")
            pairs.add(run.pair)
            folders.add(run.results)
        return self
