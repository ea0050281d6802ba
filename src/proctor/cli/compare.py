"""``proctor compare``: conditions within one run, or the same cases across two runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from proctor.cli.options import label_options, relabeller


@click.command("compare")
@click.argument(
    "runs", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False, exists=True)
)
@click.option("--treatment", help="Condition treated as the treatment (one run).")
@click.option("--baseline", help="Condition treated as the baseline (one run).")
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option(
    "--min-samples",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Fewer samples than this on a side: no claim.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of Markdown.")
@label_options
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
    Reads stored trial.json files only; nothing is re-run.
    """
    from proctor.models.io import model_to_json
    from proctor.report.ab import (
        compare_conditions,
        compare_runs,
        render_ab_markdown,
        render_runs_markdown,
    )
    from proctor.report.stored import check_distinct
    from proctor.report.stored import load_records as read_records

    labels = relabeller(buckets, goal_labels)

    def load_records(path: Path) -> list[Any]:
        records = read_records(path)
        return labels(records) if labels is not None else records

    if len(runs) != 2 or treatment or baseline:
        from proctor.report.stored import pooled

        check_distinct(runs)  # pooled: a run given twice would count twice

        records = (
            pooled([load_records(run) for run in runs]) if len(runs) > 1 else load_records(runs[0])
        )
        report = compare_conditions(records, treatment, baseline, seed, min_samples=min_samples)
        click.echo(model_to_json(report) if as_json else render_ab_markdown(report), nl=not as_json)
        return 0
    run, run2 = runs
    comparison = compare_runs(load_records(run), load_records(run2), seed, min_samples=min_samples)
    click.echo(
        model_to_json(comparison) if as_json else render_runs_markdown(comparison), nl=not as_json
    )
    return 0
