"""``proctor grounding``: check that an advisor cites no figure it was not given."""

from __future__ import annotations

from pathlib import Path

import click

from proctor.cli.options import FiniteRange
from proctor.cli.signals import echo_unless_gone


@click.command("grounding")
@click.option(
    "--advisor",
    required=True,
    metavar="CMD",
    help="Shell command that reads a checkpoint's signals as JSON on stdin and prints advice.",
)
@click.option(
    "--checkpoints",
    required=True,
    metavar="FILE|RUN_DIR",
    type=click.Path(path_type=Path),
    help="Checkpoints as JSON (a list, or {checkpoints, wasteThresholds}) or JSON lines; or a "
    "stored run folder, one checkpoint per trial.",
)
@click.option(
    "--live",
    type=click.IntRange(min=1),
    metavar="N",
    help="Run up to N eligible checkpoints, half with a waste signal (default: every one).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --live draw.")
@click.option(
    "--timeout",
    type=FiniteRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="Seconds the advisor may take per checkpoint.",
)
@click.option(
    "--env",
    "forward",
    multiple=True,
    metavar="NAME",
    help="Pass this environment variable to the advisor although it looks like a secret "
    "(repeatable; its value is masked in the output).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def command(
    advisor: str,
    checkpoints: Path,
    live: int | None,
    seed: int,
    timeout: float,
    forward: tuple[str, ...],
    as_json: bool,
) -> int:
    """Give an advisor checkpoints and fail if its advice cites a figure of 10 or more that is
    not in the signals it was given.

    Exits 0 when every figure was grounded, 1 when one was not (or nothing could run), 2 for a
    configuration error, 3 when the advisor failed or timed out and nothing else failed. It does
    not judge whether the advice was good.
    """
    from proctor.addons.grounding import (
        NOTHING_RAN,
        AdvisorSettings,
        check_grounding,
        checkpoints_from_run,
        exit_code,
        load_checkpoints,
        render_text,
        select_all,
        select_live,
    )
    from proctor.agents.credentials import register_user_keys
    from proctor.errors import ConfigError
    from proctor.models.io import dump_json
    from proctor.util.cutting import masked_data
    from proctor.util.masking import mask

    # Every key of the environment and ./.env is masked in what this prints, as the values
    # forwarded with --env are.
    register_user_keys()
    if not checkpoints.exists():
        raise ConfigError(f"{checkpoints}: the checkpoints file (--checkpoints) does not exist")
    if not advisor.strip():
        raise ConfigError("--advisor: expected a shell command, got an empty string")
    notes: list[str] = []  # how the checkpoints were made from a run
    if checkpoints.is_dir():
        file = checkpoints_from_run(checkpoints, notes)
    else:
        file = load_checkpoints(checkpoints)
    selection = select_live(file, live, seed) if live is not None else select_all(file)
    selection.notes[:0] = notes
    settings = AdvisorSettings(command=advisor, timeout=timeout, forward=forward)
    report = check_grounding(file, selection, settings)
    if as_json:
        echo_unless_gone(dump_json(masked_data(report.to_dict())), nl=False)
    else:
        echo_unless_gone(mask(render_text(report)), nl=False)
    if as_json and not report.checked:
        click.echo(f"proctor: {NOTHING_RAN}", err=True)
    return int(exit_code(report))
