"""``proctor validate``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from proctor.cli.options import (
    NAME,
    agent_effort_option,
    agent_model_option,
    case_option,
    condition_option,
    config_option,
    first_condition_option,
    id_pairs,
    mode_option,
    only_evaluator_option,
    role_models,
    skip_evaluator_option,
    source_option,
    tag_option,
)
from proctor.cli.signals import echo_unless_gone
from proctor.util.json_shown import name_shown
from proctor.util.text import plural

if TYPE_CHECKING:
    from proctor.models.plan import ResolvedCase, RunPlan


@click.command("validate")
@source_option
@config_option
@click.option(
    "--source-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where task files' repository labels are resolved (read only).",
)
@click.option(
    "--agent", "agents", type=NAME, multiple=True, help="Agent id to check, as run's (repeatable)."
)
@case_option
@tag_option
@condition_option
@first_condition_option
@mode_option
@click.option(
    "--model",
    "backend",
    type=click.Choice(["scripted", "provider"]),
    help="As run's: scripted needs no agent credentials.",
)
@agent_model_option
@agent_effort_option
@only_evaluator_option
@skip_evaluator_option
@click.option("--fast-model", help="provider/model for the fast role, as run's.")
@click.option("--workhorse-model", help="provider/model for the workhorse role, as run's.")
@click.option("--judge-model", help="provider/model for the judge role, as run's.")
@click.option(
    "--check-keys",
    is_flag=True,
    help="Also send one cheap request per provider proctor's own roles call, as run does "
    "before its first trial: a refused key is a problem.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (cases, skipped, problems, warnings, ok) instead of the lines; "
    "exit codes unchanged.",
)
def command(
    source: Path,
    config: Path | None,
    source_root: Path | None,
    agents: tuple[str, ...],
    cases: tuple[str, ...],
    tags: tuple[str, ...],
    conditions: tuple[str, ...],
    first_condition: str | None,
    mode: str | None,
    backend: str | None,
    agent_models: tuple[str, ...],
    agent_efforts: tuple[str, ...],
    only_evaluators: tuple[str, ...],
    skip_evaluators: tuple[str, ...],
    fast_model: str | None,
    workhorse_model: str | None,
    judge_model: str | None,
    check_keys: bool,
    as_json: bool,
) -> int:
    """List runnable and skipped cases and validate every configuration, and check the agent
    CLIs the planned trials run (installed, at the pinned version, with credentials) as run does.

    Every problem of every case is reported in one pass. Exits 0 when everything is valid and
    something is runnable, 2 otherwise. Give it run's options that choose what runs (--agent,
    --case, --tag, --condition, --first-condition, --mode, --model, --agent-model,
    --agent-effort, --only-evaluator, --skip-evaluator and role models) to check what that run
    would use (a role's key included), and refuse what it would refuse; --check-keys also
    asks each provider whether it takes the key, as run does before its first trial. --json
    prints what it found as one JSON object on stdout (warnings in it, not on stderr).
    """
    from proctor.errors import ConfigError
    from proctor.models.config import CliOverrides
    from proctor.paths import current_folder
    from proctor.plan.checks import (
        check_out_outside_cases,
        preflight_problems,
        profile_warnings,
        writable_problem,
    )
    from proctor.plan.efforts import effort_warnings
    from proctor.plan.resolve import load_run_plan

    here = current_folder()  # None: gone (whole paths only, no ./proctor.json nor ./.env)
    overrides = CliOverrides(
        source_root=str(source_root) if source_root else None,
        agents=list(agents),
        cases=list(cases),
        tags=list(tags),
        conditions=list(conditions),
        first_condition=first_condition,
        mode=mode,
        model=backend,
        agent_models=id_pairs("--agent-model", agent_models),
        agent_efforts=id_pairs("--agent-effort", agent_efforts),
        only_evaluators=list(only_evaluators),
        skip_evaluators=list(skip_evaluators),
        role_models=role_models(fast_model, workhorse_model, judge_model),
    )
    problems: list[str] = []
    others: list[str] = []  # a case --case or --tag leaves out, whose problem run warns about
    plan = load_run_plan(source, config, overrides, here, problems, others=others)
    for folder, what in (
        (plan.out, "the results directory"),
        (Path(tempfile.gettempdir()), "the temporary folder (scratch homes)"),
    ):
        unwritable = writable_problem(folder, what)
        if unwritable:
            problems.append(unwritable)
    try:
        check_out_outside_cases(plan.out, plan.cases, what="the results directory")
    except ConfigError as exc:
        problems.append(str(exc))
    # The agent CLIs, as run checks them before any trial: installed (where the profile's
    # binary, .agents or PATH has them), at the pinned version, with credentials to lend.
    problems.extend(preflight_problems(plan.trials))
    warnings: list[str] = []

    def warned(warning: str) -> None:
        warnings.append(warning)
        if not as_json:
            click.echo(f"proctor: warning: {warning}", err=True)

    # As run says them: an effort given an agent that takes none too, wherever it was set.
    for warning in [*others, *profile_warnings(plan.trials), *effort_warnings(plan.trials)]:
        warned(warning)
    keys_said: list[str] = []
    keys_tried = False  # a provider warned about or refusing its key: something was checked
    if check_keys:
        from proctor.plan.checks import check_keys as check_role_keys

        def warn(message: str) -> None:
            nonlocal keys_tried
            keys_tried = True
            warned(message)

        from proctor.llm.keycheck import KeysRefused

        try:
            keys_said = check_role_keys(plan.trials, here, warn, before_run=False)
        except KeysRefused as exc:
            # The providers that took their keys are said too, beside the one that refused.
            keys_tried, keys_said = True, exc.answered
            problems.append(str(exc))
        except ConfigError as exc:
            keys_tried = True
            problems.append(str(exc))
    if check_keys and not keys_said and not keys_tried:
        keys_said = ["none checked: no role calls a provider with a key of its own"]
    if as_json:
        return _print_json(source, plan, problems, warnings, keys_said if check_keys else None)
    for rc in plan.cases:
        extras = _extras(rc)
        # A/B conditions (a case without any runs under `default` alone: not said).
        named = list(rc.conditions)
        said = f"conditions {', '.join(named)}; " if named != ["default"] else ""
        echo_unless_gone(
            f"ok       {name_shown(rc.name)}: agents {', '.join(rc.agents)}; {said}"
            f"repeats {rc.repeats}; "
            f"{plural(len(rc.evaluators), 'evaluator')}"
            + (f"; {'; '.join(extras)}" if extras else "")
        )
    for s in plan.skipped:
        echo_unless_gone(f"skipped  {name_shown(s.name)}: {s.reason}")
    if check_keys:
        for said in keys_said:
            echo_unless_gone(f"keys     {said}")
    if len(problems) > 1:  # one problem is the one sentence of the error below
        for problem in problems:
            click.echo(f"proctor: error: {problem}", err=True)
    # Of the cases found, when not every one is runnable: `--agent typo` or `--case typo`
    # leaves every case of the suite out, and "0 runnable" alone reads as an empty suite;
    # those the options did not choose are counted apart, as they are not broken.
    unchosen = plan.found - plan.chosen
    apart = f" ({unchosen} not chosen)" if unchosen > 0 else ""
    found = f" of {plural(plan.found, 'case')} found{apart}" if plan.found > len(plan.cases) else ""
    echo_unless_gone(
        # Problems, not cases: one case may have several, and proctor.json its own.
        f"{len(plan.cases)} runnable{found}, {len(plan.skipped)} skipped, {len(problems)} "
        f"{'problem' if len(problems) == 1 else 'problems'}, {plural(len(plan.trials), 'trial')}"
    )
    if len(problems) == 1:
        raise ConfigError(problems[0])
    if problems:
        raise ConfigError(f"{len(problems)} configuration problems, each named above")
    if not plan.cases:
        from proctor.plan.resolve import nothing_runnable

        raise nothing_runnable(source, plan)
    return 0


def _extras(rc: ResolvedCase) -> list[str]:
    """What the case's line says after its counts: its fixture, plan, questions."""
    extras = []
    if rc.case.fixture:
        extras.append(f"fixture {rc.case.fixture.name}")
    if rc.case.plan is not None:
        extras.append("plan.json")
    if rc.case.qna_rules:
        extras.append(f"{plural(len(rc.case.qna_rules), 'qna rule')}")
    if rc.case.plan is None and "scripted" in rc.agents:
        extras.append("no plan.json: the scripted agent will do nothing")
    return extras


def _print_json(
    source: Path,
    plan: RunPlan,
    problems: list[str],
    warnings: list[str],
    keys: list[str] | None,
) -> int:
    """``validate --json``: what it found as one JSON object on stdout; exit 2 (its sentence on
    stderr) on any problem or when nothing is runnable, as without --json."""
    import json

    from proctor.errors import ConfigError
    from proctor.plan.resolve import nothing_runnable

    if not plan.cases:
        problems = [*problems, str(nothing_runnable(source, plan))]
    cases = []
    for rc in plan.cases:
        trials = [t for t in plan.trials if t.case.name == rc.name]
        planned: dict[tuple[str, str | None], list[str]] = {}
        for t in trials:
            conditions = planned.setdefault((t.agent, t.mode), [])
            if t.condition not in conditions:
                conditions.append(t.condition)
        cases.append(
            {
                "name": rc.name,
                "path": str(rc.case.path),
                "agents": list(rc.agents),
                "conditions": list(dict.fromkeys(t.condition for t in trials)),
                "planned": [
                    {"agent": agent, "mode": mode, "conditions": conditions}
                    for (agent, mode), conditions in planned.items()
                ],
                "repeats": rc.repeats,
                "evaluators": len(rc.evaluators),
                "trials": len(trials),
                "notes": _extras(rc),
            }
        )
    found: dict[str, Any] = {
        "ok": not problems,
        "source": str(source),
        "found": plan.found,
        "chosen": plan.chosen,
        "cases": cases,
        "skipped": [
            {"name": s.name, "path": str(s.path), "reason": s.reason} for s in plan.skipped
        ],
        "problems": [{"message": p, "file": _file_of(p)} for p in problems],
        "warnings": warnings,
        "trials": len(plan.trials),
    }
    if keys is not None:
        found["keys"] = keys
    echo_unless_gone(json.dumps(found, indent=2, ensure_ascii=False))
    if len(problems) == 1:
        raise ConfigError(problems[0])
    if problems:
        raise ConfigError(f"{len(problems)} configuration problems, each named in the JSON")
    return 0


def _file_of(problem: str) -> str | None:
    """The file a problem's sentence starts with (``cases/x/config.json: …``, or a name shown
    as JSON writes it, ``"cases/fix ": …``), when it names one that exists; else None."""
    head, sep, _ = problem.partition(": ")
    if sep and len(head) > 1 and head[0] == head[-1] == '"':
        try:
            head = json.loads(head)
        except ValueError:
            return None
    elif not sep or not head or " " in head.strip("/"):
        return None
    try:
        return head if Path(head).exists() else None
    except (OSError, ValueError):
        return None
