"""Where each CLI keeps its recorded sessions, and which files are sessions.

=============== ============================================ ====================================
agent           history folder                               session files
=============== ============================================ ====================================
claude-code     ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``      ``projects/<project>/<id>.jsonl``
                                                             (subagent files belong to their
                                                             session)
codex           ``$CODEX_HOME`` or ``~/.codex``              ``sessions/**/rollout-*.jsonl`` and
                                                             ``archived_sessions/**`` (a
                                                             subagent's thread belongs to the
                                                             session that spawned it)
gemini-cli      ``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini`` ``tmp/<project>/chats/session-*``
=============== ============================================ ====================================

``--home DIR`` reads ``DIR/.claude``, ``DIR/.codex`` and ``DIR/.gemini`` instead, whatever the
environment says. A plain folder (or file) given on the command line is searched for session
files of any of the three formats (:mod:`proctor.history.walk`); which files of a history folder
are sessions is :mod:`proctor.history.layout`'s. Nothing here writes anything.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from proctor.history.copies import each_once
from proctor.history.folders import history_folders, unnamed_config_dir
from proctor.history.homes import missing_reason
from proctor.history.layout import FOLDER, Session, agent_sessions
from proctor.history.listing import unreachable
from proctor.history.sniff import headless_reason, subagent_header
from proctor.history.threads import threads_folded
from proctor.history.walk import file_identity, is_part, sessions_in
from proctor.models.history import Unavailable
from proctor.util.native_paths import first_record
from proctor.util.text import plural

AGENTS = ("claude-code", "codex", "gemini-cli")


def find_sessions(
    agents: Iterable[str], home: Path | None, env: Mapping[str, str]
) -> tuple[list[Session], list[Unavailable]]:
    """The sessions of each agent in its usual place, and the agents whose history is not
    there (with the reason). Another agent's sessions never stand in for a missing one."""
    sessions: list[Session] = []
    unavailable: list[Unavailable] = []
    for agent in agents:
        if (unnamed := unnamed_config_dir(agent, home, env)) is not None:
            unavailable.append(Unavailable(agent=agent, path="$CLAUDE_CONFIG_DIR", reason=unnamed))
        for folder in history_folders(agent, home, env):
            reason = missing_reason(agent, folder, home, env)
            if reason is None:
                # Each folder on its own: one that fails as it is listed loses no other's.
                unreadable: list[Unavailable] = []
                try:
                    found = list(agent_sessions(agent, folder, unreadable))
                except OSError as exc:
                    found, reason = [], f"{unreachable(exc, folder)}: its sessions are left out"
                unavailable += unreadable
                sessions += found
            if reason is not None:
                unavailable.append(Unavailable(agent=agent, path=str(folder), reason=reason))
    return threads_folded(each_once(sessions), unavailable), unavailable


def sessions_under(
    paths: Sequence[Path], agents: Iterable[str]
) -> tuple[list[Session], list[Unavailable]]:
    """Session files in plain folders or files given by the user, of the given agents only.

    A folder that is a CLI's history folder (it has ``projects/``, ``sessions/`` or ``tmp/``)
    is read like one; any other folder is searched for session files of any format. Subagent
    files are left to their session's parser.
    """
    wanted = set(agents)
    sessions: list[Session] = []
    unavailable: list[Unavailable] = []
    # A session named twice (overlapping folders, a link) is replayed once.
    seen: set[tuple[int, int] | str] = set()
    for path in paths:
        # Each path on its own: one that cannot be looked at loses none of the others.
        try:
            found = _sessions_given(path, wanted, unavailable)
        except OSError as exc:
            found = []
            reason = f"{unreachable(exc, path)}: its sessions are left out"
            unavailable.append(Unavailable(path=str(path), reason=reason))
        if len(paths) == 1:  # one folder lists each file once: no path to resolve
            sessions.extend(found)
            continue
        for session in found:
            identity = file_identity(session.file)
            if identity not in seen:
                seen.add(identity)
                sessions.append(session)
    return threads_folded(each_once(sessions), unavailable), unavailable


OTHER_AGENTS_ONLY = "holds sessions of other agents only"
"""The start of the reason for a ``PATH`` whose sessions ``--agent`` all left out: it was read."""


NOT_A_CLI_SESSION = (
    "an ACP recording (proctor's log of an ACP agent's trial), not a CLI session: not "
    "replayed (`proctor parse` reads it)"
)
"""Why a session log of a format ``history`` does not replay is listed unavailable."""


