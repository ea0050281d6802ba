"""``proctor findings``: the failing checks tracked across the runs of a results directory.

``proctor findings [RESULTS_DIR] [--json] [--all]`` lists them (a first argument that is not a
subcommand is the results directory); ``proctor findings dismiss ID --reason TEXT`` dismisses
one. Both first apply the runs of the directory that the ledger does not hold yet.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.util.text import one_line, plural

if TYPE_CHECKING:
    from proctor.models.findings import Finding, FindingsLedger
    from proctor.models.trial import TrialRecord

_STATE_ORDER = {"open": 0, "resolved": 1, "dismissed": 2}


class _FindingsGroup(click.Group):
    """A group whose first argument, when it names no subcommand, is the results directory to
    list: ``proctor findings out`` runs the hidden ``list`` subcommand on ``out``."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # The hidden `list` is reached only this way: a folder named "list" is a folder.
        # (The group's own flags may stand between the folder and `dismiss`.)
        flags = list(itertools.takewhile(lambda arg: arg in ("--json", "--all"), args[1:]))
        at = 1 + len(flags)
        if args[at : at + 1] == ["dismiss"] and not args[0].startswith("-"):
            # ``proctor findings out dismiss ID --reason TEXT``: the folder is the --dir.
            if any(arg == "--dir" or arg.startswith("--dir=") for arg in args[at + 1 :]):
                from proctor.util.json_shown import json_text

                raise click.UsageError(
                    f"the results directory is given twice: {json_text(args[0])} before `dismiss`, "
                    "and --dir after it"
                )
            if "--all" in flags:
                raise click.UsageError("--all lists findings: `dismiss` takes no --all")
            given = [*args[at + 1 :], "--dir", args[0], *dict.fromkeys(flags)]
            return "dismiss", self.commands["dismiss"], given
        if args and not args[0].startswith("-") and args[0] != "dismiss":
            return "list", self.commands["list"], args
        return super().resolve_command(ctx, args)


