"""User-written configuration: a case's ``config.json`` and the top-level ``proctor.json``.

Keys are camelCase as users write them; unknown keys are rejected with the file and field named.
Evaluator entries stay loose here (``use`` plus that evaluator's own parameters) and are checked
against the evaluator registry when a case is loaded.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any, Literal, NoReturn, TypeVar, get_args

from pydantic import (
    AfterValidator,
    ConfigDict,
    Discriminator,
    Field,
    GetPydanticSchema,
    NonNegativeInt,
    PositiveInt,
    Tag,
    model_validator,
)
from typing_extensions import TypedDict

from proctor.errors import ConfigError
from proctor.models.base import AtMostADay, UserModel
from proctor.models.pricing import ModelPrice as ModelPrice  # its home; named here too
from proctor.models.process import MetricsConfig

DEFAULT_AGENTS = ("scripted",)
DEFAULT_TIMEOUT_SEC = 300.0
DEFAULT_REPEATS = 1
DEFAULT_COMBINER = "gated-mean"
DEFAULT_PASS_THRESHOLD = 60.0
DEFAULT_CONCURRENCY = 2
DEFAULT_OUT = "proctor-results"
SAFE_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9_-])?")
"""A name that becomes a results folder (a condition, an agent profile, a task id): at most
200 characters, so that it, and the files a run names after it, fit in a folder name (255);
not ending in ``.``, which Windows drops from a folder's name (``fix.`` would be ``fix``)."""
SAFE_NAME_RULE = (
    "letters, digits, '.', '_' or '-', starting with a letter or digit and not ending in '.', "
    "at most 200 of them"
)
""":data:`SAFE_NAME` in words, as a message says it."""


def _matching(pattern: re.Pattern[str], problem: str) -> AfterValidator:
    """A validator for a name that ``pattern`` must match whole; ``problem`` (with ``{name}``)
    is the sentence when it does not."""

    def check(name: str) -> str:
        if not pattern.fullmatch(name):
            raise ValueError(problem.format(name=name))
        return name

    return AfterValidator(check)


def _safe_name(what: str) -> AfterValidator:
    """A validator for a name that becomes ``what`` (a folder), with a sentence naming it."""
    return _matching(
        SAFE_NAME,
        f"'{{name}}' names {what}: use {SAFE_NAME_RULE}",
    )


FolderName = Annotated[str, _safe_name("a results folder")]
MAX_REPEATS = 10_000
Repeats = Annotated[int, Field(ge=1, le=MAX_REPEATS)]
"""Repeats per case × agent × condition: a million would be a typo, planned whole in memory."""
AddonName = Annotated[str, _safe_name("the add-on's folder in the agent's home")]


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_text_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


TimeoutSec = Annotated[float, Field(gt=0), AtMostADay]
MAX_ROLE_OUTPUT_TOKENS = 1_000_000
"""The most a role's ``maxOutputTokens`` may be: no model replies longer, so more is a typo."""


class RoleModel(UserModel):
    """A model role written as an object (``models.<role>``): its model, and the token limit
    of its replies."""

    model: str
    """``provider/model``, as a role written as a string is."""
    max_output_tokens: Annotated[int, Field(ge=1, le=MAX_ROLE_OUTPUT_TOKENS)] | None = None
    """The limit of each reply (a reasoning model's thinking counts against it); unset, the
    role's own: 5 for ``fast``, 400 for ``workhorse``."""


def _role_form(value: Any) -> str:
    return "|object" if isinstance(value, dict | RoleModel) else "|name"


RoleEntry = Annotated[
    Annotated[str, Tag("|name")] | Annotated[RoleModel, Tag("|object")],
    Discriminator(_role_form),
]
"""A harness role in ``models``: ``provider/model``, or a :class:`RoleModel` (an error in
either is said of the role's own keys: the tags are no place a user wrote)."""
"""A trial's time limit: above 0, at most a day (a larger one is a typo, and one past what a
clock holds crashed the run instead of failing validation)."""


