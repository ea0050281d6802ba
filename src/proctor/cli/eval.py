"""``proctor eval``: run evals written as code (``evals/**/*.eval.py``)."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.cli.options import (
    CONFIG_PATH,
    NAME,
    FiniteRange,
    ResultsFolder,
    agent_effort_option,
    agent_model_option,
    budget_option,
    case_option_of,
    keep_workspace_option,
    reporter_option,
)
from proctor.cli.signals import echo_unless_gone
from proctor.errors import ConfigError
from proctor.models.base import MAX_TIMEOUT_SEC
from proctor.models.io import dump_json
from proctor.util.cutting import masked_data, masked_head
from proctor.util.masking import mask
from proctor.util.text import controls_escaped, joined_lines, one_line, plural

if TYPE_CHECKING:
    from proctor.session.evals import EvalPlan, EvalRequest


@click.command("eval")
@click.argument("ids", nargs=-1, metavar="[ID_OR_PREFIX]...")
@click.option(
    "--dir",
    "root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="The project folder that holds evals/.",
)
@case_option_of("id (builds/api, tools/order/2 for an iteration)")
@click.option(
    "--tag", "tags", type=NAME, multiple=True, help="Run the evals with this tag (repeatable)."
)
@click.option("--list", "list_only", is_flag=True, help="Print the ids; run nothing.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print each case that would run, its agent, model, repeats and timeout; run nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON on stdout.")
@click.option(
    "--no-stream",
    is_flag=True,
    help="Keep stderr quiet: no progress, t.log lines or findings note (warnings still print).",
)
@click.option("--verbose", is_flag=True, help="Print t.log lines and reply snippets.")
@click.option(
    "--timeout",
    "timeout_sec",
    type=FiniteRange(min=0, min_open=True, max=MAX_TIMEOUT_SEC),
    help="Each case's time limit in seconds, over its eval's timeout_ms (as proctor run's "
    "--timeout; default: the eval's, else evals.config.py's, else 180).",
)
@click.option(
    "--timeout-ms",
    type=click.IntRange(min=1, max=86_400_000),
    help="--timeout in milliseconds (at most a day: 86400000).",
)
@click.option(
    "--agent",
    "agents",
    type=NAME,
    multiple=True,  # given twice, refused (proctor run's is repeatable: one run per agent here)
    help="The agent for every eval (default: the case's or eval's, else evals.config.py's, "
    "else scripted).",
)
@click.option(
    "--model",
    help="The model of every case's agent (default: evals.config.py's; --agent-model, for "
    "its agent, comes first; the scripted agent only names it in its transcript); 'scripted' "
    "runs a real CLI on proctor's scripted model.",
)
@agent_model_option
@agent_effort_option
@click.option("--judge-model", help="provider/model for t.judge when nothing nearer names one.")
@budget_option
@click.option(
    "--out",
    type=ResultsFolder(),
    help="Results folder (default: proctor.json's out, else ./proctor-results).",
)
@click.option(
    "--config",
    type=CONFIG_PATH,
    help="Top-level configuration file (default: DIR/proctor.json when present); - reads it "
    "from standard input.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1, max=200),
    help=(
        "Cases at once (at most the config's max_concurrency: a larger number is lowered to "
        "it, with a warning)."
    ),
)
@keep_workspace_option
@reporter_option
def command(
    ids: tuple[str, ...],
    root: Path,
    cases: tuple[str, ...],
    tags: tuple[str, ...],
    list_only: bool,
    dry_run: bool,
    as_json: bool,
    no_stream: bool,
    verbose: bool,
    timeout_sec: float | None,
    timeout_ms: int | None,
    agents: tuple[str, ...],
    model: str | None,
    agent_models: tuple[str, ...],
    agent_efforts: tuple[str, ...],
    judge_model: str | None,
    budget_usd: float | None,
    out: Path | None,
    config: Path | None,
    concurrency: int | None,
    keep_workspace: bool,
    reporters: tuple[str, ...],
) -> int:
    """Run evals written as code: ID_OR_PREFIX selects an id and everything below it, and
    --case GLOB the cases whose id matches.

    Exit codes: 0 every case passed or was skipped, 1 a case failed or timed out, 2
    configuration error or nothing to run, 3 cases in an error status but none failed, 130
    interrupted.
    """
    from proctor.agents.credentials import register_user_keys
    from proctor.cli.display import CostWarnings
    from proctor.cli.options import blank_refused, id_pairs
    from proctor.evals.discover import imported_once
    from proctor.execute.events import Subscriber
    from proctor.session.eval_choice import nothing_chosen, selection
    from proctor.session.eval_settings import project_config
    from proctor.session.evals import EvalRequest, listing, plan_evals, project_of, run_evals

    # Every key of the environment and ./.env is masked in what this run writes and prints.
    register_user_keys()
    if len(agents) > 1:  # proctor run's --agent runs each case on each: here, the last alone
        raise ConfigError(
            f"--agent given {len(agents)} times ({', '.join(agents)}): proctor eval runs every "
            "case on one agent; run it once per agent (proctor compare compares the runs)"
        )
    agent = agents[0] if agents else None
    blank_refused(("--agent", agent), ("--judge-model", judge_model))
    if list_only and dry_run:
        raise ConfigError(
            "--list prints the ids and --dry-run what a run would run: use one or the other"
        )
    if timeout_sec is not None and timeout_ms is not None:
        raise ConfigError(
            f"--timeout {timeout_sec:g} and --timeout-ms {timeout_ms} both give the time limit "
            "(--timeout in seconds, --timeout-ms in milliseconds): give one"
        )
    if timeout_sec is not None:  # (a limit under a millisecond is one)
        timeout_ms = max(1, round(timeout_sec * 1000))

    request = EvalRequest(
        dir=root,
        ids=ids,
        tags=tags,
        cases=cases,
        agent=agent,
        model=model,
        agent_models=id_pairs("--agent-model", agent_models),
        agent_efforts=id_pairs("--agent-effort", agent_efforts),
        judge_model=judge_model,
        timeout_ms=timeout_ms,
        out=out,
        config=config,
        concurrency=concurrency,
        keep_workspace=keep_workspace,
        reporters=tuple(reporters),  # split, and a blank name refused, as run splits them
        verbose=verbose and not no_stream,  # t.log lines stream to stderr
        argv=("proctor", *sys.argv[1:]),
    )
    # Each eval file is imported once by this command, however often its evals are read.
    click.get_current_context().with_resource(imported_once())
    _warn_misnamed(request)
    with _stdout_is_ours():
        # Every broken eval file (and, to run, every case's unknown agent, judge or plan)
        # named at once, not only the first: the user mends them in one go.
        _refuse_every_problem(request, cases_checked=not list_only)
    if list_only:
        with _stdout_is_ours():
            project = project_of(request)
        try:
            chosen = selection(request, project)
        except ConfigError:
            if as_json:  # an id that names no eval lists nothing, as a tag that names none
                echo_unless_gone("[]")
            raise
        rows = listing(project, chosen)
        if as_json:
            echo_unless_gone(dump_json(masked_data(rows)), nl=False)
        else:
            for row in rows:  # a line each, the eval's own text shown as one line
                tags_text = f" [{', '.join(row['tags'])}]" if row["tags"] else ""
                about = f"  {row['description']}" if row["description"] else ""
                echo_unless_gone(mask(joined_lines(f"{row['id']}{tags_text}{about}")))
        if not rows and (ids or tags):
            # As the run of the same selection: a filter that matches nothing is most likely
            # a typo, exit 2 (--json has printed its empty list).
            raise ConfigError(nothing_chosen(request, project))
        if not rows:  # an empty evals folder lists nothing, and says why on stderr
            click.echo(f"proctor: {nothing_chosen(request, project)}", err=True)
        return 0
    if dry_run:  # checked as the run would be; nothing runs, nothing is written
        with _stdout_is_ours():
            plan = plan_evals(request)
        if as_json:
            click.echo(
                "proctor: note: --dry-run prints the plan as text; --json applies to a run",
                err=True,
            )
        echo_unless_gone(_render_dry_run(plan, request))
        return 0
    # --budget-usd, else proctor.json's budgetUsd, as in proctor run.
    budget = budget_usd if budget_usd is not None else project_config(request)[0].budget_usd
    progress = EvalProgress(verbose)
    with _stdout_is_ours(), _notes_kept_quiet(no_stream):
        # The warnings proctor run prints (a model with no price, a failed classifier call).
        # (--budget-usd warns once when the estimated cost passes it, as in proctor run.)
        warnings = CostWarnings(budget)
        shown: list[Subscriber] = [warnings] if no_stream else [progress, warnings]
        result = run_evals(request, shown, progress.name_runs)
    if as_json:
        echo_unless_gone(dump_json(masked_data(result.summary)), nl=False)
    else:
        _print_summary(result.summary, verbose)
    if result.summary["interrupted"]:  # the cases it never started have no line above
        reason = mask(one_line(str(result.summary["reason"])))
        echo_unless_gone(f"proctor: exit {result.exit_code}: {reason}", err=True)
    return result.exit_code


def _warn_misnamed(request: EvalRequest) -> None:
    """A warning on stderr for each file of the evals folder that looks like an eval file but
    is not run, its name not ending ``.eval.py`` (``greet_eval.py``), by a run, ``--list`` and
    ``--dry-run`` alike. Said once the folder is imported; when it holds no eval file at all,
    the error that says so names them instead. A file named much as ``evals.config.py`` but
    never read (``eval.config.py``) is warned of the same way, once, with the name to give it."""
    from proctor.evals.discover import EvalFileProblems, misnamed_config_said, misnamed_said
    from proctor.session.evals import project_of

    with _stdout_is_ours():
        try:
            project, broken = project_of(request), False
        except EvalFileProblems as exc:
            project, broken = exc.project, True
        except ConfigError:
            return  # (no evals folder, say): the command's own error says it
    for path in project.misnamed_config:
        said = controls_escaped(mask(misnamed_config_said(path)))
        click.echo(f"proctor: warning: {said}", err=True)
    if not project.points and not broken:
        return  # the sentence that says the folder holds no *.eval.py file names them
    for path, line in project.misnamed:
        said = controls_escaped(mask(misnamed_said(path, line)))
        click.echo(f"proctor: warning: {said}", err=True)


def _refuse_every_problem(request: EvalRequest, cases_checked: bool) -> None:
    """Say every problem of the eval files at once, a line each, and stop (exit 2): each file
    that does not load and, when ``cases_checked`` (a run's, ``--dry-run``'s), each selected
    case's agent, judge and plan a run would refuse (every problem of a case), what
    ``evals.config.py`` and the flags hold wrong (its reporters, model, max_concurrency) and
    what ``proctor.json`` (or ``--config``'s file) does. One problem is the one sentence of the
    error. Nothing is said when the files load and at most one case has a problem: the run's
    own checks then stop at it, in their order."""
    from proctor.errors import Problems
    from proctor.evals.discover import EvalFileProblems
    from proctor.session.eval_choice import selection
    from proctor.session.eval_settings import point_problems, project_config, settings_problems
    from proctor.session.evals import project_of

    where = str(request.dir.resolve() / "evals")
    try:
        project = project_of(request)
        problems: list[str] = []
    except EvalFileProblems as exc:
        project, problems = exc.project, list(exc.problems)
    except ConfigError:
        return  # (no evals folder, say): the run's own error, said as the run reaches it
    if cases_checked:
        # The run's own settings first (evals.config.py's, the flags'), as the run checks them.
        found: list[str] = settings_problems(request, project)
        top = None
        try:  # proctor.json (or --config's file): every field of it that is wrong
            top = project_config(request)[0]
        except Problems as exc:
            found += exc.problems
        except ConfigError as exc:  # (malformed JSON: one sentence)
            found.append(str(exc))
        if top is None:  # named in the count too: it is no file of the evals folder
            config = request.config or request.dir / "proctor.json"
            # As its lines name it: a link (`--config -`'s /dev/stdin) not followed.
            where = f"{where} and {config.absolute()}"
        try:  # the cases of the files that loaded, as the run would choose them
            chosen = selection(request, project)
        except ConfigError:
            chosen = []  # the run's own error, said when the files load
        for point, _ in chosen:
            # Every problem of each case (its agent, judge and plan), not only its first;
            # its agent is not checked while proctor.json, which may name it, does not read.
            found += point_problems(point, request, project, top)
        if problems or len(set(found)) > 1:
            problems += found
    problems = list(dict.fromkeys(problems))  # (--agent nope: the same for every case)
    if len(problems) == 1:
        raise ConfigError(problems[0])
    if problems:
        for problem in problems:
            click.echo(f"proctor: error: {controls_escaped(mask(problem))}", err=True)
        done = "no eval was run" if cases_checked else "none was listed"
        raise ConfigError(f"{len(problems)} problems in {where}, each named above; {done}")


def _render_dry_run(plan: EvalPlan, request: EvalRequest) -> str:
    """``--dry-run``: a line each case, as ``proctor run --dry-run``'s matrix (a case picked
    by some of its iterations is named by theirs, in the order they run), then the run's
    concurrency, reporters and results folder."""
    from proctor.plan.render import MATRIX_GAPS, MATRIX_WIDTHS
    from proctor.session.eval_settings import case_timeout_ms
    from proctor.util.text import columns

    trials = sum(len(picked) for _, picked in plan.chosen)
    lines = [
        f"{plural(trials, 'trial')} in {plural(len(plan.chosen), 'case')}; nothing was run.",
        "",
    ]
    rows = [("case", "agent", "model", "repeats", "timeout")]
    for point, picked in plan.chosen:
        ids = point.ids()
        every = picked == list(range(1, point.iterations + 1))
        name = point.id if every else ", ".join(ids[i - 1] for i in picked)
        model = plan.models[point.case_name][0] or "-"
        timeout = case_timeout_ms(point, request, plan.project) / 1000
        rows.append((name, plan.agents[point.case_name], model, str(len(picked)), f"{timeout:g}s"))
    lines += [mask(joined_lines(line)) for line in columns(rows, MATRIX_WIDTHS, MATRIX_GAPS)]
    lines += [
        "",
        f"concurrency {plan.concurrency}; reporters {', '.join(plan.reporters)}; "
        f"results in {plan.out}",
    ]
    return "\n".join(lines)


@contextlib.contextmanager
def _stdout_is_ours() -> Iterator[None]:
    """While evals load and run, the process's stdout (file descriptor 1) is sent to stderr:
    a subprocess an eval starts writes there, not into this command's output (its --json).
    Python's own ``print`` in an eval is sent to stderr already."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout at all
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


