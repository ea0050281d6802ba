"""``proctor report``: recompute everything from stored trials; never re-run anything."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from proctor.cli.options import (
    CONFIG_PATH,
    MAX_MIN_SAMPLES,
    NAME,
    label_options,
    relabeller,
    reporter_option,
)
from proctor.cli.signals import echo_unless_gone
from proctor.util.json_shown import name_shown

if TYPE_CHECKING:
    from proctor.models.run import RunManifest
    from proctor.models.suite import SuiteRecord
    from proctor.report.pooled_runs import PooledRead


@click.command("report")
@click.argument(
    "run_dirs",
    nargs=-1,
    required=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
)
@reporter_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the JSON report (suite.json) instead of the Markdown one (--reporter json).",
)
@label_options
@click.option(
    "--config",
    type=CONFIG_PATH,
    help="Take the gate from this configuration instead of the stored run; - reads it from "
    "standard input.",
)
@click.option(
    "--write",
    is_flag=True,
    help="Also rewrite the chosen reporters' files (and suite.json); given no --reporter, "
    "also the files the run wrote (junit.xml, report.html).",
)
@click.option(
    "--output",
    type=click.Path(),  # as typed: `--output ""` is named so, not as "."
    metavar="FILE",
    help="Write the report to FILE instead of printing it (one reporter; an existing FILE is "
    "replaced only when it is a report of that reporter proctor wrote, or with --force; a "
    "pipe, a device or /dev/stdout is written to as it is, never replaced).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace the --output file whatever it holds; with --config, write a gate that is "
    "not the run's own into the run's folder (--write, or an --output file there).",
)
@click.option("--repeated", is_flag=True, help="Also print the repeated-run view.")
@click.option(
    "--goal-shape",
    type=NAME,
    help="Repeated-run view (shown when given): only cases of this goal shape.",
)
@click.option(
    "--min-samples",
    type=click.IntRange(min=1, max=MAX_MIN_SAMPLES),
    default=1,
    show_default=True,
    help="Repeated-run view (shown when given): only rows with at least this many samples.",
)
def command(
    run_dirs: tuple[Path, ...],
    reporters: tuple[str, ...],
    as_json: bool,
    buckets: Path | None,
    goal_labels: Path | None,
    config: Path | None,
    write: bool,
    output: str | None,
    force: bool,
    repeated: bool,
    goal_shape: str | None,
    min_samples: int,
) -> int:
    """Recompute statistics, gate and exit code of RUN_DIR from its trial.json files.

    Several RUN_DIRs are read as one sample set: every trial of every run, their repeats
    numbered on from one run to the next, under the first run's gate (or --config's).

    --output FILE writes the one report named to FILE instead of stdout (its folder must
    exist); an existing FILE is replaced only when it is a report of that reporter proctor
    wrote, or with --force; a pipe, a device or /dev/stdout is written to as it is.

    The Markdown, JSON, JUnit and HTML reports also list the run's new, reopened and resolved
    findings, and the dismissed ones whose check it passed, when the ledger of its results
    directory holds the run.
    """
    from proctor.agents.credentials import register_user_keys
    from proctor.errors import ConfigError
    from proctor.report.distinct import check_distinct
    from proctor.report.pooled_runs import gate_source_words, gate_words, recompute_many
    from proctor.report.progress import as_of_now, still_running, stopped_short_notes
    from proctor.report.recompute import check_own_gate, config_gate, recompute
    from proctor.report.repeated import render_repeated_markdown, repeated_runs
    from proctor.report.reporters import REPORTERS, printed, render_into, reporter_names
    from proctor.session.repeats import runs_order_note
    from proctor.util.masking import mask

    # Every key of the environment and ./.env is masked in the reports written and printed.
    register_user_keys()

    # As for `run`: --json prints the JSON report, whatever other reporters are named (with
    # --write they are written into the run folder).
    names = reporter_names(reporters or (["json"] if as_json else ["markdown"]))
    if as_json and "json" not in names:
        names.append("json")
    shown = printed(names, as_json)
    # --goal-shape and --min-samples filter the repeated-run view: either given shows it
    # (never a filter silently left unused).
    ctx = click.get_current_context()
    min_given = ctx.get_parameter_source("min_samples") is not ParameterSource.DEFAULT
    view = repeated or goal_shape is not None or min_given
    if view and shown != "markdown":
        flag = (
            "--repeated"
            if repeated
            else "--goal-shape"
            if goal_shape is not None
            else "--min-samples"
        )
        which = "--json prints the JSON one" if as_json else "give --reporter markdown"
        does = "adds a Markdown table to" if repeated else "filters a Markdown table of"
        raise ConfigError(
            f"{flag} {does} the Markdown report: {which} "
            "(the JSON report holds the repeated-run view under `repeated`)"
        )
    # (--force with --write and --config rewrites the run's files under a gate not its own)
    out = check_output(output, force, names, shown, alone=not (write and config is not None))
    labels = relabeller(buckets, goal_labels, tuple(run_dirs))
    check_distinct(run_dirs)
    if len(run_dirs) > 1:
        if write:
            raise ConfigError("--write rewrites one run's files: give one RUN_DIR with it")
        # A person's marks that do not read stop the report (exit 2), as they stop a
        # --resume: a gate computed without a `failed` mark could pass.
        read = recompute_many(list(run_dirs), config, labels, strict_annotations=True)
        runs, records, suite = read.runs, read.records, read.suite
        if config is None:
            check_own_gate(suite, records, [cell for run in runs for cell in run.cells], True)
        refuse_early(out, run_dirs, suite, force, goal_shape, records)
        echo_pooled_notes(read)
        pairs = [bool(run.manifest and run.manifest.session_label) for run in runs]
        if note := runs_order_note([run.cells for run in runs], pairs):
            click.echo(f"proctor: note: {note}", err=True)
        live = [(run, run.running_pid) for run in runs if run.running_pid is not None]
        if live:
            stopped = any(run.stopped_short and run.running_pid is None for run in runs)
            suite = still_running(suite, *_pooled_progress(live, runs), interrupted=stopped)
    else:
        (run_dir,) = run_dirs
        # Compact records: `report` only aggregates and renders them (a fifth of the memory).
        run, suite = recompute(
            run_dir, config, labels, compact_records=True, strict_annotations=True
        )
        records = run.records
        if config is None:  # (--config's gate is checked as its file is read)
            check_own_gate(suite, records, run.cells)
        pid = run.running_pid
        if pid is not None and write:
            raise ConfigError(
                f"--write {run_dir}: the run is still running (process {pid}); it writes its "
                "files when it finishes: report it without --write, or once it has finished"
            )
        if write:
            check_foreign_gate(run_dir, suite, force)
        refuse_early(out, run_dirs, suite, force, goal_shape, records)
        for note in [*run.notes, *stopped_short_notes(run)]:
            click.echo(f"proctor: note: {note}", err=True)
        suite = _with_findings(suite, run_dir, run.manifest)
        suite = as_of_now(run, suite)  # of a run still running: exit 75, no verdict yet
    source = gate_source_words(suite)
    if source is not None:  # --config's gate: never shown as the run's own
        what = gate_words(suite.gate)
        gate = "no gate applies" if what == "no gate" else f"the gate is {what}"
        click.echo(f"proctor: note: {gate}, {source}", err=True)
    elif config is not None and config_gate(config) is None:  # the default, the run's own too
        click.echo(
            f"proctor: note: {config}, given with --config, holds no gate: proctor's default "
            f"gate ({gate_words(suite.gate)}) applies, which is the run's own",
            err=True,
        )
    files = [*names, "json"]
    if write and not reporters:
        # The files the run wrote are rewritten too: a junit.xml or report.html left as the run
        # wrote it would disagree with the suite.json written now (after an annotation, or
        # under another --config), as a --resume rewrites them.
        recorded = run.manifest.reporters if run.manifest is not None else []
        files += [name for name in recorded if name in REPORTERS]
    written = render_into(run_dirs[0], suite, records, files) if write else {}
    own = suite.gate_from.run_gate if suite.gate_from is not None else None
    if written and own is not None and own != suite.gate:
        rewritten = ", ".join(REPORTERS[name].file_name for name in written)
        click.echo(
            f"proctor: note: {run_dirs[0]}'s {rewritten} now "
            f"hold {given_gate(suite)}, not the run's own "
            f"({gate_words(own)}): `proctor report {run_dirs[0]} --write` without --config "
            "rewrites them under its own",
            err=True,
        )
    # One document on stdout (JSON after JUnit XML reads as neither); with --write every
    # reporter named is a file in the run folder too. (--output takes one reporter.)
    if not write and len(names) > 1:
        others = [name for name in names if name != shown]
        how = (
            f"--write writes {', '.join(others)} into the run folder"
            if len(run_dirs) == 1
            else "give --reporter " + " or --reporter ".join(others) + " to print another"
        )
        click.echo(f"proctor: note: printed the {shown} report only; {how}", err=True)
    if shown in written:
        text = written[shown]
    elif len(run_dirs) == 1:
        text = REPORTERS[shown].render(suite, records, run_dir=run_dirs[0])
    elif shown in ("html", "markdown", "junit"):  # each trial's folder, in the run it came from
        text = REPORTERS[shown].render(suite, records, pooled=read)
    else:
        text = REPORTERS[shown].render(suite, records)
    if shown == "markdown" and view:  # after the report it belongs to
        rows = repeated_runs(records, goal_shape=goal_shape, min_samples=min_samples)
        text += "\n" + render_repeated_markdown(rows)
    # Masked as printed, as the files written are (a key in a trial's reason, say).
    if out is None:
        echo_unless_gone(mask(text), nl=False)
    else:
        write_output(out, mask(text), shown, given=output)
    return suite.exit_code


_KIND = {"markdown": "a Markdown", "json": "a JSON", "junit": "a JUnit", "html": "an HTML"}
"""Each reporter's report as a sentence names it."""


