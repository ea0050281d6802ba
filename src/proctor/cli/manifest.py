"""``proctor run --manifest FILE``: the runs of a repeat manifest, one per pair, in turn; run
again after an interrupt, the pairs that finished are kept and the one cut short resumed."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.cli.manifest_stops import (
    _manifest_interrupted,
    _manifest_refused,
    _met_refusal,
    _refused_in,
)
from proctor.cli.manifest_stops import (
    manifest_shown as manifest_shown,
)
from proctor.cli.signals import echo_unless_gone
from proctor.util.masking import mask
from proctor.util.text import one_line, plural

if TYPE_CHECKING:
    from proctor.cli.display import CostWarnings
    from proctor.models.config import CliOverrides
    from proctor.models.plan import RunPlan, TrialSpec
    from proctor.models.run import ManifestRun, RepeatManifest
    from proctor.session import RunRequest
    from proctor.session.resume import ResumePlan


def run_manifest(
    path: Path,
    source: Path,
    config: Path | None,
    overrides: CliOverrides,
    names: tuple[str, ...],
    budget: float | None,
    executor: str = "local",
    ray_address: str | None = None,
    as_json: bool = False,
) -> int:
    """``--manifest FILE``: each run of the manifest in turn; the exit code of them all read
    as one sample set, and their report (the one ``names`` and ``as_json`` print), printed
    and appended to the CI's job summary in place of each pair's own. With ``junit`` named,
    the JUnit file of them all is ``<out>/junit.xml``, and no pair writes its own: judged over
    that pair alone, it could be red when the exit code is 0 (or green when it is not), and a
    CI reading every ``junit.xml`` under the results would show it."""
    from proctor.errors import ProctorError
    from proctor.plan.choosing import LEFT_UNREAD
    from proctor.session.step_summary import step_summary_held
    from proctor.util.logs import said_once

    pair_names = tuple(name for name in names if name != "junit")
    junit = results_base(config, overrides) / "junit.xml" if "junit" in names else None
    if junit is not None:  # an earlier manifest's file never stands for this one
        junit.unlink(missing_ok=True)
    try:
        with step_summary_held(), said_once(LEFT_UNREAD):  # said of the source once, not per pair
            run_dirs = _run_pairs(
                path, source, config, overrides, pair_names, budget, executor, ray_address
            )
    except ProctorError as exc:  # exit 2
        _stopped_junit(junit, path, 2, str(exc))
        raise
    if isinstance(run_dirs, int):  # interrupted
        why = "interrupted; the same command again finishes the manifest"
        _stopped_junit(junit, path, run_dirs, why)
        return run_dirs
    return _pooled(run_dirs, config, names, as_json, junit)


def _stopped_junit(junit: Path | None, path: Path, code: int, reason: str) -> None:
    """The manifest's JUnit file, when one is asked for, of a manifest stopped with ``code``
    before its runs could be read as one: an error, as the exit code is not 0."""
    if junit is None:
        return
    from proctor.models.io import write_text_atomic
    from proctor.report.junit import render_stopped

    try:
        junit.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(junit, mask(render_stopped(manifest_shown(path), code, reason)))
    except OSError:
        return  # (an unwritable results folder: the sentence on stderr says so)


def results_base(config: Path | None, overrides: CliOverrides) -> Path:
    """The results directory the pairs' folders go under: ``--out``, else the configuration
    file's ``out`` (``--config``, else ``./proctor.json``), else ``proctor-results``, as for
    a plain run (where the current folder is gone, one of them whole, or the sentence
    :data:`~proctor.paths.CURRENT_FOLDER_GONE`)."""
    from proctor.models.config import DEFAULT_OUT
    from proctor.models.loading import load_top_config
    from proctor.paths import current_folder, read_against

    here = current_folder()  # None: gone, no ./proctor.json read
    if overrides.out:
        base = Path(overrides.out)
    else:
        top, _ = load_top_config(config, here)
        base = Path(top.out or DEFAULT_OUT)
    if here is None:  # a relative one names nothing there: refused (CURRENT_FOLDER_GONE)
        read_against(None, base)
    return base


def _run_pairs(
    path: Path,
    source: Path,
    config: Path | None,
    overrides: CliOverrides,
    names: tuple[str, ...],
    budget: float | None,
    executor: str,
    ray_address: str | None,
) -> list[Path] | int:
    """Each pair's run, in turn: their folders, or the exit code of an interrupt. Every pair
    is planned first, and the keys of proctor's roles checked once for them all, before the
    first pair's first trial: a manifest of ten pairs asks each provider once, not ten times."""
    from proctor.cli.display import make_display
    from proctor.exit_codes import ExitCode
    from proctor.session import RunRequest, run_plan
    from proctor.session.repeats import manifest_order_note

    plan_of = _read_manifest(path)
    if note := manifest_order_note(plan_of):
        click.echo(f"proctor: note: {manifest_shown(path)}: {note}", err=True)
    if len(plan_of.runs) < plan_of.pairs:  # split between machines, or a run deleted by hand
        numbers = ", ".join(str(entry.pair) for entry in plan_of.runs)
        click.echo(
            f"proctor: note: {manifest_shown(path)} lists {len(plan_of.runs)} of its "
            f"{plan_of.pairs} pairs "
            f"(pair {numbers}): the others are not run here, and the counterbalancing holds "
            "only where `proctor report` reads every pair's run folder together",
            err=True,
        )
    base = results_base(config, overrides)
    pairs: list[_Pair] = []
    for entry in plan_of.runs:
        run_overrides = overrides.model_copy(
            update={
                "cases": list(plan_of.tasks),
                "conditions": list(entry.order),
                "first_condition": entry.order[0],
                "repeats": 1,
                "out": str(base / entry.results),
            }
        )
        # Run again after an interrupt: a pair that finished is kept, the one cut short is
        # resumed, and only the others run (a pair run twice would count twice). A run there
        # of another plan (another manifest, agent or option) is no run of this one.
        earlier = _manifest_run(base / entry.results, entry.session, run_overrides, source)
        request = RunRequest(
            source=source,
            config=config,
            overrides=run_overrides,
            reporters=names,
            executor=executor,
            executor_address=ray_address,
            argv=("proctor", *sys.argv[1:]),
            session_label=entry.session,
            chosen_by=_manifest_named(path),  # its tasks are the --case GLOBs
            keys_checked=True,  # below, for every pair at once
            agents_checked=True,  # and so are the agent CLIs
        )
        pairs.append(_Pair(entry, earlier, request, *_plan_pair(path, source, request, earlier)))
    _say_skipped(pairs)
    _say_unrun(path, plan_of.tasks, plan_of.conditions, pairs)
    _check_before(pairs, overrides)
    # One budget for the command, not one per pair: what the pairs kept from an earlier run
    # of it spent counts too, as a resume counts what its run spent before.
    warnings = _cost_warnings(budget, pairs)
    codes: list[int] = []
    run_dirs: list[Path] = []
    for pair in pairs:
        entry, earlier = pair.entry, pair.earlier
        if earlier is not None and earlier[1]:
            click.echo(f"proctor: {entry.session}: finished before, kept ({earlier[0]})", err=True)
            run_dirs.append(earlier[0])
            continue
        if earlier is not None:
            here = " on this machine, as --resume runs" if executor != "local" else ""
            click.echo(f"proctor: {entry.session}: resuming {earlier[0]}{here}", err=True)
            from proctor.session.resume import resume_run

            resumed, _ = resume_run(
                earlier[0],
                names,
                [make_display(overrides.mirror), warnings],
                keys_checked=True,
                planned=pair.resume,
                agents_checked=True,
                concurrency=overrides.concurrency,
                kept_as=(overrides.keep_workspace, overrides.mirror),
            )
            codes.append(resumed.suite.exit_code)
            run_dirs.append(resumed.paths.root)
            if (met := _met_refusal(resumed)) is not None:
                return _manifest_refused(path, plan_of.runs, entry, met)
            if resumed.suite.exit_code == ExitCode.INTERRUPTED:
                return _manifest_interrupted(path, plan_of.runs, entry)
            continue
        assert pair.plan is not None  # (planned above: the pair runs)
        click.echo(f"proctor: {entry.session}: conditions {' then '.join(entry.order)}", err=True)
        watch = make_display(overrides.mirror)
        result = run_plan(pair.plan, pair.request, [watch, warnings])
        click.echo(f"proctor: results in {result.paths.root}", err=True)
        codes.append(result.suite.exit_code)
        run_dirs.append(result.paths.root)
        # A trial of the pair met a refused key: its trials that would meet it were held back
        # (the run stopped, exit 130), or every one started at once and met it (the pair ended
        # whole); each pair after it would meet the same refusal.
        if (met := _met_refusal(result)) is not None:
            return _manifest_refused(path, plan_of.runs, entry, met)
        if result.suite.exit_code == ExitCode.INTERRUPTED:
            return _manifest_interrupted(path, plan_of.runs, entry)
    return run_dirs


