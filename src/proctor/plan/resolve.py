"""Layered configuration and the trial matrix.

Precedence, lowest to highest: built-in defaults < top-level config (``proctor.json``) < a case's
``config.json`` < command-line flags. Provisioning merges by ``name``; setup and teardown lines
concatenate, top-level first; ``env`` maps merge key by key.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from proctor.agents.base import adapter_for, known_agent_ids
from proctor.discover.folders import Discovery, load_json_file
from proctor.errors import AgentError, ConfigError, DiscoveryError
from proctor.evaluators.base import EvaluatorSpec
from proctor.evaluators.combiners import COMBINERS
from proctor.llm.roles import RoleSet
from proctor.metrics import MetricsConfig
from proctor.models.case import Case, SkippedCase
from proctor.models.config import (
    DEFAULT_AGENTS,
    DEFAULT_COMBINER,
    DEFAULT_CONCURRENCY,
    DEFAULT_GATE,
    DEFAULT_OUT,
    DEFAULT_PASS_THRESHOLD,
    DEFAULT_REPEATS,
    DEFAULT_TIMEOUT_SEC,
    AgentProfile,
    CliOverrides,
    Condition,
    Gate,
    Provision,
    TopConfig,
)
from proctor.models.errors_format import describe_validation_error

DEFAULT_CONFIG_NAME = "proctor.json"
DEFAULT_CONDITION = "default"


@dataclass
class ResolvedCase:
    case: Case
    agents: list[str]
    timeout_sec: float
    repeats: int
    evaluators: list[EvaluatorSpec]
    combiner: str
    pass_threshold: float
    provision: Provision
    setup: list[str]
    teardown: list[str]
    env: dict[str, str]
    conditions: dict[str, Condition] = field(default_factory=dict)
    agent_model: str | None = None
    agent_effort: str | None = None

    @property
    def name(self) -> str:
        return self.case.name

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case.name,
            "path": str(self.case.path),
            "agents": self.agents,
            "timeoutSec": self.timeout_sec,
            "repeats": self.repeats,
            "combiner": self.combiner,
            "passThreshold": self.pass_threshold,
            "tags": self.case.tags,
            "evaluators": [
                {
                    "use": s.use,
                    "gate": s.gate,
                    "weight": s.weight,
                    **s.params.model_dump(mode="json", by_alias=True),
                }
                for s in self.evaluators
            ],
            "provision": self.provision.model_dump(mode="json", by_alias=True),
            "setup": self.setup,
            "teardown": self.teardown,
            "env": sorted(self.env),
            "fixture": str(self.case.fixture) if self.case.fixture else None,
            "qnaRules": len(self.case.qna_rules),
            "plan": self.case.plan is not None,
            "conditions": {
                k: v.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"env"})
                | {"env": sorted(v.env)}
                for k, v in self.conditions.items()
            },
            "agentModel": self.agent_model,
            "agentEffort": self.agent_effort,
            "expectedFiles": self.case.config.expected_files,
            "expectedSymbols": self.case.config.expected_symbols,
        }


@dataclass(frozen=True)
class TrialSpec:
    case: ResolvedCase
    agent: str
    condition: str
    repeat: int
    profile: AgentProfile
    index: int
    variant: Condition = field(default_factory=Condition)
    metrics: MetricsConfig | None = None
    pricing: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    mode: str | None = None
    """``headless`` or ``interactive``; None means the adapter's default."""
    backend: str = "provider"
    agent_model: str | None = None
    agent_effort: str | None = None
    roles: RoleSet | None = None

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.case.name, self.agent, self.condition, self.repeat)


@dataclass
class RunPlan:
    top: TopConfig
    config_path: Path | None
    cases: list[ResolvedCase]
    trials: list[TrialSpec]
    gate: Gate
    concurrency: int
    out: Path
    overrides: CliOverrides
    skipped: list[SkippedCase] = field(default_factory=list)

    def resolved_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate.model_dump(mode="json", by_alias=True, exclude_none=True),
            "concurrency": self.concurrency,
            "out": str(self.out),
            "keepWorkspace": self.overrides.keep_workspace,
            "configFile": str(self.config_path) if self.config_path else None,
            "codingagents": {
                k: v.model_dump(mode="json", by_alias=True, exclude={"env"})
                for k, v in self.top.codingagents.items()
            },
            "pricing": {
                k: v.model_dump(mode="json", by_alias=True) for k, v in self.top.pricing.items()
            },
            "cases": [c.to_dict() for c in self.cases],
            "matrix": [
                {
                    "case": t.case.name,
                    "agent": t.agent,
                    "condition": t.condition,
                    "repeat": t.repeat,
                }
                for t in self.trials
            ],
            "skipped": [{"case": s.name, "reason": s.reason} for s in self.skipped],
        }


