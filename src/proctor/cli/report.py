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
def command(run_dir: Path, reporters: str, config: Path | None, write: bool) -> int:
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
    return result.suite.exit_code
