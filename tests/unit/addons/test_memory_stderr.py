"""The last line of a failed memory server's stderr quoted in the error sentence."""

from __future__ import annotations

from pathlib import Path

from proctor.addons.memory.server_stderr import server_log_tail, server_stderr_tail

RICH_TRACEBACK = """\
[12/06/26 11:44:53] ERROR    Error in tool 'find'              server.py:453
                             ╭──── Traceback (most recent call last) ─────╮
                             │ ╭─ Exception Group Traceback ─╮            │
                             │ │ /srv.py:21 in find          │            │
                             │ │ ❱ 21 │   raise SystemExit(4) │            │
                             │ ╰─────────────────────────────╯            │
                             │ SystemExit: 4                              │
                             ╰────────────────────────────────────────────╯
"""


def test_the_last_line_of_a_boxed_traceback_is_its_exception_not_the_frame(
    tmp_path: Path,
) -> None:
    """The MCP SDK's logger (``rich``) draws a traceback in nested frames: the sentence
    quotes the exception inside them, not the frame's bottom edge."""
    log = tmp_path / "stderr.log"
    log.write_text(RICH_TRACEBACK, encoding="utf-8")
    assert server_log_tail(log) == "; the last line of its stderr: SystemExit: 4"


def test_a_plain_last_line_is_quoted_as_written(tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    log.write_text("Traceback (most recent call last):\n  ...\nValueError: bad\n\n", "utf-8")
    assert server_log_tail(log) == "; the last line of its stderr: ValueError: bad"
    log.write_text("─────\n", encoding="utf-8")  # nothing but a frame: nothing to quote
    assert server_log_tail(log) == ""


CAUSED = (
    """\
[12/07/26 07:46:26] ERROR    Tool 'find' raised an unexpected      server.py:455
                             ╭─ Traceback (most recent call last─╮
                             │ /srv/mcp/server.py:442 in _handle │
                             │ ❱ 213 │   raise Unexpected      │
                             ╰───────────────────────────────────╯
                             ValidationError: 1 validation error
                             for findOutput
                               Input should be a valid list
                             The above exception was the direct
                             cause of the following exception:
                             ╭─ Traceback (most recent call last─╮
"""
    + "                             │ /srv/mcp/server.py:442 in x       │\n" * 200
    + """\
                             ╰───────────────────────────────────╯
                             UnexpectedToolError: Error executing
                             tool find
"""
)


def test_the_stderr_shown_leaves_out_a_boxed_tracebacks_frames_not_its_exception(
    tmp_path: Path,
) -> None:
    """The frames of the SDK's boxed tracebacks (many lines of its source) would push what
    failed out of the 4 KB shown: they are left out, one line says so, the exceptions stay."""
    log = tmp_path / "stderr.log"
    log.write_text(CAUSED, encoding="utf-8")
    tail = server_stderr_tail(log)
    assert "Input should be a valid list" in tail and "UnexpectedToolError" in tail
    assert "/srv/mcp/server.py" not in tail
    assert "│ … 2 lines of the traceback's frames left out" in tail
    assert "│ … 200 lines of the traceback's frames left out" in tail
    log.write_text(RICH_TRACEBACK, encoding="utf-8")  # an exception inside the outer box
    grouped = server_stderr_tail(log)
    assert "│ SystemExit: 4" in grouped and "/srv.py:21" not in grouped
    assert "│ │ … 2 lines of the traceback's frames left out" in grouped


NODE_CRASH = """\
node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/srv/nonexist.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
"""


def test_a_node_server_s_uncaught_error_is_quoted_not_its_version_line(tmp_path: Path) -> None:
    """Node.js writes its version under an uncaught error: the error is quoted (the version
    line was, which says nothing of what broke)."""
    log = tmp_path / "stderr.log"
    log.write_text(NODE_CRASH, encoding="utf-8")
    assert server_log_tail(log) == (
        "; the error on its stderr: Error: Cannot find module '/srv/nonexist.js'"
    )