class ProvisionEntry(UserModel):
    """One add-on to provision (an MCP server, plugin, skill or hook), identified by ``name``.

    ``name`` becomes a folder (or a key) in the agent's scratch home, so it is one safe folder
    name. The other fields stay extra fields (read with ``model_extra``); each kind's subclass
    checks the ones it needs when the config is loaded.
    """

    model_config = ConfigDict(extra="allow")
    name: AddonName

    def field(self, key: str) -> Any:
        """The extra field ``key``, or ``None``."""
        return (self.model_extra or {}).get(key)

    def _refuse(self, key: str, problem: str) -> NoReturn:
        raise ValueError(f"'{key}' of '{self.name}' {problem}")


class AddonEntry(ProvisionEntry):
    """A plugin or skill: a folder or ``.zip`` at ``path`` (relative to the case folder)."""

    @model_validator(mode="after")
    def _has_path(self) -> AddonEntry:
        path = self.field("path")
        if not _is_text(path):
            self._refuse("path", "is required (a folder or .zip, relative to the case)")
        if "\0" in path:
            self._refuse("path", "cannot hold a NUL character (no file's name can)")
        return self


class McpEntry(ProvisionEntry):
    """An MCP server: ``command`` (with ``args`` and ``env``) for stdio, or ``url`` (with
    ``headers``) for a remote one."""

    @model_validator(mode="after")
    def _command_or_url(self) -> McpEntry:
        command, url = self.field("command"), self.field("url")
        if url is None and command is None:
            raise ValueError(f"server '{self.name}': give 'command' or 'url'")
        if url is not None:
            if not _is_text(url):
                self._refuse("url", "must be a non-empty string")
            if self.field("headers") is not None and not _is_text_map(self.field("headers")):
                self._refuse("headers", "must be an object of strings")
            return self
        if not _is_text(command):
            self._refuse("command", "must be a non-empty string")
        args = self.field("args")
        if args is not None and not (
            isinstance(args, list) and all(isinstance(a, str) for a in args)
        ):
            self._refuse("args", 'must be a list of strings, such as ["server.py"]')
        for key, text in (("command", command), *(("args", a) for a in args or [])):
            if "\0" in text:  # it would stop the server from starting, in every trial
                self._refuse(key, "cannot hold a NUL character")
        if self.field("env") is not None and not _is_text_map(self.field("env")):
            self._refuse("env", 'must be an object of strings, such as {"KEY": "value"}')
        if self.field("headers") is not None:
            self._refuse("headers", "applies to a 'url' server only")
        return self


HOOK_EVENTS = (
    # Claude Code's names (Codex shares those it has)
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit",
    "Notification", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "SessionStart",
    "SessionEnd",
    # Gemini CLI's own
    "BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "PreCompress",
)  # fmt: skip
"""Hook events the agent CLIs name: an ``event`` close to one of them but not it is a typo."""


class HookEntry(ProvisionEntry):
    """A hook: ``command`` run on ``event`` (default ``PreToolUse``) for the tools ``matcher``
    names."""

    @model_validator(mode="after")
    def _has_command(self) -> HookEntry:
        if not _is_text(self.field("command")):
            self._refuse("command", "is required (a non-empty string)")
        event = self.field("event")
        if event is not None and not _is_text(event):
            self._refuse("event", "must be an event name such as 'PreToolUse'")
        if isinstance(event, str) and event not in HOOK_EVENTS:
            # A name no CLI knows is passed on (a newer CLI may have it); one that is a slip
            # of a known name would never fire, silently.
            near = difflib.get_close_matches(event, HOOK_EVENTS, n=1, cutoff=0.75)
            near = near or [e for e in HOOK_EVENTS if e.lower() == event.lower()]
            if near:
                self._refuse(
                    "event", f"is {event!r}, which no agent CLI names; did you mean {near[0]!r}?"
                )
        return self


Entry = TypeVar("Entry", bound=ProvisionEntry)


def _merged(lower: list[Entry], higher: list[Entry]) -> list[Entry]:
    """``lower`` with the entries of ``higher`` replacing those of the same ``name`` (in
    place) and the others appended."""
    merged = {e.name: e for e in lower}
    for entry in higher:
        merged[entry.name] = entry
    return list(merged.values())