def _sessions_given(path: Path, wanted: set[str], unavailable: list[Unavailable]) -> list[Session]:
    """The sessions of ``wanted`` agents in one ``PATH`` given by the user; why it holds none
    is added to ``unavailable``. An OSError when the path itself cannot be looked at."""
    try:
        os.stat(path)
    except FileNotFoundError:
        unavailable.append(Unavailable(path=str(path), reason="no such file or folder"))
        return []
    except OSError as exc:
        if isinstance(exc, PermissionError):  # the caller names the folder that is shut
            raise
        reason = f"cannot be read ({exc.strerror or exc})"  # a link in a loop, a long name
        unavailable.append(Unavailable(path=str(path), reason=reason))
        return []
    if not path.is_file() and not path.is_dir():
        reason = "not a regular file or a folder (a named pipe, a socket, a device): not read"
        unavailable.append(Unavailable(path=str(path), reason=reason))
        return []
    # A trial's agent-stdout.jsonl is named like a subagent's file: its own reason is said.
    headless = path.is_file() and headless_reason(path) is not None
    if not headless and path.is_file() and (is_part(path) or subagent_header(first_record(path))):
        reason = "a subagent or side file: it is read with its main session (give that one)"
        unavailable.append(Unavailable(path=str(path), reason=reason))
        return []
    unreadable: list[Unavailable] = []
    every = []
    for session in sessions_in(path, unreadable):
        if session.agent in AGENTS:
            every.append(session)
        else:  # a log proctor wrote of a trial's run (ACP): no CLI's session, whatever --agent
            unreadable.append(Unavailable(path=session.file, reason=NOT_A_CLI_SESSION))
    found = [s for s in every if s.agent in wanted]
    if not every and path.is_dir() and _acp_only(unreadable):  # said once, for the folder
        unavailable.append(Unavailable(path=str(path), reason=_acp_recordings(len(unreadable))))
        return []
    unavailable += unreadable
    said = {u.path for u in unreadable}  # (~/.claude before any session says why it has none)
    if path.is_file():  # a Codex rollout given alone: with its subagents' threads, as parse
        _with_threads(found)
    if not found and every:  # read, but --agent keeps none: said, never a usage error
        counts = Counter(s.agent for s in every)
        held = ", ".join(plural(n, f"{agent} session") for agent, n in sorted(counts.items()))
        unavailable.append(
            Unavailable(path=str(path), reason=f"{OTHER_AGENTS_ONLY}: {held}, left out by --agent")
        )
    elif not found and not (path.is_file() and unreadable) and str(path) not in said:
        narrowed = "" if wanted.issuperset(AGENTS) else " of the agents asked for"  # --agent
        reason = f"no session transcript{narrowed}" if path.is_dir() else "not a session transcript"
        if path.name.endswith((".jsonl", ".json")) and path.is_dir():
            reason = f"{FOLDER.partition(':')[0]}: it holds {reason}"
        if path.is_dir() and _parts_only(path):
            reason = (
                "holds subagent or side files only: they are read with their main session "
                "(give the folder that holds it)"
            )
        unavailable.append(Unavailable(path=str(path), reason=reason))
    return found


def _acp_only(unreadable: list[Unavailable]) -> bool:
    """Whether what a folder gave as unavailable is ACP recordings only, for one reason."""
    return bool(unreadable) and all(u.reason == NOT_A_CLI_SESSION for u in unreadable)


def _acp_recordings(count: int) -> str:
    """Why a folder that holds ACP recordings only (``count`` of them) is unavailable."""
    what = "log of an ACP agent's trial" if count == 1 else "logs of ACP agents' trials"
    return (
        f"holds {plural(count, 'ACP recording')} only (proctor's {what}), no CLI session: "
        "not replayed (`proctor parse` reads each)"
    )


def _with_threads(sessions: list[Session]) -> None:
    """Give each Codex session among ``sessions`` (a rollout given alone) the threads of the
    subagents it spawned, found where ``proctor parse`` finds them (its Codex home's
    ``sessions/``, or its own folder): a history of the folder folds them in, and a history
    of the file alone must measure the same session."""
    for session in sessions:
        if session.agent == "codex" and not session.parts:
            from proctor.transcripts.codex.threads import subagent_threads

            session.parts = tuple(str(thread) for thread in subagent_threads(Path(session.file)))


def _parts_only(folder: Path, look: int = 100) -> bool:
    """Whether the first ``look`` transcript files in ``folder`` (a folder that gave no
    session) are all subagent or side files, such as a Gemini CLI chat's subagent folder or a
    Claude Code session's ``subagents/``."""
    seen = 0
    for root, _, names in os.walk(folder):
        for name in names:
            if not name.endswith((".jsonl", ".json")):
                continue
            file = os.path.join(root, name)
            if headless_reason(file) is not None or not (
                is_part(file) or subagent_header(first_record(Path(file)))
            ):
                return False
            seen += 1
            if seen >= look:
                return True
    return seen > 0
