"""User-written configuration: a case's ``config.json`` and the top-level ``proctor.json``.

Keys are camelCase as users write them; unknown keys are rejected with the file and field named.
Evaluator entries stay loose here (``use`` plus that evaluator's own parameters) and are checked
against the evaluator registry when a case is loaded.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    GetPydanticSchema,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    model_validator,
)
from typing_extensions import TypedDict

from proctor.models.base import UserModel

DEFAULT_AGENTS = ("scripted",)
DEFAULT_TIMEOUT_SEC = 300.0
DEFAULT_REPEATS = 1
DEFAULT_COMBINER = "gated-mean"
DEFAULT_PASS_THRESHOLD = 60.0
DEFAULT_CONCURRENCY = 2
DEFAULT_OUT = "proctor-results"
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""A name that becomes a results folder (a condition, an agent profile, a task id)."""


def _folder_name(name: str) -> str:
    if not SAFE_NAME.fullmatch(name):
        raise ValueError(
            f"'{name}' names a results folder: use letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


FolderName = Annotated[str, AfterValidator(_folder_name)]


class ProvisionEntry(UserModel):
    """One add-on to provision (an MCP server, plugin, skill or hook), identified by ``name``.

    Fields beyond ``name`` depend on the kind of add-on and on the agent that installs it.
    """

    model_config = ConfigDict(extra="allow")
    name: str = Field(min_length=1)


class Provision(UserModel):
    mcps: list[ProvisionEntry] = Field(default_factory=list)
    plugins: list[ProvisionEntry] = Field(default_factory=list)
    skills: list[ProvisionEntry] = Field(default_factory=list)
    hooks: list[ProvisionEntry] = Field(default_factory=list)

    def merged_with(self, higher: Provision | None) -> Provision:
        """Entries of ``higher`` replace entries of the same ``name``; new ones are appended."""
        if higher is None:
            return self.model_copy(deep=True)
        out: dict[str, list[ProvisionEntry]] = {}
        for kind in ("mcps", "plugins", "skills", "hooks"):
            merged: dict[str, ProvisionEntry] = {e.name: e for e in getattr(self, kind)}
            for entry in getattr(higher, kind):
                merged[entry.name] = entry
            out[kind] = list(merged.values())
        return Provision(**out)

    def is_empty(self) -> bool:
        return not (self.mcps or self.plugins or self.skills or self.hooks)


class ABGate(UserModel):
    """Fails when the lower CI bound of the treatment's pass-rate delta is below
    ``-maxPassRateDrop``."""

    treatment: str = Field(min_length=1)
    baseline: str = Field(min_length=1)
    max_pass_rate_drop: float = Field(default=0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _two_conditions(self) -> ABGate:
        if self.treatment == self.baseline:
            raise ValueError(
                f"treatment and baseline are both '{self.treatment}'; name two different conditions"
            )
        return self


class Gate(UserModel):
    """Per-group thresholds. A group fails the gate when any set threshold is missed."""

    min_score: float | None = Field(default=None, ge=0, le=100)
    min_pass_rate: float | None = Field(default=None, ge=0, le=1)
    max_stddev: float | None = Field(default=None, ge=0)
    ab: ABGate | None = None


class Condition(UserModel):
    """A named variant for A/B: everything else is identical between conditions."""

    provision: Provision | None = None
    env: dict[str, str] = Field(default_factory=dict)
    agent_model: str | None = None
    agent_effort: str | None = None
    prompt_prefix: str | None = None


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    return value


def _workspace_path(value: str) -> str:
    """A path relative to the workspace; anything else could never match a file the agent
    touched, so it would count as missed in every trial."""
    _not_blank(value)
    path = PurePosixPath(value.replace("\\", "/"))
    if path.is_absolute() or PureWindowsPath(value).is_absolute() or ".." in path.parts:
        raise ValueError("must be a path relative to the workspace, without '..'")
    return value


NonBlank = Annotated[str, AfterValidator(_not_blank)]
WorkspacePath = Annotated[str, AfterValidator(_workspace_path)]

ExpectedTrace = TypedDict("ExpectedTrace", {"from": NonBlank, "to": NonBlank})
"""One expected path through the code: the agent touches ``from`` (a file or symbol), then
``to``. A typed dict rather than a model so that metrics keep receiving plain mappings."""
ExpectedTrace.__pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[attr-defined]

TracePair = Annotated[
    dict[str, str], GetPydanticSchema(lambda _type, handler: handler(ExpectedTrace))
]
"""Validated (and described in the JSON Schema) as an :data:`ExpectedTrace`, typed as the
``dict[str, str]`` that :func:`proctor.metrics.traces.trace_metrics` reads."""


class Expectations(UserModel):
    """What a correct trial is expected to touch, for context metrics, and labels for reports."""

    expected_files: list[WorkspacePath] = Field(default_factory=list)
    expected_symbols: list[NonBlank] = Field(default_factory=list)
    expected_traces: list[TracePair] = Field(default_factory=list)
    repository: str | None = None
    category: str | None = None
    framework: str | None = None
    language: str | None = None
    bucket: str | None = None
    goal_shape: Literal["single_goal", "weak_multi_goal", "strong_multi_goal"] | None = None


DEFAULT_GATE = Gate(min_pass_rate=1.0)


class CaseConfig(Expectations):
    """A case folder's ``config.json``. Every key is optional; unset keys fall back to the
    top-level configuration and then to built-in defaults."""

    agents: list[str] | None = Field(default=None, min_length=1)
    timeout_sec: PositiveFloat | None = None
    repeats: PositiveInt | None = None
    evaluators: list[dict[str, Any]] = Field(default_factory=list)
    combiner: str | None = None
    pass_threshold: float | None = Field(default=None, ge=0, le=100)
    tags: list[str] = Field(default_factory=list)
    provision: Provision | None = None
    setup: list[str] = Field(default_factory=list)
    teardown: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    description: str | None = None
    conditions: dict[FolderName, Condition] | None = None
    agent_model: str | None = None
    agent_effort: str | None = None
    mode: Literal["headless", "interactive"] | None = None
    models: dict[str, str] = Field(default_factory=dict)
    """Harness roles for this case: ``fast``, ``workhorse``, ``judge`` → ``provider/model``."""


class AgentProfile(UserModel):
    """How to run one agent (``codingagents.<id>`` in the top-level configuration).

    ``forwardEnv`` names environment variables that are passed to the agent even though they
    match the deny-list (for example the provider key the agent needs).
    """

    agent: str | None = None
    binary: str | None = None
    mode: Literal["headless", "interactive"] | None = None
    backend: Literal["provider", "scripted"] | None = None
    """``scripted``: run on proctor's scripted model server (zero tokens); else the provider."""
    permission_mode: str | None = None
    agent_model: str | None = None
    agent_effort: str | None = None
    version: str | None = None
    """The CLI version this profile expects; a different one makes every trial an infra-error."""
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    forward_env: list[str] = Field(default_factory=list)


class ModelPrice(UserModel):
    input_per1_m: float = Field(default=0.0, ge=0, alias="inputPer1M")
    output_per1_m: float = Field(default=0.0, ge=0, alias="outputPer1M")
    cache_read_per1_m: float = Field(default=0.0, ge=0, alias="cacheReadPer1M")
    cache_write_per1_m: float = Field(default=0.0, ge=0, alias="cacheWritePer1M")


class TopConfig(UserModel):
    """The top-level ``proctor.json`` (``--config FILE``)."""

    codingagents: dict[FolderName, AgentProfile] = Field(default_factory=dict)
    provision: Provision | None = None
    setup: list[str] = Field(default_factory=list)
    teardown: list[str] = Field(default_factory=list)
    gate: Gate | None = None
    concurrency: PositiveInt | None = None
    out: str | None = None
    pricing: dict[str, ModelPrice] = Field(default_factory=dict)
    budget_usd: float | None = Field(default=None, gt=0)
    """Warn once when the run's priced cost passes this; never abort."""
    # Defaults for every case, overridden by a case's own config.json.
    agents: list[str] | None = Field(default=None, min_length=1)
    timeout_sec: PositiveFloat | None = None
    repeats: PositiveInt | None = None
    pass_threshold: float | None = Field(default=None, ge=0, le=100)
    env: dict[str, str] = Field(default_factory=dict)
    conditions: dict[FolderName, Condition] | None = None
    models: dict[str, str] = Field(default_factory=dict)
    """Harness roles: ``fast``, ``workhorse``, ``judge`` (defaults to workhorse) →
    ``provider/model``."""
    metrics: dict[str, Any] | None = None
    """Process-metric settings (``proctor.metrics.MetricsConfig``: check patterns, thresholds)."""


class CliOverrides(UserModel):
    """Options given on the command line; they win over every file."""

    agents: list[str] = Field(default_factory=list)
    cases: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    repeats: PositiveInt | None = None
    concurrency: PositiveInt | None = None
    timeout_sec: PositiveFloat | None = None
    out: str | None = None
    keep_workspace: bool = False
    mirror: bool = False
    max_trials: NonNegativeInt | None = None
    conditions: list[str] = Field(default_factory=list)
    first_condition: str | None = None
    source_root: str | None = None
    mode: Literal["headless", "interactive"] | None = None
    model: Literal["provider", "scripted"] | None = None
    agent_models: dict[str, str] = Field(default_factory=dict)
    agent_efforts: dict[str, str] = Field(default_factory=dict)
    budget_usd: float | None = None
    role_models: dict[str, str] = Field(default_factory=dict)
