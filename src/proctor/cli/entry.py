"""The ``proctor`` command's entry point, which imports next to nothing itself: Ctrl-C while
the command is still loading ends it as it does later (``proctor: error: interrupted``, exit
130), not with a traceback of the import it cut short."""

from __future__ import annotations

import signal
import sys
from typing import Any

INTERRUPTED = 130
""":attr:`proctor.exit_codes.ExitCode.INTERRUPTED`, known here before anything is imported."""


def main(argv: list[str] | None = None) -> Any:
    try:
        from proctor.cli.main import main as run
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: no traceback at exit
        sys.stderr.write("proctor: error: interrupted\n")
        raise SystemExit(INTERRUPTED) from None
    return run(argv)
