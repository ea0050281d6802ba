"""The agent adapter base class and the registry of adapters.

An adapter knows how to provision a scratch home, launch its CLI headless or in a terminal, tell
from the terminal or transcript when a turn has ended or a question is pending, answer it, exit
cleanly, and find and parse its native transcript. The run loop never asks which agent it is:
every hook is declared here, with what it does for an agent that has nothing to add.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from proctor.agents.protocol import (
    AgentState,
    HeadlessReport,
    Launch,
    LaunchContext,
    Mode,
    Question,
    Terminal,
)
from proctor.agents.spec import ACP_PREFIX, ACP_PRESETS, SPECS, AgentSpec
from proctor.errors import AgentError
from proctor.models.config import AgentProfile
from proctor.models.trajectory import Trajectory
from proctor.workspace.above import ReadAbove

S = TypeVar("S")


class AgentAdapter(Generic[S]):
    """Base of every adapter; ``S`` is the adapter's own launch state (``Launch.state``)."""

    spec: ClassVar[AgentSpec]
    default_mode: ClassVar[Mode] = "headless"
    modes: ClassVar[tuple[Mode, ...]] = ("headless", "interactive")
    provision_kinds: ClassVar[frozenset[str]] = frozenset({"mcps", "plugins", "skills", "hooks"})
    """The kinds of ``provision`` entries the adapter gives its CLI. A case that provisions
    another kind for this agent is refused when planned: its trials would run without it."""
    scratch_writes: ClassVar[tuple[str, ...]] = ()
    """What the adapter writes in the trial's scratch folder, relative to it (``home/.claude``,
    ``mcp.json``), and where its CLI keeps its settings and transcripts: a setup line that
    makes one of them lead out of the scratch folder through a link ends the trial before
    anything is written there (see :mod:`proctor.workspace.confine`)."""
    skill_folders: ClassVar[tuple[str, ...]] = ()
    """Where the adapter copies the skills a case provisions, relative to the scratch folder:
    checked as :attr:`scratch_writes` are when the trial provisions skills (a skills folder of
    the user's linked there is the agent's to read otherwise)."""
    read_above: ClassVar[tuple[ReadAbove, ...]] = ()
    """What the CLI reads from the folders above its working folder, which the trial's
    settings cannot leave out (see :mod:`proctor.workspace.above`)."""
    reports_subagent_usage: ClassVar[bool] = True
    """Whether the tokens the CLI reports include its subagents' (Codex reports the main
    thread's only): the usage check compares the report with the same part of the transcript."""

    @property
    def name(self) -> str:
        return self.spec.id

    @property
    def transcript_format(self) -> str:
        return self.spec.transcript_format

    # -- before any trial -------------------------------------------------------------------

    def version(self, profile: AgentProfile) -> str | None:
        """The version of the CLI this profile would run, or None when it is not found."""
        return None

    def pinned_version(self, profile: AgentProfile) -> str | None:
        """The version proctor pins of the CLI this profile runs (the profile's own ``version``
        aside); None when proctor pins none."""
        return self.spec.version

    def credentials_warning(self, profile: AgentProfile, env: Mapping[str, str]) -> str | None:
        """On a real provider, one sentence when the agent is lent no credentials by design
        and its profile passes it no key either (an ACP agent), naming what to add; None when
        it does, or when proctor lends the agent its credentials (checked as a problem)."""
        return None

    def version_problem(self, profile: AgentProfile) -> str | None:
        """Why the CLI found gives no version (its ``--version`` failed, hung or printed
        nothing), as a phrase; None when it gives one or is not found."""
        return None

    def check_profile(self, profile: AgentProfile) -> None:
        """Raise :class:`AgentError` for a profile setting the CLI cannot honour."""

    def preflight(self, profile: AgentProfile) -> str | None:
        """Why no trial of this agent can start (a missing or wrong-version CLI), as one
        sentence naming the fix; None when it can."""
        return None

    def version_warning(self, profile: AgentProfile) -> str | None:
        """One sentence when the CLI found is not at the version proctor pins and the profile
        pins none (the run goes ahead); None when it is, or is not found."""
        return None

    def profile_warning(self, profile: AgentProfile, mode: Mode) -> str | None:
        """What a profile setting the run may well mean takes from the agent in ``mode`` (a
        tool its CLI then leaves out), as one sentence naming what to use instead; said before
        the run, which goes ahead. None when nothing."""
        return None

    # -- a session ----------------------------------------------------------------------------

    def prepare(self, ctx: LaunchContext) -> Launch[S]:
        """Provision the scratch home and say how to start the agent."""
        raise NotImplementedError

    def headless_argv(self, launch: Launch[S], message: str, turn: int) -> list[str]:
        """The command line of headless turn ``turn`` (1 for the first message, then the same
        session resumed with each further message)."""
        raise AgentError(f"agent '{self.name}' cannot run headless")

    def headless_report(
        self, launch: Launch[S], stdout: list[dict[str, Any]], stderr: str
    ) -> HeadlessReport:
        """What one headless turn's JSON events (stdout) and stderr say: failure, usage."""
        return HeadlessReport()

    def provider_failing(self, stdout: list[dict[str, Any]]) -> str | None:
        """A headless turn stopped by its time limit: the provider's failure the CLI was still
        retrying when it stopped (a rate limit, an outage), as the CLI says it; None when its
        events tell none."""
        return None

    def refused_key(self, launch: Launch[S], event: dict[str, Any]) -> str | None:
        """One JSON event of a headless turn still running, when it says the provider refused
        the agent's key and the CLI goes on retrying it anyway (a key refused once is refused
        again, until the trial's time runs out): the failure as the CLI says it, and the turn
        is ended there. None for any other event, and for a login the CLI may yet renew."""
        return None

    def state(self, terminal: Terminal, launch: Launch[S]) -> AgentState:
        """What the terminal shows: starting, ready (with turns done), working, or a question."""
        raise AgentError(f"agent '{self.name}' has no terminal UI")

    def pending_question(
        self, terminal: Terminal, launch: Launch[S], deadline: float = math.inf
    ) -> Question | None:
        """The question on screen (a picker, a permission prompt), if any. An adapter that
        waits for anything to tell the question (its transcript) waits no longer than
        ``deadline`` (a ``time.monotonic()`` value: the trial's)."""
        return None

    def send_message(self, terminal: Terminal, launch: Launch[S], text: str) -> None:
        """Type a user message and submit it."""
        raise AgentError(f"agent '{self.name}' has no terminal UI")

    def answer(self, terminal: Terminal, launch: Launch[S], question: Question, text: str) -> bool:
        """Answer the pending question with ``text`` (an option's label or free text). False,
        with nothing sent, when ``text`` names none of a picker's options and it takes no free
        text. Raises :class:`~proctor.agents.protocol.NotChosen` when the picker did not take
        an answer that names one of its entries."""
        self.send_message(terminal, launch, text)
        return True

    def request_exit(self, terminal: Terminal, launch: Launch[S]) -> None:
        """Ask the program to quit (``/exit``, ``/quit``)."""

    # -- after it ------------------------------------------------------------------------------

    def transcript_files(self, launch: Launch[S]) -> list[Path]:
        """The session's native files, the main transcript first; [] when none was written."""
        return [launch.transcript] if launch.transcript and launch.transcript.is_file() else []

    def parse(self, path: Path) -> Trajectory:
        """The normalised trajectory of the main transcript (and the files beside it)."""
        raise NotImplementedError

    def annotate(self, trajectory: Trajectory, launch: Launch[S]) -> None:
        """Add what only the session knows to the parsed trajectory (e.g. headless denials)."""