def load_top_config(path: Path | None, cwd: Path) -> tuple[TopConfig, Path | None, Any]:
    """The top-level configuration: ``path``, else ``./proctor.json`` when present, else empty."""
    if path is None:
        candidate = cwd / DEFAULT_CONFIG_NAME
        if not candidate.is_file():
            return TopConfig(), None, {}
        path = candidate
    if not path.is_file():
        raise DiscoveryError(f"--config {path}: no such file")
    raw = load_json_file(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    try:
        return TopConfig.model_validate(raw), path, raw
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(str(path), exc, TopConfig)) from exc


def resolve_case(case: Case, top: TopConfig, cli: CliOverrides) -> ResolvedCase:
    cfg = case.config
    where = str(case.path / "config.json")
    agents = cli.agents or cfg.agents or top.agents or list(DEFAULT_AGENTS)
    known = known_agent_ids(top.codingagents)
    for i, agent in enumerate(agents):
        if agent not in known:
            source = "--agent" if cli.agents else f"{where}: field 'agents[{i}]'"
            raise ConfigError(
                f"{source}: unknown agent '{agent}' (known: {', '.join(sorted(known))})"
            )
    combiner = cfg.combiner or DEFAULT_COMBINER
    if combiner not in COMBINERS:
        raise ConfigError(
            f"{where}: field 'combiner': unknown combiner '{combiner}' "
            f"(known: {', '.join(sorted(COMBINERS))})"
        )
    base_provision = top.provision or Provision()
    conditions = {**(top.conditions or {}), **(cfg.conditions or {})} or {
        DEFAULT_CONDITION: Condition()
    }
    if cli.conditions:
        # A case without any of the chosen conditions drops out of the matrix.
        conditions = {k: v for k, v in conditions.items() if k in cli.conditions}
    if case.plan is not None and "conditions" in case.plan:
        missing = sorted(set(conditions) - set(case.plan["conditions"]))
        if missing:
            raise ConfigError(
                f"{case.path / 'plan.json'}: field 'conditions': no plan for condition(s) "
                f"{', '.join(missing)}"
            )
    provision = base_provision.merged_with(cfg.provision)
    check_provision(provision, case.path, where)
    for name, variant in conditions.items():
        if variant.provision is not None:
            check_provision(variant.provision, case.path, f"{where}: conditions.{name}")
    return ResolvedCase(
        case=case,
        agents=list(dict.fromkeys(agents)),
        timeout_sec=cli.timeout_sec or cfg.timeout_sec or top.timeout_sec or DEFAULT_TIMEOUT_SEC,
        repeats=cli.repeats or cfg.repeats or top.repeats or DEFAULT_REPEATS,
        evaluators=case.evaluators,
        combiner=combiner,
        pass_threshold=_first(cfg.pass_threshold, top.pass_threshold, DEFAULT_PASS_THRESHOLD),
        provision=provision,
        setup=[*top.setup, *cfg.setup],
        teardown=[*top.teardown, *cfg.teardown],
        env={**top.env, **cfg.env},
        conditions=conditions,
        agent_model=cfg.agent_model,
        agent_effort=cfg.agent_effort,
    )


