"""The settings of a ``proctor eval`` run and of each of its cases (the agent, the model, the
judge, the plan, the time limit, the reporters, the concurrency), each with where it was given
(a flag, the eval file, ``evals.config.py``, ``proctor.json`` or the default), and the checks a
run makes of them before any case runs, each problem a sentence naming that place."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.agents.base import known_agent_ids
from proctor.agents.spec import unknown_agent
from proctor.errors import ConfigError
from proctor.evals.discover import CONFIG_FILE, DEFAULT_TIMEOUT_MS, EvalPoint, EvalProject
from proctor.llm.refs import parse_ref
from proctor.models.config import TopConfig
from proctor.models.loading import load_top_config
from proctor.report.reporters import reporter_names
from proctor.scripted.plan import PlanError, validate_plan
from proctor.util.json_shown import json_text, name_shown

if TYPE_CHECKING:
    from proctor.session.evals import EvalRequest


def _plan(point: EvalPoint) -> dict[str, Any] | None:
    if point.plan is None or isinstance(point.plan, dict):
        return point.plan
    path = (point.file.parent / point.plan).resolve()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(
            f"{point.plan_where}: plan {point.plan!r}: no such file ({path}); a plan path is "
            "relative to the eval file"
        ) from exc
    except (OSError, ValueError) as exc:  # (UnicodeDecodeError and JSONDecodeError too)
        raise ConfigError(
            f"{point.plan_where}: plan {point.plan!r} cannot be read as JSON ({exc})"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{point.plan_where}: plan {point.plan!r} is not a JSON object")
    return data


def case_timeout_ms(point: EvalPoint, request: EvalRequest, project: EvalProject) -> int:
    """The command line's, over the case's or eval file's, over the config's (as ``proctor
    run --timeout`` is over a case's ``timeoutSec``), else 180 s."""
    config = project.config.timeout_ms if project.config else None
    return request.timeout_ms or point.timeout_ms or config or DEFAULT_TIMEOUT_MS


def project_config(request: EvalRequest) -> tuple[TopConfig, Path | None]:
    """The ``proctor.json`` a run reads (``--config``, else the project's), with its path."""
    return load_top_config(request.config, request.dir)


def settings_problems(request: EvalRequest, project: EvalProject) -> list[str]:
    """Every problem of the run's own settings, one sentence each, named where each was
    given (the flag, or ``evals.config.py`` at the line of its ``define_eval_config(...)``):
    no ``max_concurrency``, an unknown reporter, a model no agent's model can be, a
    ``--judge-model`` that is not ``provider/model``. A run refuses the first."""
    problems = []
    checks: list[Callable[[], object]] = [
        lambda: _reporters(request, project),
        lambda: _model_checked(request, project),
    ]
    if project.config is not None or not (project.root / "evals" / CONFIG_FILE).is_file():
        # (an evals.config.py that does not load has its own problems said: not this one)
        checks.insert(0, lambda: _max_concurrency(project))
    if request.judge_model:  # named as the flag, before any case
        checks.append(lambda: parse_ref(str(request.judge_model), "--judge-model"))
    for check in checks:
        try:
            check()
        except ConfigError as exc:
            problems.append(str(exc))
    return problems


def _max_concurrency(project: EvalProject) -> int:
    most = project.config.max_concurrency if project.config else None
    if most is None:
        raise ConfigError(
            f"{project.config_where}: define_eval_config(max_concurrency=…) is required to "
            "run evals"
        )
    return most


def _reporters(request: EvalRequest, project: EvalProject) -> list[str]:
    """``--reporter``'s, else the config's ``reporters``, else markdown."""
    if request.reporters:
        return reporter_names(request.reporters)
    config = project.config
    try:
        return reporter_names((config.reporters if config else ()) or ("markdown",))
    except ConfigError as exc:  # from the config file, not from a flag
        said = str(exc).removeprefix("--reporter: ")
        raise ConfigError(f"{project.config_where}: reporters: {said}") from exc


def _model_checked(request: EvalRequest, project: EvalProject) -> None:
    model, named = run_model(request, project)
    if model is not None:
        check_model(model, named)


def agent_of(point: EvalPoint, request: EvalRequest, project: EvalProject) -> tuple[str, str]:
    """The agent ``point`` runs on and where it was given (for a message about it): ``--agent``,
    then the case's or the eval file's ``agent``, then the config's, then ``scripted``."""
    if request.agent:
        return request.agent, "--agent"
    if point.agent:
        return point.agent, point.where
    if project.config and project.config.agent:
        return project.config.agent, f"{project.config_where}: agent"
    return "scripted", "the default agent"


def model_of(
    point: EvalPoint, request: EvalRequest, project: EvalProject
) -> tuple[str | None, str]:
    """The model the agent of ``point`` is given, if any, and where it was given (for a message
    about it), the most specific first, as in ``proctor run``: ``--agent-model AGENT=MODEL``
    for the agent the case runs on, then the model of the whole run (:func:`run_model`)."""
    agent = agent_of(point, request, project)[0]
    if agent in request.agent_models:
        return request.agent_models[agent], f"--agent-model {agent}=…"
    return run_model(request, project)


def run_model(request: EvalRequest, project: EvalProject) -> tuple[str | None, str]:
    """The model of the whole run, if any, and where it was given: ``--model`` (``--model ""``
    is a blank model, said so: not the config's, nor none), then the config's ``model``.
    ``scripted`` runs every agent on proctor's scripted model server."""
    if request.model is not None:
        return request.model, "--model"
    return (project.config.model if project.config else None), f"{project.config_where}: model"


def _judge(point: EvalPoint, request: EvalRequest, project: EvalProject) -> tuple[str | None, str]:
    """The judge model of ``point`` and where it was given (for a message about it)."""
    if point.judge:
        return point.judge, point.where
    if project.config and project.config.judge:
        return project.config.judge, project.config_where
    return request.judge_model, "--judge-model"


def _check_point(
    point: EvalPoint, request: EvalRequest, project: EvalProject, top: TopConfig
) -> None:
    """What only a run would find wrong (an unknown agent or judge, a bad plan), named by
    where it was given (the flag, the eval file or evals.config.py) before anything runs:
    the first of ``point_problems``."""
    if problems := point_problems(point, request, project, top):
        raise ConfigError(problems[0])


def point_problems(
    point: EvalPoint, request: EvalRequest, project: EvalProject, top: TopConfig | None
) -> list[str]:
    """Every problem of ``point`` a run would refuse, one sentence each, in this order: an
    unknown agent (not checked when ``top`` is None, a ``proctor.json`` that does not read:
    its agent profiles are unknown), a judge that is not ``provider/model``, a bad plan."""
    problems: list[str] = []
    agent, where = agent_of(point, request, project)
    known_ids = known_agent_ids(top.codingagents) if top is not None else None
    if known_ids is not None and agent not in known_ids:
        where = (
            f"--agent {name_shown(agent)}" if where == "--agent" else where
        )  # as --case x: says it
        problems.append(f"{where}: {unknown_agent(agent, sorted(known_ids))}")
    judge, where = _judge(point, request, project)
    if judge:
        try:
            parse_ref(judge, where if where == "--judge-model" else f"{where}: judge")
        except ConfigError as exc:
            problems.append(str(exc))
    try:
        plan = _plan(point)
        if plan is not None:
            validate_plan(plan, f"{point.plan_where}: plan of {point.id}")
    except (ConfigError, PlanError) as exc:
        problems.append(str(exc))
    return problems


def check_model(model: str, where: str) -> None:
    """A ConfigError for a ``--model`` (or the config's ``model``, named by ``where``) that no
    agent's model can be: a blank, one holding a space or a control character, a misspelt
    ``scripted`` (``Scripted``), or ``provider``, which is ``proctor run --model``'s word for
    the default."""
    said = f"{where} {json_text(model)}"
    if not model.strip():
        raise ConfigError(f"{said}: expected the agent's model (such as opus) or scripted")
    if any(c.isspace() or not c.isprintable() for c in model):
        raise ConfigError(
            f"{said}: a model's name holds no space or control character; expected the "
            "agent's model (such as opus) or scripted"
        )
    if model.lower() == "scripted" and model != "scripted":
        raise ConfigError(f"{said}: did you mean scripted (proctor's scripted model)?")
    if model == "provider":
        raise ConfigError(
            f"{said}: the agent's provider is the default (proctor run --model provider); "
            "leave it out, or give the agent's model (such as opus) or scripted"
        )


def scripted_agent_model(model: str, where: str, on_scripted: Sequence[str], cases: int) -> str:
    """The warning for a model given to cases that run on the scripted agent, which plays its
    eval's plan whatever the model and only writes its name into its transcript."""
    if len(on_scripted) == cases:
        which = "every case runs on the scripted agent"
    else:
        shown = ", ".join(on_scripted[:3]) + (
            f" and {len(on_scripted) - 3} more" if len(on_scripted) > 3 else ""
        )
        which = f"{len(on_scripted)} of {cases} cases ({shown}) run on the scripted agent"
    return (
        f"{where} {json_text(model)}: {which}, which plays its eval's plan whatever the model "
        "(it only writes the model's name into its transcript); --agent names an agent that "
        "runs the model, and --model scripted runs a real CLI on proctor's scripted model"
    )
