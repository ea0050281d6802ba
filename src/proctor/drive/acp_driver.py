"""Driving any agent that speaks the Agent Client Protocol, over stdio, with the official SDK.

``start`` starts the agent, initialises the connection (announcing no file-system or terminal
support, so the agent keeps its own tools), opens a session in the workspace (with the case's
MCP servers, authenticating first when the agent asks for it) and switches to the profile's
mode. Each ``send`` is one ``session/prompt``: it returns when the prompt's response arrives
(``turn-end``), the agent dies (``exited``), time runs out (``timeout``, after a
``session/cancel``), the step budget is exceeded (``over-budget``), or a permission request
comes that the case's policy does not answer (``unanswered``, the request left pending).

While a request is pending, the next ``send`` answers it: the message names the option to pick
(:mod:`proctor.drive.acp_permissions`); a message that names none rejects the request, and once
the turn has ended it is sent as the next prompt. The SDK runs on a private event loop in a
thread; this class is the synchronous :class:`~proctor.drive.driver.Driver` around it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import subprocess
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import acp
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AcpMcpServer,
    ClientCapabilities,
    HttpMcpServer,
    Implementation,
    McpServerStdio,
    PermissionOption,
    PromptResponse,
    RequestPermissionResponse,
    SseMcpServer,
    ToolCallUpdate,
)

from proctor._version import __version__
from proctor.agents.acp import AcpSession
from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch
from proctor.drive.acp_permissions import (
    PendingPermission,
    choose_option,
    question_for,
    reject_option,
    response_for,
)
from proctor.drive.acp_transport import RecordingTransport, SessionLog, spawn_agent, stop_agent
from proctor.drive.budget import BudgetWatch
from proctor.drive.driver import SessionLog as DriverLog
from proctor.drive.driver import TurnOutcome
from proctor.drive.policy import AnswerPolicy
from proctor.drive.questions import decide
from proctor.llm.failures import describe_agent_failure
from proctor.models.trial import ANSWERED_BY_CONVERSATION, QuestionRecord
from proctor.transcripts.acp import parse_acp_log
from proctor.util.cutting import mask_wrapped

T = TypeVar("T")
AUTH_REQUIRED = -32000
POLL_SEC = 0.25
EXIT_GRACE_SEC = 1.0
SCREEN_EVENTS = 12


class _Client:
    """The client side the agent calls back: permission requests go to the driver's inbox."""

    def __init__(self, inbox: queue.Queue[PendingPermission | None]) -> None:
        self.inbox = inbox

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        call = tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        reply: asyncio.Future[RequestPermissionResponse] = (
            asyncio.get_running_loop().create_future()
        )
        self.inbox.put(PendingPermission(question_for(call, options), list(options), reply, call))
        return await reply

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Updates are read from the session log afterwards, not here."""


McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def _mcp_server(server: dict[str, Any]) -> McpServer:
    if server.get("type") == "http":
        return HttpMcpServer.model_validate(server)
    return McpServerStdio.model_validate(server)


class AcpDriver:
    def __init__(
        self,
        adapter: AgentAdapter[Any],
        launch: Launch[AcpSession],
        policy: AnswerPolicy | None,
        deadline: float,
        stderr: Path,
        watch: BudgetWatch | None = None,
    ) -> None:
        self.adapter = adapter
        self.launch = launch
        self.policy = policy
        self.deadline = deadline
        self.stderr = stderr
        self.watch = watch
        self.stop_turn: threading.Event | None = None
        self.log = DriverLog()
        self.inbox: queue.Queue[PendingPermission | None] = queue.Queue()
        """Permission requests for the driver's thread; None wakes it when a prompt ends."""
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="acp", daemon=True)
        self.process: subprocess.Popen[bytes] | None = None
        self.session_log: SessionLog | None = None
        self.conn: ClientSideConnection | None = None
        self.transport: RecordingTransport | None = None
        self.prompt: concurrent.futures.Future[PromptResponse] | None = None
        self.pending: PendingPermission | None = None
        self.queued: str | None = None
        """A message that answered no pending option: sent as a prompt once the turn ends."""

    # -- the loop --------------------------------------------------------------------------

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def _left(self) -> float:
        return max(self.deadline - time.monotonic(), 0.0)

    # -- Driver ----------------------------------------------------------------------------

    def screen_excerpt(self) -> str:
        """The session's last steps, as lines (what the answering model sees of the agent)."""
        log = self.launch.state.log
        if not log.is_file():
            return ""
        lines = []
        for event in parse_acp_log(log).events[-SCREEN_EVENTS:]:
            said = getattr(event, "text", None) or getattr(event, "name", None) or ""
            lines.append(f"{event.type}: {said}".strip())
        return "\n".join(lines)

    def start(self) -> TurnOutcome:
        """Start the agent and open its session; ``turn-end`` once it accepts a prompt."""
        self.thread.start()
        try:
            self._submit(self._open()).result(self._left())
        except concurrent.futures.TimeoutError:
            return TurnOutcome("timeout")
        except (acp.RequestError, ConnectionError, OSError, ValueError) as exc:
            self.log.failure = f"the ACP agent could not open a session: {exc}"
            self.log.exit_code = self.process.poll() if self.process else None
            return TurnOutcome("exited")
        return TurnOutcome("turn-end")

    async def _open(self) -> None:
        state = self.launch.state
        self.session_log = SessionLog(state.log)
        self.process = spawn_agent(self.launch, self.stderr)
        transport = await RecordingTransport.connect(self.process, self.session_log)
        self.transport = transport
        conn = acp.connect_to_agent(_Client(self.inbox), transport)  # type: ignore[arg-type]
        self.conn = conn
        init = await conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="proctor", version=__version__),
        )
        if init.agent_info is not None:
            state.agent_version = init.agent_info.version
        servers: list[McpServer] = [_mcp_server(s) for s in state.mcp_servers]
        cwd = str(self.launch.cwd)
        try:
            session = await conn.new_session(cwd=cwd, mcp_servers=servers)
        except acp.RequestError as exc:
            if exc.code != AUTH_REQUIRED or not init.auth_methods:
                raise
            await conn.authenticate(method_id=_key_method(init.auth_methods))
            session = await conn.new_session(cwd=cwd, mcp_servers=servers)
        state.session_id = session.session_id
        if state.mode:
            modes = [m.id for m in (session.modes.available_modes if session.modes else [])]
            if state.mode not in modes:
                raise ValueError(
                    f"permissionMode '{state.mode}' is not one of the agent's session modes "
                    f"({', '.join(modes) or 'none offered'})"
                )
            await conn.set_session_mode(session_id=session.session_id, mode_id=state.mode)

    def send(self, message: str) -> TurnOutcome:
        """One turn (see the module docstring)."""
        started = time.monotonic()
        self.log.turns += 1
        pending, self.pending = self.pending, None
        if pending is not None:
            option = choose_option(pending.options, message)
            reason = "the conversation's next message chose it"
            if option is None:
                option, self.queued = reject_option(pending.options), message
                reason = "the message names no option: rejected, then sent as the next prompt"
            self.log.record(
                QuestionRecord(  # masked as the policy's record of it is
                    question=mask_wrapped(pending.question.text),
                    options=[mask_wrapped(option) for option in pending.question.options],
                    answer=option.name if option is not None else None,
                    policy="rule",
                    rule=ANSWERED_BY_CONVERSATION,
                    where="mid-turn",
                    kind=pending.question.kind,
                    tool_call_id=pending.question.id,
                    reason=reason,
                )
            )
            self._reply(pending, option)
        elif self.conn is None:
            return TurnOutcome("exited")
        else:
            self._prompt(message)
        return self._wait(started)

    def _prompt(self, message: str) -> None:
        conn, session_id = self.conn, self.launch.state.session_id
        if conn is None or session_id is None:
            raise ConnectionError("no open ACP session")
        self.prompt = self._submit(
            conn.prompt(session_id=session_id, prompt=[acp.text_block(message)])
        )
        self.prompt.add_done_callback(lambda _done: self.inbox.put(None))

    def _reply(self, pending: PendingPermission, option: PermissionOption | None) -> None:
        def resolve() -> None:
            if not pending.reply.done():
                pending.reply.set_result(response_for(option))

        self.loop.call_soon_threadsafe(resolve)

    def _wait(self, started: float) -> TurnOutcome:
        while True:
            elapsed = (time.monotonic() - started) * 1000
            if self.prompt is not None and self.prompt.done():
                outcome = self._ended(elapsed)
                if outcome.kind == "turn-end" and self.queued is not None:
                    message, self.queued = self.queued, None
                    self._prompt(message)
                    continue
                return outcome
            if self._left() <= 0:
                self._cancel()
                return TurnOutcome("timeout", elapsed_ms=elapsed)
            if self.stop_turn is not None and self.stop_turn.is_set():
                self._cancel()  # as at the deadline
                return TurnOutcome("interrupted", elapsed_ms=elapsed)
            if self.watch is not None and self.watch.check() is not None:
                self.log.stopped = self.watch.stopped
                self._kill()
                return TurnOutcome("over-budget", elapsed_ms=elapsed)
            try:
                asked = self.inbox.get(timeout=min(POLL_SEC, max(self._left(), 0.01)))
            except queue.Empty:
                continue
            if asked is not None and not self._answer(asked):
                self.pending = asked
                return TurnOutcome("unanswered", question=asked.question, elapsed_ms=elapsed)

    def _answer(self, asked: PendingPermission) -> bool:
        """Answer by the policy; False when it gives no answer (the request stays pending)."""
        if self.policy is None:
            return False
        record = decide(self.policy, asked.question, "mid-turn", self.screen_excerpt())
        self.log.record(record)
        if record.answer is None:
            return False
        option = choose_option(asked.options, record.answer) or reject_option(asked.options)
        self._reply(asked, option)
        return True

    def _ended(self, elapsed: float) -> TurnOutcome:
        prompt = self.prompt
        if prompt is None:
            raise RuntimeError("no prompt was sent")
        try:
            prompt.result()
        except acp.RequestError as exc:
            refused = exc.code == AUTH_REQUIRED
            self.log.failure = describe_agent_failure(_error_text(exc), "auth" if refused else None)
            return TurnOutcome("exited", elapsed_ms=elapsed)
        except (ConnectionError, OSError, concurrent.futures.CancelledError):
            self.log.exit_code = _exit_code(self.process)
            return TurnOutcome("exited", elapsed_ms=elapsed)
        return TurnOutcome("turn-end", elapsed_ms=elapsed)

    def _cancel(self) -> None:
        conn, session_id = self.conn, self.launch.state.session_id
        if conn is not None and session_id is not None:
            try:
                self._submit(conn.cancel(session_id=session_id)).result(1.0)
            except (concurrent.futures.TimeoutError, ConnectionError, acp.RequestError):
                pass
        self._kill()

    def _kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_agent(self.process, 0.0)

    def finish(self, last: TurnOutcome) -> None:
        """After a finished turn, close the agent's stdin and stop it: its own exit code when it
        exits within :data:`EXIT_GRACE_SEC`, else 0 (ACP has no way to ask an agent to quit, so
        an agent still serving after its last turn ended cleanly). Whatever is left is killed."""
        if self.process is not None and last.kind == "turn-end":
            self._disconnect()
            code = stop_agent(self.process, EXIT_GRACE_SEC)
            self.log.exit_code = 0 if code is None else code
        elif self.process is not None and last.kind == "exited":
            self.log.exit_code = _exit_code(self.process)
        self.close()

    def _disconnect(self) -> None:
        """Close the connection and both pipes (also when the session never opened)."""
        conn, self.conn = self.conn, None
        transport, self.transport = self.transport, None
        if not self.thread.is_alive():
            return
        closing = conn.close() if conn is not None else transport.close() if transport else None
        if closing is not None:
            try:
                self._submit(closing).result(5.0)
            except (concurrent.futures.TimeoutError, ConnectionError, OSError):
                pass

    def close(self) -> None:
        self._kill()
        if self.thread.is_alive():
            self._disconnect()
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5.0)
        if not self.loop.is_running() and not self.loop.is_closed():
            self.loop.close()
        if self.session_log is not None:
            self.session_log.close()
            self.session_log = None


def _error_text(exc: acp.RequestError) -> str:
    """The agent's error with the details it attached (``data``), as one line."""
    data = exc.data
    if isinstance(data, dict) and len(data) == 1:
        data = next(iter(data.values()))
    return f"{exc} ({data})" if data else str(exc)


def _exit_code(process: subprocess.Popen[bytes] | None) -> int | None:
    if process is None:
        return None
    try:
        return process.wait(EXIT_GRACE_SEC)
    except subprocess.TimeoutExpired:
        return None


def _key_method(methods: list[Any]) -> str:
    """The login method an agent offers for an API key (proctor lends keys, never logins)."""
    for method in methods:
        meta = getattr(method, "field_meta", None) or {}
        if "api-key" in meta or "key" in str(getattr(method, "id", "")).lower():
            return str(method.id)
    return str(methods[0].id)
