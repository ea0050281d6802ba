"""``proctor eval``: run evals written as code through the same trial machinery as case folders.

Each selected eval case becomes a case folder (written under ``<out>/evals-src/<stamp>/``: its
description as ``prompt.md``, a ``config.json`` with the agent, timeout, iterations as repeats
that run one after another, tags and judge, and the scripted ``plan.json``), and its test
function is registered as that case's conversation (:data:`proctor.execute.driving.CONVERSATIONS`)
before the workers fork. Every case × iteration is a trial in the results directory, so
``report``, ``compare`` and the reporters work on eval runs; the eval's own summary is read back
from each trial's ``eval.json``.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor.agents.base import profile_for
from proctor.errors import ConfigError
from proctor.evals.conversation import EvalCaseRun, conversation_for
from proctor.evals.discover import EvalPoint, EvalProject, discover
from proctor.evals.loaders import set_project_root
from proctor.execute.driving import CONVERSATIONS, conversation_key
from proctor.execute.events import Subscriber
from proctor.exit_codes import ExitCode
from proctor.models.config import DEFAULT_OUT, CliOverrides, TopConfig
from proctor.models.io import dump_json, write_text_atomic
from proctor.paths import suite_of
from proctor.plan.agent_checks import check_agent_flags, check_profiles
from proctor.plan.checks import check_writable, writable_problem
from proctor.plan.efforts import agent_effort, effort_problem, effort_warning
from proctor.session.eval_choice import nothing_chosen, selection
from proctor.session.eval_results import exit_code_of, summarise
from proctor.session.eval_settings import (
    _check_point,
    _judge,
    _max_concurrency,
    _plan,
    _reporters,
    agent_of,
    case_timeout_ms,
    model_of,
    project_config,
    run_model,
    scripted_agent_model,
    settings_problems,
)
from proctor.session.request import RunRequest, RunResult
from proctor.session.run import run_session
from proctor.session.scripted_model import model_reaches_none, warn_scripted_model
from proctor.session.start import warn
from proctor.util.files import missing_folders, remove_empty_folders


@dataclass(frozen=True)
class EvalRequest:
    dir: Path = Path(".")
    ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    """``--case GLOB``: only the cases whose id (or an iteration's) matches, as ``proctor run
    --case`` picks case folders."""
    agent: str | None = None
    model: str | None = None
    agent_models: Mapping[str, str] = field(default_factory=dict)
    """``--agent-model ID=MODEL``, by agent id (as ``proctor run`` reads it)."""
    agent_efforts: Mapping[str, str] = field(default_factory=dict)
    """``--agent-effort ID=EFFORT``, by agent id (as ``proctor run`` reads it)."""
    judge_model: str | None = None
    timeout_ms: int | None = None
    """``--timeout``/``--timeout-ms``: every case's time limit, over the eval's own."""
    out: Path | None = None
    config: Path | None = None
    """``--config FILE``; None: the project's ``proctor.json`` (``DIR/proctor.json``) when
    present."""
    concurrency: int | None = None
    keep_workspace: bool = False
    reporters: tuple[str, ...] = ()
    verbose: bool = False
    argv: tuple[str, ...] = ()


@dataclass
class EvalRunResult:
    run: RunResult
    summary: dict[str, Any]
    exit_code: int
    chosen: list[tuple[EvalPoint, list[int]]] = field(default_factory=list)


def load_selection(request: EvalRequest) -> tuple[EvalProject, list[tuple[EvalPoint, list[int]]]]:
    project = project_of(request)
    return project, selection(request, project)


def project_of(request: EvalRequest) -> EvalProject:
    """The evals of the request's folder, discovered (its files imported)."""
    return discover(request.dir.resolve())


def listing(
    project: EvalProject, chosen: list[tuple[EvalPoint, list[int]]]
) -> list[dict[str, Any]]:
    rows = []
    for point, picked in chosen:
        ids = point.ids()
        for i in picked:
            rows.append(
                {"id": ids[i - 1], "tags": list(point.tags), "description": point.description}
            )
    return rows


def _write_case(
    folder: Path,
    point: EvalPoint,
    picked: list[int],
    agent: str,
    timeout_ms: int,
    judge: str | None,
) -> None:
    """Write the case folder of ``point`` (its plan.json with the variants its picked
    iterations play, in their order)."""
    folder.mkdir(parents=True)
    write_text_atomic(folder / "prompt.md", (point.description or point.id) + "\n")
    config: dict[str, Any] = {
        "agents": [agent],
        "timeoutSec": timeout_ms / 1000,
        "repeats": len(picked),
        "serialRepeats": True,
        "tags": list(point.tags),
        "description": f"eval {point.id} ({point.file.name})",
    }
    if judge:
        config["models"] = {"judge": judge}
    write_text_atomic(folder / "config.json", dump_json(config))
    if point.qna is not None:
        write_text_atomic(
            folder / "qna.md", point.qna if point.qna.endswith("\n") else point.qna + "\n"
        )
    plan = _plan(point)
    if plan is not None:
        plan = _for_iterations(plan, picked)
        write_text_atomic(folder / "plan.json", json.dumps(plan, indent=2) + "\n")


def _for_iterations(plan: dict[str, Any], picked: list[int]) -> dict[str, Any]:
    """``plan`` with its variants in the order the picked iterations play them: repeat r of
    the case runs iteration ``picked[r - 1]``, and an iteration plays the variant of its own
    number (``a/3`` plays the third), whichever iterations run with it."""
    if picked == list(range(1, len(picked) + 1)):
        return plan
    variants = plan.get("variants")
    if isinstance(variants, list) and variants:
        plan = {**plan, "variants": [variants[(i - 1) % len(variants)] for i in picked]}
    conditions = plan.get("conditions")
    if isinstance(conditions, dict):
        plan = {
            **plan,
            "conditions": {
                name: _for_iterations(one, picked) if isinstance(one, dict) else one
                for name, one in conditions.items()
            },
        }
    return plan


def _eval_files(evals: Path, chosen: list[tuple[EvalPoint, list[int]]]) -> tuple[str, ...]:
    """The eval files ``chosen`` is of, each once and sorted, relative to ``evals`` (the
    project's evals folder) when under it (as ``run.json``'s ``evalFiles`` holds them)."""
    files: dict[str, None] = {}
    for point, _ in chosen:
        try:
            named = point.file.resolve().relative_to(evals.resolve()).as_posix()
        except ValueError:
            named = point.file.as_posix()
        files[named] = None
    return tuple(sorted(files))


def run_ids(chosen: list[tuple[EvalPoint, list[int]]]) -> dict[tuple[str, int], str]:
    """The runnable id (``tools/order/3``) of each trial, by its case folder and repeat: the
    repeats of a case run the picked iterations in order."""
    return {
        (point.case_name, repeat): point.ids()[iteration - 1]
        for point, picked in chosen
        for repeat, iteration in enumerate(picked, start=1)
    }


@dataclass
class EvalPlan:
    """What a run of the request would run, checked as the run checks it (nothing written)."""

    project: EvalProject
    chosen: list[tuple[EvalPoint, list[int]]]
    concurrency: int
    reporters: list[str]
    top: TopConfig
    config_file: Path | None
    model: str | None
    """The model of the whole run (:func:`run_model`), and where it was given."""
    named: str
    agents: dict[str, str]
    """Each case's agent, by case folder."""
    models: dict[str, tuple[str | None, str]]
    kinds: dict[str, str]
    """The CLI each case runs (a profile of proctor.json's codingagents names its own)."""
    out: Path
    """The results folder: ``--out``, else ``out`` of the proctor.json read (``--config``, else
    the project's, see :func:`project_config`), else ``./proctor-results``."""


def plan_evals(
    request: EvalRequest,
    on_selected: Callable[[dict[tuple[str, int], str]], None] | None = None,
) -> EvalPlan:
    """The selected evals, checked as a run checks them before any case runs (``--dry-run``
    stops here); ``on_selected`` gets :func:`run_ids` first."""
    project, chosen = load_selection(request)
    if not chosen:
        raise ConfigError(nothing_chosen(request, project))
    if on_selected is not None:
        on_selected(run_ids(chosen))
    if problems := settings_problems(request, project):
        raise ConfigError(problems[0])
    most = _max_concurrency(project)
    concurrency = min(request.concurrency, most) if request.concurrency else most
    if request.concurrency and request.concurrency > most:  # lowered, never raised: said so
        named = project.config_file or "evals.config.py"
        warn(
            f"--concurrency {request.concurrency} is above {named}'s max_concurrency {most}, "
            f"so at most {most} cases run at once"
        )
    reporters = _reporters(request, project)
    top, config_file = project_config(request)
    flags = CliOverrides(
        agent_models=dict(request.agent_models), agent_efforts=dict(request.agent_efforts)
    )
    check_agent_flags(top, flags)  # as proctor run checks them (--dry-run too)
    # And proctor.json's profiles, a case uses them or not (an agentEffort Claude Code does
    # not take named in the file), as the run's plan checks them.
    check_profiles(top, str(config_file or "proctor.json"))
    for point, _ in chosen:
        _check_point(point, request, project, top)
    model, named = run_model(request, project)
    agents = {point.case_name: agent_of(point, request, project)[0] for point, _ in chosen}
    models = {point.case_name: model_of(point, request, project) for point, _ in chosen}
    # The CLI each runs: a profile of proctor.json's codingagents names its own.
    kinds = {c: getattr(top.codingagents.get(a), "agent", None) or a for c, a in agents.items()}
    for agent, given in request.agent_models.items():  # as proctor run warns of it
        if any(kinds[c] == "scripted" for c, a in agents.items() if a == agent):
            warn_scripted_model(given, agent)
    # So is an effort given an agent that takes none (the scripted agent, Gemini CLI, ACP),
    # by --agent-effort or its profile's agentEffort; a level Claude Code does not take, set
    # there, is refused as proctor run refuses it (the flag's by check_agent_flags).
    top_where = str(config_file or "proctor.json")
    for agent in dict.fromkeys(agents.values()):
        kind = profile_for(agent, top.codingagents).agent or agent
        effort, where = agent_effort(agent, top.codingagents, request.agent_efforts, top_where)
        if effort and where and (problem := effort_problem(effort, agent, kind, where)):
            raise ConfigError(problem)
        if effort and where and (said := effort_warning(effort, agent, kind, where)):
            warn(said)
    if model is not None:
        # The cases the run's model reaches (not --agent-model's), said once when none is.
        reached = [p for p, _ in chosen if models[p.case_name][1] == named]
        if not reached and named == "--model" and model != "scripted":
            warn(model_reaches_none(model, sorted(set(agents.values())), request.agent_models))
        on_scripted = [p.id for p in reached if kinds[p.case_name] == "scripted"]
        if model != "scripted" and on_scripted:
            warn(scripted_agent_model(model, named, on_scripted, len(chosen)))
    out = Path(request.out or top.out or DEFAULT_OUT).resolve()
    # Refused before any case runs, and by --dry-run, as proctor run refuses it.
    said = f"{config_file}: field 'out':" if top.out and not request.out else "--out"
    if unwritable := writable_problem(out, said):
        raise ConfigError(unwritable)
    check_writable(out)  # the temporary folder too, as the run checks it
    return EvalPlan(
        project,
        chosen,
        concurrency,
        reporters,
        top,
        config_file,
        model,
        named,
        agents,
        models,
        kinds,
        out,
    )


def run_evals(
    request: EvalRequest,
    subscribers: Sequence[Subscriber] = (),
    on_selected: Callable[[dict[tuple[str, int], str]], None] | None = None,
) -> EvalRunResult:
    """Run the selected evals; ``on_selected`` gets :func:`run_ids` before any case runs."""
    planned = plan_evals(request, on_selected)
    project, chosen, top, out = planned.project, planned.chosen, planned.top, planned.out
    model, named, agents, kinds = planned.model, planned.named, planned.agents, planned.kinds
    config_file, models = planned.config_file, planned.models
    set_project_root(project.root)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    source = out / "evals-src" / stamp
    CONVERSATIONS.clear()
    made = missing_folders(out)  # removed again, when empty, if the run is refused
    try:
        source.mkdir(parents=True)
    except OSError as exc:
        remove_empty_folders([source.parent, *made])
        said = (
            f"{config_file}: field 'out': {out}" if top.out and not request.out else f"--out {out}:"
        )
        raise ConfigError(f"{said} cannot be created ({exc.strerror or exc})") from exc
    for point, picked in chosen:
        point_agent = agents[point.case_name]
        judge = _judge(point, request, project)[0]
        timeout_ms = case_timeout_ms(point, request, project)
        _write_case(source / point.case_name, point, picked, point_agent, timeout_ms, judge)
        plan = _plan(point)  # as written: its steps are named so in a warning
        CONVERSATIONS[conversation_key(source / point.case_name)] = conversation_for(
            EvalCaseRun(
                point.id,
                point.test,
                point.iterations,
                timeout_ms / 1000,
                None,
                request.verbose,
                tuple(picked),
                # A real model ignores the plan: only the scripted agent or model plays it.
                plan if "scripted" in (kinds[point.case_name], model) else None,
            )
        )
    overrides = CliOverrides(
        concurrency=planned.concurrency,
        out=str(out),
        model="scripted" if model == "scripted" else None,
        # Each case's agent its model (the run's ``scripted`` is the model server, not a
        # model's name); an --agent-model for an agent no case runs on is checked as
        # proctor run checks it (an unknown agent is refused).
        agent_models={
            **{
                agents[name]: given
                for name, (given, where) in models.items()
                if given is not None and not (where == named and given == "scripted")
            },
            **request.agent_models,
        },
        agent_efforts=dict(request.agent_efforts),
        keep_workspace=request.keep_workspace,
    )
    runs = set(out.glob("run-*"))  # a stop before the run folder is made leaves no case either
    try:
        run = run_session(
            RunRequest(
                source=source,
                config=config_file,
                config_folder=request.dir,  # with none of its own, never the current folder's
                # Once, under no condition; its gates, not proctor.json's, decide (exit code).
                unread=("conditions", "gate"),
                overrides=overrides,
                reporters=tuple(planned.reporters),
                argv=request.argv,
                # The project's evals folder: two projects run into one results directory
                # are two suites, whatever their cases are called.
                suite=suite_of(project.root / "evals", out),
                eval_files=_eval_files(project.root / "evals", chosen),
                ends_command=True,  # `proctor eval` ends with it, as its files say
            ),
            list(subscribers),
        )
    except ConfigError as exc:
        _remove_unrun(source, made)  # nothing ran: leave no generated cases behind
        judges = {point.case_name: _judge(point, request, project)[1] for point, _ in chosen}
        raise ConfigError(_named_by_eval_files(str(exc), source, chosen, judges)) from exc
    except KeyboardInterrupt:
        if set(out.glob("run-*")) <= runs:  # stopped while its agents were checked: as above
            _remove_unrun(source, made)
        raise
    finally:
        CONVERSATIONS.clear()  # a later run in this process drives its cases as written
    summary = summarise(run.paths, run.records, chosen)
    code = int(ExitCode.INTERRUPTED) if run.suite.interrupted else exit_code_of(run.records)
    if run.suite.interrupted:
        # What a stopped run did, the cases it never started included (they have no result).
        summary.update(ok=False, interrupted=True, reason=run.suite.exit_reason)
    return EvalRunResult(run, summary, code, chosen)


def _named_by_eval_files(
    message: str,
    source: Path,
    chosen: list[tuple[EvalPoint, list[int]]],
    judges: Mapping[str, str] | None = None,
) -> str:
    """``message`` with each generated case file it names (``…/evals-src/<stamp>/<case>/
    config.json``) named as the eval file it came from: that is the file to mend. The judge a
    generated case names is named by where it was given (``judges``, by case: the eval file,
    ``evals.config.py`` or ``--judge-model``)."""
    for point, _ in chosen:
        where = (judges or {}).get(point.case_name)
        if where is not None:
            generated = f"{source / point.case_name / 'config.json'}: field 'models.judge'"
            named = where if where == "--judge-model" else f"{where}: judge"
            message = message.replace(generated, named)
        folder = re.escape(str(source / point.case_name))
        named = str(point.file).replace("\\", "\\\\")
        message = re.sub(folder + r"/([\w.]+)", named + r" (its generated \1)", message)
    return message


def _remove_unrun(source: Path, made: list[Path]) -> None:
    """The cases generated at ``source`` removed, with ``evals-src/`` when no earlier run left
    cases in it, and the results folder and those above it that this run ``made`` when they
    are empty: a refused run leaves no folder behind (docs/evals.md)."""
    shutil.rmtree(source, ignore_errors=True)
    remove_empty_folders([source.parent, *made])