class Provision(UserModel):
    mcps: list[McpEntry] = []
    plugins: list[AddonEntry] = []
    skills: list[AddonEntry] = []
    hooks: list[HookEntry] = []

    def merged_with(self, higher: Provision | None) -> Provision:
        """Entries of ``higher`` replace entries of the same ``name``; new ones are appended."""
        if higher is None:
            return self.model_copy(deep=True)
        return Provision(
            mcps=_merged(self.mcps, higher.mcps),
            plugins=_merged(self.plugins, higher.plugins),
            skills=_merged(self.skills, higher.skills),
            hooks=_merged(self.hooks, higher.hooks),
        )

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


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _env_value(value: str) -> str:
    if "\0" in value:
        raise ValueError("an environment variable's value cannot hold a NUL character")
    return value


EnvVars = dict[
    Annotated[
        str,
        _matching(
            ENV_NAME,
            "'{name}' is not an environment variable name: use letters, digits and '_', "
            "not starting with a digit",
        ),
    ],
    Annotated[str, AfterValidator(_env_value)],
]
"""Environment variables a user sets (``env``): each name a variable a shell can name."""


def _process_env_name(name: str) -> str:
    if not name or "=" in name or "\0" in name:
        raise ValueError(
            f"{name!r} is not an environment variable name: it must be non-empty, "
            "without '=' or a NUL character"
        )
    return name


def _no_nul(value: str) -> str:
    """A program's name, argument or shell line: a NUL character cannot reach a program (it
    would stop it from starting, at trial time)."""
    if "\0" in value:
        raise ValueError("cannot hold a NUL character")
    return value


ProgramText = Annotated[str, AfterValidator(_no_nul)]
"""Text handed to a program as its name, an argument or a shell line: no NUL character."""


def no_nul_path(value: str) -> str:
    """A path: no file system names a file with a NUL character in it (a path holding one
    made proctor stop with a traceback where it looked it up)."""
    if "\0" in value:
        raise ValueError("a path cannot hold a NUL character")
    return value


PathText = Annotated[str, AfterValidator(no_nul_path)]
"""A path a user gives (a folder, a file of the case): no NUL character."""


def _named_folder(value: str) -> str:
    """A results folder named by something: a blank one is a slip (an empty string read as
    the default without a word, blanks as a folder named by them)."""
    if not value.strip():
        raise ValueError("expected the path of a results folder, not a blank one")
    return value


OutFolder = Annotated[str, AfterValidator(no_nul_path), AfterValidator(_named_folder)]
"""``proctor.json``'s ``out``: a path (no NUL character) that is not blank."""


ProcessEnvVars = dict[
    Annotated[str, AfterValidator(_process_env_name)], Annotated[str, AfterValidator(_env_value)]
]
"""Environment variables given to a program proctor starts (an ``external`` evaluator's
``env``): any name the operating system can hold, so none that is empty or holds ``=`` or NUL,
and no NUL in a value (each would stop the program from starting, at trial time)."""


class Condition(UserModel):
    """A named variant for A/B: everything else is identical between conditions."""

    provision: Provision | None = None
    env: EnvVars = {}
    agent_model: ProgramText | None = None
    agent_effort: ProgramText | None = None
    prompt_prefix: str | None = None
    max_turns: PositiveInt | None = None
    """The step budget of this condition's trials (over the case's): model turns…"""
    max_tool_calls: PositiveInt | None = None
    """…and tool calls. Both conditions of a pair should run under the same budget."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    return value


def _workspace_path(value: str) -> str:
    """A path relative to the workspace; anything else could never match a file the agent
    touched, so it would count as missed in every trial."""
    _not_blank(value)
    no_nul_path(value)
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

    expected_files: list[WorkspacePath] = []
    expected_symbols: list[NonBlank] = []
    expected_traces: list[TracePair] = []
    repository: str | None = None
    category: str | None = None
    framework: str | None = None
    language: str | None = None
    bucket: str | None = None
    goal_shape: GoalShape | None = None


DEFAULT_GATE = Gate(min_pass_rate=1.0)


GoalShape = Literal["single_goal", "weak_multi_goal", "strong_multi_goal"]
GOAL_SHAPES: tuple[str, ...] = get_args(GoalShape)


def check_goal_labels(labels: Mapping[str, str], option: str = "--goal-labels") -> None:
    """Each task's goal shape one of :data:`GOAL_SHAPES`, or a ConfigError naming the task."""
    for task, shape in labels.items():
        if shape not in GOAL_SHAPES:
            raise ConfigError(
                f"{option}: task '{task}' has goal shape {shape!r}; expected one of "
                f"{', '.join(GOAL_SHAPES)}"
            )


