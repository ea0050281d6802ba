"""A shell line split into the commands it runs, so that quoted text never starts a check.

``cd app && uv run pytest -q | tail -3`` runs three commands; ``echo "done && make test"`` runs
one. The scan is shell-like (single and double quotes, backslash escapes, ``#`` comments) and
tolerant: an unbalanced quote runs to the end of the line instead of raising. A heredoc's
body (``cat > run.sh <<'EOF'`` … ``EOF``) is text, not commands, unless a shell reads it as
its script (``bash <<EOF``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace

from proctor.metrics.exits import LAST_STATUS, drains, failure_ends_line
from proctor.metrics.pipefail import SHELLS as _SHELLS
from proctor.metrics.pipefail import pipefail_states, shell_pipefail, unsure_sh
from proctor.metrics.runners import negates, run_by_runner, runner_detaches

#: Operators that end a command, longest first so that ``&&`` wins over ``&``.
_OPERATORS = ("&&", "||", "|&", ";;", "|", ";", "&", "\n", "(", ")")
_SUBSTITUTIONS = ("$(", "`")
"""What opens a command substitution: part of the word it stands in (``make -j$(nproc)
test`` is one command), its commands run too."""
_OPENS = (*_SUBSTITUTIONS, "<(", ">(")
"""A command substitution, or a process substitution (``<(pytest)``, ``>(tee log)``), whose
commands run beside the line and whose status is never the line's: read alike."""
_PIPES = frozenset({"|", "|&"})
_KEEPS = frozenset({None, "&&", ")"})
"""What may follow a command whose status is the line's: ``&&``, the end of a subshell
(``(cd app && pytest)``), or nothing."""
_ENDS = frozenset({";", "\n"})
_EXITS_WITH_IT = frozenset({("exit",), ("exit", LAST_STATUS)})
"""An ``exit`` with the status of the command before it."""
"""What ends a command and masks it only when another command follows (``pytest;``)."""
_STDIN_FLAG = re.compile(r"-\w*s\w*")
_REDIRECTION = re.compile(r"\d*(?:[<>]{1,2}|&>>?)&?")
_SCRIPT_FLAG = re.compile(r"-\w*c\w*")
_OPTION_WITH_ARG = re.compile(r"[-+]\w*o")
_DOUBLE_QUOTE_ESCAPES = '$`"\\\n'
_OUTER = "\x00outer-status"
"""What an expanded ``$?`` is in a script another shell reads (``bash -c "pytest || exit
$?"``): the status the outer shell had when it expanded it, no status of the script's."""


def _status_length(text: str, i: int) -> int:
    """The length of the ``$?`` or ``${?}`` at ``text[i]``; 0 when there is none."""
    return 4 if text.startswith("${?}", i) else 2 if text.startswith("$?", i) else 0


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
    one returned (after ``;``, ``||``, ``&``, a newline, or ``|`` without ``pipefail``), a
    ``!`` turns it round, or a runner leaves it running on its own (``docker exec -d``)."""
    heredoc: str | None = None
    """The body of the heredoc it reads on its standard input (``bash <<EOF``), if any."""
    expanded: bool = False
    """That body is the shell's to expand (its delimiter was not quoted): a ``$`` in it is
    a variable's value, not the text."""
    nested: bool = False
    """It runs in a subshell (``(cd app && pytest)``): its ``exit`` ends that subshell only."""


@dataclass(frozen=True)
class _Heredoc:
    """A heredoc opened by ``<<`` or ``<<-``, its body still to be read after the newline."""

    command: int
    """The index its command will have among the line's commands."""
    delimiter: str
    strip_tabs: bool
    """``<<-``: leading tabs of the body's lines, the closing one's too, are not its text."""
    quoted: bool
    """Its delimiter was quoted (``<<'EOF'``): the body is not expanded, so no substitution
    in it runs."""
    stdin: bool
    """It feeds the command's standard input (not ``3<<EOF``)."""


def _operator(line: str, i: int) -> str | None:
    """The unquoted operator starting at ``line[i]``; a ``&`` inside ``2>&1`` or ``&>`` is not."""
    op = next((o for o in _OPERATORS if line.startswith(o, i)), None)
    if op == "&" and ((i > 0 and line[i - 1] in "<>") or line.startswith("&>", i)):
        return None
    return op


