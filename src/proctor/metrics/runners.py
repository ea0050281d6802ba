"""The command a runner runs: ``timeout -s KILL 60 pytest`` runs ``pytest``.

A check pattern matches a tool at the start of a command, and may step over a runner written
without options (``timeout 60``, ``uv run``; see :func:`~proctor.models.process.check_pattern`).
A runner given options, ``env -u VIRTUAL_ENV pytest`` or ``uv run --with pytest-xdist pytest -n
4``, is stepped over here, word by word, by each runner's own grammar: which of its options take
a value, and how many words follow its options before the command (``timeout``'s duration, the
container of ``docker exec``). An option a runner is not known to take is read as a flag, so an
unknown option with a value usually leaves the command unread (no check); only when that value
is itself a tool's name is it taken for the command. Reading unknown options as flags keeps the
common case (``uv run --frozen pytest``, ``npx -y jest``, ``sudo -E pytest``) and guesses
nothing from the words that follow.

Some options change what the runner's status says: ``docker exec -d`` (also ``--detach``,
``docker compose run -d`` and ``sudo -b``) leaves the command running on its own, so the
runner's status says nothing of the command's (:func:`runner_detaches`). ``env -S 'pytest -q'``
(``--split-string``) splits its value into words, read in its place.

The words are read, never matched by a regex, so a long line costs its length and no more.
"""

from __future__ import annotations

import posixpath
import re
import shlex
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
    detach: frozenset[str] = field(default_factory=frozenset)
    """Its flags that leave the command running on its own (``docker exec -d``)."""
    split: frozenset[str] = field(default_factory=frozenset)
    """Its options whose value is split into words, read in its place (``env -S``)."""
    may_skip: bool = False
    """It may run the command not at all and still succeed (``xargs`` given no input)."""


def _runner(
    valued: str = "",
    positional: int = 0,
    assignments: bool = False,
    detach: str = "",
    split: str = "",
    may_skip: bool = False,
) -> _Runner:
    return _Runner(
        frozenset(valued.split()),
        positional,
        assignments,
        frozenset(detach.split()),
        frozenset(split.split()),
        may_skip,
    )


_DOCKER = " --config -c --context -H --host -l --log-level --tlscacert --tlscert --tlskey"
"""``docker``'s own options (before its subcommand) that take a value; its flags (``-D``,
``--tls``, ``--tlsverify``) are read as flags."""
_DOCKER_EXEC = "-e --env --env-file -u --user -w --workdir --detach-keys" + _DOCKER
_COMPOSE = (
    " -f --file --profile -p --project-name --project-directory --env-file --ansi --progress"
    " --parallel"
)
"""``docker compose``'s own options (before ``run`` or ``exec``) that take a value."""
_COMPOSE_V1 = " -H --host --log-level --tlscacert --tlscert --tlskey"
"""``docker-compose``'s own options that take a value besides ``docker compose``'s."""
_COMPOSE_RUN = (
    f"{_DOCKER_EXEC} --entrypoint --name -l --label -p --publish -v --volume --pull"
    " --cap-add --cap-drop"
)
_DETACH = "-d --detach"
_UV_VALUED = (
    "--with --with-editable --with-requirements -p --python --project --directory --package"
    " --extra --group --only-group --no-group --env-file -i --index --default-index"
    " --index-url --extra-index-url -f --find-links --config-file --cache-dir"
    " --python-preference --color --upgrade-package -P --refresh-package --reinstall-package"
    " --no-build-package --no-binary-package --only-binary --no-binary"
)

_XARGS = _runner(
    "-n --max-args -I --replace -P --max-procs -d --delimiter -L --max-lines -s --max-chars"
    " -E --eof -a --arg-file",
    may_skip=True,
)
"""``xargs`` runs its command once per batch of its input's words: none at all for an empty
input with ``-r`` or ``-I`` (and by default on BSD and macOS), succeeding all the same."""

_RUNNERS: dict[tuple[str, ...], _Runner] = {
    ("env",): _runner("-u --unset -C --chdir", assignments=True, split="-S --split-string"),
    ("timeout",): _runner("-s --signal -k --kill-after", positional=1),
    ("nice",): _runner("-n --adjustment"),
    ("time",): _runner("-f --format -o --output"),
    ("sudo",): _runner(
        "-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt",
        detach="-b --background",
    ),
    ("nohup",): _runner(),
    ("exec",): _runner("-a"),
    ("xargs",): _XARGS,
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
    ("docker", "exec"): _runner(_DOCKER_EXEC, positional=1, detach=_DETACH),
    ("docker", "compose", "exec"): _runner(
        _DOCKER_EXEC + " --index" + _COMPOSE, positional=1, detach=_DETACH
    ),
    ("docker", "compose", "run"): _runner(_COMPOSE_RUN + _COMPOSE, positional=1, detach=_DETACH),
    ("docker-compose", "exec"): _runner(
        _DOCKER_EXEC + " --index" + _COMPOSE + _COMPOSE_V1, positional=1, detach=_DETACH
    ),
    ("docker-compose", "run"): _runner(
        _COMPOSE_RUN + _COMPOSE + _COMPOSE_V1, positional=1, detach=_DETACH
    ),
}
_FIRST_WORDS = frozenset(name[0] for name in _RUNNERS)
_KEYWORDS = frozenset({"if", "then", "elif", "else", "do", "while", "until", "{"})
"""Shell words that begin a command's place in a compound command (``if pytest; then``): the
command after them is what runs."""
_NOT = "!"
"""The shell's word that turns a pipeline's status round (``! pytest``): stepped over like a
keyword, and told by :func:`negates`."""
_SUBCOMMANDS: dict[str, list[tuple[str, ...]]] = {}
for _name in _RUNNERS:
    _SUBCOMMANDS.setdefault(_name[0], []).append(_name)