class CaseConfig(Expectations):
    """A case folder's ``config.json``. Every key is optional; unset keys fall back to the
    top-level configuration and then to built-in defaults."""

    max_turns: PositiveInt | None = None
    """A step budget: model turns (passed to Claude Code's ``--max-turns`` headless and Gemini
    CLI's ``maxSessionTurns``; judged after the trial for the others)."""
    max_tool_calls: PositiveInt | None = None
    """A step budget: tool calls (judged after the trial: more fail it). A search of the
    agent's own tool list (Codex CLI's ``tool_search``, Claude Code's ``ToolSearch``) is not
    counted."""
    serial_repeats: bool = False
    """Run the repeats of each agent × condition one after another (one concurrency slot)."""
    self_report: bool = False
    """The task asks the agent to end with a JSON report of its own: the last JSON object of
    its final answer is kept in each trial's ``selfReport``, next to what proctor measured."""
    agents: list[str] | None = Field(default=None, min_length=1)
    timeout_sec: TimeoutSec | None = None
    repeats: Repeats | None = None
    evaluators: list[dict[str, Any]] = []
    combiner: str | None = None
    pass_threshold: float | None = Field(default=None, ge=0, le=100)
    tags: list[str] = []
    provision: Provision | None = None
    setup: list[ProgramText] = []
    teardown: list[ProgramText] = []
    env: EnvVars = {}
    description: str | None = None
    conditions: dict[FolderName, Condition] | None = None
    agent_model: ProgramText | None = None
    agent_effort: ProgramText | None = None
    mode: Literal["headless", "interactive"] | None = None
    models: dict[str, RoleEntry] = {}
    """Harness roles for this case: ``fast``, ``workhorse``, ``judge`` → ``provider/model``
    (or ``{"model": …, "maxOutputTokens": …}``)."""
    follow_ups: list[NonBlank] = []
    """Further user messages, each sent after the previous turn ended normally."""


class AgentProfile(UserModel):
    """How to run one agent (``codingagents.<id>`` in the top-level configuration).

    ``forwardEnv`` names environment variables that are passed to the agent even though they
    match the deny-list (for example the provider key the agent needs).
    """

    agent: str | None = None
    binary: ProgramText | None = None
    mode: Literal["headless", "interactive"] | None = None
    backend: Literal["provider", "scripted"] | None = None
    """``scripted``: run on proctor's scripted model server (zero tokens); else the provider."""
    permission_mode: str | None = None
    agent_model: ProgramText | None = None
    agent_effort: ProgramText | None = None
    version: str | None = None
    """The CLI version this profile expects; a different one makes every trial an infra-error."""
    args: list[ProgramText] = []
    env: EnvVars = {}
    forward_env: list[str] = []
    credentials: Literal["forward", "none"] = "forward"
    """``forward``: on a real provider the agent is lent the user's own key variables and login
    files (see :mod:`proctor.agents.credentials`); ``none``: nothing but ``env`` and
    ``forwardEnv``."""
    transport: Literal["acp"] | None = None
    """``acp``: drive the agent over the Agent Client Protocol (stdio), started with ``command``;
    such a profile runs on the ``acp`` adapter."""
    command: list[Annotated[NonBlank, AfterValidator(_no_nul)]] | None = Field(
        default=None, min_length=1
    )
    """The ACP agent's command line (``transport: "acp"`` only), e.g. ``["gemini", "--acp"]``."""

    @model_validator(mode="after")
    def _acp_transport(self) -> AgentProfile:
        if self.transport is None:
            if self.command is not None:
                raise ValueError('\'command\' needs "transport": "acp"')
            return self
        if self.agent is None:
            self.agent = "acp"
        elif self.agent != "acp":
            raise ValueError(
                f"'agent' is '{self.agent}', but \"transport\": \"acp\" runs the 'acp' agent"
            )
        return self


