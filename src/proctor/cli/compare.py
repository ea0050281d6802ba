"""``proctor compare``: conditions within one run, or the same cases across two runs."""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

import click

from proctor.cli.options import MAX_MIN_SAMPLES, NAME, label_options, relabeller


def _no_config(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--config`` given to ``compare``: refused in one sentence saying why (Click's bare "No
    such option" would leave a user to guess). Nothing a ``proctor.json`` holds changes a
    comparison: its measures are those each run stored in its trials (their status under the
    case's pass threshold, their process metrics under the run's ``metrics``), it prices
    nothing, its statistics are fixed but for --seed and --min-samples, and it applies no gate."""
    if value is not None:
        raise click.UsageError(
            "--config: `proctor compare` reads no configuration, only the runs' stored trials "
            "as each run scored and measured them (--seed and --min-samples set its "
            "statistics); `proctor report RUN --config FILE` applies another file's gate",
            ctx=ctx,
        )


@click.command("compare")
@click.argument(
    "runs", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False, exists=True)
)
@click.option(
    "--treatment",
    type=NAME,
    help="Condition treated as the treatment (the RUNs read as one sample set, however many).",
)
@click.option(
    "--baseline",
    type=NAME,
    help="Condition treated as the baseline (the RUNs read as one sample set, however many).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option(
    "--min-samples",
    type=click.IntRange(min=1, max=MAX_MIN_SAMPLES),
    default=3,
    show_default=True,
    help="Fewer samples than this on a side: no claim.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of Markdown.")
@label_options
@click.option(  # said to be taken by no comparison, before anything is read
    "--config",
    hidden=True,
    is_flag=False,
    flag_value="",
    expose_value=False,
    is_eager=True,
    callback=_no_config,
)
def command(
    runs: tuple[Path, ...],
    treatment: str | None,
    baseline: str | None,
    seed: int,
    min_samples: int,
    as_json: bool,
    buckets: Path | None,
    goal_labels: Path | None,
) -> int:
    """Compare conditions within RUN, or RUN (baseline) against RUN2 (candidate).

    With --treatment/--baseline, or with more than two RUNs, the runs' trials are read as one
    sample set (repeats numbered on from run to run) and its conditions are compared: the A/B
    summary, bucket slices and complete and incomplete pairs per task across result sets.
    Both named, that pair is compared; one named, the other is the run's A/B gate's (its
    other condition when the one named is the gate's); neither, the gate's two, as `proctor
    report` compares them. Without a gate, a side not named is chosen: the pair most cases
    ran together, `baseline` or `default` as the baseline. Reads stored trial.json files only;
    nothing is re-run.
    """
    from proctor.errors import ConfigError
    from proctor.models.ab import HandMark
    from proctor.models.compact import compact
    from proctor.models.io import model_to_json
    from proctor.report.ab import (
        compare_conditions,
        compare_runs,
        render_ab_markdown,
        render_runs_markdown,
    )
    from proctor.report.annotations import trial_id
    from proctor.report.distinct import check_distinct
    from proctor.report.planned import missing_of, planned_cells
    from proctor.report.pooled_runs import runs_suites_note, suites_note
    from proctor.report.progress import stopped_short_notes
    from proctor.report.stored import StoredRun, stored_run
    from proctor.report.trial_records import iter_records
    from proctor.report.trial_records import load_records as read_records

    labels = relabeller(buckets, goal_labels)
    notes: list[str] = []
    marks: list[HandMark] = []
    stored: list[StoredRun] = []  # each run read, as read
    plans: dict[Path, list[tuple[str, str, str, int]]] = {}  # each run's plan, read once

    def load_records(path: Path) -> list[Any]:
        # Compact read-only stand-ins, read one at a time (a fifth of the memory: two runs of
        # 20,000 trials took a gigabyte).
        try:
            if labels is None:
                records = [compact(r) for r in iter_records(path, notes, strict_annotations=True)]
            else:
                records = read_records(path, notes, strict_annotations=True)
        except ConfigError as exc:
            _refuse_if_starting(path, exc)
            raise
        # A trial of a finished run whose record is gone counts as an infra-error, as in report.
        # A plan that does not read (its gate not read: both sides named, or a run after the
        # first) is said in a note: the trials it planned and never ran would be left out.
        plans[path] = planned_cells(path, notes)
        lost = missing_of(path, records, notes, plans[path])
        if labels is None:
            records += [compact(r) for r in lost]
        else:  # relabelled at once: a task whose every record is lost is still one of the run's
            records = [compact(r) for r in labels([*records, *lost], path)]
        # A run that stopped short (interrupted, or still running) is compared on the trials
        # it finished: said, as `report` says it, with how to finish it.
        stored.append(stored_run(path, records))
        notes.extend(stopped_short_notes(stored[-1]))
        marks.extend(
            HandMark(
                run=Path(os.path.abspath(path)).name,  # "." too
                trial=trial_id(r),
                verdict=r.annotation.verdict,
                note=r.annotation.note,
            )
            for r in records
            if r.annotation is not None
        )
        return records

    def shown(markdown: str) -> str:
        for note in dict.fromkeys(notes):  # a malformed trial, a run that stopped short
            click.echo(f"proctor: note: {note}", err=True)
        if not marks:
            return markdown
        from proctor.util.text import plural

        listed = ", ".join(f"{m.run}/{m.trial} {m.verdict} ({m.note})" for m in marks)
        return (
            markdown.rstrip("\n")
            + f"\n\nAnnotated by hand: {plural(len(marks), 'trial')}: {listed}\n"
        )

    if len(runs) != 2 or treatment or baseline:
        from proctor.report.distinct import check_no_trial_twice
        from proctor.report.pooled_runs import pooled, pooled_planned
        from proctor.session.repeats import runs_order_note

        check_distinct(runs)  # pooled: a run given twice would count twice
        from proctor.report.ab.choose import gate_pair, gate_sides

        # The pair `proctor report` of the runs compares, not another; one side named, the
        # other is the gate's (its other condition when the side named is one of the gate's).
        try:
            gated = None if treatment and baseline else gate_pair(runs[0])
        except ConfigError as exc:  # as `proctor report` refuses it, with compare's remedy
            raise ConfigError(
                f"{exc}; it holds the run's gate: restore it, or name the pair with "
                "--treatment and --baseline"
            ) from exc
        sides = gate_sides(treatment, baseline, gated)
        treatment, baseline, from_gate = sides.treatment, sides.baseline, sides.from_gate

        per_run = [load_records(run) for run in runs]
        check_no_trial_twice(runs, per_run)
        matrices = [plans[run] for run in runs]
        taken = {getattr(sides, side) for side in from_gate}  # the gate's conditions taken
        _check_named(treatment, baseline, per_run, matrices, gated=gated, taken=taken)
        records = pooled(per_run, matrices) if len(runs) > 1 else per_run[0]
        # The runs' matrix: a case that never planned both conditions is no pair, and the
        # repeats planned and never started are listed as incomplete too.
        cells = pooled_planned(matrices, per_run) if len(runs) > 1 else matrices[0]
        report = compare_conditions(
            records, treatment, baseline, seed, min_samples=min_samples, planned=cells
        )
        report.annotations = marks
        report.pair_from = sides.pair_from
        if (
            len(runs) > 1
            and not report.pairs
            and _sides_apart(per_run, {report.treatment, report.baseline})
        ):
            # Two runs: the command that compares them, as typed, to copy.
            two = " ".join(map(str, runs)) if len(runs) == 2 else "BASELINE_RUN CANDIDATE_RUN"
            notes.append(
                "no complete pair: a pair is a case's repeat under both conditions in one run, "
                f"and these runs each ran one side of it; `proctor compare {two}` compares "
                "two runs case by case (unpaired)"
            )
        read = ", ".join(_named(run) for run in runs)
        said = (
            f"- Runs read as one sample set: {read} (their repeats numbered on from run to run)."
            if len(runs) > 1
            else f"- Run read: {read}."
        )
        if from_gate:
            whose = "the first run's" if len(runs) > 1 else "the run's"
            gave = " and ".join(sorted(from_gate, reverse=True))
            if gated is not None and (treatment, baseline) == (gated[1], gated[0]):
                # One side named, the gate's other: the gate's two, the other way round.
                option = "--baseline" if gave == "treatment" else "--treatment"
                said += (
                    f"\n- Conditions: the two of {whose} A/B gate (`gate.ab`), the other way "
                    f"round: `{option}` named its {gave}, and its {option[2:]} is the {gave}."
                )
            else:
                said += (
                    f"\n- Conditions: the {gave} of {whose} A/B gate (`gate.ab`), as `proctor "
                    "report` compares them; `--treatment`/`--baseline` name others."
                )
        suites = suites_note(stored)  # as `proctor report` of the runs says it
        if suites is not None:
            notes.append(suites[0])
            said += f"\n- {suites[1]}"
        of_manifest = [bool(run.manifest and run.manifest.session_label) for run in stored]
        if len(runs) > 1 and (order := runs_order_note(matrices, of_manifest)):  # and so is this
            notes.append(order)
        text = model_to_json(report) if as_json else shown(_with(render_ab_markdown(report), said))
        if as_json:
            shown("")
        click.echo(text, nl=not as_json)
        return 0
    run, run2 = runs
    try:
        check_distinct(runs)
    except ConfigError:  # a run against itself: every group is unchanged, by construction
        notes.append(
            f"{run} and {run2} are the same run (a folder, a link or a copy of it, by its run "
            "id): every group is compared with itself"
        )
    comparison = compare_runs(load_records(run), load_records(run2), seed, min_samples=min_samples)
    comparison.annotations = marks
    pairs = _manifest_pairs(stored)
    if pairs is not None:
        notes.append(
            f"{run} and {run2} are pairs of a repeat manifest ({pairs}): compared run against "
            f"run, each condition with itself; `proctor compare {run} {run2} --treatment "
            "TREATMENT --baseline BASELINE` reads them as one sample set, the conditions of "
            "each pair paired"
        )
    said = f"- Baseline run: {_named(run)}; candidate run: {_named(run2)}."
    if not comparison.groups:
        only = len(comparison.only_in_baseline), len(comparison.only_in_candidate)
        notes.append(
            f"no group (case × agent × condition) is in both runs ({only[0]} only in {run}, "
            f"{only[1]} only in {run2}): nothing is compared"
        )
    suites = runs_suites_note(stored, comparison.groups)
    if suites is not None:
        notes.append(suites[0])
        said += f"\n- {suites[1]}"
    text = (
        model_to_json(comparison)
        if as_json
        else shown(_with(render_runs_markdown(comparison), said))
    )
    if as_json:
        shown("")
    click.echo(text, nl=not as_json)
    return 0


def _check_named(
    treatment: str | None,
    baseline: str | None,
    per_run: list[list[Any]],
    matrices: list[list[tuple[str, str, str, int]]],
    *,
    gated: tuple[str, str] | None = None,
    taken: Collection[str] = (),
) -> None:
    """A ConfigError naming the option: a --treatment or --baseline that is none of the
    runs' conditions (those their trials ran under or they planned), or both one condition;
    of the (first) run's A/B gate ``gated``, the conditions ``taken`` as sides no option
    named: one the runs lack is named as the gate's, as no option gave it."""
    from proctor.errors import ConfigError
    from proctor.report.ab.choose import gate_missing
    from proctor.util.json_shown import name_quoted
    from proctor.util.text import did_you_mean

    names = sorted(
        {r.condition for records in per_run for r in records}
        | {cell[2] for cells in matrices for cell in cells}
    )
    whose = "the run's" if len(per_run) == 1 else "the runs'"
    listed = ", ".join(names) or "none"
    if gated is not None and taken:  # a stale or hand-edited resolved.json: no option named it
        gate = "the first run's" if len(per_run) > 1 else "the run's"
        said = gate_missing(gated, names, gate, taken)
        if said is not None:
            raise ConfigError(f"{said}; --treatment and --baseline choose two of them")
    for option, name in (("--treatment", treatment), ("--baseline", baseline)):
        if name is not None and name not in names:
            near = did_you_mean(name, names)  # then the list is said to be the conditions
            raise ConfigError(
                f"{option} {name_quoted(name)}: not one of {whose} conditions "
                f"({f'{near}conditions: ' if near else ''}{listed})"
            )
    if treatment is not None and treatment == baseline:
        raise ConfigError(
            f"--treatment and --baseline are both {name_quoted(treatment)}: give two of "
            f"{whose} conditions ({listed})"
        )


def _manifest_pairs(stored: list[Any]) -> str | None:
    """The session labels of two runs that are pairs of a repeat manifest (`proctor run
    --manifest` labels each pair's run with the manifest's ``session``), or None."""
    labels = [run.manifest.session_label if run.manifest else None for run in stored]
    if len(labels) != 2 or None in labels or labels[0] == labels[1]:
        return None
    return ", ".join(str(label) for label in labels)


def _named(run: Path) -> str:
    """A run as the Markdown names it: its folder's name (a run given as "." too)."""
    from proctor.util.text import code_span

    return code_span(Path(os.path.abspath(run)).name)


def _with(markdown: str, line: str) -> str:
    """The Markdown with ``line`` (the runs it read) first under its title."""
    title, _, rest = markdown.partition("\n\n")
    return f"{title}\n\n{line}\n{rest}"


def _refuse_if_starting(path: Path, exc: Exception) -> None:
    """A run whose orchestrator still runs it and none of whose trials has ended yet is said
    to be so, not to have stopped (its `--resume` would be refused): nothing to compare yet."""
    from proctor.errors import ConfigError
    from proctor.paths import RunPaths
    from proctor.session.journal import live_orchestrator

    paths = RunPaths(path)
    if paths.trial_jsons() or paths.unusable_trial_jsons() or not paths.run_json.is_file():
        return
    pid = live_orchestrator(paths.journal)
    if pid is not None:
        raise ConfigError(
            f"{path}: the run is still running (process {pid}) and none of its trials has "
            "ended yet: nothing to compare; compare it once trials have ended"
        ) from exc


def _sides_apart(per_run: list[list[Any]], sides: set[str]) -> bool:
    """Whether every run holds one of the two ``sides`` at most, for every case × agent: the
    runs can make no pair, however many trials they hold."""
    for records in per_run:
        seen: dict[tuple[str, str], set[str]] = {}
        for r in records:
            if r.condition in sides:
                seen.setdefault((r.case, r.agent), set()).add(r.condition)
        if any(len(found) > 1 for found in seen.values()):
            return False
    return True
