"""Simple shell commands told apart by what they do: reading a file, searching or listing.

An agent that reads through its shell (``cat src/app.py``, ``sed -n '1,80p' src/app.py``,
``rg -n total src``; Codex CLI does all its reading so) orients as one that calls a read or a
search tool. Only a command that is obviously that is recognised: one program, no pipe,
redirection, chaining or substitution, looked through a ``bash -lc '<cmd>'`` wrapper.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

SHELL_WRAPPERS = ("bash", "/bin/bash", "/usr/bin/bash", "sh", "/bin/sh", "zsh", "/bin/zsh")
SHELL_META = frozenset("|;&<>`$()\n\r")
"""What makes a command more than one program with its words, outside quotes: a pipe,
chaining, a redirection, a substitution, a second line (a comment too: see
:func:`_compound`)."""
READERS = frozenset({"cat", "head", "tail", "nl", "less", "more", "wc"})
"""Programs that read the files they name (``sed -n`` too, see :func:`looking_kind`)."""
SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "tree", "fd", "fdfind"})
"""Programs that search files for a pattern or list folders (``find`` and ``git grep`` too)."""
_FIND_ACTIONS = ("-exec", "-ok", "-delete", "-fprint", "-fls")
"""``find`` actions that do more than list (``-execdir``, ``-fprintf`` … begin so)."""
_RUNS_OR_WRITES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    # program: (its short flags, alone or in a cluster; its long options, each with the
    # shortest abbreviation its parser takes: the name itself where it takes none)
    "fd": ("xX", (("--exec", "--exec"), ("--exec-batch", "--exec-batch"))),
    "fdfind": ("xX", (("--exec", "--exec"), ("--exec-batch", "--exec-batch"))),
    "rg": ("", (("--pre", "--pre"),)),
    "ag": ("", (("--pager", "--pag"),)),
    "ack": ("", (("--pager", "--pag"),)),
    "git": ("O", (("--open-files-in-pager", "--op"),)),
    "tree": ("o", ()),
    "tail": ("fF", (("--follow", "--f"),)),
}
"""Options with which a reading or searching program runs a command, writes a file, or never
ends (``fd -x rm``, ``rg --pre ./x``, ``git grep -O``, ``tree -o out``, ``tail -f``, ``tail
-qf``, ``tail --fo``); ``less +cmd`` runs its command too."""
_SED_PRINT = re.compile(r"(?:\d+|\$|/[^/]*/)(?:,(?:\d+|\$|/[^/]*/))?p")
"""A ``sed -n`` script that prints lines and does nothing else (``1,80p``, ``/def/,/end/p``)."""
_GIT_SEARCHES = frozenset({"grep", "ls-files"})
_QUOTING = re.compile(r"['\"\\]")
"""A quote or a backslash: a command without one splits at its blanks (as ``shlex`` would,
at a twentieth of the cost)."""
_WORD = re.compile(r"[^ \t\r\n]+")
_FIRST_WORDS = READERS | SEARCHERS | {"sed", "find", "git", *SHELL_WRAPPERS}


SHELL_FOLDER_KEYS = ("workdir", "working_directory", "dir_path", "directory")
"""Where a shell call's input names the folder its command ran in (Codex's ``workdir``,
Gemini CLI's ``dir_path`` or ``directory``)."""


def shell_folder(tool_input: dict[str, Any]) -> Any:
    """The folder a shell call's input says its command ran in (see
    :data:`SHELL_FOLDER_KEYS`); None when it names none."""
    return next((tool_input[k] for k in SHELL_FOLDER_KEYS if tool_input.get(k)), None)


def simple_argv(command: Any) -> list[str] | None:
    """The words of a simple command (a string, or an argv list; ``bash -lc '<cmd>'`` looked
    through); None for a command with a pipe, redirection, chaining or substitution, or one
    that does not split."""
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        if len(command) == 3 and command[0] in SHELL_WRAPPERS and command[1] in ("-lc", "-c"):
            return simple_argv(command[2])
        return list(command) or None
    if not isinstance(command, str) or _compound(command):
        return None
    if _QUOTING.search(command) is None:  # the shell's words are the runs of other characters
        argv = _WORD.findall(command)
    else:
        try:
            argv = shlex.split(command)
        except ValueError:
            return None
    if len(argv) == 3 and argv[0] in SHELL_WRAPPERS and argv[1] in ("-lc", "-c"):
        return simple_argv(argv[2])  # bash -lc 'cat src/app.py', written as one string
    return argv or None


def _may_look(command: Any) -> bool:
    """Whether a command may read or search (see :func:`looking_kind`), told by its first word
    alone: most commands an agent runs are none of these, and splitting each costs more than
    the rest of its measure."""
    if not isinstance(command, str):
        return True
    first = command.lstrip().split(None, 1)
    return bool(first) and os.path.basename(first[0]) in _FIRST_WORDS


def _compound(command: str) -> bool:
    """Whether ``command`` is more than one program with its words, as the shell reads it: a
    character of :data:`SHELL_META` outside quotes, a ``$`` or a backquote inside double
    quotes (an expansion), or a comment (a ``#`` that begins a word). Inside single quotes
    everything is a word's (``grep 'a|b' src``, ``sed -n '10,$p' f``, ``grep '#include'``)."""
    quote = None
    escaped = False
    for i, ch in enumerate(command):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote == "'":
            quote = None if ch == "'" else quote
        elif quote == '"':
            if ch in "$`":
                return True
            quote = None if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif ch in SHELL_META or (ch == "#" and (i == 0 or command[i - 1].isspace())):
            return True
    return False


def _runs_or_writes(program: str, args: list[str]) -> bool:
    """Whether an option of ``args`` makes ``program`` run a command, write a file or never
    end (see :data:`_RUNS_OR_WRITES`)."""
    if program == "less":
        return any(a.startswith("+") for a in args)
    short, long = _RUNS_OR_WRITES.get(program, ("", ()))
    for arg in args:
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]  # --pre=./x; --pretty is another option
            if any(name.startswith(least) and full.startswith(name) for full, least in long):
                return True
        elif arg.startswith("-") and short and any(flag in short for flag in arg[1:]):
            return True
    return False


def looking_kind(command: Any) -> str | None:
    """``read`` for a simple command that reads files (``cat``, ``head``, ``sed -n`` …),
    ``search`` for one that searches or lists them (``rg``, ``grep``, ``ls``, ``find``, ``git
    grep`` …); None for any other command."""
    if not _may_look(command):
        return None
    argv = simple_argv(command)
    if argv is None:
        return None
    program, args = os.path.basename(argv[0]), argv[1:]
    if _runs_or_writes(program, args):
        return None
    if program in READERS:
        return "read"
    if program == "sed":  # sed -n '1,80p' FILE: a print of lines, nothing written
        prints = len(args) >= 2 and args[0] == "-n" and _SED_PRINT.fullmatch(args[1].strip())
        # Any other option (-i, -e 'w out', --expression=…, -f script) may write or run.
        others = any(a.startswith("-") for a in args[2:])
        return "read" if prints and not others else None
    if program in SEARCHERS:
        return "search"
    if program == "find":
        return None if any(a.startswith(_FIND_ACTIONS) for a in args) else "search"
    if program == "git" and args[:1] and args[0] in _GIT_SEARCHES:
        return "search"
    return None
