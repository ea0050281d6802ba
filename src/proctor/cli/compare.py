"""``proctor compare``: conditions within one run, or the same cases across two runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from proctor.cli.options import label_options, relabeller


@click.command("compare")
@click.argument("run", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.argument(
    "run2", required=False, type=click.Path(path_type=Path, file_okay=False, exists=True)
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
    run: Path,
    run2: Path | None,
    treatment: str | None,
    baseline: str | None,
    seed: int,
    min_samples: int,
    as_json: bool,
    buckets: Path | None,
    goal_labels: Path | None,
) -> int:
    """Compare conditions within RUN, or RUN (baseline) against RUN2 (candidate).

    Reads stored trial.json files only; nothing is re-run.
    """
    from proctor.errors import ConfigError
    from proctor.models.io import model_to_json
    from proctor.report.ab import (
        compare_conditions,
        compare_runs,
        render_ab_markdown,
        render_runs_markdown,
    )
    from proctor.report.stored import load_records as read_records

    labels = relabeller(buckets, goal_labels)

    def load_records(path: Path) -> list[Any]:
        records = read_records(path)
        return labels(records) if labels is not None else records

    if run2 is None:
        report = compare_conditions(
            load_records(run), treatment, baseline, seed, min_samples=min_samples
        )
        click.echo(model_to_json(report) if as_json else render_ab_markdown(report), nl=not as_json)
        return 0
    if treatment or baseline:
        raise ConfigError("--treatment/--baseline compare conditions within one run; give one RUN")
    comparison = compare_runs(load_records(run), load_records(run2), seed, min_samples=min_samples)
    click.echo(
        model_to_json(comparison) if as_json else render_runs_markdown(comparison), nl=not as_json
    )
    return 0