@dataclass
class _Pair:
    """One run of a manifest: a run an earlier ``--manifest`` left (its folder, and whether
    it finished), the request of a run of it, and its plan (None: it finished before), with
    the resume that plan was made for when the pair resumes a run left cut short."""

    entry: ManifestRun
    earlier: tuple[Path, bool] | None
    request: RunRequest
    plan: RunPlan | None
    resume: ResumePlan | None


def _cost_warnings(budget: float | None, pairs: list[_Pair]) -> CostWarnings:
    """The warnings of the pairs this command runs: the budget is ``--budget-usd``, else the
    configuration's ``budgetUsd`` (every pair reads the same), counted over the whole
    manifest, from what the pairs an earlier run of it left spent."""
    from proctor.cli.display import CostWarnings, spent_before

    if budget is None:
        tops = [p.plan.top for p in pairs if p.plan is not None]
        tops += [p.resume.plan.top for p in pairs if p.resume is not None]
        budget = next((top.budget_usd for top in tops), None)
    spent = sum(spent_before(p.earlier[0]) for p in pairs if p.earlier is not None)
    return CostWarnings(budget, spent=spent if budget else 0.0)


def _plan_pair(
    path: Path, source: Path, request: RunRequest, earlier: tuple[Path, bool] | None
) -> tuple[RunPlan | None, ResumePlan | None]:
    """The plan of one pair, made once: a new run's (``request``'s), or the one a resume of
    the run an earlier ``--manifest`` left cut short makes (from that run's records), which
    the manifest's checks read and its resume then runs; none for a pair that finished."""
    from proctor.plan.choosing import selection
    from proctor.session import plan_run
    from proctor.session.resume import plan_resume

    tasks = selection(request.overrides)
    if earlier is None:
        return _plan(path, source, tasks, lambda: (plan_run(request), None))
    if earlier[1]:
        return None, None
    return _plan(path, source, tasks, lambda: _resumed(plan_resume(earlier[0])))


