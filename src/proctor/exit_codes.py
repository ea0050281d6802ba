"""proctor's exit codes, defined once: the aggregate decides them, the Markdown legend and the
CLI help print :data:`MEANINGS`, and the CLI maps error types to them."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    GATE_FAILED = 1
    CONFIG_ERROR = 2
    TRIAL_ERRORS = 3
    STILL_RUNNING = 75
    """``proctor report`` of a run whose orchestrator is still running: no verdict yet (75 is
    the ``EX_TEMPFAIL`` of sysexits: try again later)."""
    INTERRUPTED = 130

    @property
    def meaning(self) -> str:
        return MEANINGS[self]


MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "every gate passed",
    ExitCode.GATE_FAILED: "a gate failed",
    ExitCode.CONFIG_ERROR: "configuration error or nothing runnable",
    ExitCode.TRIAL_ERRORS: "some trials errored; every gate on completed trials passed",
    ExitCode.STILL_RUNNING: "still running: no verdict yet",
    ExitCode.INTERRUPTED: "interrupted",
}


def meaning(code: int) -> str:
    """What an exit code means; empty for a code proctor does not use."""
    try:
        return ExitCode(code).meaning
    except ValueError:
        return ""


def short_legend() -> str:
    """``0 pass, 1 gate failed, …`` for one line of help text."""
    words = {
        ExitCode.OK: "pass",
        ExitCode.GATE_FAILED: "gate failed",
        ExitCode.CONFIG_ERROR: "configuration error",
        ExitCode.TRIAL_ERRORS: "some trials errored",
        ExitCode.STILL_RUNNING: "still running (report)",
        ExitCode.INTERRUPTED: "interrupted",
    }
    return ", ".join(f"{int(code)} {word}" for code, word in words.items())
