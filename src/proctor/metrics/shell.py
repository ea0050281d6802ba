"""A shell line split into the commands it runs, so that quoted text never starts a check.

``cd app && uv run pytest -q | tail -3`` runs three commands; ``echo "done && make test"`` runs
one. The scan is shell-like (single and double quotes, backslash escapes, ``#`` comments) and
tolerant: an unbalanced quote runs to the end of the line instead of raising.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from itertools import pairwise

from proctor.metrics.runners import run_by_runner

#: Operators that end a command, longest first so that ``&&`` wins over ``&``.
_OPERATORS = ("&&", "||", "|&", ";;", "|", ";", "&", "\n", "(", ")")
_SUBSTITUTIONS = ("$(", "`")
"""What opens a command substitution: part of the word it stands in (``make -j$(nproc)
test`` is one command), its commands run too."""
_PIPES = frozenset({"|", "|&"})
_KEEPS = frozenset({None, "&&", ")"})
"""What may follow a command whose status is the line's: ``&&``, the end of a subshell
(``(cd app && pytest)``), or nothing."""
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_SCRIPT_FLAG = re.compile(r"-\w*c\w*")
_OPTION_WITH_ARG = re.compile(r"[-+]\w*o")
_PIPEFAIL_FLAG = re.compile(r"-\w*o")
_DOUBLE_QUOTE_ESCAPES = '$`"\\\n'


@dataclass(frozen=True)
class ShellCommand:
    """One command of a shell line.

    ``text`` is its source text, stripped; ``words`` are its words with quotes removed;
    ``piped`` says that a pipe (``|`` or ``|&``) sends its output to another command, so the
    line's exit status is not its own.
    """

    text: str
    words: tuple[str, ...]
    piped: bool
    then: str | None = None
    """The operator that ends the command (``&&``, ``;``, ``|``, ...); None for the last."""
    masked: bool = False
    """The line's exit status may not be this command's: a later command runs whatever this
    one returned (after ``;``, ``||``, ``&``, a newline, or ``|`` without ``pipefail``)."""


def _operator(line: str, i: int) -> str | None:
    """The unquoted operator starting at ``line[i]``; a ``&`` inside ``2>&1`` or ``&>`` is not."""
    op = next((o for o in _OPERATORS if line.startswith(o, i)), None)
    if op == "&" and ((i > 0 and line[i - 1] in "<>") or line.startswith("&>", i)):
        return None
    return op


def _substitution_close(line: str, i: int) -> int:
    """Where the command substitution opened at ``line[i]`` (``$(`` or a backquote) closes:
    the index of its closing ``)`` or backquote, quotes, escapes and nested parentheses
    skipped. One never closed ends with its line (a heredoc's text may hold a lone
    backquote): the index of the next newline, or the text's length."""
    j = i + 1
    if line[i] == "`":
        while j < len(line) and line[j] != "`":
            j += 2 if line[j] == "\\" else 1
        return j if j < len(line) else _line_end(line, i)
    depth, quote, j = 1, "", i + 2
    while j < len(line):
        ch = line[j]
        if ch == "\\" and quote != "'":
            j += 1
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return _line_end(line, i)


def _substituted(line: str, i: int, word: str, inner: list[str] | None) -> tuple[str, int]:
    """The word with the substitution opened at ``line[i]`` added, and where the scan goes
    on; its script is added to ``inner``."""
    close = _substitution_close(line, i)
    if inner is not None:
        inner.append(line[i + (1 if line[i] == "`" else 2) : close])
    end = close + 1 if close < len(line) and line[close] in ")`" else close  # unclosed: its line
    return word + line[i:end], end


def _line_end(line: str, i: int) -> int:
    end = line.find("\n", i)
    return end if end >= 0 else len(line)


