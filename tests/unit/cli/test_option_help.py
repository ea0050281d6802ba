"""Every option of every command says what it does in ``--help``."""

from __future__ import annotations

from collections.abc import Iterator

import click

from proctor.cli.main import cli


def _commands(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                yield from _commands(sub, f"{path} {name}")
    else:
        yield path, command


def test_every_option_of_every_command_has_help() -> None:
    """An option ``--help`` lists without a word (memory-eval's --k and --min-… did) leaves
    the user to guess what it does."""
    bare = [
        f"{path} {'/'.join(param.opts)}"
        for path, command in _commands(cli, "proctor")
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip()
    ]
    assert bare == []
    assert any(path.endswith("memory-eval") for path, _ in _commands(cli, "proctor"))


def test_every_option_given_more_than_once_says_it_is_repeatable() -> None:
    """``--case`` takes several globs, as the README says, but its help did not say so: a
    reader of ``--help`` would give one and filter the rest by hand."""
    unsaid = [
        f"{path} {'/'.join(param.opts)}"
        for path, command in _commands(cli, "proctor")
        for param in command.params
        if isinstance(param, click.Option)
        and param.multiple
        and "repeatable" not in (param.help or "")
    ]
    # Taken more than once only to refuse it, naming each (eval runs every case on one agent).
    assert unsaid == ["proctor eval --agent"]