class _ListContext(click.Context):
    """The hidden ``list`` subcommand's context: its usage, and the hint of its errors, are
    the group's own (``proctor findings [OPTIONS] [RESULTS_DIR]``), never ``findings list``."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path if self.parent is not None else "proctor findings"


class _ListCommand(click.Command):
    context_class = _ListContext


_results_dir = click.argument(
    "results_dir",
    required=False,
    type=click.Path(path_type=Path),
)
_json = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_all = click.option("--all", "show_all", is_flag=True, help="Also list resolved and dismissed.")
_config = click.option(
    "--config",
    "config",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Top-level configuration file whose out is the results directory "
    "(default: ./proctor.json when present).",
)


def _config_of(ctx: click.Context, config: Path | None) -> Path | None:
    """The ``--config`` given to the subcommand or to the group before it (not both)."""
    before = ctx.parent.params.get("config") if ctx.parent is not None else None
    if before is not None and config is not None:
        raise click.UsageError("--config is given twice: give it once")
    return config or before


@click.group(
    "findings",
    cls=_FindingsGroup,
    invoke_without_command=True,
    subcommand_metavar="[RESULTS_DIR] | [RESULTS_DIR] dismiss ID --reason TEXT",
)
@_json
@_all
@_config
@click.pass_context
def command(ctx: click.Context, as_json: bool, show_all: bool, config: Path | None) -> int:
    """List the open findings of RESULTS_DIR (default: the out of --config FILE or of
    ./proctor.json, else ./proctor-results, where `proctor run` writes): the checks that
    failed in its runs and have not passed since. Runs not yet in the ledger are applied first.
    """
    if ctx.invoked_subcommand is not None:
        return 0
    return list_findings(None, as_json, show_all, config)


@command.command("list", hidden=True, cls=_ListCommand)
@_results_dir
@_json
@_all
@_config
@click.pass_context
def list_command(
    ctx: click.Context,
    results_dir: Path | None,
    as_json: bool,
    show_all: bool,
    config: Path | None,
) -> int:
    """List the findings of RESULTS_DIR."""
    parent = ctx.parent.params if ctx.parent is not None else {}
    return list_findings(
        results_dir,
        as_json or bool(parent.get("as_json")),
        show_all or bool(parent.get("show_all")),
        _config_of(ctx, config),
    )


@command.command("dismiss")
@click.argument("finding_id", metavar="ID")
@click.option("--reason", required=True, help="Why the finding is dismissed (a sentence).")
@click.option(
    "--dir",
    "results_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="The results directory (default: the out of --config FILE or of ./proctor.json, "
    "else ./proctor-results).",
)
@_config
@click.option("--json", "as_json", is_flag=True, help="Print the dismissed finding as JSON.")
@click.pass_context
def dismiss_command(
    ctx: click.Context,
    finding_id: str,
    reason: str,
    results_dir: Path | None,
    config: Path | None,
    as_json: bool,
) -> int:
    """Dismiss finding ID: it stays dismissed until its check passes and then fails again."""
    from proctor.cli.findings_folder import finding_named, not_found, results_folder
    from proctor.errors import ConfigError
    from proctor.models.io import model_to_json
    from proctor.report.findings import (
        dismiss,
        dismissal_said,
        ledger_lock,
        ledger_path,
        save_ledger,
    )
    from proctor.util.clock import now_iso

    parent = ctx.parent.params if ctx.parent is not None else {}
    if parent.get("show_all"):
        raise click.UsageError("--all lists findings: `dismiss` takes no --all")
    as_json = as_json or bool(parent.get("as_json"))  # `proctor findings --json dismiss …`

    config = _config_of(ctx, config)
    chosen = results_folder(results_dir, config)
    folder = chosen.path
    with ledger_lock(folder):  # another dismissal at the same time waits its turn
        ledger = _updated(folder)
        try:
            finding_id = finding_named(ledger, finding_id)
        except ValueError as exc:
            why = not_found(chosen, ledger_path(folder), finding_id, exc, config)
            raise ConfigError(why) from None
        (before,) = [f for f in ledger.findings if f.id == finding_id]
        changes, said = dismissal_said(before, reason)  # already dismissed: said so
        updated = dismiss(ledger, finding_id, reason, now_iso()) if changes else ledger
        if changes:
            save_ledger(folder, updated)
    if as_json:
        (finding,) = [f for f in updated.findings if f.id == finding_id]
        click.echo(model_to_json(finding), nl=False)
    else:
        click.echo(said)
    return 0


def _folder(results_dir: Path | None, config: Path | None) -> Path:
    from proctor.cli.findings_folder import results_folder

    return results_folder(results_dir, config).path


def _updated(folder: Path) -> FindingsLedger:
    """The ledger after applying the runs it does not hold yet; notes go to stderr."""
    from proctor.report.findings import update_ledger

    update = update_ledger(folder)
    for note in [*update.notes, *_unfinished(folder, update.ledger)]:
        click.echo(f"proctor: note: {note}", err=True)
    return update.ledger


def _unfinished(folder: Path, ledger: FindingsLedger) -> list[str]:
    """A note for each run of ``folder`` the ledger waits for, since it has not finished:
    one still running, or one stopped before it could say so (killed), which waits for a
    ``--resume`` (a run that was interrupted says so, and is taken in as it stands)."""
    from proctor.errors import ConfigError, SchemaVersionError
    from proctor.models.io import read_record
    from proctor.models.run import RunManifest
    from proctor.paths import RunPaths
    from proctor.session.journal import live_orchestrator

    notes = []
    for root in sorted(folder.glob("run-*")):
        if root.name in ledger.runs or not root.is_dir():
            continue
        paths = RunPaths(root)
        try:
            manifest = read_record(paths.run_json, RunManifest)
        except (ConfigError, SchemaVersionError, OSError):
            continue  # none yet (a run starting), or one the update named as unreadable
        if manifest.finished_at is not None or (manifest.repetition or 1) > 1:
            continue
        if live_orchestrator(paths.journal) is not None:
            notes.append(f"{root.name} is still running: its checks count when it finishes")
        else:
            notes.append(
                f"{root.name} has not finished, and no proctor is running it (it was killed): "
                f"{manifest.finish_hint(root)}, and its checks count then"
            )
    return notes


def list_findings(
    results_dir: Path | None, as_json: bool, show_all: bool, config: Path | None = None
) -> int:
    from proctor.models.io import model_to_json

    folder = _folder(results_dir, config)
    ledger = _updated(folder)
    shown = sorted(
        (f for f in ledger.findings if show_all or f.state == "open"),
        key=lambda f: _STATE_ORDER[f.state],
    )
    if as_json:
        ids = {f.id for f in shown}
        held = {  # what the interrupted runs failed, of the findings shown
            run: kept.model_copy(update={"failed": [i for i in kept.failed if i in ids]})
            for run, kept in ledger.interrupted_runs.items()
        }
        update = {"findings": shown, "interrupted_runs": held}
        click.echo(model_to_json(ledger.model_copy(update=update)), nl=False)
    elif shown:
        click.echo(render_table(shown))
        from proctor.report.findings import newest_run

        suites = {f.suite for f in ledger.findings} | set(ledger.run_suites.values())
        latest = {suite: newest_run(folder, ledger, suite) for suite in suites}
        unchecked = [f for f in shown if f.state == "open" and _unchecked(f, latest[f.suite])]
        # A case the latest run ran, whose trials recorded no check (an error, a skip…).
        told: dict[str, Cells | None] = {}
        cuts = {run: kept.finished_at for run, kept in ledger.interrupted_runs.items()}
        cells = {f.id: _cell_in(folder, latest[f.suite], f, told, cuts) for f in unchecked}
        ran = [f for f in unchecked if cells[f.id] == "ran"]
        cut = {
            run: _cut_short(folder, run, run in ledger.interrupted_runs)
            for run in set(latest.values())
            if run is not None
        }
        stopped = [
            f
            for f in unchecked
            if cells[f.id] in ("cut", "absent")
            and f.case in cut.get(latest[f.suite] or "", ("", frozenset()))[1]
        ]
        # A case the latest run skipped (a case folder that did not load): not gone either.
        skips = {run: _skipped_cases(folder, run) for run in cut}
        skipped = [
            f
            for f in unchecked
            if f not in ran and f not in stopped and f.case in skips.get(latest[f.suite] or "", {})
        ]
        rest = [f for f in unchecked if f not in ran and f not in stopped and f not in skipped]
        # A case the latest run ran on other agents or conditions only (--agent, --condition).
        others = {f.id: _other_cells(folder, latest[f.suite], f) for f in rest}
        elsewhere = [f for f in rest if others[f.id]]
        gone = [f for f in rest if not others[f.id]]
        if ran:
            click.echo(
                f"\n{_counted(ran)} left without a result by the latest run of {_their(ran)} "
                f"suite ({_runs(ran, latest)}): the case ran, but its trials ended in a status "
                "that records no check (an error, a timeout, a skip), which is no evidence "
                "either way. A finding stays open until a run checks it."
            )
        if stopped:
            hows = {cut[r][0] for f in stopped if (r := latest[f.suite])}
            then = ", then resumed" if "resumed" in hows else ""
            them = "it" if len(stopped) == 1 else "them"
            click.echo(
                f"\n{_counted(stopped)} not checked by the latest run of {_their(stopped)} "
                f"suite ({_runs(stopped, latest)}), which was interrupted before it checked "
                + (
                    f"{them}{then} (the findings ledger took that run in before it kept what a "
                    "`--resume` adds). A finding stays open until a run checks it: run the "
                    "suite again."
                    if hows & {"resumed", "unkept"}
                    else f"{them}. A finding stays open until a run checks it: `proctor run "
                    "--resume RUN_DIR` finishes that run, or run the suite again."
                )
            )
        if skipped:
            why = {(f.case, skips[latest[f.suite] or ""][f.case]) for f in skipped}
            said = "; ".join(
                f"{one_line(case)}: {one_line(reason)}" for case, reason in sorted(why)
            )
            click.echo(
                f"\n{_counted(skipped)} not checked by the latest run of {_their(skipped)} "
                f"suite ({_runs(skipped, latest)}), which skipped "
                f"{'its case' if len(why) == 1 else 'their cases'} ({said}). A finding stays "
                "open until a run checks it: fix the case, and run the suite again."
            )
        if elsewhere:
            said = "; ".join(sorted({f"{one_line(f.case)} on {others[f.id]}" for f in elsewhere}))
            click.echo(
                f"\n{_counted(elsewhere)} not checked by the latest run of {_their(elsewhere)} "
                f"suite ({_runs(elsewhere, latest)}), which ran "
                f"{_their(elsewhere)} case{'s' if len({f.case for f in elsewhere}) > 1 else ''} "
                f"on other agents or conditions only ({said}). A finding stays open until a "
                f"run checks it: run the suite on {_on(elsewhere)} (`--agent`, `--condition`), "
                "or "
                "`proctor findings dismiss ID --reason TEXT` closes one whose agent or "
                "condition the case no longer has."
            )
        if gone:
            click.echo(
                f"\n{_counted(gone)} not checked by the latest run of {_their(gone)} suite "
                f"({_runs(gone, latest)}): a case renamed or removed, an evaluator relabelled, "
                "removed or restricted to other conditions, or a part of the suite that run left "
                "out. Only a pass resolves a finding; `proctor findings dismiss ID "
                "--reason TEXT` closes one that is gone."
            )
    else:
        which = "findings" if show_all else "open findings"
        click.echo(f"no {which} in {folder} ({plural(len(ledger.runs), 'run')} applied)")
    return 0


def _counted(findings: list[Finding]) -> str:
    """``1 open finding (ID) was`` or ``N open findings (ID, …) were``, the first ten named."""
    ids = ", ".join(f.id for f in findings[:10])
    ids += f" and {len(findings) - 10} more" if len(findings) > 10 else ""
    if len(findings) == 1:
        return f"1 open finding ({ids}) was"
    return f"{len(findings)} open findings ({ids}) were"


def _on(findings: list[Finding]) -> str:
    one = len(findings) == 1
    return "its agent and condition" if one else "their agents and conditions"


def _their(findings: list[Finding]) -> str:
    return "its" if len(findings) == 1 else "their"


def _runs(findings: list[Finding], latest: dict[str | None, str | None]) -> str:
    return ", ".join(sorted({latest[f.suite] or "" for f in findings}))


Cells = tuple[set[tuple[str, str, str]], set[tuple[str, str, str]], set[tuple[str, str, str]]]
"""A stored run's cells that recorded a check, those with a trial a stop cut short (or not
taken in yet), and those with any trial recorded."""


def _other_cells(folder: Path, run: str | None, finding: Finding) -> str:
    """The agents and conditions (``claude-code/default, …``) run ``run`` ran the finding's case
    on, when it ran the case but not on the finding's agent and condition; else ``""``."""
    if run is None:
        return ""
    case = folder / run / "trials" / finding.case
    try:
        if case.joinpath(finding.agent, finding.condition).is_dir():
            return ""
        cells = sorted(f"{a.name}/{c.name}" for a in case.iterdir() for c in a.iterdir())
    except (OSError, ValueError):  # no trial of the case, or a name that is no folder's
        return ""
    return ", ".join(one_line(cell) for cell in cells)