def _resumed(resume: ResumePlan) -> tuple[RunPlan, ResumePlan]:
    return resume.plan, resume


def _plan(
    path: Path,
    source: Path,
    tasks: str,
    planner: Callable[[], tuple[RunPlan, ResumePlan | None]],
) -> tuple[RunPlan, ResumePlan | None]:
    """The plan of one pair (``planner``'s), its mistakes said in the manifest's terms:
    ``tasks``, the ``--case`` options its tasks became, which the user never gave, are said
    as its tasks, and the ``--condition`` options its conditions became as its conditions,
    in a refusal of the conditions or of the configuration's ``gate.ab``."""
    from proctor.errors import ConfigError

    said = manifest_shown(path)
    try:
        plan, resume = planner()
    except ConfigError as exc:
        text = str(exc)
        if text.startswith("--case "):  # the cases are the manifest's tasks
            raise ConfigError(f"{said}: tasks {text.removeprefix('--case ')}") from exc
        if text.startswith(("--condition ", "--first-condition ")):  # and its conditions
            text = text.replace(f"no case {tasks} chooses has", "none of its tasks has")
            text = text.replace(f"left out by {tasks}", "that are none of its tasks")
            raise ConfigError(
                f"{said}: conditions {text.split(' ', 1)[1]}; plan the repeats with the "
                "cases' conditions (`proctor plan-repeats --conditions A,B`)"
            ) from exc
        if "field 'gate.ab': " in text:  # a gate.ab condition the pair's options leave out
            for given, meant in (
                (
                    f"is only of cases left out by {tasks}",
                    f"is only of cases none of {said}'s tasks",
                ),
                ("; choose a case that has it too", "; plan the repeats with tasks that have it"),
                ("is left out by --condition (", f"is none of {said}'s conditions ("),
                ("; run it too, or", "; plan the repeats with it, or"),
            ):
                text = text.replace(given, meant)
            if str(exc) != text:
                raise ConfigError(text) from exc
        raise
    if not plan.trials:
        raise ConfigError(f"{said}: none of its tasks is a case under {source}")
    return plan, resume


