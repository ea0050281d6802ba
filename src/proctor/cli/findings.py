"""``proctor findings``: the failing checks tracked across the runs of a results directory.

``proctor findings [RESULTS_DIR] [--json] [--all]`` lists them (a first argument that is not a
subcommand is the results directory); ``proctor findings dismiss ID --reason TEXT`` dismisses
one. Both first apply the runs of the directory that the ledger does not hold yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.cli.options import CONFIG_PATH
from proctor.util.text import one_line, plural

if TYPE_CHECKING:
    from proctor.cli.findings_cells import Cells
    from proctor.models.findings import Finding, FindingsLedger

_STATE_ORDER = {"open": 0, "resolved": 1, "dismissed": 2}


class _FindingsGroup(click.Group):
    """A group whose first argument, when it names no subcommand, is the results directory to
    list: ``proctor findings out`` runs the hidden ``list`` subcommand on ``out``."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # The hidden `list` is reached only this way: a folder named "list" is a folder.
        # (The group's own options may stand between the folder and `dismiss`.)
        flags = _group_options(args[1:])
        at = 1 + len(flags)
        if args[at : at + 1] == ["dismiss"] and not args[0].startswith("-"):
            # ``proctor findings out dismiss ID --reason TEXT``: the folder is the --dir.
            if any(arg == "--dir" or arg.startswith("--dir=") for arg in args[at + 1 :]):
                from proctor.util.json_shown import WHOLE, json_text

                raise click.UsageError(
                    "the results directory is given twice: "
                    f"{json_text(args[0], WHOLE)} before `dismiss`, "
                    "and --dir after it"
                )
            if "--all" in flags:
                raise click.UsageError("--all lists findings: `dismiss` takes no --all")
            # (a --config there names the results directory twice: `dismiss` says so)
            given = [*args[at + 1 :], "--dir", args[0], *_once(flags)]
            return "dismiss", self.commands["dismiss"], given
        if args and not args[0].startswith("-") and args[0] != "dismiss":
            return "list", self.commands["list"], args
        return super().resolve_command(ctx, args)


def _group_options(args: list[str]) -> list[str]:
    """The group's own options at the start of ``args`` (``--json``, ``--all``, ``--config
    FILE``), as given."""
    taken: list[str] = []
    while args[len(taken) :]:
        arg = args[len(taken)]
        if arg in ("--json", "--all") or arg.startswith("--config="):
            taken.append(arg)
        elif arg == "--config" and len(args) > len(taken) + 1:
            taken += args[len(taken) : len(taken) + 2]
        else:
            break
    return taken


def _once(options: list[str]) -> list[str]:
    """``options`` with a flag given twice given once (``--config FILE`` kept as given)."""
    return [
        a for i, a in enumerate(options) if a not in ("--json", "--all") or a not in options[:i]
    ]


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
    type=CONFIG_PATH,
    default=None,
    help="Top-level configuration file whose out is the results directory "
    "(default: ./proctor.json when present); - reads it from standard input.",
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
    chosen = results_folder(results_dir, config, DISMISS_NAMING)
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


