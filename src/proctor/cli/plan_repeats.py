"""``proctor plan-repeats``: a counterbalanced repeat manifest for ``proctor run --manifest``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from proctor.models.base import MAX_PAIRS
from proctor.util.text import blank_in_list, plural

T = TypeVar("T")


@click.command("plan-repeats")
@click.option(
    "--goal-labels",
    type=click.Path(path_type=Path),  # (one not there said with the other problems)
    metavar="FILE",
    required=True,
    help="The tasks: a label file, task id → goal shape (JSON, or 'id,shape' lines).",
)
@click.option("--goal-shape", help="Only the tasks of this goal shape (default: all of them).")
@click.option(
    "--pairs",
    "pairs_text",
    # Checked with the other options (see `_pairs`), each problem said at once, not by Click
    # before them.
    metavar="INTEGER",
    default="3",
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
    pairs_text: str,
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
    from proctor.cli.output_file import write_output_file, written_where
    from proctor.errors import ConfigError
    from proctor.models.io import model_to_json
    from proctor.session.repeats import (
        check_conditions,
        check_goal_shape,
        manifest_order_note,
        plan_repeats,
        tasks_of,
    )

    # Every option's problem at once, one line each: they are independent (a file that exists
    # says nothing of the conditions), and one refused at a time takes a try each.
    problems: list[str] = []

    def checked(check: Callable[[], T]) -> T | None:
        try:
            return check()
        except ConfigError as exc:
            problems.append(str(exc))
            return None

    path = checked(lambda: _output_path(output, force))
    pairs = checked(lambda: _pairs(pairs_text))
    blank = blank_in_list(conditions, "condition", "baseline,treatment")
    names = [c.strip() for c in conditions.split(",") if c.strip()]
    if blank:  # `a,,b` planned as `a / b` would hide a name the user meant to give
        problems.append(f"--conditions: {blank}")
    else:
        checked(lambda: check_conditions(names))
    before = len(problems)
    checked(lambda: check_goal_shape(goal_shape))
    labels = checked(lambda: _goal_labels(goal_labels))
    if labels is not None and len(problems) == before:  # a shape known, of the tasks named
        checked(lambda: tasks_of(labels, goal_shape))
    if len(problems) == 1:
        raise ConfigError(problems[0])
    if problems:
        from proctor.util.masking import mask
        from proctor.util.text import controls_escaped

        for problem in problems:  # as proctor says its one error
            click.echo(f"proctor: error: {controls_escaped(mask(problem))}", err=True)
        raise ConfigError(
            f"{len(problems)} problems with the options, each named above; no manifest was written"
        )
    assert path is not None and labels is not None and pairs is not None
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


def _pairs(text: str) -> int:
    """The number of pairs ``--pairs`` gives, or a ConfigError: not a whole number, or not
    from 1 to :data:`MAX_PAIRS`."""
    from proctor.errors import ConfigError
    from proctor.util.json_shown import json_text, name_shown

    try:
        pairs: int | None = int(text)
    except ValueError:  # (int() takes " 3" and "1_000", as Click's own check did)
        pairs = None
    if pairs is None or not 1 <= pairs <= MAX_PAIRS:
        shown = name_shown(text) if text.strip() else json_text(text)  # `--pairs ""`
        raise ConfigError(f"--pairs {shown}: expected a whole number from 1 to {MAX_PAIRS}")
    return pairs


def _output_path(output: str, force: bool) -> Path:
    """The file ``--output`` names (a link followed, as ``> FILE`` writes through it; a
    stream as it is), or a ConfigError: not a file's path, a folder, a folder not there, a
    file there without ``--force``."""
    from proctor.cli.options import check_folder_of
    from proctor.cli.output_file import check_file_path, descriptor, followed, is_stream
    from proctor.errors import ConfigError

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
    return path


def _goal_labels(goal_labels: Path) -> dict[str, str]:
    """The tasks of ``--goal-labels`` with their goal shapes, or a ConfigError naming the file
    when it does not read, names no task, or gives one a goal shape proctor does not know."""
    from proctor.errors import ConfigError
    from proctor.models.config import check_goal_labels
    from proctor.report.labels import read_label_file

    if not goal_labels.exists():
        raise ConfigError(f"--goal-labels {goal_labels}: the file does not exist")
    if goal_labels.is_dir():
        raise ConfigError(f"--goal-labels {goal_labels}: a folder, not a file (a label file)")
    labels = read_label_file(goal_labels, "--goal-labels")
    if not labels:  # named with the file, as every other problem of it is
        raise ConfigError(f"--goal-labels {goal_labels}: the file names no task")
    check_goal_labels(labels)
    return labels