def _substitution_close(line: str, i: int, budget: list[int]) -> int:
    """Where the command substitution opened at ``line[i]`` (``$(`` or a backquote) closes:
    the index of its closing ``)`` or backquote, quotes, escapes, nested parentheses and the
    bodies of heredocs (``$(cat <<'EOF'`` … ``EOF`` ``)``, whose text may hold a lone ``'``
    or ``)``) skipped. One never closed ends with its line (a heredoc's text may hold a lone
    backquote): the index of the next newline, or the text's length.

    ``budget`` is what is left of the characters the line's scans may look at (see
    :data:`_LOOK_AHEAD`); one that runs out ends with its line too, so that a text of
    thousands of unclosed substitutions, each looking to its end, costs its length."""
    j, stop = i + 1, min(len(line), i + max(budget[0], 0))
    if line[i] == "`":
        while j < stop and line[j] != "`":
            j += 2 if line[j] == "\\" else 1
        budget[0] -= j - i
        return j if j < stop else _line_end(line, i)
    depth, quote, j = 1, "", i + 2
    heredocs: list[_Heredoc] = []  # opened on the line being read: their bodies are text
    while j < stop:
        ch = line[j]
        if ch == "\\" and quote != "'":
            j += 1
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "<" and line.startswith("<<", j):  # git commit -m "$(cat <<'EOF' … EOF )"
            if line.startswith("<<<", j) or line.startswith("$((", i):  # $(( 1 << 2 ))
                j += 3 if line.startswith("<<<", j) else 2
                continue
            heredoc, j = _heredoc(line, j, 0, None)
            heredocs += [heredoc] if heredoc is not None else []
            continue
        elif ch == "\n" and heredocs:
            j += 1
            for heredoc in heredocs:
                j = _body_end(line, j, heredoc)[1]
            heredocs = []
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                budget[0] -= j - i
                return j
        j += 1
    budget[0] -= j - i
    return _line_end(line, i)


_LOOK_AHEAD = 4
"""The characters a line's substitution scans may look at, all told, per character of the
line (and :data:`_LOOK_AHEAD_LEAST` more): a line's own substitutions look at it a few times
at most."""
_LOOK_AHEAD_LEAST = 65_536


def _substituted(
    line: str, i: int, word: str, inner: list[str] | None, budget: list[int]
) -> tuple[str, int]:
    """The word with the substitution opened at ``line[i]`` added, and where the scan goes
    on; its script is added to ``inner``."""
    close = _substitution_close(line, i, budget)
    if inner is not None:
        inner.append(line[i + (1 if line[i] == "`" else 2) : close])
    end = close + 1 if close < len(line) and line[close] in ")`" else close  # unclosed: its line
    return word + line[i:end], end


def _line_end(line: str, i: int) -> int:
    end = line.find("\n", i)
    return end if end >= 0 else len(line)


def _delimiter(line: str, i: int) -> tuple[str, bool, int]:
    """The delimiter word starting at ``line[i]`` with its quotes removed, whether any part of
    it was quoted, and where it ends."""
    word, quoted, quote = "", False, ""
    while i < len(line):
        ch = line[i]
        if quote and ch == quote:
            quote = ""
        elif quote:
            word += ch
        elif ch in "'\"":
            quote, quoted = ch, True
        elif ch == "\\":
            word, quoted = word + line[i + 1 : i + 2], True
            i += 1
        elif ch.isspace() or ch in ";&|()<>":
            break
        else:
            word += ch
        i += 1
    return word, quoted, i


def _heredoc(line: str, i: int, command: int, fd: str | None) -> tuple[_Heredoc | None, int]:
    """The heredoc whose ``<<`` is at ``line[i]`` (``fd`` is a number written just before it,
    ``3<<EOF``), and where the scan goes on; None when no delimiter follows."""
    strip_tabs = line.startswith("<<-", i)
    j = i + (3 if strip_tabs else 2)
    while j < len(line) and line[j] in " \t":
        j += 1
    delimiter, quoted, end = _delimiter(line, j)
    if not delimiter and not quoted:
        return None, j
    stdin = fd in (None, "0")
    return _Heredoc(command, delimiter, strip_tabs, quoted, stdin), end


def _in_brackets(line: str, start: int, i: int) -> bool:
    """Whether the ``<<`` at ``line[i]`` is in a ``$[ … ]`` (the old arithmetic), looked for
    in the command from ``start`` on, a few hundred characters back at most."""
    start = max(start, i - 256)
    return line.rfind("$[", start, i) > line.rfind("]", start, i)


def _body_end(line: str, i: int, heredoc: _Heredoc) -> tuple[int, int]:
    """Where the body starting at ``line[i]`` ends, and where the line goes on after its
    closing delimiter line; a body never closed runs to the end of the text."""
    while i < len(line):
        end = _line_end(line, i)
        text = line[i:end].lstrip("\t") if heredoc.strip_tabs else line[i:end]
        if text.removesuffix("\r") == heredoc.delimiter:  # a CRLF text's lines end in \r
            return i, min(end + 1, len(line))
        i = end + 1
    return len(line), len(line)


