"""The command a runner runs: ``timeout -s KILL 60 pytest`` runs ``pytest``.

A check pattern matches a tool at the start of a command, and may step over a runner written
without options (``timeout 60``, ``uv run``; see :func:`~proctor.models.process.check_pattern`).
A runner given options, ``env -u VIRTUAL_ENV pytest`` or ``uv run --with pytest-xdist pytest -n
4``, is stepped over here, word by word, by each runner's own grammar: which of its options take
a value, and how many words follow its options before the command (``timeout``'s duration, the
container of ``docker exec``). An option a runner is not known to take is read as a flag, so an
unknown option with a value usually leaves the command unread (no check); only when that value
is itself a tool's name is it taken for the command.

The words are read, never matched by a regex, so a long line costs its length and no more.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")


@dataclass(frozen=True)
class _Runner:
    valued: frozenset[str] = field(default_factory=frozenset)
    """Its options that take the next word as their value (``-s KILL``); ``--name=value`` and
    ``-sKILL`` carry theirs."""
    positional: int = 0
    """Words after its options and before the command (``timeout``'s duration)."""
    assignments: bool = False
    """Whether ``NAME=VALUE`` words may come before the command (``env``)."""


def _runner(valued: str = "", positional: int = 0, assignments: bool = False) -> _Runner:
    return _Runner(frozenset(valued.split()), positional, assignments)


_DOCKER_EXEC = "-e --env --env-file -u --user -w --workdir --detach-keys"
_COMPOSE = " -f --file --profile --project-name --project-directory --env-file --ansi --progress"
"""``docker compose``'s own options (before ``run`` or ``exec``) that take a value."""
_COMPOSE_RUN = (
    f"{_DOCKER_EXEC} --entrypoint --name -l --label -p --publish -v --volume --pull"
    " --cap-add --cap-drop"
)
_UV_VALUED = (
    "--with --with-editable --with-requirements -p --python --project --directory --package"
    " --extra --group --only-group --no-group --env-file -i --index --default-index"
    " --index-url --extra-index-url -f --find-links --config-file --cache-dir"
    " --python-preference --color --upgrade-package -P --refresh-package --reinstall-package"
    " --no-build-package --no-binary-package --only-binary --no-binary"
)

_RUNNERS: dict[tuple[str, ...], _Runner] = {
    ("env",): _runner("-u --unset -C --chdir", assignments=True),
    ("timeout",): _runner("-s --signal -k --kill-after", positional=1),
    ("nice",): _runner("-n --adjustment"),
    ("time",): _runner("-f --format -o --output"),
    ("sudo",): _runner("-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt"),
    ("nohup",): _runner(),
    ("npx",): _runner("-p --package -w --workspace"),
    ("bunx",): _runner("-p --package"),
    ("uv", "run"): _runner(_UV_VALUED),
    ("poetry", "run"): _runner("-C --directory -P --project"),
    ("pdm", "run"): _runner("-p --project"),
    ("hatch", "run"): _runner(),
    ("pipenv", "run"): _runner(),
    ("rye", "run"): _runner(),
    ("pnpm", "exec"): _runner("-C --dir --filter -F"),
    ("yarn", "exec"): _runner(),
    ("bundle", "exec"): _runner(),
    ("docker", "exec"): _runner(_DOCKER_EXEC, positional=1),
    ("docker", "compose", "exec"): _runner(_DOCKER_EXEC + " --index" + _COMPOSE, positional=1),
    ("docker", "compose", "run"): _runner(_COMPOSE_RUN + _COMPOSE, positional=1),
    ("docker-compose", "exec"): _runner(_DOCKER_EXEC + " --index" + _COMPOSE, positional=1),
    ("docker-compose", "run"): _runner(_COMPOSE_RUN + _COMPOSE, positional=1),
}
_FIRST_WORDS = frozenset(name[0] for name in _RUNNERS)
_KEYWORDS = frozenset({"if", "then", "elif", "else", "do", "while", "until", "{"})
"""Shell words that begin a command's place in a compound command (``if pytest; then``): the
command after them is what runs. (``!`` is not one: it turns the command's status round.)"""
_SUBCOMMANDS: dict[str, list[tuple[str, ...]]] = {}
for _name in _RUNNERS:
    _SUBCOMMANDS.setdefault(_name[0], []).append(_name)


def _named(words: Sequence[str], at: int) -> tuple[_Runner, int] | None:
    """The runner named at ``words[at]`` (with its subcommand words, options allowed before
    each: ``uv --directory app run``, ``docker compose -f ci.yml run``), and where its own
    words start; None when no runner is named there."""
    first = posixpath.basename(words[at])
    if first not in _FIRST_WORDS:
        return None
    for name in _SUBCOMMANDS[first]:
        runner, end = _RUNNERS[name], at + 1
        for part in name[1:]:
            while end < len(words) and words[end] != part and _is_option(words[end]):
                end += 2 if _takes_value(runner, words[end]) else 1
            if end >= len(words) or words[end] != part:
                break
            end += 1
        else:
            return runner, end
    return None


def _is_option(word: str) -> bool:
    return word.startswith("-") and word not in ("-", "--")


def _takes_value(runner: _Runner, word: str) -> bool:
    """Whether an option takes the next word as its value: one the runner is known to take
    so, or a cluster of flags that ends in one (``sudo -iu ci``, ``docker exec -itu root``)."""
    if word in runner.valued:
        return True
    return (
        len(word) > 2 and word[1] != "-" and word[1:].isalpha() and f"-{word[-1]}" in runner.valued
    )


def _after(runner: _Runner, words: Sequence[str], at: int) -> int | None:
    """Where the command a runner runs starts, its options and positional words read from
    ``words[at]`` on; None when nothing follows them."""
    while at < len(words):
        word = words[at]
        if word == "--":
            at += 1
            break
        if runner.assignments and _ASSIGNMENT.match(word):
            at += 1
        elif word.startswith("-") and word != "-":
            at += 2 if _takes_value(runner, word) else 1
        else:
            break
    at += runner.positional
    return at if at < len(words) else None


def run_by_runner(words: Sequence[str]) -> tuple[str, ...] | None:
    """The words of the command that a command's runners run, with the ``NAME=VALUE`` words
    and the shell's keywords (``if``, ``then``, ``do`` …) before each left out too; None when
    it starts with none of these, or when they run nothing."""
    at = 0
    while True:
        while at < len(words) and (_ASSIGNMENT.match(words[at]) or words[at] in _KEYWORDS):
            at += 1
        named = _named(words, at) if at < len(words) else None
        if named is None:
            break
        runner, start = named
        after = _after(runner, words, start)
        if after is None:
            return None
        at = after
    return tuple(words[at:]) if 0 < at < len(words) else None
