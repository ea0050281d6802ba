"""The stdio link to an ACP agent: its process, and a message transport for the SDK's client
connection that keeps every JSON-RPC message in the session log as it passes.

Each log line is ``{"ts": …, "from": "client" | "agent", "message": <bytes>}`` where the
message's bytes are exactly those written to or read from the pipe (a line the agent wrote that
is not a JSON object is kept as ``"text"``). Lines are flushed as they are written, so the log
can be parsed while the session runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from proctor.agents.protocol import Launch

STREAM_LIMIT = 64 * 1024 * 1024
"""The longest message line read from the agent (a large file's content fits)."""


def _now() -> bytes:
    return datetime.now(UTC).isoformat(timespec="milliseconds").encode()


class SessionLog:
    """The raw transcript of an ACP session, appended line by line."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh: IO[bytes] = open(path, "ab")  # noqa: SIM115 - closed with the session

    def message(self, source: str, raw: bytes) -> None:
        head = b'{"ts":"' + _now() + b'","from":"' + source.encode() + b'","message":'
        self.fh.write(head + raw + b"}\n")
        self.fh.flush()

    def text(self, source: str, raw: bytes) -> None:
        record = {"ts": _now().decode(), "from": source, "text": raw.decode("utf-8", "replace")}
        self.fh.write(json.dumps(record).encode() + b"\n")
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


class RecordingTransport:
    """An ``acp`` message transport (``send``/``receive``/``close``) over the agent's stdio
    pipes, made in the event loop that runs the connection (:meth:`connect`)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        pipes: tuple[asyncio.ReadTransport, asyncio.WriteTransport],
        log: SessionLog,
    ) -> None:
        self.reader = reader
        self.stdout, self.writer = pipes
        self.log = log

    @classmethod
    async def connect(cls, process: subprocess.Popen[bytes], log: SessionLog) -> RecordingTransport:
        if process.stdin is None or process.stdout is None:
            raise ValueError("the agent's stdin and stdout must be pipes")
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=STREAM_LIMIT)
        stdout, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), process.stdout
        )
        writer, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
        return cls(reader, (stdout, writer), log)

    async def send(self, message: dict[str, Any]) -> None:
        if self.writer.is_closing():
            raise ConnectionError("the agent's stdin is closed")
        raw = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
        self.log.message("client", raw)
        self.writer.write(raw + b"\n")

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self.reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
                if not line:
                    return None
            raw = line.rstrip(b"\r\n")
            if not raw.strip():
                continue
            try:
                message = json.loads(raw)
            except ValueError:
                message = None
            if isinstance(message, dict):
                self.log.message("agent", raw)
                return message
            self.log.text("agent", raw)

    async def close(self) -> None:
        self.writer.close()
        self.stdout.close()


def spawn_agent(launch: Launch[Any], stderr: Path) -> subprocess.Popen[bytes]:
    """Start the agent in its own session (so its whole group can be stopped), stderr to a file."""
    stderr.parent.mkdir(parents=True, exist_ok=True)
    with open(stderr, "ab") as err:
        return subprocess.Popen(
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            cwd=launch.cwd,
            env=dict(launch.env),
            start_new_session=True,
        )


def signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _exit_within(process: subprocess.Popen[bytes], seconds: float) -> int | None:
    try:
        return process.wait(seconds)
    except subprocess.TimeoutExpired:
        return None


def stop_agent(process: subprocess.Popen[bytes], grace: float) -> int | None:
    """Give the agent ``grace`` seconds to exit by itself (its stdin is closed by then), then
    SIGKILL its whole group, and anything it left there. The agent's own exit code, or None when
    it had to be stopped. ACP has no request to quit, and most agents keep serving a closed
    stdin; no SIGTERM is sent, because Claude Code under the ACP adapter answers one (or its
    parent's end) by looking up its provider's host, even on the scripted model."""
    code = _exit_within(process, grace)
    signal_group(process.pid, signal.SIGKILL)
    if code is None:
        process.wait()
    return code