def _cell_in(
    folder: Path,
    run: str | None,
    finding: Finding,
    told: dict[str, Cells | None],
    cuts: dict[str, str],
) -> str:
    """What run ``run`` of the results directory ``folder`` did with the finding's case ×
    agent × condition: ``checked`` (it recorded a check of the cell, or its evaluators left
    every check out, see :func:`_left_out`: the finding's is gone, renamed, relabelled,
    restricted to other conditions or left out), ``cut`` (a stop cut a trial of it short, or
    the ledger has not taken its trials in yet: a ``--resume`` ran them after the time the
    ledger read the interrupted run at, ``cuts``, and is running or was stopped), ``ran`` (it
    ran the cell without recording any check: each trial ended in a status that says nothing
    of one, an error, a timeout, a skip, an exclusion by ``proctor annotate``, a record that
    does not read, as the ledger reads the run) or ``absent`` (no trial of it, or the run does not
    read). ``told``: each run's cells, read once."""
    if run is None:
        return "absent"
    cell = (finding.case, finding.agent, finding.condition)
    try:
        if not folder.joinpath(run, "trials", *cell).is_dir():
            return "absent"
    except (OSError, ValueError):  # a name that is no folder's
        return "absent"
    if run not in told:
        told[run] = _cells_told(folder / run, cuts.get(run))
    cells = told[run]
    if cells is None:
        return "absent"
    checked, cut, recorded = cells
    if cell in checked:
        return "checked"
    if cell in cut:
        return "cut"
    # No trial of it recorded: one is running (a resume's), or a stop killed it mid-way.
    return "ran" if cell in recorded else "absent"