def _read_heredocs(
    line: str,
    i: int,
    heredocs: list[_Heredoc],
    commands: list[ShellCommand],
    inner: list[str] | None,
    budget: list[int],
) -> int:
    """Read the bodies of the heredocs opened on the line that ended at ``line[i]``, one after
    the other: each is given to its command, and an expanded one's substitutions are added to
    ``inner``. Where the line goes on after the last one."""
    for heredoc in heredocs:
        end, i_next = _body_end(line, i, heredoc)
        body = line[i:end]
        if not heredoc.quoted:
            _add_substitutions(body, inner, budget)
            body = _expanded_statuses(body)
        if heredoc.stdin and heredoc.command < len(commands):
            commands[heredoc.command] = replace(
                commands[heredoc.command], heredoc=body, expanded=not heredoc.quoted
            )
        i = i_next
    return i


def _expanded_statuses(body: str) -> str:
    """An expanded heredoc's body as the shell that expands it hands it on: each ``$?`` in it
    the status it stands for, the outer shell's; a backslash before ``$``, a backquote or a
    backslash taken out (``\\$?`` is the script's own status), and before a newline, the
    two."""
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and body[i + 1 : i + 2] in ("$", "`", "\\", "\n"):
            out.append(body[i + 1] if body[i + 1] != "\n" else "")
            i += 2
        elif length := _status_length(body, i):
            out.append(_OUTER)
            i += length
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _add_substitutions(text: str, inner: list[str] | None, budget: list[int]) -> None:
    """Add the scripts of the command substitutions in an expanded heredoc's body to
    ``inner``; its quotes are text."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text.startswith(_SUBSTITUTIONS, i):
            i = _substituted(text, i, "", inner, budget)[1]
        else:
            i += 1


def _scan(line: str, inner: list[str] | None = None) -> list[ShellCommand]:
    """The top-level commands of a line, in order; empty commands are dropped. The scripts of
    its command substitutions are added to ``inner``."""
    commands: list[ShellCommand] = []
    words: list[str] = []
    word: str | None = None
    quote = ""
    heredocs: list[_Heredoc] = []
    budget = [_LOOK_AHEAD * len(line) + _LOOK_AHEAD_LEAST]
    depth = arithmetic = 0  # subshells, and (( … )) commands, open
    start = i = 0
    while i < len(line):
        ch = line[i]
        if quote == '"' and line.startswith(_SUBSTITUTIONS, i):  # "$(pytest)" runs it too
            word, i = _substituted(line, i, word or "", inner, budget)
            continue
        if ch == "$" and quote != "'" and (length := _status_length(line, i)):
            # Expanded by this shell: its own last status (see exits.LAST_STATUS).
            word = f"{word or ''}{LAST_STATUS}"
            i += length
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
        if line.startswith(_OPENS, i):  # part of a word: its commands run too
            word, i = _substituted(line, i, word or "", inner, budget)
            continue
        if line.startswith("<<<", i):  # a here-string: its word is a word
            word, i = f"{word or ''}<<<", i + 3
            continue
        if line.startswith("<<", i) and (arithmetic or _in_brackets(line, start, i)):
            word, i = f"{word or ''}<<", i + 2
            continue
        if line.startswith("<<", i):
            fd = word if word is not None and word.isdigit() else None
            if word is not None and fd is None:
                words.append(word)
            heredoc, i = _heredoc(line, i, len(commands), fd)
            heredocs += [heredoc] if heredoc is not None else []
            word = None
            continue
        op = _operator(line, i)
        if (op is not None or ch.isspace()) and word is not None:
            words.append(word)
            word = None
        if op is not None:
            if words:
                text = line[start:i].strip()
                command = ShellCommand(text, tuple(words), op in _PIPES, op, nested=depth > 0)
                commands.append(command)
            elif commands and commands[-1].then == ")" and op != "(":
                # After a subshell: what follows it follows its last command (``(pytest) ||``).
                commands[-1] = replace(commands[-1], piped=op in _PIPES, then=op)
            elif op == ")" and depth and commands and commands[-1].then in _ENDS:
                # ``(cd app; pytest;)``: the subshell ends with its last command all the same.
                commands[-1] = replace(commands[-1], piped=False, then=op)
            depth = depth + 1 if op == "(" else max(depth - 1, 0) if op == ")" else depth
            if op == "(" and line.startswith("((", i) and line[i - 1 : i] != "(":
                arithmetic += 1  # (( i << 2 )): a shift, not a heredoc
            elif op == ")" and arithmetic and line.startswith("))", i):
                arithmetic -= 1
            words = []
            i += len(op)
            if op == "\n" and heredocs:
                i = _read_heredocs(line, i, heredocs, commands, inner, budget)
                heredocs = []
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
        commands.append(ShellCommand(line[start:].strip(), tuple(words), False, nested=depth > 0))
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


def _reads_stdin(words: tuple[str, ...]) -> bool:
    """Whether a shell reads its script from its standard input: no ``-c`` and no script
    file, or ``-s`` (``bash``, ``sh -e``, ``bash -s -- arg``, ``bash > log``)."""
    if not words or posixpath.basename(words[0]) not in _SHELLS:
        return False
    i = 1
    while i < len(words):
        word = words[i]
        if _REDIRECTION.match(word):  # ``> log`` takes the next word; ``>log``, ``2>&1`` not
            i += 2 if _REDIRECTION.fullmatch(word) else 1
        elif word in ("-", "--"):
            return i + 1 == len(words)  # a word after it names the script's file
        elif not word.startswith(("-", "+")) or _SCRIPT_FLAG.fullmatch(word):
            return False  # the script's file, or ``-c SCRIPT``
        elif _STDIN_FLAG.fullmatch(word):
            return True  # what follows is the script's arguments
        else:
            i += 2 if _OPTION_WITH_ARG.fullmatch(word) else 1
    return True


def _negations(top: list[ShellCommand]) -> list[bool]:
    """Which commands a ``!`` turns the status of round: every command of a pipeline that
    starts with one (``! pytest``, ``if ! cat x | pytest``). After a ``!`` before a subshell
    (``! (cd app && pytest)``) every later command of the line, as where the subshell ends is
    not kept."""
    negated: list[bool] = []
    pipeline = after_subshell = False
    for index, command in enumerate(top):
        if index == 0 or top[index - 1].then not in _PIPES:
            pipeline = negates(command.words)
        negated.append(pipeline or after_subshell)
        after_subshell = after_subshell or (pipeline and command.then == "(")
    return negated


def _masks(top: list[ShellCommand], outer_masked: bool, pipefail: list[bool]) -> list[bool]:
    """Whether each command's status may not be the line's: an operator from it to the end of
    the line masks it (unless its failure ends the line: ``|| exit 1``, see
    :mod:`~proctor.metrics.exits`), a ``!`` turns it round, or a runner leaves it running
    on its own. ``pipefail``: whether it is on where each command runs."""
    masks = [outer_masked] * (len(top) + 1)
    for index in range(len(top) - 1, -1, -1):
        op = top[index].then
        last = index == len(top) - 1 or top[index + 1].words[:1] == ("}",)  # { pytest; }
        piped = op in _PIPES and pipefail[index] and drains(top[index + 1].words)
        # ``pytest; exit $?`` (or a bare ``exit``): the line ends with the command's status.
        exits = op in _ENDS and not last and top[index + 1].words in _EXITS_WITH_IT
        keeps = op in _KEEPS or (op in _ENDS and last) or piped or exits
        masks[index] = masks[index + 1] or not keeps
    negated = _negations(top)
    ends = failure_ends_line(top, negated, pipefail)
    defined = _function_bodies(top)
    return [
        (outer_masked if ends[index] else masks[index])
        or negated[index]
        or defined[index]
        or runner_detaches(command.words)
        for index, command in enumerate(top)
    ]


def _function_bodies(top: list[ShellCommand]) -> list[bool]:
    """Which commands are a function's body (``run() { cd app; pytest; }``, ``function run {
    …; }``): they run when it is called, if ever, and the line's status is not theirs."""
    inside = [False] * len(top)
    depth, named = 0, False  # the braces of the function being defined; its name was read
    for index, command in enumerate(top):
        words = command.words
        if depth == 0 and not named:
            keyword = words[:1] == ("function",) and len(words) > 1
            parens = command.then == "(" and index + 1 < len(top)
            if not keyword and not (parens and top[index + 1].words[:1] == ("{",)):
                continue
            inside[index] = True
            depth = words.count("{") - words.count("}")
            named = depth <= 0  # its body is still to come (``f() {``, ``function f``)
            depth = max(depth, 0)
            continue
        inside[index] = True
        named = False
        depth = max(depth + words.count("{") - words.count("}"), 0)
    return inside