def _say_skipped(pairs: list[_Pair]) -> None:
    """The cases found and not run, as a plain run says them on stderr: once for the whole
    manifest (its pairs plan the same source), not once per pair."""
    said = dict.fromkeys(
        (skipped.name, skipped.reason)
        for pair in pairs
        if pair.plan is not None
        for skipped in pair.plan.skipped
    )
    for name, reason in said:
        click.echo(f"proctor: skipped case '{one_line(name)}': {one_line(reason)}", err=True)


def _say_unrun(path: Path, tasks: list[str], conditions: list[str], pairs: list[_Pair]) -> None:
    """The manifest's tasks that no pair runs, as none of their conditions is the manifest's
    (a case without conditions, planned with an A/B suite's goal labels): said once, before
    any pair, since a manifest of fewer tasks than planned would otherwise pass unremarked."""
    from proctor.plan.choosing import picks

    planned = [pair.plan for pair in pairs if pair.plan is not None and pair.resume is None]
    if not planned:
        return
    ran = {case.name for plan in planned for case in plan.cases}
    skipped = {case.name for plan in planned for case in plan.skipped}
    unrun = [task for task in tasks if not any(picks(name, task) for name in ran | skipped)]
    if unrun:
        one = len(unrun) == 1
        click.echo(
            f"proctor: note: {manifest_shown(path)}: {'task' if one else 'tasks'} "
            f"{', '.join(one_line(task) for task in unrun)} {'has' if one else 'have'} none of "
            f"the manifest's conditions ({', '.join(conditions)}): no pair runs "
            f"{'it' if one else 'them'} ({len(tasks) - len(unrun)} of its {len(tasks)} tasks "
            "run)",
            err=True,
        )


def _check_before(pairs: list[_Pair], overrides: CliOverrides) -> None:
    """What a plain run says of its trials before the first, said once for every pair still to
    run: the options and efforts they take nothing of (``--agent-model scripted=…``, an
    ``agentEffort`` a file sets for the scripted agent, say), then the agent CLIs those pairs
    start, then the keys of the roles they call, checked at once before any of them runs (a
    CLI missing or not at its pinned version, an agent that cannot authenticate, or a refused
    key stops the manifest with exit 2, as it stops a run), each warning of the agents'
    profiles once: each agent profile once for the whole manifest, not once per pair, since
    nothing of a pair but its trials' agent, profile and backend enters the check (not its
    conditions, nor its workspace). A pair to resume reads the keys where its run was
    started (see :func:`~proctor.session.resume.key_folder`), and its agents' sentences name
    that ``.env``; the others here: one check per such folder, so one in all but in rare
    cases."""
    from proctor.plan.checks import check_keys, preflight, profile_warnings
    from proctor.session.scripted_model import warn_flags_not_taken
    from proctor.session.start import warn

    trials: dict[Path | None, list[TrialSpec]] = {}  # (None: the current folder, gone)
    for pair in pairs:
        if pair.resume is not None:  # what the resume runs, where its run was started
            folder, specs = pair.resume.request.key_folder(), pair.resume.unfinished
        elif pair.plan is not None:
            folder, specs = pair.request.key_folder(), pair.plan.trials
        else:
            continue
        trials.setdefault(folder, []).extend(specs)
    warn_flags_not_taken(overrides, [spec for specs in trials.values() for spec in specs])
    for folder, specs in trials.items():
        preflight(specs, folder)
    for said in dict.fromkeys(w for specs in trials.values() for w in profile_warnings(specs)):
        warn(said)
    for folder, specs in trials.items():
        check_keys(specs, folder, warn)


