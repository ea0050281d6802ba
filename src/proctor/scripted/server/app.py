"""``ScriptedModelServer``: a model API on loopback that replays a plan to a real agent CLI."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from proctor.models.logs import RequestRecord
from proctor.scripted.plan import (
    PlanError,
    plan_for_condition,
    plan_roles,
    steps_for_repeat,
    validate_plan,
)
from proctor.scripted.server.exchange import ModelRequest, Reply, Role
from proctor.scripted.server.handler import ModelHTTPServer
from proctor.scripted.server.harness import HarnessScript
from proctor.scripted.server.log import RequestLog
from proctor.scripted.server.player import PlanRole
from proctor.scripted.server.side import SideRole
from proctor.util.masking import mask

log = logging.getLogger("proctor")

STOP_GRACE = 5.0
"""Seconds :meth:`ScriptedModelServer.stop` lets in-flight requests finish."""
POLL_INTERVAL = 0.005
"""How often the serving thread checks for a stop (seconds): the bound on how long
:meth:`ScriptedModelServer.stop` waits for it, paid once at the end of every trial."""


def default_roles(steps: Sequence[dict[str, Any]]) -> tuple[Role, ...]:
    """Side requests first, then the plan player."""
    return (SideRole(), PlanRole(steps))


def _check_errors(errors: Mapping[int, Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    checked: dict[int, dict[str, Any]] = {}
    for index, spec in errors.items():
        status = spec.get("status")
        if not isinstance(status, int) or not 400 <= status <= 599:
            raise ValueError(f"errors[{index}]: 'status' must be an HTTP error code (400-599)")
        if "body" in spec and not isinstance(spec["body"], dict):
            raise ValueError(f"errors[{index}]: 'body' must be a JSON object")
        checked[int(index)] = {"message": f"scripted error {status}", **spec}
    return checked


class ScriptedModelServer:
    """Serves the Anthropic, OpenAI (Responses and Chat) and Gemini APIs from a plan.

    Each response is derived from the request alone, so one instance serves one trial and
    needs no reset. ``errors`` maps a 0-based model-request index to
    ``{"status": 429, "message": "...", "body": {...}}`` to fail that request instead.

    >>> with ScriptedModelServer({"turns": [{"say": "hi"}]}) as server:  # doctest: +SKIP
    ...     env = {"ANTHROPIC_BASE_URL": server.base_url}
    """

    def __init__(
        self,
        plan: dict[str, Any],
        *,
        port: int = 0,
        log_path: Path | None = None,
        repeat: int = 1,
        condition: str = "default",
        errors: Mapping[int, Mapping[str, Any]] | None = None,
        host: str = "127.0.0.1",
        roles: Sequence[Role] | None = None,
        on_request: Callable[[RequestRecord], None] | None = None,
    ) -> None:
        validate_plan(plan)
        if repeat < 1:
            raise ValueError(f"repeat must be 1 or more, got {repeat}")
        selected = plan_for_condition(plan, condition)
        if selected is None:
            raise PlanError(f"plan: no entry under 'conditions' for condition '{condition}'")
        self.steps = steps_for_repeat(selected, repeat)
        self.roles = tuple(roles) if roles is not None else default_roles(self.steps)
        self.harness = HarnessScript(plan_roles(plan, condition))
        self.errors = _check_errors(errors or {})
        self.log = RequestLog(log_path)
        self.on_request = on_request
        self._watch_failed = False
        self._address = (host, port)
        self._httpd: ModelHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._requests = 0

    def start(self) -> ScriptedModelServer:
        """Bind and serve in a background thread; returns self."""
        if self._httpd is not None:
            raise RuntimeError("the scripted model server is already running")
        self._stopping.clear()
        self._httpd = ModelHTTPServer(self._address, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL},
            name=f"scripted-model-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake sleeping responses and close open connections."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.wait_idle(STOP_GRACE)
        httpd.close_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the scripted model server is not running; call start()")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` with no path: Codex wants ``base_url + "/v1"``."""
        host = self._address[0]
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def next_index(self) -> int:
        """The 0-based index of a new model request (only used to inject errors and log)."""
        with self._lock:
            index, self._requests = self._requests, self._requests + 1
        return index

    def recorded(self, record: RequestRecord) -> None:
        """A request was answered: write its log line and tell ``on_request``, a registered
        secret in its path or error (the value of a body it refused) masked. A failing
        ``on_request`` is said once on the ``proctor`` logger and never breaks answering."""
        record.path = mask(record.path)
        if record.error is not None:
            record.error = mask(record.error)
        self.log.write(record)
        if self.on_request is None:
            return
        try:
            self.on_request(record)
        except Exception as exc:
            if not self._watch_failed:
                self._watch_failed = True
                log.warning("scripted model: on_request failed: %s: %s", type(exc).__name__, exc)

    def injected_error(self, index: int) -> dict[str, Any] | None:
        return self.errors.get(index)

    def answer(self, request: ModelRequest) -> Reply:
        for role in self.roles:
            reply = role.respond(request)
            if reply is not None:
                return reply
        return Reply(("OK",), played="no role answered")

    def pause(self, seconds: float) -> None:
        """Delay a response; ends early when the server stops."""
        if seconds > 0:
            self._stopping.wait(seconds)
