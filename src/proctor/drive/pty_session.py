"""A program in a real pseudo-terminal, with its screen rendered by pyte.

The session keeps the raw byte stream (``terminal.raw``) and a rendered screen; ``mirror``
copies the agent's output live to another stream (``--mirror``). It is the
:class:`~proctor.agents.protocol.Terminal` that agent adapters read and type into.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import pyte
from ptyprocess import PtyProcess

from proctor.util.processes import kill_group
from proctor.util.terminal_masking import StreamMask

ROWS, COLS = 50, 160


class _TitledScreen(pyte.Screen):
    """A pyte screen that remembers the window title set by OSC 0/2."""

    title: str = ""

    def set_title(self, param: str) -> None:
        self.title = param

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        """Ignore private SGR queries (``CSI ? … m``, ``CSI > 4 ; ? m``) that pyte 0.8 passes
        on with ``private=True`` and would otherwise crash on (Gemini CLI sends one)."""
        if not private:
            super().select_graphic_rendition(*attrs)


class PtySession:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        mirror: BinaryIO | None = None,
        rows: int = ROWS,
        cols: int = COLS,
    ) -> None:
        self.screen = _TitledScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.mirror = mirror
        self.mirrored = StreamMask()
        self.proc = PtyProcess.spawn(
            list(argv), cwd=str(cwd), env=dict(env), dimensions=(rows, cols)
        )
        # ptyprocess sleeps this long in close(); the group is already killed by then.
        self.proc.delayafterclose = 0.0
        self.proc.delayafterterminate = 0.0
        self.eof = False

    @property
    def pid(self) -> int:
        return int(self.proc.pid)

    @property
    def title(self) -> str:
        return self.screen.title

    def pump(self, timeout: float) -> bool:
        """Read whatever the program wrote within ``timeout`` seconds; False at EOF."""
        if self.eof:
            return False
        fd = self.proc.fd
        ready, _, _ = select.select([fd], [], [], max(timeout, 0.0))
        until = time.monotonic() + max(timeout, 0.05)
        while ready and time.monotonic() < until:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                chunk = b""
            if not chunk:
                self.eof = True
                return False
            self.raw += chunk
            self.stream.feed(chunk)
            if self.mirror is not None:  # live, with every registered key masked
                self.mirror.write(self.mirrored.feed(chunk))
                self.mirror.flush()
            ready, _, _ = select.select([fd], [], [], 0)
        return True

    def wait_until(self, predicate: Callable[[], bool], deadline: float) -> bool:
        """Pump output until ``predicate()`` holds (True), EOF or ``deadline`` (False)."""
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.pump(min(remaining, 0.05)):
                return predicate()
        return True

    @property
    def bytes_read(self) -> int:
        return len(self.raw)

    def write(self, text: str) -> None:
        self.proc.write(text.encode("utf-8"))

    def screen_text(self) -> str:
        """The rendered screen, right-trimmed, without trailing empty lines.

        Only the cells the program wrote are visited (pyte's ``display`` renders every cell,
        which costs milliseconds on a large screen)."""
        columns = self.screen.columns
        buffer = self.screen.buffer
        lines = []
        for y in range(self.screen.lines):
            row = buffer.get(y)
            if not row:
                lines.append("")
                continue
            cells = [" "] * columns
            for x, char in row.items():
                if 0 <= x < columns:
                    cells[x] = char.data
            lines.append("".join(cells).rstrip())
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines) + "\n"

    def alive(self) -> bool:
        return bool(self.proc.isalive())

    def wait_exit(self, deadline: float) -> int | None:
        """Wait for the program to exit; its exit code (128+N for signal N), or None."""
        while time.monotonic() < deadline:
            if not self.pump(0.02):
                time.sleep(0.002)  # the terminal is closed; only the exit is awaited
            if not self.proc.isalive():
                break
        if self.proc.isalive():
            return None
        return self.exit_code()

    def exit_code(self) -> int | None:
        status = self.proc.exitstatus
        if status is not None:
            return int(status)
        sig = self.proc.signalstatus
        return 128 + int(sig) if sig is not None else None

    def kill(self) -> None:
        """Kill the program's whole process group and reap it. A mirrored terminal gets its
        modes back (bracketed paste off, cursor shown) whatever the agent left set."""
        if self.mirror is not None:
            try:
                self.mirror.write(self.mirrored.flush() + b"\x1b[?2004l\x1b[?25h\x1b[0m\r\n")
                self.mirror.flush()
            except (OSError, ValueError):
                pass
        kill_group(self.pid, signal.SIGKILL)
        try:
            self.proc.wait()
        except Exception:
            pass
        self.close_fd()

    def close_fd(self) -> None:
        try:
            self.proc.close(force=True)
        except Exception:
            pass
