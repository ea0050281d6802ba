"""Whether ``pipefail`` is on where each command of a shell line runs.

With ``pipefail`` a pipeline fails when any of its commands fails, so ``pytest | tail`` has
the tests' status again. A line turns it on with ``set -o pipefail`` (``set -euo pipefail``);
a shell started with it (``bash -o pipefail -c``) has it for its own script only.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from itertools import pairwise

from proctor.metrics.exits import Command
from proctor.metrics.runners import run_by_runner

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_PIPEFAIL_FLAG = re.compile(r"-\w*o")


def sets_pipefail(commands: Sequence[Command]) -> bool:
    """Whether a ``set`` command of the line turns on ``pipefail`` (``set -euo pipefail``).

    With ``pipefail`` a pipeline fails when any of its commands fails, so the exit status of
    ``pytest | tail`` is again that of the tests. A shell started with it (``bash -o pipefail
    -c``) has it for its own script only (see :func:`shell_pipefail`).
    """
    return any(command.words[0] == "set" and _names_pipefail(command.words) for command in commands)


def pipefail_states(commands: Sequence[Command], on: bool) -> list[bool]:
    """Whether ``pipefail`` is on where each command of a line runs (``on``: at its start, as
    a shell started with it has it). A ``set -o pipefail`` or ``set +o pipefail`` changes it
    for what follows when it runs in the line's own shell and surely runs: not in a subshell,
    a pipeline or the background, and not after an ``&&`` or ``||`` (``false && set -o
    pipefail``)."""
    states = []
    for index, command in enumerate(commands):
        states.append(on)
        words = command.words
        before = commands[index - 1].then if index else None
        if (
            words[0] == "set"
            and not command.nested
            and before in (None, ";", "\n")
            and command.then not in ("|", "|&", "&")
        ):
            if _names_pipefail(words):
                on = True
            elif any(f[:1] == "+" and "o" in f and v == "pipefail" for f, v in pairwise(words)):
                on = False
    return states


def unsure_sh(words: tuple[str, ...], script: str) -> bool:
    """Whether what ``sh`` makes of a script depends on the system: where ``sh`` is dash
    (Debian, Ubuntu) ``set -o pipefail`` stops the script before its checks run, and ``&>``
    sends a command to the background; where it is bash, neither does."""
    words = run_by_runner(words) or words
    named = posixpath.basename(words[0]) in ("sh", "dash")
    return named and ("pipefail" in script or "&>" in script or _names_pipefail(words))


def shell_pipefail(words: tuple[str, ...]) -> bool:
    """Whether a shell is started with ``pipefail`` on (``bash -o pipefail -c``, behind runners
    too: ``timeout 60 bash -o pipefail -c``): its script runs under it."""
    words = run_by_runner(words) or words
    return posixpath.basename(words[0]) in SHELLS and _names_pipefail(words)


def _names_pipefail(words: tuple[str, ...]) -> bool:
    return any(
        _PIPEFAIL_FLAG.fullmatch(flag) and value == "pipefail" for flag, value in pairwise(words)
    )