def _pooled(
    run_dirs: list[Path],
    config: Path | None,
    names: tuple[str, ...],
    as_json: bool,
    junit: Path | None = None,
) -> int:
    """The gate is the whole manifest's: its runs read as one sample set (every complete pair,
    as `proctor report` reads them), never each pair's alone; so is the report printed and
    appended to the job summary (each pair's folder keeps its own), and the JUnit file written
    to ``junit`` when given."""
    from proctor.cli.report import echo_pooled_notes
    from proctor.models.io import write_text_atomic
    from proctor.report.pooled_runs import recompute_many
    from proctor.report.reporters import REPORTERS, printed
    from proctor.session.step_summary import append_step_summary

    read = recompute_many(run_dirs, config)
    records, pooled = read.records, read.suite
    echo_pooled_notes(read)  # as `proctor report` of the run folders says them
    markdown = mask(REPORTERS["markdown"].render(pooled, records, pooled=read))
    append_step_summary(markdown, "`proctor report` of the run folders")
    shown = printed(names, as_json)
    if shown == "markdown":
        text = markdown
    elif shown in ("html", "junit"):  # each trial named by its own run and repeat
        text = mask(REPORTERS[shown].render(pooled, records, pooled=read))
    else:
        text = mask(REPORTERS[shown].render(pooled, records))
    echo_unless_gone(text, nl=False)
    others = [name for name in dict.fromkeys(names) if name not in (shown, "junit")]
    if others:  # (each pair's folder holds its own, judged over that pair alone)
        with_others = " or --reporter ".join(others)
        click.echo(
            f"proctor: note: printed the {shown} report of the runs read as one sample set "
            f"only; `proctor report` of the run folders with --reporter {with_others} prints "
            "another",
            err=True,
        )
    if junit is not None:
        junit_text = (
            text
            if shown == "junit"
            else mask(REPORTERS["junit"].render(pooled, records, pooled=read))
        )
        write_text_atomic(junit, junit_text)
        click.echo(
            f"proctor: the JUnit file of the {plural(len(run_dirs), 'run')}: {junit}", err=True
        )
    click.echo(
        f"proctor: {plural(len(run_dirs), 'run')}, read as one sample set: "
        f"exit {pooled.exit_code}: "
        f"{mask(one_line(pooled.exit_reason))} (`proctor report` of the run folders shows it)",
        err=True,
    )
    return int(pooled.exit_code)


def _manifest_named(path: Path) -> str:
    """The manifest as a sentence names it in a clause: ``the manifest m.json``."""
    shown = manifest_shown(path)
    return shown if str(path) == "-" else f"the manifest {shown}"


MANIFEST_LIMIT = 16 * 1024 * 1024
"""The most bytes a manifest read from a stream may hold (one of 1000 pairs is some 200 kB):
``--manifest /dev/zero`` is refused, not read for ever."""