def _cells_told(run_dir: Path, since: str | None) -> Cells | None:
    """The cells of a stored run that recorded a check, and those with a trial a stop cut
    short or that started after ``since`` (when the ledger read the run, interrupted: a
    resume's trial, which the ledger takes in when the resume finishes); None when the run
    does not read (the ledger has not taken it in either)."""
    from proctor.errors import ProctorError
    from proctor.execute.context import was_interrupted
    from proctor.report.checks import started_after, started_instant, stored_trial_checks

    checked: set[tuple[str, str, str]] = set()
    cut: set[tuple[str, str, str]] = set()
    recorded: set[tuple[str, str, str]] = set()
    read_at = started_instant(since)
    try:
        for record, results in stored_trial_checks(run_dir):
            cell = (record.case, record.agent, record.condition)
            recorded.add(cell)
            if started_after(record, read_at):
                cut.add(cell)
            elif results or _left_out(record):
                checked.add(cell)
            elif was_interrupted(record.reason):
                cut.add(cell)
    except (ProctorError, OSError):
        return None
    return checked, cut, recorded


def _left_out(record: TrialRecord) -> bool:
    """A trial judged fairly (``passed`` or ``failed``) whose evaluators ran, none in error,
    and recorded no check: each was left out under its condition (an entry's
    ``conditions``) or is not counted. No later run checks them there: they are gone, not
    waiting for a result (a trial annotated failed after an error ran no evaluator)."""
    from proctor.report.checks import is_evidence

    return (
        is_evidence(record)
        and bool(record.evaluators)
        and not any(result.error for result in record.evaluators)
    )