def _inner_script(command: ShellCommand, before: ShellCommand | None) -> str | None:
    """As :func:`_script_read`, with each ``$?`` the outer shell expanded in it written as
    the outer shell's status (a script's own ``$?`` is one the outer shell left as it is:
    quoted ``'…$?'``, or escaped ``\\$?``)."""
    script = _script_read(command, before)
    return script.replace(LAST_STATUS, _OUTER) if script is not None else None


def _script_read(command: ShellCommand, before: ShellCommand | None) -> str | None:
    """The script a command has a shell run: ``sh -c SCRIPT``, or what a shell reads on its
    standard input as its script: a heredoc (``bash <<EOF``), a here-string (``bash <<<
    'pytest -q'``), or what the command ``before`` it pipes into it, a ``cat`` of a heredoc
    or an ``echo`` (``cat <<EOF | bash``, ``echo 'pytest -q' | sh``); behind runners too
    (``timeout 60 bash -c``)."""
    words = run_by_runner(command.words) or command.words
    script = _script(words)
    if script is not None:
        return script
    if "<<<" in words[:-1]:
        at = words.index("<<<")
        return words[at + 1] if _reads_stdin((*words[:at], *words[at + 2 :])) else None
    if command.heredoc is not None:
        return command.heredoc if _reads_stdin(words) else None
    if before is None or before.then not in _PIPES or not _reads_stdin(words):
        return None
    if before.words in (("cat",), ("cat", "-")) and before.heredoc is not None:
        return before.heredoc
    if before.words[0] == "echo" and len(before.words) > 1:
        said = before.words[1:]
        return " ".join(said[1:] if said[0] in ("-e", "-E") else said) or None
    return None


