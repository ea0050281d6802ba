"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click

source_option = click.option(
    "--source",
    "source",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="A folder of case folders, one case folder, a task JSON file or a folder of them.",
)
config_option = click.option(
    "--config",
    "config",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Top-level configuration file (default: ./proctor.json when present).",
)
reporter_option = click.option(
    "--reporter",
    "reporters",
    multiple=True,
    metavar="NAME",
    help="A reporter to print: markdown, json or junit (repeatable, or comma-separated).",
)
