"""A small ACP agent on the official SDK's agent side, for the driver's tests: a real process
speaking the protocol over stdio, whose behaviour each prompt chooses.

* ``touch NAME``: a tool call that asks permission, then creates NAME in the session's folder
  (allowed) or fails (rejected);
* ``calls N``: N shell calls, 0.3 s apart, that need no permission;
* ``crash``: exits with code 3 mid-turn; ``fail``: answers the prompt with an error;
  ``hang``: never ends the turn; ``print``: writes a stray non-JSON line to stdout first;
* anything else: replies ``turn N: TEXT (before: PREVIOUS)``, so a test sees the history.

``--needs-auth`` refuses ``session/new`` until the client authenticates with ``api-key``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Literal

import acp
from acp.schema import (
    AgentCapabilities,
    AuthMethodAgent,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    SessionMode,
    SessionModeState,
    ToolCallUpdate,
)

NEEDS_AUTH = "--needs-auth" in sys.argv


class TestAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.cwd = Path.cwd()
        self.said: list[str] = []
        self.authenticated = False

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        methods = [AuthMethodAgent(id="api-key", name="API key")] if NEEDS_AUTH else []
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(),
            auth_methods=methods,
            agent_info=acp.schema.Implementation(name="test-agent", version="9.9.9"),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        self.authenticated = method_id == "api-key"

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        if NEEDS_AUTH and not self.authenticated:
            raise acp.RequestError(-32000, "Authentication required")
        self.cwd = Path(cwd)
        modes = [SessionMode(id=m, name=m) for m in ("default", "yolo")]
        return NewSessionResponse(
            session_id="sess-1",
            modes=SessionModeState(current_mode_id="default", available_modes=modes),
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        await self.say(session_id, f"[mode {mode_id}] ")

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id, acp.update_agent_message_text(text))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = " ".join(getattr(b, "text", "") for b in prompt).strip()
        before = self.said[-1] if self.said else "nothing"
        self.said.append(text)
        if text == "crash":
            os._exit(3)
        if text == "fail":
            raise acp.RequestError.internal_error({"details": "model unavailable"})
        if text == "hang":
            await asyncio.sleep(3600)
        if text == "print":
            sys.stdout.write("warming up, not JSON\n")
            sys.stdout.flush()
        if text.startswith("touch "):
            await self.touch(session_id, text.split(" ", 1)[1])
        elif text.startswith("calls "):
            await self.calls(session_id, int(text.split(" ", 1)[1]))
        else:
            await self.say(session_id, f"turn {len(self.said)}: {text} (before: {before})")
        return PromptResponse(stop_reason="end_turn")

    async def calls(self, session_id: str, count: int) -> None:
        for i in range(count):
            call_id = f"ls-{i}"
            start = acp.start_tool_call(call_id, "ls", kind="execute", raw_input={"command": "ls"})
            await self.conn.session_update(session_id, start)
            done = acp.update_tool_call(call_id, status="completed", raw_output="a.txt")
            await self.conn.session_update(session_id, done)
            await asyncio.sleep(0.3)
        await self.say(session_id, f"ran {count} calls")

    async def touch(self, session_id: str, name: str) -> None:
        call_id = f"touch-{len(self.said)}"
        await self.conn.session_update(
            session_id,
            acp.start_tool_call(call_id, f"touch {name}", kind="edit", raw_input={"path": name}),
        )
        options = [
            PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
            PermissionOption(option_id="no", name="Reject", kind="reject_once"),
        ]
        call = ToolCallUpdate(tool_call_id=call_id, title=f"touch {name}", kind="edit")
        answer = await self.conn.request_permission(session_id, call, options)
        chosen = getattr(answer.outcome, "option_id", None)
        if chosen == "yes":
            (self.cwd / name).write_text("touched\n")
        status: Literal["completed", "failed"] = "completed" if chosen == "yes" else "failed"
        await self.conn.session_update(session_id, acp.update_tool_call(call_id, status=status))
        await self.say(session_id, f"touch {name}: {status}")


if __name__ == "__main__":
    asyncio.run(acp.run_agent(TestAgent()))  # type: ignore[arg-type]