def _scan(line: str, inner: list[str] | None = None) -> list[ShellCommand]:
    """The top-level commands of a line, in order; empty commands are dropped. The scripts of
    its command substitutions are added to ``inner``."""
    commands: list[ShellCommand] = []
    words: list[str] = []
    word: str | None = None
    quote = ""
    start = i = 0
    while i < len(line):
        ch = line[i]
        if quote == '"' and line.startswith(_SUBSTITUTIONS, i):  # "$(pytest)" runs it too
            word, i = _substituted(line, i, word or "", inner)
            continue
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"' and line[i + 1 : i + 2] in _DOUBLE_QUOTE_ESCAPES:
                i += 1
                word = f"{word}{line[i : i + 1]}"
            else:
                word = f"{word}{ch}"
            i += 1
            continue
        if line.startswith(_SUBSTITUTIONS, i):  # part of a word: its commands run too
            word, i = _substituted(line, i, word or "", inner)
            continue
        op = _operator(line, i)
        if (op is not None or ch.isspace()) and word is not None:
            words.append(word)
            word = None
        if op is not None:
            if words:
                text = line[start:i].strip()
                commands.append(ShellCommand(text, tuple(words), op in _PIPES, op))
            elif commands and commands[-1].then == ")" and op != "(":
                # After a subshell: what follows it follows its last command (``(pytest) ||``).
                commands[-1] = replace(commands[-1], piped=op in _PIPES, then=op)
            words = []
            i += len(op)
            start = i
        elif ch == "#" and word is None:
            end = line.find("\n", i)
            i = end if end >= 0 else len(line)
        elif ch == "\\":
            if line[i + 1 : i + 2] != "\n":  # a backslash-newline only continues the line
                word = f"{word or ''}{line[i + 1 : i + 2]}"
            i += 2
        else:
            if ch in "'\"":
                quote, word = ch, word or ""
            elif not ch.isspace():
                word = f"{word or ''}{ch}"
            i += 1
    if word is not None:
        words.append(word)
    if words:
        commands.append(ShellCommand(line[start:].strip(), tuple(words), False))
    return commands


def _script(words: tuple[str, ...]) -> str | None:
    """The script of ``sh -c SCRIPT`` (also ``/bin/bash -lc``, ``bash -o pipefail -c``)."""
    if not words or posixpath.basename(words[0]) not in _SHELLS:
        return None
    for i in range(1, len(words) - 1):
        if _SCRIPT_FLAG.fullmatch(words[i]):
            return words[i + 1]
        if not words[i].startswith(("-", "+")) and not _OPTION_WITH_ARG.fullmatch(words[i - 1]):
            return None
    return None


_DEEPEST = 8
"""How many ``sh -c`` scripts and substitutions deep commands are looked for: a line nested
deeper by hand or by a generator costs no more than that."""


def split_commands(
    line: str, *, outer_masked: bool = False, pipefail: bool | None = None, depth: int = 0
) -> list[ShellCommand]:
    """Every command a shell line runs, in order, including those of ``sh -c '...'`` scripts.

    Commands end at ``&&``, ``||``, ``;``, ``|``, ``&``, a newline, ``(`` or ``)`` outside
    quotes. A command substitution (``$(…)``, backquotes) is part of its word; its commands
    follow the line's, masked. A command inside ``sh -c`` (also behind a runner) counts as
    piped (and masked) when the ``sh`` is, and its script may turn ``pipefail`` on for itself.
    A command is masked unless every operator from it to the end of its line is ``&&``, the
    end of a subshell, or a pipe with ``pipefail`` on: only then does its failure fail the
    line.
    """
    substituted: list[str] = []
    top = _scan(line, substituted)
    if pipefail is None:
        pipefail = sets_pipefail(top)
    # Whether an operator from each command on masks its status, from the last one back.
    masks = [outer_masked] * (len(top) + 1)
    for index in range(len(top) - 1, -1, -1):
        op = top[index].then
        masks[index] = masks[index + 1] or (op not in _KEEPS and not (op in _PIPES and pipefail))
    commands: list[ShellCommand] = []
    for index, command in enumerate(top):
        masked = masks[index]
        commands.append(replace(command, masked=masked))
        # ``sh -c SCRIPT``, behind runners too (``timeout 60 bash -c 'pytest -q'``).
        script = _script(run_by_runner(command.words) or command.words)
        if script is not None and depth < _DEEPEST:
            commands += [
                replace(inner, piped=inner.piped or command.piped)
                for inner in split_commands(
                    script, outer_masked=masked, pipefail=pipefail or None, depth=depth + 1
                )
            ]
    for script in substituted if depth < _DEEPEST else ():  # its status is never the line's
        commands += split_commands(script, outer_masked=True, pipefail=pipefail, depth=depth + 1)
    return commands


def sets_pipefail(commands: list[ShellCommand]) -> bool:
    """Whether a ``set`` or ``sh`` command turns on ``pipefail`` (``set -euo pipefail``).

    With ``pipefail`` a pipeline fails when any of its commands fails, so the exit status of
    ``pytest | tail`` is again that of the tests.
    """
    for command in commands:
        words = run_by_runner(command.words) or command.words  # timeout 60 bash -o pipefail -c
        if (words[0] == "set" or posixpath.basename(words[0]) in _SHELLS) and any(
            _PIPEFAIL_FLAG.fullmatch(flag) and value == "pipefail"
            for flag, value in pairwise(words)
        ):
            return True
    return False
