"""The last line of a failed memory server's stderr quoted in the error sentence."""

from __future__ import annotations

from pathlib import Path

from proctor.addons.memory.client import server_log_tail

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