def check_output(
    output: str | None, force: bool, names: list[str], shown: str, *, alone: bool = True
) -> Path | None:
    """A ConfigError (exit 2), before any run is read, for an ``--output FILE`` that would be
    written wrong: a blank path or a folder, a folder that does not exist, several reporters
    named (which one would it hold?), or a file that is not a report of the reporter named
    that proctor wrote (a typo must not replace a README), unless ``--force``; and for
    ``--force`` without ``--output`` (when it does nothing else: ``alone``). A link is written
    through, as ``> FILE`` writes it: the file it links to is checked and returned, the link
    kept; a path ending in a slash names a folder; a descriptor, a named pipe or a character
    device (see :mod:`proctor.cli.output_file`) is returned as given, written to as it is,
    never read nor replaced. The file to write, or None to print."""
    from proctor.cli.options import check_folder_of
    from proctor.cli.output_file import check_file_path, descriptor, followed, is_stream
    from proctor.errors import ConfigError
    from proctor.report.reporters import written_by_proctor

    if output is None:
        if force and alone:
            raise ConfigError(
                "--force replaces the --output file (or, with --write and --config, the run's "
                "files under a gate not its own): give --output FILE with it"
            )
        return None
    check_file_path(output, "the report")
    stream = is_stream(output, "a report")
    # A link to a file is written through: the file it links to, even one not there yet.
    path = Path(output) if stream else followed(output)
    if descriptor(output) is None and path.is_dir():  # (`-` is stdout, whatever is here)
        raise ConfigError(f"--output {output}: a folder, not a file (the report is one file)")
    if len(names) > 1:
        raise ConfigError(
            f"--output {output}: writes one report, and {len(names)} are named "
            f"({', '.join(names)}): give one --reporter, or --json alone "
            "(--write writes each into the run folder)"
        )
    if stream:  # written to as it is, as `> FILE` writes it: nothing there is replaced
        return path
    check_folder_of("--output", path)
    if path.exists() and not force and not written_by_proctor(shown, path):
        raise ConfigError(
            f"--output {output}: the file exists and is not {_KIND[shown]} report proctor "
            "wrote; give --force to replace it"
        )
    return path