def _cut_short(folder: Path, run: str, kept: bool) -> tuple[str, frozenset[str]]:
    """How run ``run`` was cut short, with the cases it was to run (its ``resolved.json``'s):
    ``interrupted`` (its ``run.json`` says so, and the ledger keeps it as interrupted: what a
    resume adds is applied, ``kept``), ``unkept`` (interrupted, and a ledger of an older
    proctor took it in: a resume would not be applied) or ``resumed`` (that, then resumed, and
    stopped again); ``""`` and none when it was not cut short (a resume that finished it
    reached every case), or a file cannot be read."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import ResolvedRecord, RunManifest
    from proctor.paths import RunPaths

    paths = RunPaths(folder / run)
    try:
        manifest = read_record(paths.run_json, RunManifest)
        if not manifest.interrupted:  # (a resume that finished left no case unreached)
            how = ""
        elif kept:
            how = "interrupted"
        else:
            how = "resumed" if manifest.resumed_at else "unkept"
        if not how:
            return "", frozenset()
        resolved = read_record(paths.resolved_json, ResolvedRecord)
    except (ProctorError, OSError, ValueError):
        return "", frozenset()
    return how, frozenset(case.case for case in resolved.cases)


def _skipped_cases(folder: Path, run: str) -> dict[str, str]:
    """The cases run ``run`` skipped (a case folder that did not load), with why (its
    ``resolved.json``'s); none when it cannot be read."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import ResolvedRecord
    from proctor.paths import RunPaths

    try:
        resolved = read_record(RunPaths(folder / run).resolved_json, ResolvedRecord)
    except (ProctorError, OSError, ValueError):
        return {}
    return {skip.case: skip.reason for skip in resolved.skipped}


def _unchecked(finding: Finding, latest: str | None) -> bool:
    """Whether the ledger's newest run (``latest``) did not run the finding's check. An open
    finding of a ledger written before proctor kept the last run that checked each was last
    checked when it last failed (a later pass would have resolved it)."""
    checked = finding.last_checked_run
    if checked is None and finding.state == "open":
        checked = finding.last_seen_run
    return latest is not None and checked is not None and checked != latest


def _state(finding: Finding) -> str:
    """A finding's state as the table shows it: a dismissed finding whose check has passed
    since says so (its next failure reopens it)."""
    if finding.state == "dismissed" and finding.passed_since_dismissal:
        return "dismissed, passed since"
    return finding.state


def render_table(findings: list[Finding]) -> str:
    """Aligned columns: id, state, the suite (when the findings are of more than one), cell,
    check, first and last seen run, the last run that checked it, failures; and why each
    dismissed finding was dismissed, when one is shown."""
    from proctor.report.findings import dismissal_reason

    dismissed = any(f.state == "dismissed" for f in findings)
    suites = len({f.suite for f in findings}) > 1  # one suite's findings need no column
    header = (
        "id", "state", *(("suite",) if suites else ()), "case / agent / condition", "check",
        "first seen", "last seen", "last checked",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = [
        (*header, "failures", *(("why dismissed",) if dismissed else ()))
    ]
    rows += [
        (
            f.id,
            _state(f),
            *((one_line(f.suite or "–"),) if suites else ()),
            one_line(f"{f.case} / {f.agent} / {f.condition}"),
            one_line(f.check),
            f.first_seen_run,
            f.last_seen_run,
            f.last_checked_run or "–",
            str(f.failures),
            *((one_line(dismissal_reason(f) or ""),) if dismissed else ()),
        )
        for f in findings
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )
