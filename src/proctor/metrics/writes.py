"""Shell commands that only write files: an agent that writes code through its shell.

An agent may write a file with its shell instead of an edit tool: ``cat > app.py <<'EOF'``,
``printf '…' >> app.py``, ``tee app.py <<'EOF'``, ``sed -i 's/a/b/' app.py`` (Codex CLI does
so where its patch tool cannot take an edit). Such a call is an edit of the files it writes,
as an edit tool's call is: :func:`written_files` names them.

Only a line that obviously does nothing else is one: every command on it is a writer
(``cat``, ``printf``, ``echo`` with their output sent to a file, ``tee`` fed by a heredoc or a
here-string, ``sed -i``), a command that changes nothing a check would look at (``cd``,
``mkdir``, ``chmod``, ``ls``, ``pwd``, ``true``, a ``cat``, ``echo`` or ``printf`` that only
prints), or a shell that runs such a script and nothing after it (``bash -lc '…'``). A pipe,
a subshell, a substitution, any other program (a test run, a ``cp``), or a target the shell
would expand (``$HOME/x``, ``~/x``, ``f{1,2}.py``) leaves the line a shell command.

A Python script fed to the interpreter (``python3 - <<'PY'``, ``python3 -c '…'``) is a
writer too when all it does is write files it names (see :mod:`proctor.metrics.scripts`).
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex

from proctor.metrics.pipefail import SHELLS as _SHELLS
from proctor.metrics.scripts import script_writes
from proctor.metrics.shell import ShellCommand, split_commands

_WRITERS = frozenset({"cat", "printf", "echo"})
"""Programs whose output, sent to a file, is the file's text (and that only print without)."""
_HARMLESS = frozenset({"mkdir", "chmod", "ls", "pwd", "true"})
"""Programs a line that writes files may run on the way, changing nothing a check reads."""
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_OPERATOR = re.compile(r"&>>|&>|>>|>\||>&|>|<<<|<<-|<<|<>|<&|<")
_OUTPUTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
_UNSURE = frozenset("$~*?[{`")
"""A target with one of these is the shell's to expand (``$HOME/x``, ``~/x``, ``f{1,2}.py``)."""
_FIRST = re.compile(
    r"\s*(?:(?:/\S*/)?(?:ba|z|da|k)?sh\s+-l?c\s+(?:[\"']\s*)?)?"
    r"(?:/\S*/)?(?:cd|mkdir|cat|printf|echo|tee|sed|python[0-9.]*)\s"
)
"""How a line that only writes files begins: with one of the programs it may run, in a
shell's script or not."""
_PYTHON = re.compile(r"python(?:3(?:\.[0-9]+)?)?")
_PYTHON_FLAGS = frozenset({"-u", "-B", "-E", "-I", "-s", "-S", "-q"})
"""Interpreter options that take no value and change nothing its script writes."""
_SED_FLAGS = frozenset("nErsuz")
"""``sed`` short options that take no value."""

Written = tuple[tuple[str, ...], bool]


def written_files(command: object) -> Written | None:
    """The files a shell line writes when writing them is all it does (see the module's
    docstring), each as the line names it, joined to the folders its ``cd``s entered; and
    whether any of them is changed in place rather than written whole (``>>`` alone,
    ``tee -a``, ``sed -i``). None for any other line. A command may be an argv list
    (``["bash", "-lc", "…"]``, ``["sed", "-i", "…", "f.py"]``): its words as they are."""
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        wrapped = len(command) == 3 and posixpath.basename(command[0]) in _SHELLS
        if wrapped and command[1] in ("-c", "-lc"):
            command = command[2]
        elif posixpath.basename(command[0]) in _SHELLS:
            return None  # a shell given a script file, or options: not read
        else:
            command = shlex.join(command)
    return _written_line(command) if isinstance(command, str) else None