_DEEPEST = 8
"""How many ``sh -c`` scripts and substitutions deep commands are looked for: a line nested
deeper by hand or by a generator costs no more than that."""


def split_commands(
    line: str,
    *,
    outer_masked: bool = False,
    pipefail: bool = False,
    depth: int = 0,
    _reading: list[int] | None = None,
) -> list[ShellCommand]:
    """Every command a shell line runs, in order, including those of ``sh -c '...'`` scripts.

    Commands end at ``&&``, ``||``, ``;``, ``|``, ``&``, a newline, ``(`` or ``)`` outside
    quotes. A command substitution (``$(…)``, backquotes) is part of its word; its commands
    follow the line's, masked. A command inside ``sh -c`` (also behind a runner) counts as
    piped (and masked) when the ``sh`` is; its script has ``pipefail`` when the shell is
    started with it or the script turns it on (a shell does not take its parent's).
    A command is masked unless every operator from it to the end of its line is ``&&``, the
    end of a subshell, a pipe with ``pipefail`` on, or a ``;`` or newline with no command
    after it: only then does its failure fail the line; or unless its failure ends the line
    (``|| exit 1``). A command that a ``!`` turns round, or that a runner leaves running on
    its own (``docker exec -d``), is masked too. A heredoc fed to a shell (``bash <<EOF``) is
    read as its script. ``pipefail``: whether the line starts with it on (a shell started
    with it, ``bash -o pipefail -c``).

    The scripts read, all told, are a few times the line's length at most (see
    :data:`_READ_AGAIN`): a script nested in a substitution nested in a script is read at
    each level, and a line nested deep by hand would otherwise cost twice as much per level.
    """
    reading = [_READ_AGAIN * len(line) + _LOOK_AHEAD_LEAST] if _reading is None else _reading
    substituted: list[str] = []
    top = _scan(line, substituted)
    states = pipefail_states(top, pipefail)
    commands: list[ShellCommand] = []
    masks = _masks(top, outer_masked, states)
    for index, (command, masked) in enumerate(zip(top, masks, strict=True)):
        commands.append(replace(command, masked=masked))
        script = _inner_script(command, top[index - 1] if index else None)
        if script is not None and _read_again(script, depth, reading):
            commands += [
                replace(inner, piped=inner.piped or command.piped)
                for inner in split_commands(
                    script,
                    outer_masked=masked or unsure_sh(command.words, script),
                    pipefail=shell_pipefail(command.words),
                    depth=depth + 1,
                    _reading=reading,
                )
            ]
    for script in substituted:  # its status is never the line's
        if _read_again(script, depth, reading):
            commands += split_commands(
                script, outer_masked=True, pipefail=states[-1], depth=depth + 1, _reading=reading
            )
    return commands


_READ_AGAIN = 4
"""The characters of scripts a line's reading may read again, all told, per character of the
line (and :data:`_LOOK_AHEAD_LEAST` more)."""


def _read_again(script: str, depth: int, reading: list[int]) -> bool:
    """Whether a script of the line is read (taking its length from what may be read)."""
    if depth >= _DEEPEST or reading[0] < len(script):
        return False
    reading[0] -= len(script)
    return True