def given_gate(suite: SuiteRecord) -> str:
    """The gate --config gave, as a sentence names it: ``the gate of g.json (minPassRate
    0.5)``, or of a file that holds none ``proctor's default gate (minPassRate 1.0; g.json
    holds no gate)``."""
    from proctor.report.pooled_runs import gate_words

    source, what = suite.gate_from, gate_words(suite.gate)
    if source is not None and source.no_gate:
        return f"proctor's default gate ({what}; {source.config} holds no gate)"
    return f"the gate of {source.config if source else 'the run'} ({what})"


def check_foreign_gate(run_dir: Path, suite: SuiteRecord, force: bool) -> None:
    """A ConfigError (exit 2) for ``--write`` under a ``--config`` gate that is not the run's
    own, unless ``force``: the run's files would no longer show the gate it ran under."""
    from proctor.errors import ConfigError
    from proctor.report.pooled_runs import gate_words

    source = suite.gate_from
    if force or source is None or source.run_gate is None or source.run_gate == suite.gate:
        return
    raise ConfigError(
        f"--write {run_dir}: {given_gate(suite)} is not the "
        f"run's own ({gate_words(source.run_gate)}), and the files --write rewrites would no "
        "longer show the gate it ran under: give --force to rewrite them under this gate, or "
        "--output FILE to write this report elsewhere"
    )


def check_foreign_output(
    out: Path, run_dirs: tuple[Path, ...], suite: SuiteRecord, force: bool
) -> None:
    """A ConfigError (exit 2) for ``--output FILE`` inside a run folder read (in it or in a
    folder of it), under a ``--config``
    gate that is not the run's own, unless ``force``: as with ``--write``, the run's folder
    would hold a report of a gate it did not run under (its own report replaced, for one)."""
    from proctor.errors import ConfigError
    from proctor.report.pooled_runs import gate_words

    source = suite.gate_from
    if force or source is None or source.run_gate is None or source.run_gate == suite.gate:
        return
    where = out.resolve().parent
    for run_dir in run_dirs:
        if where.is_relative_to(run_dir.resolve()):  # its trial folders too
            raise ConfigError(
                f"--output {out}: a file inside the run folder {run_dir}, and "
                f"{given_gate(suite)} is not the run's own "
                f"({gate_words(source.run_gate)}): the run's folder would no longer show the "
                "gate it ran under; give --force to write it there, or an --output FILE "
                "outside the run folder"
            )