_REGISTRY: dict[str, type[AgentAdapter[Any]]] = {}


def register(cls: type[AgentAdapter[S]]) -> type[AgentAdapter[S]]:
    """Class decorator: make an adapter available under its spec's id."""
    _REGISTRY[cls.spec.id] = cls
    return cls


def _adapter_class(agent_id: str) -> type[AgentAdapter[Any]] | None:
    """The registered class of an agent id, importing its module (named by its spec) on first
    use, so a run imports only the adapters it drives."""
    if agent_id not in _REGISTRY:
        spec = next((s for s in SPECS if s.id == agent_id), None)
        if spec is None:
            return None
        importlib.import_module(spec.module)
    return _REGISTRY.get(agent_id)


def profile_for(agent_id: str, profiles: Mapping[str, AgentProfile]) -> AgentProfile:
    """The profile of an agent id: its own, else for ``acp:NAME`` the ACP profile ``NAME`` or
    the configured ACP agent ``NAME`` (:data:`~proctor.agents.spec.ACP_PRESETS`)."""
    if agent_id in profiles:
        own = profiles[agent_id]
        if own.transport == "acp" and own.command is None and agent_id in ACP_PRESETS:
            # the profile "gemini" of acp:gemini, run by its own id: the same configured agent
            return own.model_copy(update={"command": list(ACP_PRESETS[agent_id])})
        return own
    if agent_id.startswith(ACP_PREFIX):
        name = agent_id[len(ACP_PREFIX) :]
        named = profiles.get(name)
        if named is not None and named.transport == "acp":
            if named.command is None and name in ACP_PRESETS:  # acp:gemini's own settings
                return named.model_copy(update={"command": list(ACP_PRESETS[name])})
            return named
        if name in ACP_PRESETS:
            return AgentProfile(transport="acp", command=list(ACP_PRESETS[name]))
    return AgentProfile()


def adapter_for(agent_id: str, profiles: Mapping[str, AgentProfile]) -> AgentAdapter[Any]:
    """The adapter behind an agent id: a registered name, or a profile naming one."""
    profile = profile_for(agent_id, profiles)
    name = profile.agent if profile.agent else agent_id
    cls = _adapter_class(name)
    if cls is None:
        raise KeyError(name)
    return cls()


def known_agent_ids(profiles: Mapping[str, AgentProfile]) -> set[str]:
    builtin = {spec.id for spec in SPECS}
    ids = set(builtin)
    ids.update(ACP_PREFIX + name for name in ACP_PRESETS)
    for agent_id, profile in profiles.items():
        if profile.agent is None or profile.agent in builtin:
            ids.add(agent_id)
        if profile.transport == "acp":
            ids.add(ACP_PREFIX + agent_id)
    return ids
