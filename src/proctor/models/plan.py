"""What planning produces: each case resolved against the configuration, one spec per trial, and
the run's plan. Frozen, plain data: a :class:`TrialSpec` crosses a process boundary as JSON
(``TrialSpec.model_validate_json(spec.model_dump_json())`` gives it back whole), carries no open
handle and no per-process cache, and a worker builds what it needs from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from proctor.models.case import Case, EvaluatorSpec, FrozenModel, SkippedCase
from proctor.models.config import AgentProfile, CliOverrides, Condition, Gate, Provision, TopConfig
from proctor.models.pricing import SCRIPTED_PRICES, PriceTable
from proctor.models.process import MetricsConfig
from proctor.models.trial import EVERY_NOT_EVALUATED_CAUSE

Mode = Literal["headless", "interactive"]
Backend = Literal["provider", "scripted"]


class ResolvedCase(FrozenModel):
    """A case after defaults, ``proctor.json`` and command-line flags were layered over it."""

    case: Case
    agents: list[str]
    timeout_sec: float
    repeats: int
    evaluators: list[EvaluatorSpec]
    evaluated: bool = True
    """False when the run's switches left the case without any of its evaluators: its trials
    are recorded as ``skipped`` (not evaluated) rather than scored."""
    not_evaluated: str = ""
    """When not ``evaluated``, the one cause, as its trials' reason names it
    (``--no-evaluate``, ``--prompt without --evaluate``, ``--only-evaluator judge left out
    every one of its evaluators``); read it through :attr:`why_not_evaluated`."""
    combiner: str
    pass_threshold: float
    provision: Provision
    setup: list[str]
    teardown: list[str]
    env: dict[str, str]
    conditions: dict[str, Condition] = {}
    agent_model: str | None = None
    agent_effort: str | None = None

    @property
    def name(self) -> str:
        return self.case.name

    @property
    def why_not_evaluated(self) -> str:
        """Why the case is not evaluated, as its trials' reason and ``--dry-run`` name it;
        empty when it is. A case planned by a proctor that did not record the one cause (no
        ``not_evaluated``) names every cause, as that proctor did."""
        if self.evaluated:
            return ""
        return self.not_evaluated or EVERY_NOT_EVALUATED_CAUSE


class RoleModels(FrozenModel):
    """proctor's own model roles for a case, as data: ``role → provider/model``, the models
    llm-judges name themselves, and each provider's base URL. Keys are not here: a worker finds
    them in its environment (they were checked before any trial)."""

    refs: dict[str, str] = {}
    extra: list[str] = []
    urls: dict[str, str | None] = {}
    max_output_tokens: dict[str, int] = {}
    """Each role's reply token limit, where its configuration sets one."""
    given: dict[str, str] = {}
    """Where each model was chosen (``proctor.json: field 'models.judge'``, ``--judge-model``,
    ``cases/x/config.json: field 'evaluators[0].model'``): by role, and an llm-judge's own
    model by its reference. A model the provider does not have is named with it."""

    def uses_scripted(self) -> bool:
        return any(r.startswith("scripted/") for r in [*self.refs.values(), *self.extra])


class TrialSpec(FrozenModel):
    """One cell of the matrix: case × agent × condition × repeat, and how to run it."""

    case: ResolvedCase
    agent: str
    condition: str
    repeat: int
    profile: AgentProfile
    index: int
    variant: Condition = Field(default_factory=Condition)
    metrics: MetricsConfig | None = None
    pricing: PriceTable = Field(default_factory=PriceTable)
    mode: Mode | None = None
    """None means the adapter's default."""
    backend: Backend = "provider"
    agent_model: str | None = None
    agent_effort: str | None = None
    agent_effort_from: str | None = None
    """Where ``agent_effort`` was set: ``--agent-effort``, or a file and its field
    (``cases/x/config.json: field 'conditions.fast.agentEffort'``); None with no effort."""
    roles: RoleModels | None = None
    collect_cost: bool = True
    max_turns: int | None = None
    max_tool_calls: int | None = None
    """The step budget (the condition's, else the case's)."""
    serial_repeats: bool = False
    """Repeats of this case × agent × condition run one after another, never side by side."""

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.case.name, self.agent, self.condition, self.repeat)

    @property
    def agent_pricing(self) -> PriceTable:
        """The prices of the agent's own responses: none on the scripted model, whose
        responses name the model the agent asked for (a real CLI's default, with its list
        price), although not a token was spent."""
        return SCRIPTED_PRICES if self.backend == "scripted" else self.pricing


class RunPlan(FrozenModel):
    top: TopConfig
    config_path: Path | None
    cases: list[ResolvedCase]
    trials: list[TrialSpec]
    gate: Gate
    concurrency: int
    out: Path
    overrides: CliOverrides
    skipped: list[SkippedCase] = []
    found: int = 0
    """The case folders and task files found (skipped ones apart), chosen or not, one whose
    files were refused too: ``cases`` are those of them that the options chose and whose
    configuration is valid."""
    chosen: int = 0
    """Of those found, the ones the options chose (``--case``, ``--tag``, ``--condition``),
    valid or not: ``found - chosen`` were left out by the options, not by a problem."""
