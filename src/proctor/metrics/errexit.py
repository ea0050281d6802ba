"""Commands whose failure ends a shell line with that failure, whatever follows them.

Under ``set -e`` (``set -euo pipefail``, ``set -o errexit``, ``bash -e -c``) a command that
fails ends the script there, with its status: ``set -e; cd app; pytest -q; echo done`` fails
when the tests fail, so the ``;`` after them hides nothing. The shell does not exit for a
command in a condition (``if``, ``elif``, ``while``, ``until``), one a ``!`` turns round, or
one before the last ``&&`` or ``||`` of its list, so those stay as the ``;`` leaves them. A
check followed by ``|| exit 1`` (or a bare ``exit``, or ``exit $?``) ends the line with a
failure when it fails too, under any options.

Inside a subshell these end the subshell only, whose status the line may then hide
(``(set -e; pytest; echo) || true``): a command in a subshell is left as its operators say.
With ``pipefail``, the commands of a pipeline whose last command's failure ends the line end
it too (``set -eo pipefail; pytest | tail -3; echo``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Protocol

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_FLAGS = re.compile(r"([-+])[a-zA-Z]*e[a-zA-Z]*")
"""A cluster of one-letter options with ``e`` in it: ``-e``, ``-euo``, ``+e``."""
_CONDITIONS = frozenset({"if", "elif", "while", "until"})
_LAST_OF_LIST = frozenset({";", "\n", None})
"""What may follow the last command of an ``&&``/``||`` list."""
_PIPES = frozenset({"|", "|&"})
_LAST_STATUS = frozenset({"$?", '"$?"', "${?}"})


def errexit_change(words: Sequence[str]) -> bool | None:
    """Whether a ``set`` command turns ``errexit`` on (True) or off (False); None when it
    does neither (or is no ``set``)."""
    if not words or words[0] != "set":
        return None
    return _options(words[1:])


def shell_errexit(words: Sequence[str]) -> bool:
    """Whether a shell is started with ``errexit`` on (``bash -e -c …``, ``sh -eu <<EOF``):
    its script then runs under it (a shell started by another does not take that one's)."""
    return bool(words) and posixpath.basename(words[0]) in _SHELLS and bool(_options(words[1:]))


def _options(words: Sequence[str]) -> bool | None:
    """What options given as ``set`` and a shell take them say of ``errexit``: the last word
    that names it, up to the first word that is no option."""
    change: bool | None = None
    for word, value in pairwise((*words, "")):
        if word == "--":
            break
        if word in ("-o", "+o") and value == "errexit":
            change = word == "-o"
        elif (found := _FLAGS.fullmatch(word)) is not None:
            change = found.group(1) == "-"
        elif not word.startswith(("-", "+")) and word != "pipefail" and word != "errexit":
            break  # the script's file, ``-c``'s script, or ``set``'s positional words
    return change


def _exits_failing(words: Sequence[str]) -> bool:
    """Whether a command is ``exit`` with a failing status, or with the last command's."""
    if not words or words[0] != "exit":
        return False
    if len(words) == 1 or words[1] in _LAST_STATUS:
        return True
    return words[1].lstrip("-").isdigit() and int(words[1]) % 256 != 0


class Command(Protocol):
    """What is read of a line's command: its words, the operator after it, and whether it
    runs in a subshell."""

    @property
    def words(self) -> tuple[str, ...]: ...
    @property
    def then(self) -> str | None: ...
    @property
    def nested(self) -> bool: ...


def failure_ends_line(
    commands: Sequence[Command], negated: Sequence[bool], errexit: bool, pipefail: bool
) -> list[bool]:
    """For each command of a line, whether its failure ends the line with a failure.
    ``negated``: whether a ``!`` turns each round; ``errexit``: whether ``set -e`` is on when
    the line starts (``bash -e -c``); ``pipefail``: whether a pipeline fails when any of its
    commands does."""
    ends = [False] * len(commands)
    on = errexit
    for index, command in enumerate(commands):
        words, then = command.words, command.then
        after = commands[index + 1] if index + 1 < len(commands) else None
        follows_exit = then == "||" and after is not None and _exits_failing(after.words)
        in_condition = bool(words) and words[0] in _CONDITIONS
        exits = on and then in _LAST_OF_LIST and not in_condition
        ends[index] = not command.nested and not negated[index] and (follows_exit or exits)
        change = errexit_change(words) if not command.nested else None
        if change is not None:
            on = change
    for index in range(len(commands) - 2, -1, -1):  # a pipeline ends as its last command
        if commands[index].then in _PIPES and pipefail and ends[index + 1]:
            ends[index] = not commands[index].nested and not negated[index]
    return ends