class ProviderLimit(UserModel):
    """How hard a run may press one provider (``limits.<provider>`` in ``proctor.json``)."""

    concurrency: PositiveInt | None = None
    """Trials of this provider's agents at the same time (below the run's own concurrency)."""
    start_spacing_sec: Annotated[float, Field(ge=0), AtMostADay] = 0.0
    """Seconds between two starts of this provider's trials (at most a day)."""
    backoff_max_sec: Annotated[float, Field(gt=0), AtMostADay] = 60.0
    """The longest pause after trials that the provider rate-limited (the pause doubles from
    one second, or the spacing, with each rate-limited trial in a row; at most a day)."""


class TopConfig(UserModel):
    """The top-level ``proctor.json`` (``--config FILE``)."""

    codingagents: dict[FolderName, AgentProfile] = {}
    provision: Provision | None = None
    setup: list[ProgramText] = []
    teardown: list[ProgramText] = []
    gate: Gate | None = None
    concurrency: PositiveInt | None = None
    out: OutFolder | None = None
    pricing: dict[str, ModelPrice] = {}
    limits: dict[str, ProviderLimit] = {}
    """Per provider (``anthropic``, ``openai``, ``google``; ``scripted`` for the scripted
    agent): concurrency, start spacing and the backoff after rate limiting."""
    budget_usd: float | None = Field(default=None, gt=0)
    """Warn once when the run's priced cost passes this; never abort."""
    # Defaults for every case, overridden by a case's own config.json.
    agents: list[str] | None = Field(default=None, min_length=1)
    timeout_sec: TimeoutSec | None = None
    repeats: Repeats | None = None
    pass_threshold: float | None = Field(default=None, ge=0, le=100)
    env: EnvVars = {}
    conditions: dict[FolderName, Condition] | None = None
    models: dict[str, RoleEntry] = {}
    """Harness roles: ``fast``, ``workhorse``, ``judge`` (defaults to workhorse) →
    ``provider/model`` (or ``{"model": …, "maxOutputTokens": …}``)."""
    metrics: MetricsConfig | None = None
    """Process-metric settings: check patterns and rule thresholds."""


class CliOverrides(UserModel):
    """Options given on the command line; they win over every file."""

    # Not strict: click has already parsed each option to its type, and the Python API
    # (proctor.run) takes these fields as keyword arguments, where a tuple is as good as a list.
    model_config = ConfigDict(strict=False)

    agents: list[str] = []
    cases: list[str] = []
    tags: list[str] = []
    repeats: Repeats | None = None
    concurrency: PositiveInt | None = None
    timeout_sec: TimeoutSec | None = None
    out: PathText | None = None
    keep_workspace: bool = False
    mirror: bool = False
    retry_errors: NonNegativeInt = 0
    """Run a trial again, up to this many times, when it ends in a transient error."""
    evaluate: bool = True
    """``--no-evaluate``: run and record the trials, run no evaluator, gate nothing."""
    prompt_without_evaluate: bool = False
    """``proctor run --prompt`` given neither ``--evaluate`` nor ``--no-evaluate``: its case is
    not evaluated (``evaluate`` is False), as an inline case is unless asked, and its trials'
    reason names that cause rather than ``--no-evaluate``."""
    only_evaluators: list[str] = []
    """``--only-evaluator``: keep only the evaluators with this ``use`` or ``label``."""
    skip_evaluators: list[str] = []
    """``--skip-evaluator``: leave out the evaluators with this ``use`` or ``label``."""
    collect_cost: bool = True
    """``--no-collect-cost``: price no token (every cost stays unknown, no warning)."""
    max_trials: NonNegativeInt | None = None
    conditions: list[str] = []
    first_condition: str | None = None
    source_root: PathText | None = None
    mode: Literal["headless", "interactive"] | None = None
    model: Literal["provider", "scripted"] | None = None
    agent_models: dict[str, str] = {}
    agent_efforts: dict[str, str] = {}
    budget_usd: float | None = None
    role_models: dict[str, str] = {}