def _read_manifest(path: Path) -> RepeatManifest:
    """The manifest ``path`` names: a file, or a stream read once to its end (``-``, standard
    input; a pipe such as ``/dev/stdin`` or ``<(…)``), since a second read of a stream would
    find nothing; a terminal is refused, as it would wait for a manifest typed by hand."""
    import stat

    from proctor.errors import ConfigError
    from proctor.models.io import record_from_bytes
    from proctor.models.run import RepeatManifest
    from proctor.session.repeats import read_manifest

    name = manifest_shown(path)
    if str(path) != "-":
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = stat.S_IFREG  # (read_manifest says what is wrong)
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return read_manifest(path)
    try:
        with open(0 if str(path) == "-" else path, "rb", closefd=str(path) != "-") as stream:
            if stream.isatty():
                raise ConfigError(
                    f"{'--manifest -: standard input' if str(path) == '-' else name} is a "
                    "terminal, not a manifest: pipe one in (`proctor run "
                    "--manifest - < repeats.json`) or give its file"
                )
            raw = stream.read(MANIFEST_LIMIT + 1)
    except OSError as exc:
        raise ConfigError(f"{name}: not a readable manifest ({exc.strerror or exc})") from exc
    if len(raw) > MANIFEST_LIMIT:
        raise ConfigError(
            f"{name}: more than {MANIFEST_LIMIT // (1024 * 1024)} MiB read, more than a "
            "manifest holds (`proctor plan-repeats` writes one)"
        )
    return record_from_bytes(name, raw, RepeatManifest)


def _manifest_run(
    folder: Path, session: str, overrides: CliOverrides, source: Path
) -> tuple[Path, bool] | None:
    """The run of a manifest's pair an earlier ``--manifest`` left in its results folder
    (the newest one labelled with the pair's session), and whether it finished; a
    ConfigError when that run is of another plan than ``overrides`` and ``source`` make."""
    from proctor.errors import ConfigError, ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import ConfigRecord, RunManifest
    from proctor.session.resume_plan import first_difference

    for manifest_file in sorted(folder.glob("run-*/run.json"), reverse=True):
        try:
            manifest = read_record(manifest_file, RunManifest)
            recorded = read_record(manifest_file.with_name("config.json"), ConfigRecord)
        except (ProctorError, OSError):
            continue
        if manifest.session_label != session:
            continue
        # What makes the plan: not where the results go (the run was found there), nor how
        # many trials run at once, the budget's warning, or what is kept and shown of them.
        aside = {"out", "concurrency", "budgetUsd", "keepWorkspace", "mirror"}
        now = overrides.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        then = recorded.cli.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        changed = first_difference(
            {k: v for k, v in then.items() if k not in aside},
            {k: v for k, v in now.items() if k not in aside},
        )
        changed = changed and _option_of(changed)
        ran_from = Path(manifest.cwd or ".") / (manifest.source or ".")
        if changed is None and os.path.realpath(ran_from) != os.path.realpath(source):
            changed = "the source"
        if changed is not None:
            raise ConfigError(
                f"{manifest_file.parent}: a run of pair {session} of another plan ({changed} "
                "differs): give another --out, or move that run away"
            )
        done = manifest.finished_at is not None and not manifest.interrupted
        # A trial that met a refused key never measured the agent: its resume runs it again.
        return manifest_file.parent, done and not _refused_in(manifest_file.parent)
    return None


def _option_of(path: str) -> str:
    """What a difference between two runs' recorded options (``.timeoutSec``, ``.cases[0]``)
    is to the person who gives them: the manifest's tasks, its conditions, or the option
    (``--timeout``); the path itself when no option of ``run`` records it."""
    from proctor.cli.run import command
    from proctor.models.config import CliOverrides

    key = path.lstrip(".").split(".")[0].split("[")[0].split(" ")[0]
    if key == "cases":
        return "its tasks"
    if key in ("conditions", "firstCondition"):
        return "its conditions"
    if key == "model":  # (run's --model is its parameter `backend`)
        return "--model"
    if key == "roleModels":
        return "a role's model (--fast-model, --workhorse-model or --judge-model)"
    field = next((n for n, f in CliOverrides.model_fields.items() if f.alias == key), key)
    for param in command.params:
        if param.name == field and isinstance(param, click.Option):
            return next((o for o in param.opts if o.startswith("--")), param.opts[0])
    return path
