"""``proctor view``: serve the local web viewer (and playground) over a results directory."""

from __future__ import annotations

from pathlib import Path

import click

DEFAULT_PORT = 8765


@click.command("view")
@click.argument(
    "path", required=False, type=click.Path(path_type=Path), default=Path("proctor-results")
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help=f"Port to listen on (default {DEFAULT_PORT}, or a free one when it is busy; 0: any "
    "free port; a busy port given here is an error).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind; anything but 127.0.0.1 or ::1 exposes your results (a warning says "
    "so); on every address (0.0.0.0, ::) the playground runs nothing.",
)
@click.option("--no-open", is_flag=True, help="Do not open a browser; only print the URL.")
@click.option(
    "--source",
    "--dir",
    "source",
    type=click.Path(path_type=Path, file_okay=False),
    help="A project folder whose case suites the playground lists and runs.",
)
@click.option(
    "--max-batches",
    type=click.IntRange(1, 500),
    default=20,
    show_default=True,
    help="Playground batches kept in the index (at most 500).",
)
def command(
    path: Path, port: int | None, host: str, no_open: bool, source: Path | None, max_batches: int
) -> int:
    """Serve the viewer over PATH, a results directory (default ./proctor-results) or one
    run folder of it, on 127.0.0.1, and print its URL. Stop it with Ctrl-C."""
    from proctor.errors import ConfigError
    from proctor.view.serve import open_results, serve

    if not host.strip():
        raise ConfigError("--host: give an address to bind, such as 127.0.0.1 (the default)")
    root, only = open_results(path)
    if source is not None and not source.is_dir():
        raise ConfigError(f"--source {source}: no such directory")
    return serve(
        root,
        only=only,
        host=host,
        port=DEFAULT_PORT if port is None else port,
        fallback=port is None,
        open_browser=not no_open,
        source=source.resolve() if source is not None else None,
        max_batches=max_batches,
        say=lambda text: click.echo(text),
        warn=lambda text: click.echo(text, err=True),
    )