@functools.lru_cache(maxsize=4096)
def _written_line(line: str) -> Written | None:
    # Sessions run the same lines again and again: each is read once per process.
    if not (">" in line or "tee" in line or "sed" in line or "python" in line):
        return None
    if not _FIRST.match(line):
        return None  # the common line, a test run or a read, at a glance
    folder = ""
    whole: dict[str, None] = {}
    in_place: dict[str, None] = {}
    for part in split_commands(line):
        found = _command_writes(part)
        if found is None:
            return None
        if isinstance(found, str):  # a cd
            folder = posixpath.join(folder, found)
            continue
        written, changed = found
        whole.update(dict.fromkeys(posixpath.join(folder, file) for file in written))
        in_place.update(dict.fromkeys(posixpath.join(folder, file) for file in changed))
    files = {**whole, **in_place}
    return (tuple(files), bool(in_place.keys() - whole.keys())) if files else None


def _command_writes(part: ShellCommand) -> tuple[list[str], list[str]] | str | None:
    """What one command of the line does: the files it writes whole and those it changes in
    place (none for a shell whose script, the rest of the line, is read on); the folder a
    ``cd`` enters; None for a command that does anything else."""
    if part.piped or part.nested:
        return None
    tokens = _tokens(part.text)
    if tokens is None or not tokens[0]:
        return None
    words, redirections, fed = tokens
    fed = fed or part.heredoc is not None
    program, args = posixpath.basename(words[0]), words[1:]
    targets: list[str] = []
    appended: list[str] = []
    for descriptor, operator, target in redirections:
        if operator not in _OUTPUTS or descriptor not in ("", "1", "&"):
            continue  # an input, or the standard error
        if operator == ">&" and (target.isdigit() or target == "-"):
            continue  # a copy of a descriptor (>&2): no file
        if not _plain(target):
            return None
        if target not in _NOT_FILES:
            (appended if operator in (">>", "&>>") else targets).append(target)
    if program in _SHELLS:
        script = args[:1] in (["-c"], ["-lc"]) and part.then is None
        # A "$" in a script in double quotes is this shell's to expand, before the script's
        # own quotes are read (bash -lc "python3 - <<'PY' … $TARGET …"): what it writes is
        # not what the text says.
        expands = '"' in part.text and "$" in part.text
        return ([], []) if script and not targets and not appended and not expands else None
    if program == "cd":
        return args[0] if len(args) == 1 and _plain(args[0]) and not targets else None
    if program in _HARMLESS:
        return ([], []) if not targets and not appended else None
    if program in _WRITERS:
        return targets, appended
    if program == "tee" and fed:  # fed by a heredoc or a here-string: no pipe needed
        named = _tee_files(args)
        if named is None:
            return None
        files, append = named
        return ([], files + appended) if append else (files + targets, appended)
    if _PYTHON.fullmatch(program):
        source = _python_script(args, part.heredoc, part.expanded)
        written = script_writes(source) if source is not None else None
        if written is None:
            return None
        return written[0] + targets, written[1] + appended
    if program == "sed" and not targets and not appended:
        edited = _sed_files(args)
        return ([], edited) if edited is not None else None
    return None


def _tokens(text: str) -> tuple[list[str], list[tuple[str, str, str]], bool] | None:
    """A command's words, its redirections (descriptor, operator, target) and whether a
    here-string feeds it, read from its text as the shell reads them: a ``>`` in quotes is
    text. None for a text with a substitution, or that does not read (a quote left open)."""
    words: list[str] = []
    redirections: list[tuple[str, str, str]] = []
    fed = False
    word: str | None = None
    waiting: tuple[str, str] | None = None  # a redirection whose target comes next

    def done() -> None:
        nonlocal word, waiting
        if word is None:
            return
        if waiting is not None:
            redirections.append((*waiting, word))
            waiting = None
        else:
            words.append(word)
        word = None

    i = 0
    while i < len(text):
        ch = text[i]
        if ch in " \t\n":
            done()
            i += 1
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            word, i = (word or "") + text[i + 1 : end], end + 1
        elif ch == '"':
            quoted, i = _double_quoted(text, i + 1)
            if quoted is None:
                return None
            word = (word or "") + quoted
        elif ch == "\\":
            word, i = (word or "") + text[i + 1 : i + 2], i + 2
        elif ch == "`" or text.startswith(("$(", "<(", ">("), i):
            return None  # a command runs here too
        elif ch in "<>" or text.startswith("&>", i):
            operator = _OPERATOR.match(text, i)
            assert operator is not None  # every character that starts one starts a match
            descriptor = ""
            if word is not None and word.isdigit():  # 2>err: the descriptor it redirects
                descriptor, word = word, None
            done()
            if waiting is not None:
                return None
            op = operator.group()
            fed = fed or op == "<<<"
            waiting = ("&" if op.startswith("&") else descriptor, op)
            i = operator.end()
        elif ch in ";&|()":
            return None  # an operator the line's split left in: not a plain command
        else:
            word, i = (word or "") + ch, i + 1
    done()
    return (words, redirections, fed) if waiting is None else None


