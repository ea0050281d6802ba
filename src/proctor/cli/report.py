"""``proctor report``: recompute everything from stored trials; never re-run anything."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("report")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--reporter",
    "reporters",
    default="markdown",
    show_default=True,
    help="Comma-separated: markdown, json.",
)
@click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Take the gate from this configuration instead of the stored run.",
)
@click.option("--write", is_flag=True, help="Also rewrite suite.json and suite.md in RUN_DIR.")
@click.option("--repeated", is_flag=True, help="Also print the repeated-run view.")
@click.option("--goal-shape", help="Repeated-run view: only cases of this goal shape.")
@click.option(
    "--min-samples",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Repeated-run view: only rows with at least this many samples.",
)
def command(
    run_dir: Path,
    reporters: str,
    config: Path | None,
    write: bool,
    repeated: bool,
    goal_shape: str | None,
    min_samples: int,
) -> int:
    """Recompute statistics, gate and exit code of RUN_DIR from its trial.json files."""
    from proctor.errors import ConfigError
    from proctor.report.recompute import recompute

    names = [r.strip() for r in reporters.split(",") if r.strip()]
    unknown = sorted(set(names) - {"markdown", "json"})
    if unknown:
        raise ConfigError(
            f"--reporter: unknown reporter(s) {', '.join(unknown)} (known: json, markdown)"
        )
    result = recompute(run_dir, config, write=write)
    for name in names:
        click.echo(result.json if name == "json" else result.markdown, nl=False)
    if repeated or goal_shape:
        from proctor.report.repeated import render_repeated_markdown, repeated_runs

        rows = repeated_runs(result.records, goal_shape=goal_shape, min_samples=min_samples)
        click.echo("\n" + render_repeated_markdown(rows), nl=False)
    return result.suite.exit_code
