"""``proctor plan-repeats``: a counterbalanced repeat manifest for ``proctor run --manifest``."""

from __future__ import annotations

from pathlib import Path

import click

from proctor.models.base import MAX_PAIRS
from proctor.util.text import blank_in_list, plural


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
    type=click.Path(),  # as typed: `--output dir/` is named so, not as "dir"
    metavar="FILE",
    required=True,
    help="The manifest file to write, in a folder that exists (a pipe, a device or "
    "/dev/stdout is written to as it is).",
)
@click.option("--force", is_flag=True, help="Replace the --output file when it exists.")
def command(
    goal_labels: Path,
    goal_shape: str | None,
    pairs: int,
    conditions: str,
    output: str,
    force: bool,
) -> int:
    """Write a repeat manifest: the tasks, one run per pair with the conditions in a balanced
    order (two alternate; three or more follow the rows of a Williams square), each run's
    results folder and session label. `proctor run --manifest FILE` runs it.
    An existing --output file is left as it is unless --force is given; its folder must
    exist. A link is written through; a named pipe, a device or /dev/stdout is written to as
    it is."""
    from proctor.cli.options import check_folder_of
    from proctor.cli.output_file import (
        check_file_path,
        descriptor,
        followed,
        is_stream,
        write_output_file,
        written_where,
    )
    from proctor.errors import ConfigError
    from proctor.models.io import model_to_json
    from proctor.report.labels import read_label_file
    from proctor.session.repeats import manifest_order_note, plan_repeats

    check_file_path(output, "the manifest")
    stream = is_stream(output, "a manifest")
    # As `> FILE`: a link is written through, a pipe or device written to, never replaced.
    path = Path(output) if stream else followed(output)
    if descriptor(output) is None and path.is_dir():  # (`-` is stdout, whatever is here)
        raise ConfigError(f"--output {output}: a folder, not a file (the manifest is one file)")
    if not stream:
        check_folder_of("--output", path)  # as `model serve --log`: a missing folder is not made
        if path.exists() and not force:
            raise ConfigError(f"--output {output}: the file exists; give --force to replace it")
    blank = blank_in_list(conditions, "condition", "baseline,treatment")
    if blank:  # `a,,b` planned as `a / b` would hide a name the user meant to give
        raise ConfigError(f"--conditions: {blank}")
    names = [c.strip() for c in conditions.split(",") if c.strip()]
    labels = read_label_file(goal_labels, "--goal-labels")
    if not labels:  # named with the file, as every other problem of it is
        raise ConfigError(f"--goal-labels {goal_labels}: the file names no task")
    manifest = plan_repeats(labels, goal_shape, pairs, names)
    if not write_output_file(path, model_to_json(manifest), "a manifest"):
        return 0  # its reader went away, as a manifest printed to a closed pipe
    click.echo(
        f"proctor: {plural(len(manifest.tasks), 'task')} × {plural(pairs, 'pair')} of "
        f"{' / '.join(names)} planned in {written_where(path, output)}",
        err=True,
    )
    note = manifest_order_note(manifest)
    if note:
        click.echo(f"proctor: note: {output}: {note}", err=True)
    return 0
