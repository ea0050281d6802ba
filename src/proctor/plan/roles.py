"""proctor's own model roles per case (``fast``, ``workhorse``, ``judge``): which model each
plays, checked for keys before any trial, and handed to trials as data."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from proctor.errors import ConfigError
from proctor.llm.refs import ModelRef, parse_ref
from proctor.llm.roles import build_roles, role_output_tokens, role_refs
from proctor.llm.secrets import environment, load_dotenv
from proctor.models.config import CliOverrides, RoleEntry, TopConfig
from proctor.models.plan import ResolvedCase, RoleModels


def resolve_roles(
    cases: list[ResolvedCase],
    top: TopConfig,
    cli: CliOverrides,
    config_path: Path | None,
    dotenv_dir: Path | None,
) -> dict[str, RoleModels]:
    """Role → model per case; fails before any trial when a role a case needs has no key
    (looked up in the environment, then in the ``.env`` of ``dotenv_dir``)."""
    env, dotenv = environment(), load_dotenv(dotenv_dir)
    out: dict[str, RoleModels] = {}
    for rc in cases:
        where = rc.case.config_where
        layers: list[tuple[str, Mapping[str, RoleEntry]]] = [
            (str(config_path or "proctor.json"), top.models),
            (where, rc.case.config.models),
            ("--<role>-model", cli.role_models),
        ]
        refs = role_refs(layers)
        limits = role_output_tokens(layers)
        # Every configured role may be called (the answerer, the classifier, the judge), and
        # every llm-judge calls its own model: all need their keys before any trial runs.
        needed: dict[str, ModelRef] = dict(refs)
        for spec in rc.evaluators:
            if spec.use != "llm-judge":
                continue
            model = spec.params.get("model")
            if isinstance(model, str) and model:
                label = f"judge ({spec.loc})"
                needed[label] = parse_ref(model, f"{where}: field '{spec.loc}.model'")
            elif "judge" not in refs:
                # A task's plan is its `plan` field; a case folder's, its plan.json.
                task = rc.case.source is not None and bool(rc.case.source.prefix)
                plan = "its plan's" if task else "plan.json's"
                raise ConfigError(
                    f"{where}: field '{spec.loc}': an llm-judge needs a judge model: "
                    "set its 'model', models.judge (or models.workhorse), or --judge-model to a "
                    "provider/model, e.g. anthropic/claude-sonnet-4-5, or scripted/judge for "
                    f"proctor's scripted model, which replies from {plan} roles.judge"
                )
        roles = build_roles(refs, needed, env, dotenv)
        out[rc.name] = RoleModels(
            refs={role: str(ref) for role, ref in roles.refs.items()},
            extra=[str(ref) for ref in roles.extra_refs],
            urls=dict(roles.urls),
            max_output_tokens={role: n for role, n in limits.items() if role in roles.refs},
            given={
                **{str(ref): ref.where for ref in reversed(roles.extra_refs) if ref.where},
                **{role: ref.where for role, ref in roles.refs.items() if ref.where},
            },
        )
    return out