def _double_quoted(text: str, i: int) -> tuple[str | None, int]:
    """The text of a double-quoted word from ``text[i]`` (just past its quote) and where it
    ends; None for one that is left open or substitutes a command."""
    out: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch == '"':
            return "".join(out), i + 1
        if ch == "`" or text.startswith("$(", i):
            return None, i
        if ch == "\\" and text[i + 1 : i + 2] in ('"', "\\", "$", "`", "\n"):
            out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return None, i


def _plain(word: str) -> bool:
    """A path the shell takes as it stands: not blank, no option, nothing it expands."""
    return bool(word) and not word.startswith("-") and not any(c in _UNSURE for c in word)


def _python_script(args: list[str], heredoc: str | None, expanded: bool) -> str | None:
    """The script an interpreter runs: a heredoc's (``python3 - <<'PY'``) or the text of
    ``-c``; None for a script file, arguments after the script, or a script the shell would
    expand (a ``$`` or a backquote in an expanded heredoc, or after ``-c``)."""
    while args and args[0] in _PYTHON_FLAGS:
        args = args[1:]
    if args in ([], ["-"]) and heredoc is not None:
        script, literal = heredoc, not expanded
    elif len(args) == 2 and args[0] == "-c" and heredoc is None:
        script, literal = args[1], False  # (its quotes are gone: a "$" may have expanded)
    else:
        return None
    return script if literal or not ("$" in script or "`" in script) else None


def _tee_files(args: list[str]) -> tuple[list[str], bool] | None:
    """The files ``tee`` writes, and whether it appends (``-a``); None for a word it would
    not take as a plain file."""
    files: list[str] = []
    append, options = False, True
    for word in args:
        if options and word == "--":
            options = False
        elif options and word.startswith("--"):
            if not word.startswith(("--append", "--ignore-interrupts", "--output-error")):
                return None
            append = append or word == "--append"
        elif options and word.startswith("-") and len(word) > 1:
            if set(word[1:]) - set("aip"):
                return None
            append = append or "a" in word
        elif _plain(word):
            files.append(word)
        else:
            return None
    return (files, append) if files else None


def _sed_files(args: list[str]) -> list[str] | None:
    """The files ``sed -i`` edits in place (the operands after its script); None for a
    ``sed`` that does not edit in place, or whose options it does not know."""
    in_place = script_given = False
    operands: list[str] = []
    words = iter(args)
    for word in words:
        if word == "--":
            operands += list(words)
        elif word.startswith("--"):
            name, _, value = word.partition("=")
            if name == "--in-place":
                in_place = True
            elif name in ("--expression", "--file"):
                script_given = True
                if not value:
                    next(words, None)
            elif name == "--line-length" and not value:
                next(words, None)
        elif word.startswith("-") and len(word) > 1:
            for at, flag in enumerate(word[1:], start=1):
                if flag == "i":  # the rest of the word is a backup's suffix
                    in_place = True
                    break
                if flag in "efl":  # its value: the rest of the word, or the next word
                    script_given = script_given or flag in "ef"
                    if at == len(word) - 1:
                        next(words, None)
                    break
                if flag not in _SED_FLAGS:
                    return None
        else:
            operands.append(word)
    if in_place and not script_given and operands[:1] == [""]:
        operands = operands[1:]  # sed -i '' (BSD and macOS): the '' is the backup's suffix
    files = operands if script_given else operands[1:]
    if not in_place or not files or not all(map(_plain, files)):
        return None
    return files
