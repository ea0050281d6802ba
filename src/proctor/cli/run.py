"""``proctor run``."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.cli.inline import forget_inline, inline_source, named_by_options
from proctor.cli.options import (
    CONFIG_FROM_STDIN,
    NAME,
    FiniteRange,
    GivenPath,
    ResultsFolder,
    agent_effort_option,
    agent_model_option,
    blank_refused,
    budget_option,
    case_option,
    condition_option,
    config_option,
    first_condition_option,
    given_options,
    id_pairs,
    keep_workspace_option,
    mode_option,
    only_evaluator_option,
    reporter_option,
    role_models,
    skip_evaluator_option,
    source_option,
    tag_option,
)
from proctor.cli.signals import echo_unless_gone
from proctor.models.base import MAX_TIMEOUT_SEC
from proctor.models.io import dump_json
from proctor.util.masking import mask
from proctor.util.text import one_line

if TYPE_CHECKING:
    from proctor.execute.events import Subscriber
    from proctor.models.plan import RunPlan
    from proctor.session import RunRequest

log = logging.getLogger("proctor")

MAX_REPEAT_CHECK = 100
"""The most repetitions ``--repeat-check`` runs: each is a whole run folder of the
deterministic trials, and a difference shows up within a few."""


@click.command("run")
@source_option
@click.option("--agent", "agents", type=NAME, multiple=True, help="Agent id to run (repeatable).")
@case_option
@tag_option
@condition_option
@first_condition_option
@click.option(
    "--source-root",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where task files' repository labels are resolved (read only).",
)
@mode_option
@click.option(
    "--model",
    "backend",
    type=click.Choice(["scripted", "provider"]),
    help="scripted: real CLIs talk to proctor's scripted model server (zero tokens).",
)
@agent_model_option
@agent_effort_option
@click.option("--fast-model", help="provider/model for the fast role (classification).")
@click.option("--workhorse-model", help="provider/model for the workhorse role (answers).")
@click.option("--judge-model", help="provider/model for the judge role (llm-judge).")
@budget_option
@click.option("--repeats", type=click.IntRange(min=1, max=10_000), help="Repeats per case × agent.")
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    help="Trials run at the same time (with --resume: left out, the run's own).",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    help="Where trials run: worker processes here (default), or Ray tasks (docs/scale.md).",
)
@click.option(
    "--ray-address",
    metavar="ADDR",
    help="With --executor ray: the cluster's head (HOST:PORT; default: Ray's own choice).",
)
@click.option(
    "--timeout",
    "timeout_sec",
    type=FiniteRange(min=0, min_open=True, max=MAX_TIMEOUT_SEC),
    help="Per-trial timeout in seconds.",
)
@click.option(
    "--out",
    type=ResultsFolder(),
    help="Results folder (default: proctor.json's out, else ./proctor-results).",
)
@config_option
@click.option("--dry-run", is_flag=True, help="Print the resolved matrix and config; run nothing.")
@click.option(
    "--manifest",
    type=GivenPath(
        "a repeat manifest file, or - for standard input",
        dir_okay=False,
        exists=True,
        allow_dash=True,
    ),
    help="Run a repeat manifest (proctor plan-repeats): one run per pair, in its order, one "
    "repeat each (the pairs are the repeats); - (or a pipe) reads it from standard input.",
)
@click.option(
    "--prompt",
    "prompt",
    metavar="FILE_OR_TEXT",
    help="Run one case made from this prompt (a file, or the text itself) instead of --source.",
)
@click.option(
    "--qna", type=click.Path(path_type=Path, dir_okay=False), help="With --prompt: its qna.md."
)
@click.option(
    "--eval",
    "eval_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="With --prompt: evaluators (JSON) or a rubric (Markdown) for --evaluate.",
)
@click.option(
    "--src",
    type=click.Path(path_type=Path),
    help="With --prompt: the workspace's starting files (a folder or a zip).",
)
@click.option(
    "--evaluate/--no-evaluate",
    default=None,
    help="Run the evaluators (default; with --prompt only when asked), or only run and record.",
)
@only_evaluator_option
@skip_evaluator_option
@click.option(
    "--collect-cost/--no-collect-cost",
    default=True,
    help="Price the tokens (default), or leave every cost unknown.",
)
@click.option(
    "--retry-errors",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Run a trial again (up to N times) when it ends in a transient error (with "
    "--resume: a kept one too; left out, a resume keeps the run's own).",
)
@click.option(
    "--resume",
    "resume",
    type=GivenPath("the folder of the run to finish", file_okay=False),
    metavar="RUN_DIR",
    is_eager=True,  # read first: --config beside it is refused as the resume refuses it
    help="Finish an interrupted run with its own configuration (finished trials are kept).",
)
@click.option(
    "--repeat-check",
    "repeat_check",
    type=click.IntRange(min=2, max=MAX_REPEAT_CHECK),
    metavar="N",
    help="Run the deterministic trials (scripted agent) N times (2 to 100); exit 1 if any "
    "result differs.",
)
@click.option(
    "--recorded",
    "recorded",
    type=GivenPath("the folder of a stored run", file_okay=False),
    metavar="RUN_DIR",
    help="With --repeat-check: also re-evaluate the trials of this stored run that kept "
    "their workspace (a real agent's, or recorded), N times.",
)
@click.option("--mirror", is_flag=True, help="Stream the agent's terminal live.")
@keep_workspace_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print suite.json to stdout (--reporter json)."
)
@reporter_option
def command(
    source: Path,
    agents: tuple[str, ...],
    cases: tuple[str, ...],
    tags: tuple[str, ...],
    conditions: tuple[str, ...],
    first_condition: str | None,
    source_root: Path | None,
    mode: str | None,
    backend: str | None,
    agent_models: tuple[str, ...],
    agent_efforts: tuple[str, ...],
    fast_model: str | None,
    workhorse_model: str | None,
    judge_model: str | None,
    budget_usd: float | None,
    repeats: int | None,
    concurrency: int | None,
    executor: str,
    ray_address: str | None,
    timeout_sec: float | None,
    out: Path | None,
    config: Path | None,
    dry_run: bool,
    repeat_check: int | None,
    recorded: Path | None,
    resume: Path | None,
    retry_errors: int | None,
    manifest: Path | None,
    prompt: str | None,
    qna: Path | None,
    eval_file: Path | None,
    src: Path | None,
    evaluate: bool | None,
    only_evaluators: tuple[str, ...],
    skip_evaluators: tuple[str, ...],
    collect_cost: bool,
    mirror: bool,
    keep_workspace: bool,
    as_json: bool,
    reporters: tuple[str, ...],
) -> int:
    """Run every case under --source on its agents and gate on the results.

    Writes each chosen reporter's file into the run folder (suite.md and suite.json always,
    junit.xml when asked) and prints one report: JSON with --json, else the Markdown report
    when it is chosen (the default), else the first chosen. With
    --repeat-check N it prints the repeat check's summary instead (docs/repeat-check.md).
    """
    from proctor.agents.credentials import register_user_keys
    from proctor.cli.display import CostWarnings, make_display
    from proctor.errors import ConfigError
    from proctor.models.config import CliOverrides
    from proctor.paths import names_stdin
    from proctor.report.reporters import printed, reporter_names
    from proctor.session import RunRequest, plan_run, run_plan

    # Every key of the environment and ./.env is masked in what this run writes and prints.
    register_user_keys()

    _check_executor(executor, ray_address, resume, mirror)
    # (what each names, however it is spelled: --manifest /dev/fd/0 --config - both read it)
    config_given = click.get_current_context().meta.get(CONFIG_FROM_STDIN)
    if manifest is not None and names_stdin(manifest) and config_given is not None:
        raise ConfigError(
            f"--manifest {manifest} and --config {config_given} both read standard input, "
            "which holds one of them: give the other as a file"
        )
    if repeat_check is not None and dry_run:
        raise ConfigError(
            "--repeat-check runs the suite and --dry-run runs nothing: use one or the other"
        )
    if recorded is not None and repeat_check is None:
        raise ConfigError("--recorded RUN_DIR is re-evaluated by --repeat-check N: give it too")
    overrides = CliOverrides(
        agents=list(agents),
        cases=list(cases),
        tags=list(tags),
        repeats=repeats,
        concurrency=concurrency,
        timeout_sec=timeout_sec,
        out=str(out) if out else None,
        keep_workspace=keep_workspace,
        mirror=mirror,
        retry_errors=retry_errors or 0,
        evaluate=evaluate is not False,
        only_evaluators=list(only_evaluators),
        skip_evaluators=list(skip_evaluators),
        collect_cost=collect_cost,
        conditions=list(conditions),
        first_condition=first_condition,
        source_root=str(source_root) if source_root else None,
        mode=mode,
        model=backend,
        agent_models=id_pairs("--agent-model", agent_models),
        agent_efforts=id_pairs("--agent-effort", agent_efforts),
        role_models=role_models(fast_model, workhorse_model, judge_model),
        budget_usd=budget_usd,  # (config.json records it: a resume warns at it too)
    )
    names = reporter_names(reporters or (["json"] if as_json else ["markdown"]))
    if as_json and "json" not in names:
        names.append("json")
    if resume is not None:  # (before --prompt writes its case, or --manifest plans)
        # They change no trial's result: how many run at once, what is kept and shown of them,
        # the budget's warning.
        kept = ("retry_errors", "concurrency", "keep_workspace", "mirror")
        aside = {"retry_errors": 0, "concurrency": None, "keep_workspace": False, "mirror": False}
        aside["budget_usd"] = None
        changed = overrides.model_copy(update=aside) != CliOverrides()
        taken = frozenset({"resume", "reporters", "as_json", "budget_usd", *kept})
        given = given_options(click.get_current_context(), taken)
        if given or changed or source != Path(".") or config or dry_run:
            drop = f"drop {', '.join(given)}; " if given else ""
            raise ConfigError(
                f"--resume takes the run's own cases and configuration: {drop}give it alone "
                "(with --reporter, --json, --budget-usd, --retry-errors, --concurrency, "
                "--keep-workspace or --mirror at most; another would make the trials it runs "
                "unlike those it keeps)"
            )
        # None given: the run's own reporters, as it recorded them.
        shown = tuple(names) if reporters or as_json else ()
        # Given, even 0, it stands for the run's own; left out (None), the run's own holds.
        from proctor.cli.resume import resume_command

        return resume_command(
            resume, shown, budget_usd, as_json, retry_errors, concurrency, keep_workspace, mirror
        )
    suite = None
    if prompt is not None:
        from proctor.session.inline import inline_suite

        unasked = evaluate is None  # (--no-evaluate typed is named as such)
        source, evaluate = inline_source(prompt, qna, eval_file, src, evaluate, source, out, config)
        overrides = overrides.model_copy(
            update={"evaluate": evaluate, "prompt_without_evaluate": unasked}
        )
        suite = inline_suite(source)
    elif any(v is not None for v in (qna, eval_file, src)):
        raise ConfigError("--qna, --eval and --src describe an inline case: give --prompt too")
    if manifest is not None:
        # The manifest sets each pair's tasks, conditions and their order, and runs each pair
        # once (its pairs are the repeats): these options would be overridden in silence.
        given = [
            name
            for name, value in (
                ("--prompt", prompt),
                ("--resume", resume),
                ("--dry-run", dry_run or None),
                ("--repeat-check", repeat_check),
                ("--repeats", repeats),
                ("--case", cases or None),
                ("--condition", conditions or None),
                ("--first-condition", first_condition),
            )
            if value is not None
        ]
        if given:
            hint = (
                " (a manifest runs each pair once, each condition once per task: its pairs "
                "are the repeats, `proctor plan-repeats --pairs N` sets how many)"
                if repeats is not None
                else ""
            )
            raise ConfigError(f"--manifest runs its own plan: drop {', '.join(given)}{hint}")
        from proctor.cli.manifest import run_manifest

        return run_manifest(
            manifest,
            source,
            config,
            overrides,
            tuple(names),
            budget_usd,
            executor,
            ray_address,
            as_json,
        )
    request = RunRequest(
        source=source,
        config=config,
        overrides=overrides,
        reporters=tuple(names),
        executor=executor,
        executor_address=ray_address,
        argv=("proctor", *sys.argv[1:]),
        suite=suite,
        ends_command=repeat_check is None,  # --repeat-check runs several
    )
    try:
        plan = plan_run(request)
    except ConfigError as exc:
        if prompt is None:
            raise
        forget_inline(source)  # refused: the case never ran, and is not kept
        raise ConfigError(named_by_options(str(exc), source, eval_file, qna)) from exc
    from proctor.session.scripted_model import warn_flags_not_taken

    warn_flags_not_taken(overrides, plan.trials)
    for skipped in plan.skipped:
        click.echo(
            f"proctor: skipped case '{one_line(skipped.name)}': {one_line(skipped.reason)}",
            err=True,
        )
    if not plan.trials:
        from proctor.plan.resolve import nothing_runnable

        raise nothing_runnable(source, plan)
    from proctor.session.repeats import plan_order_note

    if note := plan_order_note(plan.trials, plan.overrides.first_condition):
        click.echo(f"proctor: note: {note}", err=True)
    if dry_run:
        from proctor.plan.checks import check_out_outside_cases, check_writable
        from proctor.plan.render import render_dry_run
        from proctor.session.start import cluster_sized

        try:  # refused as the run itself would be
            check_out_outside_cases(plan.out, plan.cases)
            check_writable(plan.out)
        except ConfigError:
            if prompt is not None:
                forget_inline(source)
            raise
        if as_json:
            click.echo(
                "proctor: note: --dry-run prints the plan as text; --json applies to a run",
                err=True,
            )
        echo_unless_gone(render_dry_run(plan, cluster_sized=cluster_sized(plan, request)))
        if prompt is not None:
            forget_inline(source)
        return 0
    budget = budget_usd or plan.top.budget_usd
    if repeat_check is not None:
        return _repeat_check(plan, request, repeat_check, recorded, mirror, budget, as_json)
    result = run_plan(plan, request, [make_display(mirror), CostWarnings(budget)])
    # One document on stdout; each reporter named writes its file into the run folder.
    # A terminal closed (SIGHUP) takes stdout and stderr with it: the run still ends as it was.
    echo_unless_gone(result.outputs[printed(names, as_json)], nl=False)
    echo_unless_gone(f"proctor: results in {result.paths.root}", err=True)
    echo_unless_gone(
        f"proctor: exit {result.suite.exit_code}: {mask(one_line(result.suite.exit_reason))}",
        err=True,
    )
    if result.left:
        echo_unless_gone(
            f"proctor: `proctor run --resume {result.paths.root}` finishes it", err=True
        )
    return result.suite.exit_code


def _repeat_check(
    plan: RunPlan,
    request: RunRequest,
    repetitions: int,
    recorded: Path | None,
    mirror: bool,
    budget: float | None,
    as_json: bool,
) -> int:
    """``--repeat-check N``: the deterministic trials N times, compared; prints the summary.
    The budget is the whole command's, as ``--manifest``'s is: one warning once the
    repetitions together spent more than it (and one per unpriced model, not one a repetition)."""
    from proctor.cli.display import CostWarnings, make_display
    from proctor.session.repeat_check import repeat_plan

    started = 0
    warnings = CostWarnings(budget)

    def subscribers() -> list[Subscriber]:
        nonlocal started
        started += 1
        click.echo(f"proctor: repetition {started} of {repetitions}", err=True)
        return [make_display(mirror), warnings]

    check = repeat_plan(plan, request, repetitions, subscribers, recorded)
    from proctor.session.step_summary import append_step_summary

    append_step_summary(check.markdown())  # not each repetition's report
    if as_json:
        echo_unless_gone(dump_json(check.to_dict()), nl=False)
    else:
        echo_unless_gone(check.markdown(), nl=False)
    if check.compared and check.evaluators == 0:
        click.echo(
            "proctor: warning: the repeat check compared no evaluator result (none ran, or "
            "every one is model-backed)",
            err=True,
        )
    first = f"; first: {check.differences[0].sentence()}" if check.differences else ""
    click.echo(f"proctor: repeat check: {mask(one_line(check.verdict + first))}", err=True)
    return check.exit_code


def _check_executor(
    executor: str, ray_address: str | None, resume: Path | None, mirror: bool = False
) -> None:
    """``--executor ray`` needs Ray installed and a cluster that answers at ``--ray-address``
    (both checked before anything runs); ``--ray-address`` needs ``--executor ray``;
    ``--resume`` finishes a run here, with the local executor; ``--mirror`` streams terminals
    of this machine, and a Ray trial's is on its node."""
    from proctor.errors import ConfigError

    blank_refused(("--ray-address", ray_address))  # else Ray's own cluster, or a new one
    if resume is not None and (executor == "ray" or ray_address is not None):
        given = ["--executor ray"] if executor == "ray" else []
        given += ["--ray-address"] if ray_address is not None else []
        raise ConfigError(f"--resume finishes a run on this machine: drop {' and '.join(given)}")
    if ray_address is not None and executor != "ray":
        raise ConfigError("--ray-address names a Ray cluster: give --executor ray too")
    if executor == "ray" and mirror:
        raise ConfigError(
            "--mirror streams the terminals of trials on this machine, and on Ray they run on "
            "the nodes: drop --mirror or --executor ray"
        )
    if executor == "ray":
        from proctor.execute.ray_cluster import import_ray
        from proctor.execute.ray_executor import check_reachable

        import_ray()
        check_reachable(ray_address)
