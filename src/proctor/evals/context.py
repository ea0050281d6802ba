"""The test context ``t``: ``await t.send(...)`` runs one turn of the agent in the case's
session (its result is :class:`proctor.evals.turns.TurnResult`); gates
(:mod:`proctor.evaluators.gates.vocabulary`) judge the conversation so far (on ``t``) or one
turn (on its result)."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import math
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.protocol import Question
from proctor.drive.driver import TurnOutcome
from proctor.drive.talk import Talk
from proctor.evals.awaited import Tracked, caller_line
from proctor.evals.judges import Judge
from proctor.evals.loaders import resolve_fixture_path
from proctor.evals.turns import TurnResult, TurnState
from proctor.evaluators.gates.assertions import Assertion, Handle, RequireFailed, Skipped
from proctor.evaluators.gates.expect import as_expectation
from proctor.evaluators.gates.matching import CallView
from proctor.evaluators.gates.snooping import ReadScope, scope_of_trial
from proctor.evaluators.gates.vocabulary import Gates
from proctor.models.trajectory import AssistantText, Event, ToolCall, UserMessage
from proctor.util import argtypes
from proctor.workspace.diff import snapshot, unified_diff


def _symlink_loop(root: Path) -> Path | None:
    """The first link under ``root`` (in name order, depth first) that leads back into a
    folder it is in, following links as a copy that copies them as what they point to does:
    where such a copy would go round until the system refuses. None when there is none."""
    # (folder, the real folders it is in, the innermost link on the way to it)
    stack: list[tuple[str, tuple[str, ...], str | None]] = [
        (str(root), (os.path.realpath(root),), None)
    ]
    while stack:
        folder, above, via = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue  # the copy reports what it cannot read
        below = []
        for entry in entries:
            try:
                if not entry.is_dir():  # follows links; a dangling link or a file is no loop
                    continue
                link = entry.path if entry.is_symlink() else via
            except OSError:
                continue
            real = os.path.realpath(entry.path)
            if real in above:  # back in a folder above: the innermost link closed the loop
                return Path(link or entry.path)
            below.append((entry.path, (*above, real), link))
        stack.extend(reversed(below))
    return None


def _dangling(folder: str, names: list[str]) -> list[str]:
    """The links among ``names`` (in ``folder``) that lead nowhere (or to themselves), each
    followed from its own folder: left out of a copy that copies links as what they point to.
    The path is resolved first: a copy that went through a link to a folder above it reaches
    a path the system would refuse to follow (ELOOP), and the loop is then named, not left
    out."""
    return [
        name
        for name in names
        if os.path.islink(os.path.join(folder, name))
        and not os.path.exists(os.path.realpath(os.path.join(folder, name)))
    ]


def _send_args(message: Any, files: Any, folder: Any) -> None:
    """The types of ``t.send``'s arguments: a TypeError naming the one of the wrong type."""
    argtypes.text(message, "t.send()", "message")
    if files is not None:
        if not isinstance(files, Mapping):
            raise argtypes.wrong_type(
                "t.send()", "workspace_files", "a dict of paths to texts or None", files
            )
        for path, text in files.items():
            if not isinstance(path, str | os.PathLike):
                raise argtypes.wrong_type(
                    "t.send()", "workspace_files", "a dict of paths (strings) to texts", files
                )
            argtypes.text(text, "t.send()", f"workspace_files[{json.dumps(str(path))}]")
    if folder is not None and not isinstance(folder, str | os.PathLike):
        raise argtypes.wrong_type(
            "t.send()", "workspace_dir", "a folder (a string or a Path) or None", folder
        )


def _short(text: str) -> str:
    """A message as a call shows it: its repr, cut to a line's length."""
    shown = repr(text)
    return shown if len(shown) <= 40 else shown[:36] + "…" + shown[-1]


@dataclass
class Recorded:
    assertions: list[Assertion] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    late: list[Assertion] = field(default_factory=list)
    """Gates recorded after the test returned (by a task or thread it left running): they
    cannot decide the case, and the case says so."""


