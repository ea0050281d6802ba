"""Why a shell line's first program cannot start, in words a person can act on.

``sh -c`` and ``bash -c`` exit 127 or 126 both when the line's program cannot be started and
when a program it started later called a missing command. Only the first is a mistake in the
line itself; this module tells them apart, and names the cause: a path that does not exist, a
file that is not executable, or a script whose ``#!`` line names a missing interpreter or ends
in a carriage return (a script saved with Windows line endings)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

SHELL_WORDS = frozenset(
    [
        *("!", "{", "}", "(", ")", "[", "[[", ".", ":", "alias", "bg", "break", "case", "cd"),
        *("command", "continue", "echo", "eval", "exec", "exit", "export", "false", "fg"),
        *("for", "function", "getopts", "hash", "if", "printf", "pwd", "read", "readonly"),
        *("return", "set", "shift", "test", "times", "trap", "true", "type", "ulimit", "umask"),
        *("unalias", "unset", "until", "wait", "while"),
    ]
)
"""Shell keywords and builtins: a command line starting with one always starts."""
_SHEBANG_READ = 512


def first_program(command: str) -> str | None:
    """The plain program ``command`` starts with (after ``VAR=value`` words); None when the
    line starts with a builtin, a keyword, a redirection or shell syntax (a variable, a
    glob), whose program cannot be told without running it."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return None
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0], re.DOTALL):
        words = words[1:]  # VAR=value before the program
    if not words:
        return None
    program = words[0]
    if program in SHELL_WORDS or re.search(r"[;&|<>()`$*?\[\]{}~]", program):
        return None
    return program


def why_unstartable(program: str, cwd: Path, path: str) -> str | None:
    """Why ``program`` (a path, or a name looked up on ``path``, the ``PATH`` value) cannot be
    executed from ``cwd``; None when it can."""
    if "/" in program:
        found = Path(program) if os.path.isabs(program) else cwd / program
        if found.is_dir():
            return f"{program} is a folder, not a program"
        if not found.is_file():
            return f"{program} does not exist"
    else:
        where = shutil.which(program, mode=os.F_OK, path=path)
        if where is None:
            return f"{program} is not a command on PATH"
        found = Path(where)
    if not os.access(found, os.X_OK):
        return f"{program} is not executable (chmod +x {shlex.quote(program)})"
    return shebang_problem(found, program, path)


def shebang_problem(script: Path, shown: str, path: str) -> str | None:
    """Why the ``#!`` line of ``script`` (shown as ``shown``) names an interpreter that cannot
    start: it ends in a carriage return, or names a program that does not exist (``#!/usr/bin/env
    NAME`` with NAME not on ``path``); None when it has none or its interpreter exists."""
    try:
        with script.open("rb") as fh:
            head = fh.read(_SHEBANG_READ)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    line = head.split(b"\n", 1)[0]
    text = os.fsdecode(line)
    if line.endswith(b"\r"):
        return (
            f"{shown} has Windows line endings: its first line {text!r} ends in a carriage "
            "return, so the interpreter's name does too; expected LF line endings "
            "(dos2unix, or sed -i 's/\\r$//')"
        )
    words = text[2:].split()
    if not words or not os.path.isabs(words[0]):
        return None
    interpreter = words[0]
    if not (os.path.isfile(interpreter) and os.access(interpreter, os.X_OK)):
        return f"{shown} names {interpreter} in its #! line, which does not exist here"
    if os.path.basename(interpreter) == "env":
        named = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if named and shutil.which(named[0], path=path) is None:
            return f"{shown} names {named[0]} in its #! line, which is not a command on PATH"
    return None


def hidden_shebang(program: str, cwd: Path, path: str) -> str | None:
    """Why ``program``'s ``#!`` line is never read: the file starts with a UTF-8 byte order
    mark before it, so the kernel refuses to execute it and the calling shell runs the file as
    a shell script of its own (a Python script then fails with shell syntax errors, and a
    syntax error exits 2). None when the program is no such file."""
    where = program if "/" in program else shutil.which(program, mode=os.F_OK, path=path)
    if where is None:
        return None
    try:
        with (cwd / where).open("rb") as fh:  # an absolute path stays itself
            head = fh.read(5)
    except OSError:
        return None
    if head != b"\xef\xbb\xbf#!":
        return None
    return (
        f"{program} starts with a UTF-8 byte order mark before its #! line, so its interpreter "
        "never starts and the shell runs the file as a shell script instead, as the CLI's "
        "shell does; save it as UTF-8 without a BOM"
    )
