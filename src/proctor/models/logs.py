"""Records proctor writes beside a trial's ``trial.json``: an evaluator's log
(``evaluators/<n>-<use>.json``) and the lines of the scripted model server's request logs
(``model-requests.jsonl``, ``harness-requests.jsonl``)."""

from __future__ import annotations

from typing import Any

from proctor.models.base import RecordModel


class EvaluatorLog(RecordModel):
    """What a ``command`` or ``external`` evaluator ran and what it printed."""

    argv: list[str]
    cwd: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    duration_ms: float = 0.0
    stdout: str = ""
    stderr: str = ""
    error: str | None = None
    """Why the program could not be started, when it could not."""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    """How much the program printed on each stream; past 8 MiB only its first and last 4 MiB
    are in ``stdout``/``stderr``, around a note of how many bytes were left out."""
    stopped: str | None = None
    """Why proctor stopped the program before it ended, when it did for its output
    (``printed more than 64 MiB on stdout and was stopped there``)."""


class RequestRecord(RecordModel):
    """One line of a request log: what was asked and what was played, safe to share (no
    headers, keys or bodies). Fields stay None when they do not apply."""

    time: str | None = None
    method: str
    path: str
    index: int | None = None
    dialect: str | None = None
    model: str | None = None
    stream: bool | None = None
    tools: list[str] = []
    messages: int | None = None
    request_bytes: int = 0
    response_bytes: int = 0
    played: dict[str, Any] | str | None = None
    """The plan step played (or the harness role's reply)."""
    status: int = 0
    error: str | None = None
    duration_ms: float = 0.0