DISMISS_NAMING = "proctor findings dismiss ID --reason TEXT --dir RESULTS_DIR"
"""How ``dismiss`` is given the results directory, as a default that is no folder says."""


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
        elif manifest.by_eval:  # no command finishes it: a new `proctor eval` is a new run
            notes.append(
                f"{root.name} has not finished, and no proctor is running it (it was killed): "
                "an eval run cannot be resumed, so its checks never count; `proctor eval` runs "
                "its cases anew in a new run, whose checks count (remove this run's folder to "
                "drop this note)"
            )
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
        from proctor.cli.findings_cells import (
            cell_in,
            chosen_by,
            cut_short,
            other_cells,
            skipped_cases,
        )
        from proctor.report.findings import newest_run

        suites = {f.suite for f in ledger.findings} | set(ledger.run_suites.values())
        latest = {suite: newest_run(folder, ledger, suite) for suite in suites}
        unchecked = [f for f in shown if f.state == "open" and _unchecked(f, latest[f.suite])]
        # A case the latest run ran, whose trials recorded no check (an error, a skip…).
        told: dict[str, Cells | None] = {}
        cuts = {run: kept.finished_at for run, kept in ledger.interrupted_runs.items()}
        cells = {f.id: cell_in(folder, latest[f.suite], f, told, cuts) for f in unchecked}
        ran = [f for f in unchecked if cells[f.id] == "ran"]
        # Of those, the cases whose trials were not evaluated (--no-evaluate): said so.
        causes = {f.id: _not_evaluated(told, latest[f.suite], f) for f in ran}
        unevaluated = [f for f in ran if causes[f.id]]
        errored = [f for f in ran if not causes[f.id]]  # (an error, a timeout, a skip…)
        unread = [f for f in unchecked if cells[f.id] == "unread"]
        cut = {
            run: cut_short(folder, run, run in ledger.interrupted_runs)
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
        skips = {run: skipped_cases(folder, run) for run in cut}
        skipped = [
            f
            for f in unchecked
            if f not in ran
            and f not in unread
            and f not in stopped
            and f.case in skips.get(latest[f.suite] or "", {})
        ]
        rest = [
            f
            for f in unchecked
            if f not in ran and f not in unread and f not in stopped and f not in skipped
        ]
        # A case the latest run ran on other agents or conditions only (--agent, --condition).
        others = {f.id: other_cells(folder, latest[f.suite], f) for f in rest}
        elsewhere = [f for f in rest if others[f.id]]
        # A case the latest run left out by its --case or --tag: not gone either.
        chose = {run: chosen_by(folder, run) for run in cut}
        partial = [
            f
            for f in rest
            if not others[f.id]
            and chose.get(latest[f.suite] or "")
            and not (folder / (latest[f.suite] or "") / "trials" / f.case).exists()
        ]
        gone = [f for f in rest if not others[f.id] and f not in partial]
        if errored:
            click.echo(
                f"\n{_counted(errored)} left without a result by the latest run of "
                f"{_their(errored)} suite ({_runs(errored, latest)}): the case ran, but its "
                "trials ended in a status that records no check (an error, a timeout, a skip), "
                "which is no evidence either way. A finding stays open until a run checks it."
            )
        if unevaluated:
            causes_said = "; ".join(
                sorted({one_line(c) for f in unevaluated for c in causes[f.id]})
            )
            click.echo(
                f"\n{_counted(unevaluated)} left without a result by the latest run of "
                f"{_their(unevaluated)} suite ({_runs(unevaluated, latest)}): the case ran, but "
                f"its trials were not evaluated ({causes_said}), which is no evidence either "
                "way. A finding stays open until a run checks it."
            )
        if unread:
            files = sorted(
                {str(path) for f in unread for path in _unread_files(told, latest[f.suite], f)}
            )
            click.echo(
                f"\n{_counted(unread)} left without a result by the latest run of "
                f"{_their(unread)} suite ({_runs(unread, latest)}): the record of a trial of "
                f"{_their(unread)} case does not read ({', '.join(files)}), which says nothing "
                "of its checks, nor of the agent. A finding stays open until a run checks it."
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
        if partial:
            said = "; ".join(sorted({chose[latest[f.suite] or ""] for f in partial}))
            click.echo(
                f"\n{_counted(partial)} not checked by the latest run of {_their(partial)} "
                f"suite ({_runs(partial, latest)}), which ran part of it only ({said}). A "
                "finding stays open until a run checks it: run the suite again, or its case."
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
    passed = [f for f in ledger.findings if f.state == "dismissed" and f.passed_since_dismissal]
    if passed and not show_all and not as_json:  # --all lists them: "dismissed, passed since"
        named = ", ".join(f.id for f in passed[:10])
        named += f" and {len(passed) - 10} more" if len(passed) > 10 else ""
        one = len(passed) == 1
        click.echo(
            f"\n{plural(len(passed), 'dismissed finding')} ({named}) "
            f"{'has' if one else 'have'} passed since {'it was' if one else 'they were'} "
            f"dismissed: {'its' if one else 'the'} next failure{'' if one else ' of each'} "
            f"reopens it (`proctor findings {folder} --all` lists {'it' if one else 'them'})."
        )
    return 0


def _unread_files(told: dict[str, Cells | None], run: str | None, finding: Finding) -> list[Path]:
    """The ``trial.json`` files of the finding's cell in run ``run`` that do not read."""
    cells = told.get(run or "")
    cell = (finding.case, finding.agent, finding.condition)
    return cells.unread.get(cell, []) if cells is not None else []


def _not_evaluated(told: dict[str, Cells | None], run: str | None, finding: Finding) -> set[str]:
    """Why run ``run`` evaluated no trial of the finding's cell (``--no-evaluate``), as the
    trials' reasons say; empty when a trial of it ended otherwise."""
    cells = told.get(run or "")
    cell = (finding.case, finding.agent, finding.condition)
    return cells.unevaluated.get(cell, set()) if cells is not None else set()


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
