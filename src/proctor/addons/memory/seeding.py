"""Seeding fresh projects through the server's own tools, then asking the dataset's queries.

Every project gets a fresh name for this run (``<project>-<tag>``), so a long-running server
never mixes two runs. With scope ``argument`` one server process holds every project, other
projects' notes included, so a store that ignores the project is caught returning them; with
scope ``process`` each project gets its own server process and scratch environment.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from proctor.addons.memory.adapter import Adapter, render
from proctor.addons.memory.client import (
    CLOSED,
    MemoryServerError,
    MemorySession,
    ServerTarget,
    connection_closed,
    malformed,
    open_session,
)
from proctor.addons.memory.dataset import Dataset, Note
from proctor.addons.memory.search_results import result_ids
from proctor.addons.memory.server_stderr import server_log_tail, server_stderr_tail
from proctor.addons.memory.stray import StrayNote
from proctor.errors import ConfigError, ProctorError
from proctor.util.files import temporary_folder


@dataclass(frozen=True)
class Scratch:
    """The run's scratch folder: the server's working folder, its home and its stderr log."""

    root: Path
    tag: str

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def temp(self) -> Path:
        """The server's ``TMPDIR``: its temporary files go with the scratch folder."""
        return self.root / "tmp"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def project(self, name: str) -> str:
        return f"{name}-{self.tag}"

    @property
    def storage(self) -> Path:
        return self.root / "memory.jsonl"

    def environment(self) -> dict[str, str]:
        """Extra variables for a stdio server: its own home and ``TMPDIR`` (without one, its
        temporary files went to ``/tmp`` and stayed there), nothing of the user's, and
        ``MEMORY_FILE_PATH`` (the storage file of ``@modelcontextprotocol/server-memory``, which
        otherwise writes beside its own script and keeps the notes of every run) in the scratch
        folder; the adapter's ``scope.env`` can override it."""
        for folder in (self.work, self.home, self.temp):
            folder.mkdir(parents=True, exist_ok=True)
        return {
            "MEMORY_FILE_PATH": str(self.storage),
            "HOME": str(self.home),
            "TMPDIR": str(self.temp),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "USERPROFILE": str(self.home),
        }


def seeding_order(notes: list[Note]) -> list[Note]:
    """``notes`` in their order, except that a superseded note always comes before the note that
    supersedes it (the server sees the older memory first)."""
    by_id = {n.id: n for n in notes}
    placed: set[str] = set()
    ordered: list[Note] = []
    for first in notes:
        if first.id in placed:
            continue
        placed.add(first.id)
        # Depth first without recursion: a chain of thousands of notes listed newest first.
        stack = [(first, iter(first.supersedes))]
        while stack:
            note, olders = stack[-1]
            older = next((by_id[o] for o in olders if o in by_id and o not in placed), None)
            if older is None:
                stack.pop()
                ordered.append(note)
                continue
            placed.add(older.id)
            stack.append((older, iter(older.supersedes)))
    return ordered


def collect_results(
    target: ServerTarget,
    adapter: Adapter,
    dataset: Dataset,
    k: int,
    timeout: float,
    forward: Mapping[str, str] | None = None,
) -> dict[str, list[str]]:
    """Seed every project, ask every query; query id → returned note ids, in server order.
    ``forward``: variables a server started by command is given besides its scratch ones
    (``--env``)."""
    if adapter.scope.mode == "process" and target.is_url:
        raise ConfigError(
            "adapter field 'scope.mode': 'process' starts one server per project, which needs "
            "a command, not a URL"
        )
    with temporary_folder("proctor-memory-") as folder:  # links in it never followed
        scratch = Scratch(folder, secrets.token_hex(4))
        run = _Run(target, adapter, dataset, k, timeout, scratch, dict(forward or {}))
        try:
            results = anyio.run(run.all)
        except BaseException as exc:
            error = _translate(exc, scratch, target)
            if isinstance(error, MemoryServerError):  # read before the scratch folder goes
                error.stderr_tail = server_stderr_tail(scratch.log)
            run.note.say(str(error))
            raise error from exc
        run.note.say()
        return results


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def _translate(exc: BaseException, scratch: Scratch, target: ServerTarget) -> BaseException:
    leaves = list(_leaves(exc))
    for leaf in leaves:
        if isinstance(leaf, KeyboardInterrupt):
            return leaf
    for leaf in leaves:
        if isinstance(leaf, ProctorError):
            return leaf
    first = leaves[0] if leaves else exc
    detail = str(first) or type(first).__name__
    if isinstance(first, ValidationError):
        detail = malformed(first)
    if isinstance(first, OSError) and first.filename:
        detail = f"cannot start {first.filename} ({first.strerror})"
    if detail == CLOSED and target.url is not None:  # no process: its connection closed
        return MemoryServerError(connection_closed(target.url, "before it answered"))
    if detail == CLOSED:  # before the session was up: the process ended as it started
        said = server_log_tail(scratch.log) or "; it wrote nothing to stderr"
        return MemoryServerError(f"the memory server exited before it answered{said}")
    if target.url is not None:  # said with the URL (its credentials masked where it is shown)
        if type(first).__name__ in _CANNOT_CONNECT:
            return MemoryServerError(
                f"cannot connect to the memory server at {target.url} ({detail})"
            )
        return MemoryServerError(f"the memory server at {target.url} failed: {detail}")
    return MemoryServerError(f"the memory server failed: {detail}{server_log_tail(scratch.log)}")