_SPLITS = 8
"""How many ``env -S`` values of one command are split: each copies the words after it, so a
command of many costs no more than that many copies."""


@dataclass(frozen=True)
class _Option:
    """One option word as a runner reads it: where the words after it (and its value) start,
    whether it detaches the command, and the value to split into words, if any."""

    end: int
    detached: bool = False
    split: str | None = None


@dataclass
class _Reading:
    """A command's words being read past its runners: where the reading is, and what its
    runners' options said."""

    words: tuple[str, ...]
    at: int = 0
    detached: bool = False
    splits: int = _SPLITS


def _option(runner: _Runner, words: Sequence[str], at: int) -> _Option:
    """The option at ``words[at]``: ``--name=value``, ``--name [value]``, or a cluster of
    one-letter flags that may end in one taking a value (``-itu root``, ``-sKILL``)."""
    word = words[at]
    if word.startswith("--"):
        name, eq, value = word.partition("=")
        takes = not eq and (name in runner.valued or name in runner.split)
        if takes:
            value = words[at + 1] if at + 1 < len(words) else ""
        split = value if name in runner.split else None
        return _Option(at + 2 if takes else at + 1, word in runner.detach, split)
    detached = False
    for k in range(1, len(word)):
        flag = f"-{word[k]}"
        if flag in runner.valued or flag in runner.split:
            rest = word[k + 1 :]
            value = rest or (words[at + 1] if at + 1 < len(words) else "")
            split = value if flag in runner.split else None
            return _Option(at + 1 if rest else at + 2, detached, split)
        detached = detached or flag in runner.detach
    return _Option(at + 1, detached)


def _is_option(word: str) -> bool:
    return word.startswith("-") and word not in ("-", "--")


def _split(value: str) -> list[str]:
    """The words of an ``env -S`` value, quotes read as the shell reads them; an unbalanced
    quote splits at spaces."""
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


def _named(words: Sequence[str], at: int) -> tuple[_Runner, int] | None:
    """The runner named at ``words[at]`` (with its subcommand words, options allowed before
    each: ``uv --directory app run``, ``docker --context ci compose -f ci.yml run``), and
    where its own words start; None when no runner is named there."""
    first = posixpath.basename(words[at])
    if first not in _FIRST_WORDS:
        return None
    for name in _SUBCOMMANDS[first]:
        runner, end = _RUNNERS[name], at + 1
        for part in name[1:]:
            while end < len(words) and words[end] != part and _is_option(words[end]):
                end = _option(runner, words, end).end
            if end >= len(words) or words[end] != part:
                break
            end += 1
        else:
            return runner, end
    return None


def _read_options(runner: _Runner, reading: _Reading) -> None:
    """Read a runner's options and positional words, up to the command it runs; an ``env -S``
    value's words take its place."""
    while reading.at < len(reading.words):
        word = reading.words[reading.at]
        if word == "--":
            reading.at += 1
            break
        if runner.assignments and _ASSIGNMENT.match(word):
            reading.at += 1
        elif word.startswith("-") and word != "-":
            option = _option(runner, reading.words, reading.at)
            reading.detached = reading.detached or option.detached
            if option.split is not None and reading.splits > 0:
                reading.words = (*_split(option.split), *reading.words[option.end :])
                reading.at, reading.splits = 0, reading.splits - 1
            else:
                reading.at = option.end
        else:
            break
    reading.at += runner.positional


def _read(words: Sequence[str]) -> _Reading:
    """The words past a command's runners, and the shell's keywords and ``NAME=VALUE`` words
    before each; ``at`` is ``len(words)`` or more when they run nothing."""
    reading = _Reading(tuple(words))
    while True:
        while reading.at < len(reading.words) and _stepped(reading.words[reading.at]):
            reading.at += 1
        if reading.at >= len(reading.words):
            return reading
        named = _named(reading.words, reading.at)
        if named is None:
            return reading
        runner, reading.at = named
        reading.detached = reading.detached or runner.may_skip
        _read_options(runner, reading)


def _stepped(word: str) -> bool:
    return word in _KEYWORDS or word == _NOT or _ASSIGNMENT.match(word) is not None


def run_by_runner(words: Sequence[str]) -> tuple[str, ...] | None:
    """The words of the command that a command's runners run, with the ``NAME=VALUE`` words
    and the shell's keywords (``if``, ``then``, ``do``, ``!`` …) before each left out too;
    None when it starts with none of these, or when they run nothing."""
    reading = _read(words)
    stepped = reading.at > 0 or reading.splits < _SPLITS
    return reading.words[reading.at :] if stepped and reading.at < len(reading.words) else None


def runner_detaches(words: Sequence[str]) -> bool:
    """Whether a runner of the command leaves what it runs on its own (``docker exec -d app
    pytest``, ``docker compose run --detach web pytest``, ``sudo -b pytest``), or may run it
    not at all (``xargs``): the command's status is then the runner's, which says nothing of
    the command's."""
    return _read(words).detached


def negates(words: Sequence[str]) -> bool:
    """Whether a ``!`` before the command turns its pipeline's status round (``! pytest``,
    ``if ! make check; then``)."""
    timed = False  # ``time ! pytest``, ``time -p ! pytest``: the ``!`` is the pipeline's
    for word in words:
        if word == _NOT:
            return True
        if word == "time" or (timed and word == "-p"):
            timed = True
            continue
        if not _stepped(word):
            return False
    return False