def resolve_roles(
    cases: list[ResolvedCase],
    top: TopConfig,
    cli: CliOverrides,
    config_path: Path | None,
    cwd: Path,
) -> dict[str, RoleSet]:
    """Role → model per case, with keys resolved once; fails before any trial when a role a
    case needs has no key."""
    from proctor.llm.refs import ModelRef, parse_ref
    from proctor.llm.roles import build_roles, role_refs
    from proctor.llm.secrets import environment, load_dotenv

    env, dotenv = environment(), load_dotenv(cwd)
    out: dict[str, RoleSet] = {}
    for rc in cases:
        where = str(rc.case.path / "config.json")
        refs = role_refs(
            [
                (str(config_path or "proctor.json") + ": models", top.models),
                (where + ": models", rc.case.config.models),
                ("--<role>-model", cli.role_models),
            ]
        )
        # Every configured role may be called (the answerer, the classifier, the judge), and
        # every llm-judge calls its own model: all need their keys before any trial runs.
        needed: dict[str, ModelRef] = dict(refs)
        for spec in rc.evaluators:
            if spec.use != "llm-judge":
                continue
            model = getattr(spec.params, "model", None)
            if model:
                label = f"judge (evaluators[{spec.index}])"
                needed[label] = parse_ref(model, f"{where}: evaluators[{spec.index}].model")
            elif "judge" not in refs:
                raise ConfigError(
                    f"{where}: evaluators[{spec.index}] (llm-judge) needs a judge model: set "
                    "models.judge (or models.workhorse), the evaluator's 'model', or --judge-model"
                )
        out[rc.name] = build_roles(refs, needed, env, dotenv)
    return out


def resolve_mode(rc: ResolvedCase, agent: str, profile: AgentProfile, cli: CliOverrides) -> str:
    """``--mode`` > the case's ``mode`` > the profile's ``mode`` > the adapter's default.

    Also checks what the adapter can check of the profile before any trial (a
    ``permissionMode`` the CLI does not have), as a config error.
    """
    adapter = adapter_for(agent, {agent: profile})
    check = getattr(adapter, "check_profile", None)
    if check is not None:
        try:
            check(profile)
        except AgentError as exc:
            raise ConfigError(f"codingagents.{agent}: {exc}") from exc
    mode = cli.mode or rc.case.config.mode or profile.mode or adapter.default_mode
    if mode not in adapter.modes:
        raise ConfigError(
            f"agent '{agent}' cannot run in {mode} mode (it supports: {', '.join(adapter.modes)})"
        )
    return mode


def metrics_config(top: TopConfig, where: Path | None) -> MetricsConfig | None:
    if top.metrics is None:
        return None
    try:
        return MetricsConfig.model_validate(top.metrics)
    except ValidationError as exc:
        raise ConfigError(
            describe_validation_error(str(where or "proctor.json"), exc, prefix="metrics")
        ) from exc


def price_table(top: TopConfig) -> dict[str, tuple[float, float, float, float]]:
    """Prices per model, keyed by ``provider/model`` and by the bare model name."""
    table: dict[str, tuple[float, float, float, float]] = {}
    for key, p in top.pricing.items():
        row = (p.input_per1_m, p.output_per1_m, p.cache_read_per1_m, p.cache_write_per1_m)
        table[key] = row
        table.setdefault(key.split("/", 1)[-1], row)
    return table


def check_provision(provision: Provision, case_dir: Path, where: str) -> None:
    """Plugins and skills need an existing ``path`` (relative to the case folder); MCP servers a
    ``command`` or a ``url``."""
    for kind in ("plugins", "skills"):
        for i, entry in enumerate(getattr(provision, kind)):
            raw = (entry.model_extra or {}).get("path")
            field_name = f"provision.{kind}[{i}].path"
            if not isinstance(raw, str) or not raw:
                raise ConfigError(f"{where}: field '{field_name}' is required ('{entry.name}')")
            path = Path(raw).expanduser()
            path = path if path.is_absolute() else case_dir / path
            if not path.exists():
                raise ConfigError(f"{where}: field '{field_name}': {path} does not exist")
    for i, entry in enumerate(provision.mcps):
        extra = entry.model_extra or {}
        if not isinstance(extra.get("command"), str) and not isinstance(extra.get("url"), str):
            raise ConfigError(
                f"{where}: field 'provision.mcps[{i}]' ('{entry.name}'): give 'command' or 'url'"
            )


def condition_order(names: list[str], repeat: int, first: str | None) -> list[str]:
    """The order conditions run in for one repeat, so order is not confounded with condition.

    With ``first`` that condition always runs first; otherwise the order rotates with the repeat
    (repeat 1: A B C, repeat 2: B C A, ...).
    """
    if first is not None and first in names:
        return [first, *(n for n in names if n != first)]
    shift = (repeat - 1) % len(names) if names else 0
    return names[shift:] + names[:shift]


