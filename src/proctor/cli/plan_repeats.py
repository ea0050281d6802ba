"""``proctor plan-repeats``: a counterbalanced repeat manifest for ``proctor run --manifest``."""

from __future__ import annotations

from pathlib import Path

import click

from proctor.models.base import MAX_PAIRS
from proctor.util.text import plural


@click.command("plan-repeats")
@click.option(
    "--goal-labels",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    required=True,
    help="The tasks: a label file, task id → goal shape (JSON, or 'id,shape' lines).",
)
@click.option("--goal-shape", help="Only the tasks of this goal shape (default: all of them).")
@click.option(
    "--pairs",
    type=click.IntRange(min=1, max=MAX_PAIRS),
    default=3,
    show_default=True,
    help=f"Pairs of runs, 1 to {MAX_PAIRS} (each pair runs every condition once).",
)
@click.option(
    "--conditions",
    default="baseline,treatment",
    show_default=True,
    help="The conditions of each pair, comma-separated, in pair 1's order.",
)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="The manifest file to write, in a folder that exists.",
)
@click.option("--force", is_flag=True, help="Replace the --output file when it exists.")
def command(
    goal_labels: Path,
    goal_shape: str | None,
    pairs: int,
    conditions: str,
    output: Path,
    force: bool,
) -> int:
    """Write a repeat manifest: the tasks, one run per pair with the conditions in alternating
    order, each run's results folder and session label. `proctor run --manifest FILE` runs it.
    An existing --output file is left as it is unless --force is given; its folder must
    exist."""
    from proctor.cli.options import check_folder_of
    from proctor.errors import ConfigError
    from proctor.models.io import write_record
    from proctor.report.labels import read_label_file
    from proctor.session.repeats import manifest_order_note, plan_repeats
    from proctor.util.json_shown import WHOLE, json_text

    if not str(output).strip() or output.name in ("", ".", ".."):
        raise ConfigError(
            f"--output {json_text(str(output), WHOLE)}: give the path of a file to write"
        )
    if output.exists() and not force:
        raise ConfigError(f"--output {output}: the file exists; give --force to replace it")
    check_folder_of("--output", output)  # as `model serve --log`: a missing folder is not made
    names = [c.strip() for c in conditions.split(",") if c.strip()]
    manifest = plan_repeats(read_label_file(goal_labels, "--goal-labels"), goal_shape, pairs, names)
    try:
        write_record(output, manifest)
    except OSError as exc:
        raise ConfigError(f"--output {output}: cannot be written ({exc.strerror or exc})") from exc
    click.echo(
        f"proctor: {plural(len(manifest.tasks), 'task')} × {plural(pairs, 'pair')} of "
        f"{' / '.join(names)} planned in {output}",
        err=True,
    )
    note = manifest_order_note(manifest)
    if note:
        click.echo(f"proctor: note: {output}: {note}", err=True)
    return 0
