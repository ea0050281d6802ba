"""Checks whose failure ends a shell line with that failure, whatever follows them.

A check followed by ``|| exit 1`` (or a bare ``exit``, or ``exit $?``: any status but 0; or
a group that ends so, ``|| { echo failed; exit 1; }``) ends the line with a failure when it
fails: ``pytest -q || exit 1; echo done`` fails when the tests fail, so the ``;`` after it
hides nothing. An ``exit`` piped or sent to the background runs in a subshell of its own and
ends nothing (``pytest || exit 1 | tee log``).

The ``exit`` must run in the line's own shell: inside a subshell, a group or loop in a
pipeline, or a function, it ends that part only (``(pytest || exit 1); echo``, ``{ pytest ||
exit 1; echo; } | tail``), so an ``exit`` in a subshell ends nothing, and a line with a ``{ …
}`` group, a loop, a ``case`` or a function is left as its operators say. A subshell before
the ``||`` ends with its last command's status: ``(cd app && pytest) || exit 1; echo done``
ends the line when the tests fail.

``set -e`` is not read. Claude Code runs each command inside an ``eval`` that is not the last
of an ``&&`` list, where bash ignores ``errexit``: ``set -e; false; echo done`` prints
``done`` and succeeds there (checked against Claude Code 2.1.197).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Protocol

LAST_STATUS = "\x00status"
"""A ``$?`` (or ``${?}``) the line's own shell expands, as a word of the line holds it (see
:func:`proctor.metrics.shell.split_commands`): one quoted ``'$?'`` stays as it is written."""
_PIPES = frozenset({"|", "|&"})
_AND_OR = frozenset({"&&", "||"})
_STEPS = frozenset({";", "\n", "&&"})
"""What may come between the commands of a subshell that ends with its ``exit``."""
_DETACHING = frozenset({"|", "|&", "&"})
"""What runs the command before it in a subshell of its own."""
_COMPOUND = frozenset(
    {"{", "}", "for", "while", "until", "do", "done", "select", "case", "esac", "function"}
)
"""First words of a command that is part of a group, a loop, a ``case`` or a function."""


_DRAINS = frozenset(
    {"tail", "tee", "cat", "sort", "uniq", "wc", "cut", "tr", "nl", "fold", "expand", "rev"}
)
"""Commands that read all their input and then succeed: piped into under ``pipefail``
(``pytest | tail -5``), they leave the status the check's. A filter that may fail or stop
reading early does not (``grep`` that finds nothing exits 1; ``head`` closes the pipe, and a
check still writing dies of it)."""


def drains(words: Sequence[str]) -> bool:
    """Whether a command piped into reads all it is given and succeeds (see :data:`_DRAINS`)."""
    return bool(words) and posixpath.basename(words[0]) in _DRAINS


class Command(Protocol):
    """What is read of a line's command: its words, the operator after it, and whether it
    runs in a subshell."""

    @property
    def words(self) -> tuple[str, ...]: ...
    @property
    def then(self) -> str | None: ...
    @property
    def nested(self) -> bool: ...


def _exits_failing(words: Sequence[str], status: bool = True) -> bool:
    """Whether a command is ``exit`` with a failing status, or with the last command's when
    that is the one that failed (``status``: ``pytest || exit $?``, not ``pytest || { echo
    failed; exit $?; }``, where it is the ``echo``'s)."""
    if not words or words[0] != "exit":
        return False
    if len(words) == 1 or words[1] == LAST_STATUS:
        return status
    return words[1].lstrip("-").isdigit() and int(words[1][:12]) % 256 != 0


def _flat(commands: Sequence[Command]) -> bool:
    """Whether no command of the line is in a group, a loop, a ``case``, a function (``f()
    {``), or an ``if`` piped or sent to the background (``if …; then pytest || exit 1; fi |
    tail``: it runs in a subshell of its own, which the ``exit`` ends)."""
    return not any(
        (command.words and command.words[0] in _COMPOUND)
        or any(word.endswith("()") for word in command.words)
        or (command.words[:1] == ("fi",) and command.then in _DETACHING)
        for command in commands
    )


def _exit_after(commands: Sequence[Command], at: int) -> int | None:
    """Where the ``exit`` that ``commands[at]`` starts ends, when it ends the line with a
    failure: ``exit 1`` itself, or a group ``{ echo failed; exit 1; }`` whose last command it
    is (the index of its ``}``); None otherwise. Piped or sent to the background, or in a
    subshell, it ends nothing (``exit 1 | tee log``, ``(exit 1)``)."""
    words = commands[at].words
    if commands[at].nested:  # it ends its subshell only: ``pytest || (exit 1); echo``
        return _last_subshell(commands, at)
    if _exits_failing(words):
        end = at
    elif words[:1] == ("{",):
        end = next((j for j in range(at, len(commands)) if commands[j].words == ("}",)), -1)
        alone = end - 1 == at  # ``{ exit $?; }``: the status is still the failed one's
        body = commands[end - 1].words[1:] if alone else commands[end - 1].words
        if (
            end <= at
            or not _exits_failing(body, alone)
            or any(
                "{" in c.words[1:] or (j > at and c.words[:1] == ("{",)) or c.nested
                for j, c in enumerate(commands[at:end], start=at)
            )
        ):
            return None
    else:
        return None
    if commands[end].then in _DETACHING:
        return None
    last = end  # the and-or list it is part of: ``pytest || exit 1 && echo ok &`` runs apart
    while commands[last].then in _AND_OR and last + 1 < len(commands):
        last += 1
    return end if commands[last].then != "&" else None


def _last_subshell(commands: Sequence[Command], at: int) -> int | None:
    """Where a subshell that ``commands[at]`` opens right after the ``||`` ends, when it is
    the rest of the line and ends with a failing ``exit`` (``pytest || (echo failed; exit
    1)``): its status is the line's. None otherwise."""
    last = len(commands) - 1
    if at == 0 or commands[at - 1].nested or commands[last].then != ")":
        return None
    inside = commands[at:last]
    if not all(c.nested and c.then in _STEPS for c in inside) or not commands[last].nested:
        return None
    return last if _exits_failing(commands[last].words, at == last) else None


def failure_ends_line(
    commands: Sequence[Command], negated: Sequence[bool], pipefail: Sequence[bool]
) -> list[bool]:
    """For each command of a line, whether its failure ends the line with a failure (it is
    followed by ``|| exit 1`` or ``|| { …; exit 1; }``; with ``pipefail`` on where it runs,
    a pipeline's commands as its last). ``negated``: whether a ``!`` turns each round."""
    ends = [False] * len(commands)
    groups: set[int] = set()  # the commands of the ``|| { …; exit 1; }`` groups
    for index in range(len(commands) - 1):
        after = index  # past the ``&&`` commands its failure skips: ``pytest && echo ok ||``
        while commands[after].then == "&&" and after + 2 < len(commands):
            after += 1
        end = _exit_after(commands, after + 1) if commands[after].then == "||" else None
        if end is not None:
            ends[index] = not negated[index]
            groups.update(range(index + 1, end + 1))
    if not _flat([c for i, c in enumerate(commands) if i not in groups]):
        return [False] * len(commands)
    for index in range(len(commands) - 2, -1, -1):  # a pipeline ends as its last command
        if (
            commands[index].then in _PIPES
            and pipefail[index]
            and ends[index + 1]
            and drains(commands[index + 1].words)
        ):
            ends[index] = not negated[index]
    return ends
