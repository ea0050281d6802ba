"""Which commands of a shell line are checks (tests, builds, linters), by a
:class:`~proctor.models.process.MetricsConfig`'s patterns."""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from proctor.metrics.runners import run_by_runner
from proctor.metrics.shell import ShellCommand, split_commands
from proctor.models.process import MetricsConfig

_SUBSTITUTION = re.compile(r"\$\([^()]*\)|`[^`]*`")
"""A command substitution within a word (one level deep)."""


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


def check_commands(config: MetricsConfig, line: str) -> list[ShellCommand]:
    """The commands of a shell line that a check pattern matches; quoted text is no command."""
    return list(_check_commands(config.check_patterns, line))


@lru_cache(maxsize=4096)
def _check_commands(patterns: tuple[str, ...], line: str) -> tuple[ShellCommand, ...]:
    # Sessions run the same few check lines again and again (``pytest -q``, ``npm test``): the
    # shell scan of a line is done once per process. ShellCommand is frozen, so sharing is safe.
    compiled = _compiled(patterns)
    return tuple(
        c for c in split_commands(line) if _matches(compiled, c) and not _only_tells(c.words)
    )


_TELLS = frozenset(
    {"--version", "--help", "-h", "--init", "--listTests", "--showConfig", "--list", "--list-tests"}
)
"""Options with which a tool only prints its version, its help or its setup, or writes a
starting one (``pytest --version``, ``pytest -h``, ``tsc --init``, ``jest --listTests``)."""


def _only_tells(words: tuple[str, ...]) -> bool:
    """Whether a command only prints a tool's version, help or setup: it ran no check (the
    words past its runners, ``sudo -h host pytest`` runs ``pytest``; before a ``--``, past
    which the words are the tool's script's)."""
    for word in run_by_runner(words) or words:
        if word == "--":
            return False
        if word in _TELLS:
            return True
    return False


def _matches(compiled: tuple[re.Pattern[str], ...], command: ShellCommand) -> bool:
    """Whether a pattern matches the command as written, its words with their quotes gone,
    or the command its runners run (``timeout -s KILL 60 pytest`` runs ``pytest``; see
    :mod:`proctor.metrics.runners`)."""
    if any(p.search(command.text) for p in compiled):
        return True
    # Its words as the shell reads them, quotes gone (``make "test"``) and a substitution a
    # word of its own (``$(pnpm bin)/vitest``), then past its runners.
    words = shlex.join(_SUBSTITUTION.sub("_", word) for word in command.words)
    if words != command.text and any(p.search(words) for p in compiled):
        return True
    run = run_by_runner(command.words)
    return run is not None and any(p.search(shlex.join(run)) for p in compiled)


def is_check(config: MetricsConfig, line: str) -> bool:
    """Whether a shell line runs a test, build or lint."""
    return bool(check_commands(config, line))