class TestContext(Gates):
    """``t``: send turns, read the conversation, record gates, metrics and logs."""

    __test__ = False  # not a pytest class
    _caller = "t."

    def __init__(
        self,
        talk: Talk | None,
        *,
        iteration: int = 1,
        iterations: int = 1,
        judge_model: str | None = None,
        on_log: Callable[[str], None] | None = None,
    ) -> None:
        self._talk = talk
        self.iteration = iteration
        self.iterations = iterations
        self.signal = asyncio.Event()
        """Set when the case's time is up."""
        self.recorded = Recorded()
        self._turns: list[TurnState] = []
        self._turn_by_call: tuple[tuple[int, ...], dict[str | None, int]] = ((), {})
        """The turn of each call id, and the turns' event lists it was made of (see
        :meth:`_turn_of`)."""
        self._events_all: list[Event] = []
        self._started = False
        self._seeded: dict[str, bytes] | None = None
        self._lock = threading.Lock()
        self._on_log = on_log
        self._stopped_at: str | None = None
        """Where the test was when its time ran out (set by the runner)."""
        self._returned = False
        """Set when the test function returned (or raised, or was left behind out of time)."""
        self._on_late: Callable[[Assertion], None] | None = None
        """Called with a gate recorded after the case's verdict was made (set by the runner)."""
        self._gave_back: Any = None
        """What the test function returned (set by the runner): a value other than None
        decides nothing, so the case's result warns of it."""
        self._sending: int | None = None
        """The turn being sent now (1-based), while a send runs."""
        self._made: list[Tracked[Any]] = []
        """Every ``t.send`` and judge the test made, to find one it never awaited."""
        self.judge = Judge(
            lambda: talk.roles if talk else None,
            lambda: self.reply,
            self._record,
            judge_model,
            made=self._made,
        )

    # -- the conversation ------------------------------------------------------------------

    @property
    def workspace(self) -> Path:
        if self._talk is None:
            raise RuntimeError("this context has no session")
        return self._talk.workspace

    @property
    def turns(self) -> list[TurnResult]:
        return [TurnResult(self, s) for s in self._turns]

    @property
    def events(self) -> list[Event]:
        return list(self._events_all)

    @property
    def reply(self) -> str:
        """What the agent said in the last turn that said anything (all its text blocks, as
        the turn's own ``message``): a reply written in two blocks is one reply."""
        for turn in reversed(self._turns):
            if turn.message:
                return turn.message
        texts = [e.text for e in self._events_all if isinstance(e, AssistantText) and e.text]
        return texts[-1] if texts else ""

    @property
    def session_id(self) -> str | None:
        return self._turns[-1].session_id if self._turns else None

    @property
    def inputs(self) -> list[str]:
        """The messages sent so far."""
        return [s.sent for s in self._turns]

    def send(
        self,
        message: str,
        workspace_files: dict[str, str] | None = None,
        workspace_dir: str | Path | None = None,
    ) -> Tracked[TurnResult]:
        """Run one turn and wait until it ends (or the agent parks on a request, or fails).
        ``workspace_files`` / ``workspace_dir`` are copied in before the first turn only. The
        turn runs when awaited (``await t.send(...)``); one never awaited is an error."""
        _send_args(message, workspace_files, workspace_dir)
        what = f"t.send({_short(message)})"
        sends = sum(1 for c in self._made if c.what.startswith("t.send("))
        if sends and (workspace_files is not None or workspace_dir is not None):
            # Seeding happens before the first turn only: the files would silently not be there.
            given = "workspace_files" if workspace_files is not None else "workspace_dir"
            raise ValueError(
                f"{what}: {given} seeds the workspace before the first send only, and this is "
                f"send {sends + 1}; give it to the first send, or write the file into "
                "t.workspace before this one"
            )
        where = caller_line()
        at = f"{where.filename}:{where.lineno}" if where is not None else None
        turn = self._send(message, workspace_files, workspace_dir, at)
        return Tracked(turn, what, self._made, where=where)

    async def _send(
        self,
        message: str,
        workspace_files: dict[str, str] | None,
        workspace_dir: str | Path | None,
        at: str | None,
    ) -> TurnResult:
        talk = self._talk
        if talk is None:
            raise RuntimeError("this context has no session")
        if not message.strip():
            # The agent would wait for a message it never gets, until the case's timeout.
            raise ValueError(f"t.send({_short(message)}): the message is empty")
        gone = self._ended_in()
        if gone is not None and gone.outcome.kind == "interrupted":
            raise RuntimeError(
                f"t.send({_short(message)}): turn {gone.index} was interrupted (its send was "
                "cancelled), which stopped the agent's session; there is no session to send to"
            )
        if gone is not None:
            raise RuntimeError(
                f"t.send({_short(message)}): the agent exited in turn {gone.index}; there is no "
                "session to send to"
            )
        if not self._started:
            self._seed(talk.workspace, workspace_files, workspace_dir)
            self._seeded = snapshot(talk.workspace)
            if talk.rebaseline is not None:
                talk.rebaseline()
        self._sending = len(self._turns) + 1  # until the turn ends, on its thread
        stop = threading.Event()
        turn = asyncio.get_running_loop().run_in_executor(
            None,
            functools.partial(
                contextvars.copy_context().run, self._send_sync, talk, message, at, stop
            ),
        )
        try:
            outcome = await asyncio.shield(turn)
        except asyncio.CancelledError:
            # The test stopped waiting for the turn (its own asyncio.wait_for, a task it
            # cancelled): the agent's turn is stopped as the case's timeout stops it, and
            # recorded (``interrupted``) before the cancellation goes on. At the case's own
            # timeout, the driver's deadline ends it (``timeout``).
            if not self.signal.is_set() and time.monotonic() < talk.deadline:
                stop.set()
            await asyncio.wait([turn])
            if not turn.cancelled():
                turn.exception()  # (said by the turn's own send, if ever awaited: not here)
            raise
        return TurnResult(self, self._turns[-1]) if outcome is not None else self.turns[-1]

    def _ended_in(self) -> TurnState | None:
        """The turn the agent's session ended in (its process exited, or was stopped when
        the turn was interrupted), when a later send cannot reach it: a terminal or ACP
        session is one process. A headless CLI starts a process per turn and resumes the
        session, so it can be sent to again."""
        if self._talk is None or self._talk.launch.mode == "headless":
            return None
        ended = ("exited", "interrupted")
        return next((s for s in self._turns if s.outcome.kind in ended), None)

    def _seed(
        self, workspace: Path, files: dict[str, str] | None, folder: str | Path | None
    ) -> None:
        if folder is not None:
            source = resolve_fixture_path(folder)
            if not source.is_dir():
                raise RuntimeError(f"workspace_dir {source}: not a folder")
            # Links are copied as what they point to: a link kept as a link would let the
            # agent write through it into the source (or anywhere else). A link that leads
            # nowhere is left out, followed from its own folder: copytree's own check
            # (ignore_dangling_symlinks) follows a relative link from the current folder, and
            # left out good ones.
            try:
                shutil.copytree(source, workspace, dirs_exist_ok=True, ignore=_dangling)
            except (shutil.Error, OSError):
                # A link copied as what it points to is copied inside itself until the system
                # refuses (ELOOP), naming a path of forty "loop/" in a row: name the link. The
                # tree is walked for it only here, so a good fixture is not walked twice.
                loop = _symlink_loop(source)
                if loop is None:
                    raise
                points = f"it points to {os.readlink(loop)!r}, and " if loop.is_symlink() else ""
                raise RuntimeError(
                    f"workspace_dir {source}: {loop} is a symlink loop ({points}following it "
                    "leads back into a folder that holds it); links are copied as what they "
                    "point to, so remove the link or point it elsewhere"
                ) from None
        for rel, text in (files or {}).items():
            target = (workspace / rel).resolve()
            if not target.is_relative_to(workspace.resolve()):
                raise RuntimeError(f"workspace_files: {rel!r} leads outside the workspace")
            if target == workspace.resolve() or rel.endswith(("/", "\\")) or target.is_dir():
                # Python's IsADirectoryError would name the temporary workspace, not the key.
                raise RuntimeError(
                    f"workspace_files: {rel!r} is not the path of a file (a key is a file's "
                    "path relative to the workspace, such as 'src/app.py')"
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def _send_sync(
        self, talk: Talk, message: str, at: str | None, stop: threading.Event
    ) -> TurnOutcome | None:
        """Run the turn (None when its send was cancelled before the turn began: nothing is
        sent); ``stop``, set, interrupts it."""
        try:
            with self._lock:
                if stop.is_set():
                    return None
                driver = talk.driver
                driver.stop_turn = stop
                before = snapshot(talk.workspace)
                if not self._started:
                    self._started = True
                    started = driver.start()
                    if started.kind != "turn-end":
                        return self._add_turn(talk, message, started, before, at)
                return self._add_turn(talk, message, driver.send(message), before, at)
        finally:
            self._sending = None

    def _add_turn(
        self,
        talk: Talk,
        message: str,
        outcome: TurnOutcome,
        before: dict[str, bytes],
        at: str | None = None,
    ) -> TurnOutcome:
        files = talk.adapter.transcript_files(talk.launch)
        events: list[Event] = []
        session_id = None
        if files:
            trajectory = talk.adapter.parse(files[0])
            # What only the session knows, as the trial's trajectory has it (a permission
            # mode's denials the chat records as failed calls).
            talk.adapter.annotate(trajectory, talk.launch)
            events, session_id = list(trajectory.events), trajectory.session_id
        new = events[len(self._events_all) :] if len(events) >= len(self._events_all) else events
        users = [i for i, e in enumerate(events) if isinstance(e, UserMessage)]
        if users and len(events) < len(self._events_all):
            new = events[users[-1] :]
        self._events_all = events
        text = "\n".join(e.text for e in new if isinstance(e, AssistantText) and e.text)
        diff = unified_diff(before, snapshot(talk.workspace))
        log = talk.driver.log
        self._turns.append(
            TurnState(
                len(self._turns) + 1,
                text,
                outcome,
                new,
                session_id,
                message,
                diff,
                exit_code=log.exit_code,
                failure=log.failure if outcome.kind == "exited" else None,
                at=at,
            )
        )
        return outcome

    def _agent_failure(self) -> str | None:
        """Why the agent failed in the first turn it exited in that the test did not declare
        (``turn.expect_exit()``), or None."""
        for state in self._turns:
            why = state.agent_failure(len(self._turns))
            if why is not None:
                return why
        return None

    # -- gates' plumbing -------------------------------------------------------------------

    def _diff(self) -> str | None:
        """The workspace now against the workspace the first send started from."""
        if self._talk is None or self._seeded is None:
            return None
        return unified_diff(self._seeded, snapshot(self._talk.workspace))

    def _read_scope(self) -> ReadScope:
        if self._talk is None:
            return ReadScope()
        return scope_of_trial(self._talk.workspace, self._talk.trial_dir)

    def _roots(self) -> tuple[str, ...]:
        if self._talk is None:
            return ()
        root = self._talk.workspace
        return tuple(dict.fromkeys((str(root), str(root.resolve()))))

    def _events(self) -> list[Event]:
        return self._events_all

    def _turn_of(self, view: CallView) -> int | None:
        # By the call's id: each turn parses the transcript anew, so its objects differ. The
        # first turn holding the id, from a map made once for the turns as they are (asked of
        # every call, a scan of every event each time cost calls x events: 35 s for 10,000).
        made_of = tuple(id(state.events) for state in self._turns)
        if self._turn_by_call[0] != made_of:
            turns: dict[str | None, int] = {}
            for state in self._turns:
                for e in state.events:
                    if isinstance(e, ToolCall):
                        turns.setdefault(e.id, state.index)
            self._turn_by_call = (made_of, turns)
        return self._turn_by_call[1].get(view.call.id)

    def _reply(self) -> str:
        # The whole conversation's gates read everything the agent said in it.
        return "\n".join(
            e.text for e in self._events_all if isinstance(e, AssistantText) and e.text
        )

    def _outcomes(self) -> list[tuple[bool, Question | None]]:
        return [
            (
                s.outcome.kind == "turn-end",
                s.outcome.question if s.outcome.kind == "unanswered" else None,
            )
            for s in self._turns
        ]

    def _record(self, assertion: Assertion) -> Handle:
        if assertion.at is None:
            where = caller_line()
            assertion.at = f"{where.filename}:{where.lineno}" if where is not None else None
        if self._returned:
            # A task or thread the test left running: the case is decided without it.
            self.recorded.late.append(assertion)
            if self._on_late is not None:
                self._on_late(assertion)
            return Handle(assertion)
        self.recorded.assertions.append(assertion)
        return Handle(assertion)

    # -- the rest of t ---------------------------------------------------------------------

    def require(self, value: Any, expectation: Any) -> Any:
        """Gate on ``value`` meeting ``expectation``; stop the test when it does not."""
        exp = as_expectation(expectation)
        outcome = exp(value)
        self._record(
            Assertion(
                f"require({exp.label})",
                outcome.passed,
                score=outcome.score,
                message=outcome.message,
            )
        )
        if not outcome.passed:
            raise RequireFailed(outcome.message)
        return value

    def skip(self, reason: str) -> None:
        """End the case as skipped (reported apart; the exit code is unchanged)."""
        argtypes.text(reason, "t.skip()", "reason")
        raise Skipped(reason)

    def metric(self, name: str, value: float) -> None:
        argtypes.text(name, "t.metric()", "name")
        if not name.strip():  # eval.'' would name no figure of the report
            raise argtypes.wrong_value(
                "t.metric()", "name", "a metric name (a string that is not blank)", name
            )
        argtypes.real(value, "t.metric()", "value")  # float("0.8") would take a text
        number = float(value)
        if not math.isfinite(number):  # JSON has no NaN or infinity: the record must stay JSON
            raise ValueError(f"metric({name!r}, {number}): a metric is a finite number")
        self.recorded.metrics[name] = number

    def log(self, message: str) -> None:
        self.recorded.logs.append(str(message))
        if self._on_log is not None:
            self._on_log(str(message))