_CANNOT_CONNECT = frozenset({"ConnectError", "ConnectTimeout"})
"""The HTTP client's errors (by name: the MCP SDK's HTTP client is its own dependency) for a
URL where nothing answers: no server listening, no such host."""


@dataclass
class _Run:
    target: ServerTarget
    adapter: Adapter
    dataset: Dataset
    k: int
    timeout: float
    scratch: Scratch
    forward: dict[str, str]
    note: StrayNote = field(default_factory=StrayNote)
    """The note of stray stdout lines, said once as the run ends, however many processes
    it starts."""

    async def all(self) -> dict[str, list[str]]:
        env = {} if self.target.is_url else self.forward | self.scratch.environment()
        results: dict[str, list[str]] = {}
        if self.adapter.scope.mode == "argument":
            rendered = render(self.adapter.scope.env, {"scratch": str(self.scratch.root)})
            if not self.target.is_url:
                env |= {name: str(value) for name, value in rendered.items()}
            async with self._open(env) as session:
                for project in self.dataset.projects():
                    await self._seed(session, project)
                for project in self.dataset.projects():
                    results |= await self._ask(session, project)
            return results
        for project in self.dataset.projects():
            rendered = render(self.adapter.scope.env, self._values(project))
            scoped = env | {name: str(value) for name, value in rendered.items()}
            async with self._open(scoped) as session:
                await self._seed(session, project)
                results |= await self._ask(session, project)
        return results

    def _open(self, env: dict[str, str]) -> Any:
        return open_session(
            self.target,
            env=env,
            cwd=self.scratch.work,
            log=self.scratch.log,
            timeout=self.timeout,
            note=self.note,
        )

    def _values(self, project: str) -> dict[str, Any]:
        return {"project": self.scratch.project(project), "scratch": str(self.scratch.root)}

    async def _seed(self, session: MemorySession, project: str) -> None:
        notes = [n for n in self.dataset.notes if n.project == project]
        for note in seeding_order(notes):
            values = self._values(project) | {"id": note.id, "text": note.text}
            seed = self.adapter.seed
            arguments = render(seed.arguments, values)
            await session.call(seed.tool, arguments, f"seeding note {note.id}", "seed.tool")
            if self.adapter.supersede is None:
                continue
            for older in note.supersedes:
                call = self.adapter.supersede
                arguments = render(call.arguments, values | {"supersedes": older})
                what = f"superseding {older} by {note.id}"
                await session.call(call.tool, arguments, what, "supersede.tool")

    async def _ask(self, session: MemorySession, project: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        known = self.dataset.note_by_id()  # a string id that reads as JSON is that id
        for query in [q for q in self.dataset.queries if q.project == project]:
            values = self._values(project) | {"query": query.query, "k": self.k}
            search = self.adapter.search
            what = f"query {query.id}"
            arguments = render(search.arguments, values)
            result = await session.call(search.tool, arguments, what, "search.tool")
            out[query.id] = result_ids(result, self.adapter.results, what, known)
        return out