def _first(*values: float | None) -> float:
    for value in values:
        if value is not None:
            return value
    raise AssertionError("the last value is a default")


def select_cases(cases: list[Case], cli: CliOverrides) -> list[Case]:
    chosen = cases
    if cli.cases:
        chosen = [c for c in chosen if any(fnmatch.fnmatchcase(c.name, g) for g in cli.cases)]
    if cli.tags:
        chosen = [c for c in chosen if set(c.tags) & set(cli.tags)]
    return chosen


def build_plan(
    found: Discovery,
    top: TopConfig,
    cli: CliOverrides,
    *,
    config_path: Path | None,
    cwd: Path,
) -> RunPlan:
    resolved = [resolve_case(c, top, cli) for c in select_cases(found.cases, cli)]
    defined: set[str] = set()
    for case in select_cases(found.cases, cli):
        defined |= set(top.conditions or {}) | set(case.config.conditions or {})
        if not (top.conditions or case.config.conditions):
            defined.add(DEFAULT_CONDITION)
    if cli.conditions:
        known = defined
        unknown = [name for name in cli.conditions if name not in known]
        if unknown:
            raise ConfigError(
                f"--condition {unknown[0]}: no case has that condition "
                f"(conditions: {', '.join(sorted(known)) or 'none'})"
            )
        resolved = [rc for rc in resolved if rc.conditions]
    if cli.first_condition is not None and not any(
        cli.first_condition in rc.conditions for rc in resolved
    ):
        raise ConfigError(f"--first-condition {cli.first_condition}: no case has that condition")
    gate = top.gate or DEFAULT_GATE
    if gate.ab is not None and resolved:
        known = {name for rc in resolved for name in rc.conditions}
        for name in (gate.ab.treatment, gate.ab.baseline):
            if name not in known:
                why = (
                    "is left out by --condition"
                    if cli.conditions and name in defined
                    else "is not defined by any case"
                )
                raise ConfigError(
                    f"{config_path or 'proctor.json'}: field 'gate.ab': condition '{name}' "
                    f"{why} (conditions: {', '.join(sorted(known))})"
                )
    metrics = metrics_config(top, config_path)
    pricing = price_table(top)
    roles_by_case = resolve_roles(resolved, top, cli, config_path, cwd)
    trials: list[TrialSpec] = []
    for rc in resolved:
        trial_modes = {
            agent: resolve_mode(rc, agent, top.codingagents.get(agent, AgentProfile()), cli)
            for agent in rc.agents
        }
        for agent in rc.agents:
            profile = top.codingagents.get(agent, AgentProfile())
            for repeat in range(1, rc.repeats + 1):
                for name in condition_order(list(rc.conditions), repeat, cli.first_condition):
                    variant = rc.conditions[name]
                    trials.append(
                        TrialSpec(
                            rc,
                            agent,
                            name,
                            repeat,
                            profile,
                            len(trials),
                            variant,
                            metrics,
                            pricing,
                            mode=trial_modes[agent],
                            backend=cli.model or profile.backend or "provider",
                            agent_model=variant.agent_model
                            or cli.agent_models.get(agent)
                            or rc.agent_model
                            or profile.agent_model,
                            agent_effort=variant.agent_effort
                            or cli.agent_efforts.get(agent)
                            or rc.agent_effort
                            or profile.agent_effort,
                            roles=roles_by_case[rc.name],
                        )
                    )
    out = Path(cli.out or top.out or DEFAULT_OUT)
    return RunPlan(
        top=top,
        config_path=config_path,
        cases=resolved,
        trials=trials,
        gate=top.gate or DEFAULT_GATE,
        concurrency=cli.concurrency or top.concurrency or DEFAULT_CONCURRENCY,
        out=out if out.is_absolute() else cwd / out,
        overrides=cli,
        skipped=list(found.skipped),
    )


def load_run_plan(
    source: Path, config_path: Path | None, cli: CliOverrides, cwd: Path
) -> tuple[RunPlan, Any]:
    """Read the top-level config and the case folders, and expand the matrix."""
    from proctor.discover.folders import discover_cases

    top, path, raw = load_top_config(config_path, cwd)
    found = discover_cases(source, Path(cli.source_root) if cli.source_root else None)
    return build_plan(found, top, cli, config_path=path, cwd=cwd), raw