FINDINGS_NOTE = "proctor: findings:"
"""How the note on what a run did to the findings ledger starts (``proctor run`` prints it)."""


class _NoFindingsNote(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        said = record.getMessage()  # before or after the command line's words are put in front
        return not said.startswith(FINDINGS_NOTE) and not said.startswith("findings:")


@contextlib.contextmanager
def _notes_kept_quiet(quiet: bool) -> Iterator[None]:
    """With ``--no-stream``, the note on what the run did to the findings ledger is not printed
    either: stderr stays quiet but for warnings, errors and what the evals print themselves.
    (``--json`` and the results directory say what ran; ``proctor findings`` lists the rest.)"""
    if not quiet:
        yield
        return
    note = _NoFindingsNote()
    logger = logging.getLogger("proctor")
    logger.addFilter(note)
    try:
        yield
    finally:
        logger.removeFilter(note)


class EvalProgress:
    """One line per finished case on stderr, with each of its warnings on a line of its own
    below it (``    warning: …``), as ``proctor run``'s progress shows a trial's."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.names: dict[tuple[str, int], str] = {}
        """Each trial's eval id (``tools/order/3``) by case folder and repeat."""

    def name_runs(self, names: dict[tuple[str, int], str]) -> None:
        self.names = names

    def __call__(self, event: object) -> None:
        from proctor.execute.events import TrialFinished
        from proctor.session.eval_results import shown_status

        if not isinstance(event, TrialFinished):
            return
        r = event.record
        status = shown_status(r)  # a case the stop cut short is interrupted, not an error
        mark = {"passed": "✓", "failed": "✗", "skipped": "-"}.get(status, "!")
        # One line, as proctor run's trial line: a reason's line breaks (an error's message)
        # are spaces here (its other spaces kept: a repr of code); the records keep it whole.
        said = r.reason if status == "interrupted" else f"{status}: {r.reason}"
        tail = "" if status == "passed" else f"  {joined_lines(said)}"
        name = joined_lines(self.names.get((r.case, r.repeat), f"{r.case}#{r.repeat}"))
        click.echo(mask(f"{mark} {name} ({r.timings.total_ms / 1000:.1f}s){tail}"), err=True)
        for warning in r.warnings:  # decides nothing, but the case ran less than written
            click.echo(f"    warning: {mask(one_line(warning))}", err=True)


def _print_summary(summary: dict[str, object], verbose: bool) -> None:
    """The results, a case a few lines, every registered key masked (an eval's description,
    its assertions' names and messages and its logs are the eval's own text). An assertion,
    a warning, an error and a reason are a line each, as in the progress (their full text is
    in ``--json`` and the records)."""
    summary = masked_data(summary)
    results = summary["results"]
    assert isinstance(results, list)
    for r in results:
        mark = "-" if r["skipped"] else ("✓" if r["ok"] else "✗")
        echo_unless_gone(f"{mark} {r['id']}  {r['status']}  {r['durationMs'] / 1000:.1f}s")
        for a in r["assertions"]:
            if not a["passed"] or verbose:
                soft = " (soft)" if a["soft"] else ""
                why = f": {a['message']}" if a["message"] else ""
                if not a["passed"] and a.get("at"):
                    why += f" (at {a['at']})"  # the line of the eval file that called it
                state = "ok  " if a["passed"] else "FAIL"
                echo_unless_gone(f"    {state} {joined_lines(str(a['name']) + soft + why)}")
        for warning in r["warnings"]:  # decides nothing, but the case ran less than written
            echo_unless_gone(f"    warning: {one_line(warning)}")
        if r["error"] and r["status"] == "timeout":  # a failure (exit 1), not an error
            echo_unless_gone(f"    why: {joined_lines(r['error'])}")
        elif r["error"]:
            echo_unless_gone(f"    error: {joined_lines(r['error'])}")
        elif not r["ok"] and not any(not a["passed"] for a in r["assertions"]) and r["reason"]:
            # a failure no assertion explains
            echo_unless_gone(f"    why: {joined_lines(r['reason'])}")
        if verbose:
            for line in r["logs"]:
                echo_unless_gone(f"    log: {joined_lines(line)}")
            if r["finalText"]:  # the agent's text: its control characters shown, not obeyed
                reply = joined_lines(masked_head(str(r["finalText"]), 200))
                echo_unless_gone(f"    reply: {reply}")
    # The cases a stop cut short, apart from the errors (as proctor run's exit reason counts
    # them), said only when there are any.
    cut = f", {summary['cutShort']} interrupted" if summary.get("cutShort") else ""
    echo_unless_gone(
        f"{summary['passed']} passed, {summary['failed']} failed, {summary['skipped']} skipped, "
        f"{summary['errored']} errored{cut}  ({summary['runDir']})"
    )