def refuse_early(
    out: Path | None,
    run_dirs: tuple[Path, ...],
    suite: SuiteRecord,
    force: bool,
    goal_shape: str | None,
    records: list[Any],
) -> None:
    """The refusals (exit 2) that need the runs read, made before any note of the report is
    printed: a refused command prints no note of a report it does not write. An ``--output``
    file in a run folder under a gate not the run's own (:func:`check_foreign_output`), and a
    ``--goal-shape`` no trial has."""
    from proctor.errors import ConfigError

    if out is not None:
        check_foreign_output(out, run_dirs, suite, force)
    if goal_shape is not None:
        shapes = sorted({r.labels.goal_shape for r in records if r.labels.goal_shape})
        if goal_shape not in shapes:
            raise ConfigError(
                f"--goal-shape {name_shown(goal_shape)}: no trial has that goal shape "
                f"(shapes: {', '.join(shapes) or 'none; --goal-labels FILE sets them'})"
            )


def write_output(output: Path, text: str, shown: str, given: str | None = None) -> None:
    """The report written to ``--output FILE`` (atomically: a reader never sees half of it), or
    to the descriptor, pipe or device it is (see :mod:`proctor.cli.output_file`), and a line on
    stderr saying where (``given``: FILE as given, a link to ``output``)."""
    from proctor.cli.output_file import write_output_file, written_where

    if write_output_file(output, text, "a report"):  # not when its reader went away
        kind = _KIND[shown].partition(" ")[2]
        click.echo(f"proctor: {kind} report written to {written_where(output, given)}", err=True)


def pooled_notes(read: PooledRead) -> list[str]:
    """What stderr says of runs read as one sample set, each sentence once: each run's own
    notes (each named by its run once), a run still running or stopped short (with how to
    finish it, as for one run: the pooled exit reason counts the trials of every run
    together), then what the runs do not share (their gates, their suites)."""
    from proctor.report.pooled_runs import run_note
    from proctor.report.progress import stopped_short_notes

    notes: list[str] = []
    for run in read.runs:
        notes += [run_note(run, note) for note in run.notes]
        notes += stopped_short_notes(run)
    notes += read.notes
    return list(dict.fromkeys(notes))


def echo_pooled_notes(read: PooledRead) -> None:
    """:func:`pooled_notes` on stderr, as `proctor report RUN_A RUN_B …` and `proctor run
    --manifest` print them: ``proctor: note: …``, one a line."""
    for note in pooled_notes(read):
        click.echo(f"proctor: note: {note}", err=True)


def _pooled_progress(live: list[tuple[Any, int]], runs: list[Any]) -> tuple[str, str]:
    """Which of several runs read together are still running, and how many of its own trials
    each finished, then those of every run read: never the others' trials as its own."""
    from proctor.report.pooled_runs import planned_of

    def progress(run: Any) -> str:
        return f"{len(run.records)}" + (f" of {run.planned}" if run.planned else "")

    named = [f"{run.paths.root.name} (process {pid})" for run, pid in live]
    if len(live) == 1:
        ((run, pid),) = live
        running = f"{run.paths.root.name} is still running (process {pid})"
        own = f"{progress(run)} of its trials"
    else:
        running = f"{', '.join(named[:-1])} and {named[-1]} are still running"
        own = f"{' and '.join(progress(run) for run, _ in live)} of their trials"
    total = sum(len(run.records) for run in runs)
    # Of a run that does not say how many trials it planned, nor do the runs read together.
    planned = planned_of(runs)
    every = f"{total}" + (f" of {planned}" if planned else "")
    return running, f"{own} finished so far ({every} over the {len(runs)} runs read)"


def _with_findings(suite: SuiteRecord, run_dir: Path, manifest: RunManifest | None) -> SuiteRecord:
    """The run's aggregate with what it did to the findings ledger of its results directory,
    when the ledger holds the run (a later repetition of a repeat check, which it never takes
    in, is said so on standard error)."""
    from proctor.errors import ConfigError, SchemaVersionError
    from proctor.report.findings import later_repetition, load_ledger, run_changes

    root = run_dir.resolve()
    try:
        ledger = load_ledger(root.parent)
    except (ConfigError, SchemaVersionError) as exc:
        click.echo(f"proctor: note: {exc}; findings not shown", err=True)
        return suite
    # The ledger holds each run by its folder's name (as `findings` reads the folders).
    changes = run_changes(ledger, root.name)
    repetition = manifest.repetition if manifest is not None else None
    if changes is None and (said := later_repetition(root.name, repetition)):
        click.echo(f"proctor: note: {said}", err=True)
    return suite.model_copy(update={"findings": changes})
