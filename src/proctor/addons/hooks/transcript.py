"""A case's command history, written as the agent's own transcript at ``transcript_path``.

A hook that reads the transcript (to notice a command that already failed twice, say) sees the
same records the CLI would have written: Claude Code's session JSONL (a ``tool_use`` block on an
assistant line, its ``tool_result`` on a user line, ``is_error`` and ``Exit code N`` for a
failure), Codex's rollout (``function_call`` ``exec_command`` and ``function_call_output``
with ``Exit code: N``) and Gemini CLI's chat JSONL (a header, then messages whose
``toolCalls`` hold ``run_shell_command`` with its result and ``Exit Code: N``). The file sits
where the CLI keeps it, inside the scratch home. proctor's own parsers read these files back in
the tests, so a planted history is one the rest of proctor recognises as native.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from proctor.addons.hooks.cases import HistoryEntry
from proctor.util.native_paths import claude_transcript

CLAUDE_VERSION = "2.1.197"
CODEX_VERSION = "0.171.0"
PROMPT = "Continue with the task."


def _clock(start: datetime) -> Any:
    moment = [start]

    def tick() -> str:
        moment[0] += timedelta(seconds=1)
        return moment[0].isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return tick


def write_transcript(
    agent: str, home: Path, cwd: Path, session_id: str, history: Sequence[HistoryEntry]
) -> Path:
    """Write ``history`` as ``agent``'s transcript under ``home``; return its path."""
    start = datetime.now(UTC) - timedelta(minutes=5)
    writer = {"claude-code": _claude, "codex": _codex, "gemini-cli": _gemini}[agent]
    path, lines = writer(home, str(cwd), session_id, history, _clock(start), start)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _claude(
    home: Path, cwd: str, sid: str, history: Sequence[HistoryEntry], tick: Any, _: datetime
) -> tuple[Path, list[dict[str, Any]]]:
    lines: list[dict[str, Any]] = []
    parent: str | None = None

    def add(record: dict[str, Any]) -> str:
        nonlocal parent
        line_id = str(uuid.uuid4())
        lines.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": cwd,
                "sessionId": sid,
                "version": CLAUDE_VERSION,
                **record,
                "uuid": line_id,
                "timestamp": tick(),
            }
        )
        parent = line_id
        return line_id

    add({"type": "user", "message": {"role": "user", "content": PROMPT}})
    for n, entry in enumerate(history, 1):
        tool_id = f"toolu_planted_{n:03d}"
        block = {
            "type": "tool_use",
            "id": tool_id,
            "name": "Bash",
            "input": {"command": entry.command, "description": "planted history"},
        }
        message = {"role": "assistant", "type": "message", "model": "planted", "content": [block]}
        source = add({"type": "assistant", "message": {**message, "stop_reason": "tool_use"}})
        failed = entry.exit_code != 0
        text = f"Exit code {entry.exit_code}\n{entry.output}" if failed else entry.output
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": text}
        add(
            {
                "type": "user",
                "sourceToolAssistantUUID": source,
                "message": {"role": "user", "content": [{**result, "is_error": failed}]},
                "toolUseResult": {
                    "stdout": entry.output,
                    "stderr": "",
                    "interrupted": False,
                    "isImage": False,
                },
            }
        )
    return claude_transcript(home / ".claude", cwd, sid), lines


def _codex(
    home: Path, cwd: str, sid: str, history: Sequence[HistoryEntry], tick: Any, start: datetime
) -> tuple[Path, list[dict[str, Any]]]:
    def line(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": tick(), "type": kind, "payload": payload}

    meta = {"id": sid, "cwd": cwd, "originator": "codex_exec", "cli_version": CODEX_VERSION}
    lines = [
        line("session_meta", {**meta, "timestamp": tick(), "source": "exec"}),
        line("event_msg", {"type": "user_message", "message": PROMPT, "images": []}),
        line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": PROMPT}],
            },
        ),
    ]
    for n, entry in enumerate(history, 1):
        call_id = f"call_planted_{n:03d}"
        arguments = json.dumps({"cmd": entry.command, "workdir": cwd})
        call = {"type": "function_call", "name": "exec_command", "arguments": arguments}
        lines.append(line("response_item", {**call, "call_id": call_id}))
        output = f"Exit code: {entry.exit_code}\nOutput:\n{entry.output}"
        lines.append(
            line(
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": output},
            )
        )
    stamp = start.strftime("%Y-%m-%dT%H-%M-%S")
    folder = home / ".codex" / "sessions" / start.strftime("%Y/%m/%d")
    return folder / f"rollout-{stamp}-{sid}.jsonl", lines


def _gemini(
    home: Path, cwd: str, sid: str, history: Sequence[HistoryEntry], tick: Any, start: datetime
) -> tuple[Path, list[dict[str, Any]]]:
    project = hashlib.sha256(cwd.encode()).hexdigest()
    started = tick()
    header = {"sessionId": sid, "projectHash": project, "startTime": started, "kind": "main"}
    lines: list[dict[str, Any]] = [{**header, "lastUpdated": started}]
    lines.append({"id": str(uuid.uuid4()), "timestamp": tick(), "type": "user", "content": PROMPT})
    for n, entry in enumerate(history, 1):
        call_id = f"run_shell_command-planted-{n:03d}"
        output = (
            f"Command: {entry.command}\nDirectory: (root)\nOutput: {entry.output or '(empty)'}\n"
            f"Error: (none)\nExit Code: {entry.exit_code}\n"
        )
        response = {"id": call_id, "name": "run_shell_command", "response": {"output": output}}
        call = {
            "id": call_id,
            "name": "run_shell_command",
            "args": {"command": entry.command},
            "result": [{"functionResponse": response}],
            "status": "success",
            "timestamp": tick(),
            "displayName": "Shell",
            "resultDisplay": entry.output,
        }
        lines.append(
            {
                "id": str(uuid.uuid4()),
                "timestamp": call["timestamp"],
                "type": "gemini",
                "content": "",
                "toolCalls": [call],
                "model": "planted",
            }
        )
    stamp = start.strftime("%Y-%m-%dT%H-%M")
    folder = home / ".gemini" / "tmp" / project / "chats"
    return folder / f"session-{stamp}-{sid[:8]}.jsonl", lines
