"""What a memory server started by command wrote to its stderr, as proctor's sentences show it.

The log is read from its end with every registered key masked (one a logger wrapped over two
lines too): :func:`server_log_tail` is its last meaningful line, the end of a sentence of
failure; :func:`server_stderr_tail` is its end as a block, the frames of a boxed traceback left
out.
"""

from __future__ import annotations

import re
from pathlib import Path

from proctor.addons.memory.stray import OWN_NOTE
from proctor.util.cutting import masked_head
from proctor.util.masking import MASK, alone, mask, registered_secrets, stands_alone


def server_log_tail(log: Path | None) -> str:
    """The last line the server wrote to its stderr (for a crash, the exception itself rather
    than its traceback), cut and masked, as the end of a sentence; "" when it wrote none. The
    text is masked before its last line is taken: a key its logger wrapped over two lines is
    no longer whole in either."""
    lines = _masked_stderr(log, STDERR_TAIL_CHARS).splitlines()
    last = next((text for line in reversed(lines) if (text := _unboxed(line))), "")
    if _NODE_VERSION.fullmatch(last):  # Node.js ends an uncaught error so: say the error
        error = next((line for line in reversed(lines) if _NODE_ERROR.match(line)), None)
        if error is not None:
            return f"; the error on its stderr: {masked_head(error, 300)}"
    if last.startswith(OWN_NOTE):  # proctor's own sentence in the log, not the server's
        return f"; {masked_head(last.removeprefix(OWN_NOTE), 300)}"
    return f"; the last line of its stderr: {masked_head(last, 300)}" if last else ""


_NODE_VERSION = re.compile(r"Node\.js v\d+(?:\.\d+)*")
"""The line Node.js writes last for an uncaught error, under the error and its stack."""
_NODE_ERROR = re.compile(r"[A-Za-z_$][\w$.]*(?: \[\w+\])?: \S")
"""An error's line in Node.js's report (``Error: Cannot find module 'x'``, ``TypeError
[ERR_X]: …``), at a line's start, unlike its stack and properties (indented)."""


_BOX = re.compile(r"^[\s\u2500-\u257f]+|[\s\u2500-\u257f]+$")
"""Box-drawing characters and blanks at either end of a line: the frames ``rich`` (the MCP
SDK's logger) draws around a traceback, nested ones included."""


def _unboxed(line: str) -> str:
    """``line`` without the frame a boxed traceback draws around it ("" for a line that is
    nothing but frame): such a traceback ends with the exception inside its frames."""
    return _BOX.sub("", line)


STDERR_TAIL_CHARS = 4096
"""How much of the end of a failed server's stderr is shown (the scratch folder holding all
of it is removed)."""


def server_stderr_tail(log: Path | None, limit: int = STDERR_TAIL_CHARS) -> str:
    """The last ``limit`` characters of the server's stderr, masked whole before the cut (a key
    its logger wrapped over two lines too), from a line's start (but for a last line longer
    than ``limit``, whose end is all it shows); "" when it wrote nothing or left no log."""
    lines = _frames_left_out(_masked_stderr(log, limit).split("\n"))
    masked = "\n".join(line for line in lines if not line.startswith(OWN_NOTE))  # the server's
    tail = masked[-limit:]
    if len(tail) < len(masked) and "\n" in tail:
        tail = tail.partition("\n")[2]
    return tail.strip("\n")


def _frames_left_out(lines: list[str]) -> list[str]:
    """``lines`` with the frames of each traceback ``rich`` (the MCP SDK's logger) drew in a box
    left out, one line saying how many: the innermost box titled "Traceback" holds source
    excerpts of the SDK, many lines wide, that would push what failed (an output's
    ``ValidationError``, printed above the box of the exception it caused) out of the tail.
    The exception itself, after the box or in an outer one, stays."""
    spans: list[tuple[int, int]] = []
    opened: list[tuple[int, int, bool]] = []  # (line, column, holds another box)
    for n, line in enumerate(lines):
        if (col := line.find("\u256d")) >= 0:  # ╭
            if opened:
                opened[-1] = (*opened[-1][:2], True)
            opened.append((n, col, False))
        elif (col := line.find("\u2570")) >= 0 and opened and opened[-1][1] == col:  # ╰
            start, _, nested = opened.pop()
            if not nested and "Traceback" in lines[start] and n - start > 1:
                spans.append((start, n))
    for start, end in reversed(spans):
        indent = lines[start][: lines[start].find("\u256d")]
        note = f"{indent}\u2502 \u2026 {end - start - 1} lines of the traceback's frames left out"
        lines[start + 1 : end] = [note]
    return lines


def _masked_stderr(log: Path | None, limit: int) -> str:
    """The end of the server's stderr (``16 * limit`` characters at most, from a line's
    start), every registered key masked, one a logger wrapped over two lines too; "" when
    there is no log."""
    if log is None:
        return ""
    try:
        with log.open("rb") as fh:
            size = fh.seek(0, 2)
            start = max(size - 16 * limit, 0)  # ample for masking, bounded however large
            fh.seek(start)
            data = fh.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if start:  # the first line read may be cut: begin at the next one
        text = text.partition("\n")[2]
    return _wrapped_masked(mask(text.rstrip()))


_WRAP = r"(?:[ \t]*\r?\n[ \t]*)?"
"""What a logger that wraps its lines into columns (``rich``'s, the MCP SDK's) may put
between two characters of a key: blanks, a line break, the next line's indent."""


def _wrapped_masked(text: str) -> str:
    """``text`` with every registered key that a line break splits masked; the mask keeps
    the line breaks, so the lines stay lines."""
    for secret in sorted(registered_secrets(), key=len, reverse=True):
        pattern = _WRAP.join(re.escape(c) for c in secret)
        pattern = alone(pattern) if stands_alone(secret) else pattern
        text = re.sub(pattern, lambda m: MASK + "\n" * m.group().count("\n"), text)
    return text
