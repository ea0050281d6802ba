"""Shell commands that only write files: an agent that writes code through its shell.

An agent may write a file with its shell instead of an edit tool: ``cat > app.py <<'EOF'``,
``printf '…' >> app.py``, ``tee app.py <<'EOF'``, ``sed -i 's/a/b/' app.py`` (Codex CLI does
so where its patch tool cannot take an edit). Such a call is an edit of the files it writes,
as an edit tool's call is: :func:`written_files` names them.

Only a line that obviously does nothing else is one: every command on it is a writer
(``cat``, ``printf``, ``echo`` with their output sent to a file, ``tee`` fed by a heredoc or a
here-string, ``sed -i``), a ``cd`` or a ``mkdir`` on the way, or a shell that runs such a
script (``bash -lc '…'``). A pipe, any other program (a test run, ``python3 - <<'EOF'`` whose
script writes, a ``cp``), a target the shell would expand (``$HOME/x``, ``~/x``) or a
redirection the words do not show plainly leaves the line a shell command, as before.
"""

from __future__ import annotations

import posixpath
import re

from proctor.metrics.shell import split_commands

_WRITERS = frozenset({"cat", "printf", "echo"})
"""Programs whose output, sent to a file, is the file's text."""
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_ON_THE_WAY = frozenset({"cd", "mkdir"})
_REDIRECTION = re.compile(r"(\d*|&)(<<<|<<|<>|<|>>|>\||>)(&?)(.*)", re.DOTALL)
"""A redirection, as a word of the command begins: its descriptor, its operator, a ``&`` that
makes it a copy of another descriptor (``2>&1``, ``>&2``), then its target when written
without a space."""
_PLAIN_OUTPUT = re.compile(r"(?:^|[\s;&|(])(?:1|&)?(?:>>|>\||>)(?!&)")
"""A redirection of the standard output in a command's text, outside a quoted word: a ``>`` in
quotes (``echo '>b'``) is text, not a redirection."""
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_SED_ARGUMENTS = frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"})
"""``sed`` options whose value is the next word."""
_TEE_FLAGS = re.compile(r"-[aip]+|--append|--ignore-interrupts|-p|--output-error(=.*)?")


def written_files(command: object) -> tuple[tuple[str, ...], bool] | None:
    """The files a shell line writes when writing them is all it does (see the module's
    docstring), each as the line names it, joined to the folders its ``cd``s entered; and
    whether any of them is changed in place rather than written whole (``>>``, ``tee -a``,
    ``sed -i``). None for any other line."""
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        if len(command) == 3 and command[0] in _SHELLS and command[1] in ("-c", "-lc"):
            command = command[2]
        else:
            return None
    if not isinstance(command, str) or not _may_write(command):
        return None
    folder = ""
    files: dict[str, None] = {}
    in_place = False
    for part in split_commands(command):
        words = part.words
        program = posixpath.basename(words[0])
        if part.piped:
            return None
        if program in _SHELLS and any(word in ("-c", "-lc") for word in words[1:]):
            continue  # its script's commands follow it
        if program in _ON_THE_WAY:
            if program == "cd":
                if len(words) != 2 or not _plain(words[1]):
                    return None  # cd alone, cd -, cd ~: no telling where
                folder = posixpath.join(folder, words[1])
            continue
        found = _written(program, words[1:], part.heredoc is not None, part.text)
        if found is None:
            return None
        targets, appended = found
        in_place = in_place or appended
        files.update(dict.fromkeys(posixpath.join(folder, target) for target in targets))
    return (tuple(files), in_place) if files else None


_FIRST = re.compile(
    r"\s*(?:(?:/\S*/)?(?:ba|z|da|k)?sh\s+-l?c\s+[\"']?\s*)?(?:cd|mkdir|cat|printf|echo|tee|sed)\s"
)
"""How a line that only writes files begins: with one of the programs it may run, in a
shell's script or not."""


def _may_write(command: str) -> bool:
    """A cheap look: whether the line may write a file so. Most lines (a test run, a read)
    give no ``>``, ``tee`` or ``sed``, or begin with another program."""
    return (">" in command or "tee" in command or "sed" in command) and bool(_FIRST.match(command))


def _plain(word: str) -> bool:
    """A path the shell takes as it stands (no ``$``, ``~``, glob or ``-``)."""
    return bool(word) and not word.startswith(("-", "~")) and not any(c in word for c in "$*?[`")


def _written(
    program: str, args: tuple[str, ...], fed: bool, text: str
) -> tuple[list[str], bool] | None:
    """The files one command writes, and whether it changes them in place; None when it is
    not a writer, or writes somewhere the words do not show plainly. ``fed``: a heredoc is
    its standard input."""
    if program == "sed":
        return _sed_files(args)
    targets: list[str] = []
    appended = False
    rest: list[str] = []
    words = iter(args)
    for word in words:
        found = _REDIRECTION.fullmatch(word)
        if found is None:
            rest.append(word)
            continue
        descriptor, operator, copy, target = found.groups()
        if operator == "<<<":  # a here-string: its text (this word's, or the next) feeds it
            fed = True
            if not target:
                next(words, None)
            continue
        if not target and not copy:
            target = next(words, "")
        if copy or operator in ("<", "<>", "<<") or descriptor not in ("", "1", "&"):
            continue  # an input, a copy of a descriptor (2>&1), the standard error
        if not _plain(target):
            return None
        if target not in _NOT_FILES:
            targets.append(target)
        appended = appended or operator == ">>"
    if targets and len(_PLAIN_OUTPUT.findall(text)) < len(targets):
        return None  # a ">" the words show came from inside quotes
    if program in _WRITERS:
        return (targets, appended) if targets else None
    if program == "tee" and fed:  # fed by a heredoc or a here-string: no pipe needed
        named = [word for word in rest if not _TEE_FLAGS.fullmatch(word)]
        if not named or not all(map(_plain, named)):
            return None
        appended = appended or any(word in ("-a", "--append") for word in rest)
        return [*named, *targets], appended
    return None


def _sed_files(args: tuple[str, ...]) -> tuple[list[str], bool] | None:
    """The files ``sed -i`` edits in place (each operand after its script); None for a
    ``sed`` that does not edit in place, or writes elsewhere (``w file`` in a script is not
    looked for: such a script is rare, and its file is named in the script)."""
    in_place = False
    script_given = False
    operands: list[str] = []
    words = iter(args)
    for word in words:
        if word.startswith("--in-place") or (
            word.startswith("-") and not word.startswith("--") and "i" in word[1:2]
        ):
            in_place = True  # -i, -i.bak, --in-place=.bak
        elif word in _SED_ARGUMENTS:
            script_given = script_given or word in ("-e", "--expression", "-f", "--file")
            next(words, None)
        elif word.startswith(("--expression=", "--file=")):
            script_given = True
        elif word.startswith("-") and len(word) > 1:
            if "i" in word[1:] and not word.startswith("--"):
                in_place = True  # a cluster: -Ei, -ni
            elif word.startswith("-") and word[1:] in ("s", "E", "r", "n", "z", "u"):
                continue
        elif any(c in word for c in "<>"):
            return None
        else:
            operands.append(word)
    files = operands if script_given else operands[1:]
    if not in_place or not files or not all(map(_plain, files)):
        return None
    return files, True
