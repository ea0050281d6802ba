"""What ``proctor record`` checks of a session a person drove before it records it, and what it
marks once it has: a session is recorded once, with the prompt it was prepared with, from the
workspace ``prepare`` made, and found where the agent that ran it keeps its history.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor.agents.spec import spec_for
from proctor.errors import ConfigError
from proctor.history.layout import Session
from proctor.history.projects import head_records, same_project, session_project
from proctor.history.sources import AGENTS, find_sessions
from proctor.metrics.trace import event_stamps, time_span
from proctor.models.io import write_json
from proctor.models.plan import TrialSpec
from proctor.models.pricing import SCRIPTED_PRICES, PriceTable
from proctor.models.trajectory import (
    OtherEvent,
    ToolResult,
    Trajectory,
    TurnEnd,
    UserMessage,
)
from proctor.models.trial import Timings
from proctor.paths import RUN_NAME, RunPaths
from proctor.session.handover import SESSION_FILE
from proctor.transcripts.cut_short import LAST_LINE_CUT, last_line_cut
from proctor.transcripts.gemini.records import GEMINI_CANCELLED, cancelled_by_user
from proctor.transcripts.lines import decode_line, file_lines
from proctor.util.files import read_regular
from proctor.util.native_paths import first_record

RECORDED_IN = "recordedIn"
"""``session.json``'s key for the run folder a session was recorded in."""
PROMPT_DIGEST = "promptSha256"
"""``session.json``'s key for the digest of the prompt the session was handed."""


SCRIPTED_IDS = ("msg_scripted_", "req_scripted_", "resp_scripted_", "chatcmpl-scripted")
"""How proctor's scripted model server begins the ids of its responses, which Claude Code
(``message.id``, ``requestId``) and Codex (an assistant message's ``id``, a token record's
``response_id``) write into their transcripts."""


def _scripted_response(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    payload = record.get("payload")
    message = record.get("message") if record.get("type") == "assistant" else None
    ids = [record.get("requestId"), message.get("id") if isinstance(message, dict) else None]
    if isinstance(payload, dict):
        if payload.get("role") == "assistant":
            ids.append(payload.get("id"))
        ids.append(payload.get("response_id"))
    return any(isinstance(i, str) and i.startswith(SCRIPTED_IDS) for i in ids)


def answered_by_scripted_model(transcript: Path) -> bool:
    """Whether the session of ``transcript`` was answered by proctor's scripted model server
    (a response of its ids): the models it names are the ones the CLI asked for, and not a
    token of theirs was bought. Gemini CLI writes no response id: its session says nothing."""
    for line in file_lines(transcript):
        if b"scripted" in line and _scripted_response(decode_line(line)):
            return True
    return False


def session_prices(
    spec: TrialSpec, model: str | None, transcript: Path | None, models: list[str]
) -> tuple[PriceTable, list[str]]:
    """The prices of a recorded session's responses, and the note that says why they cost
    nothing when it ran on proctor's scripted model (``--model scripted``, the case's agent on
    the scripted backend, or a transcript of the scripted server's responses): the models it
    names are the ones the CLI asked for, whose list price was never paid. A stored trial
    re-evaluated is priced the same way, from its model and its kept transcript (None: none
    was kept)."""
    given = model is not None and (model == "scripted" or model.startswith("scripted/"))
    if spec.backend == "scripted" or given:
        how = f"--model {model}" if given else "its agent's profile"
    elif transcript is not None and answered_by_scripted_model(transcript):
        how = "its transcript's response ids"
    else:
        return spec.agent_pricing, []
    named = f", not at the list price of {', '.join(models)}" if models else ""
    return SCRIPTED_PRICES, [
        f"the session ran on proctor's scripted model ({how}): its responses cost nothing, "
        f"priced at $0{named}"
    ]


def session_folder(transcript: Path, fmt: str) -> str | None:
    """The folder the session of ``transcript`` (a transcript of ``fmt``) ran in, as its
    records say (as ``proctor history`` reads it): a Claude Code or Codex session's ``cwd``; a
    Gemini CLI chat's project root, else the folder its first message names whose path is its
    project's hash, else ``gemini:<hash>``. None: it names none."""
    if fmt not in ("claude-code", "codex", "gemini-cli"):
        return None
    project = session_project(Session(fmt, transcript))
    if project is not None and project.startswith("gemini:"):
        return _hashed_folder(transcript, project.removeprefix("gemini:")) or project
    return project


_ABSOLUTE = re.compile(r"(?<![\w.])(/[^\s\"\\]+)")


def _hashed_folder(transcript: Path, project_hash: str) -> str | None:
    """The folder a Gemini CLI chat's first records name (its session context lists the
    workspace's folders) whose path's SHA-256 is the chat's project hash."""
    for record in head_records(transcript):
        text = json.dumps(record, ensure_ascii=False).replace("\\n", "\n")
        for found in _ABSOLUTE.findall(text):
            folder = found.rstrip("/") or "/"
            if hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest() == (
                project_hash
            ):
                return folder
    return None


def _inside(folder: str, workspace: Path) -> bool:
    """Whether a session's folder is one inside ``workspace`` (the session was started in a
    subfolder of it), links followed."""
    if folder.startswith("gemini:"):
        return False
    try:
        return Path(folder).resolve().is_relative_to(workspace.resolve())
    except (OSError, ValueError):
        return False


def ran_elsewhere(transcript: Path, fmt: str, workspace: Path) -> str | None:
    """The note of a recorded session whose transcript ran in another folder than
    ``workspace`` (links followed): a workspace moved or copied since the session (run in a
    container, on another machine), or the transcript of another folder's session. The
    evaluators judge ``workspace`` either way; None when the folders are one, or the
    transcript names none."""
    folder = session_folder(transcript, fmt)
    if folder is None or same_project(folder, workspace) or _inside(folder, workspace):
        return None
    if folder.startswith("gemini:"):
        where = f"another folder (Gemini CLI's project hash {folder.removeprefix('gemini:')})"
    else:
        where = folder
    return (
        f"the transcript's session ran in {where}, not in the --workspace {workspace}: the "
        f"evaluators judged {workspace} (right if the workspace was moved or copied since the "
        "session; if not, the transcript is another folder's session)"
    )


def transcript_notes(transcript: Path, fmt: str, workspace: Path) -> list[str]:
    """The trial's warnings of what a recorded session's transcript says of it: it ran in
    another folder than ``workspace``; its last line is cut short (the session may have gone
    on after it)."""
    notes = []
    elsewhere = ran_elsewhere(transcript, fmt, workspace)
    if elsewhere is not None:
        notes.append(elsewhere)
    if last_line_cut(transcript):
        notes.append(f"the transcript {os.path.abspath(transcript)}: {LAST_LINE_CUT}")
    return notes


def prompt_digest(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()


def _utc_ms(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def prompts_typed(trajectory: Trajectory) -> int:
    """The user turns of a recorded session: the prompts the person sent the agent (its main
    thread's user messages; a subagent's task is the agent's, and what the CLI writes into the
    session itself is no user message), as ``timings.turnsTotal`` counts the messages a run
    sent its agent."""
    return sum(1 for e in trajectory.events if isinstance(e, UserMessage) and not e.sidechain)


def _interrupts(event: object) -> bool:
    """Whether ``event`` is a CLI's record of a turn the person interrupted."""
    if isinstance(event, TurnEnd):  # Claude Code's "[Request interrupted by user…]", Codex's
        return (event.text or "").startswith("aborted (interrupted")  # turn_aborted: interrupted
    if isinstance(event, ToolResult):  # Gemini CLI's calls cancelled by Esc or Ctrl-C
        return bool(event.denied) and cancelled_by_user(event.output or "")
    return (
        isinstance(event, OtherEvent)
        and event.record_type == "gemini/info"
        and event.text == GEMINI_CANCELLED
    )


def interrupted_turns(trajectory: Trajectory) -> int:
    """The turns of a recorded session the person interrupted (Esc or Ctrl-C in the CLI), as
    its transcript records them: Claude Code's ``[Request interrupted by user]`` entry, Codex's
    ``turn_aborted`` of reason ``interrupted``, Gemini CLI's calls cancelled by the user (or its
    ``Request cancelled.`` message). Its main thread's, each turn once (Gemini CLI cancels
    every call of the turn); a turn Codex aborted for another reason (``replaced``,
    ``review_ended``), a call the person refused at its prompt, is no interruption."""
    count, counted = 0, False
    for event in trajectory.events:
        if event.sidechain:
            continue
        if isinstance(event, UserMessage):
            counted = False
        elif not counted and _interrupts(event):
            count, counted = count + 1, True
    return count


def session_timings(trajectory: Trajectory) -> Timings:
    """What a recorded session's transcript tells of its time and turns: its time from its
    first to its last event, all of it the agent's (no harness waited on it), unknown (0)
    without times; its turns, the prompts the person typed; its interruptions, the turns the
    person interrupted."""
    turns = prompts_typed(trajectory)
    interrupted = interrupted_turns(trajectory)
    start, end = time_span(event_stamps(trajectory.events))
    if start is None or end is None:
        return Timings(turns_total=turns, interruptions=interrupted)
    ms = round((end - start).total_seconds() * 1000, 3)
    return Timings(
        agent_ms=ms,
        agent_pure_ms=ms,
        total_ms=ms,
        turns_total=turns,
        interruptions=interrupted,
        started_at=_utc_ms(start),
        finished_at=_utc_ms(end),
    )


def as_prepared(
    flag: str, given: str | None, prepared: dict[str, Any] | None, key: str, default: str
) -> str:
    """The value ``record`` uses for ``flag``: the one given, which must be the one the session
    was prepared with (a session filed under another condition or agent would count in the
    wrong side of an A/B); else the prepared one; else ``default``."""
    wanted = prepared.get(key) if prepared is not None else None
    if not isinstance(wanted, str):
        return given or default
    if given is not None and given != wanted:
        raise ConfigError(
            f"{flag} {given}: the session was prepared with {flag} {wanted} (its "
            f"session.json); record it with {flag} {wanted}, or prepare a session for {given}"
        )
    return wanted


def refuse_session_folder(workspace: Path) -> None:
    """A prepared session's own folder given for its workspace: it holds ``session.json`` and
    ``workspace/``, and no agent ran in it."""
    if (workspace / SESSION_FILE).is_file() and (workspace / "workspace").is_dir():
        raise ConfigError(
            f"--workspace {workspace}: a prepared session's folder, not its workspace; give "
            f"--workspace {workspace / 'workspace'}"
        )


def refuse_recorded_again(prepared: dict[str, Any], workspace: Path) -> None:
    """A session recorded already: a second trial of it would count twice (and the prepared
    folder was masked once it was recorded). Its run folder removed, it may be recorded anew."""
    run = prepared.get(RECORDED_IN)
    if isinstance(run, str) and os.path.lexists(run):
        raise ConfigError(
            f"--workspace {workspace}: this session was recorded already, in {run}; prepare a "
            "new session to run the case again (or remove that run folder to record this one "
            "anew)"
        )


def _recording_of(run: Path, fmt: str, session_id: str) -> Path | None:
    """The trial record of ``run``, a run folder of ``proctor record``, that holds the agent's
    session ``session_id`` (of format ``fmt``); None when it holds none, or is no recording
    (a run of ``proctor run`` holds no session a person drove)."""
    try:  # a regular file alone: a named pipe would block, a device never end
        manifest = json.loads(read_regular(RunPaths(run).run_json))
        argv = manifest.get("argv") if isinstance(manifest, dict) else None
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(argv, list) or argv[:2] != ["proctor", "record"]:
        return None
    try:
        trials = RunPaths(run).trial_jsons()
    except OSError:  # a folder of it that cannot be listed: `proctor report` says so
        return None
    for path in trials:
        try:
            trial = json.loads(read_regular(path))
        except (OSError, ValueError, RecursionError):
            continue  # a record that does not read: `proctor report` says so
        if not isinstance(trial, dict) or trial.get("sessionId") != session_id:
            continue
        info = trial.get("transcript")
        if not isinstance(info, dict) or info.get("format") in (None, fmt):
            return path
    return None


def refuse_session_recorded(out: Path, transcript: Path, fmt: str, session_id: str | None) -> None:
    """The agent's session of ``transcript`` (of format ``fmt``, its id ``session_id``)
    recorded already in a run folder of the results folder ``out``, from this workspace or
    another, a prepared session or not: a second trial of it would count twice (``proctor
    report`` of the two runs refuses them). Its run folder removed, it may be recorded anew.
    A transcript that names no session id is not told apart."""
    if session_id is None:
        return
    try:
        runs = sorted(p for p in out.iterdir() if RUN_NAME.fullmatch(p.name) and p.is_dir())
    except OSError:  # no results folder yet: nothing recorded in it
        return
    for run in runs:
        found = _recording_of(run, fmt, session_id)
        if found is not None:
            raise ConfigError(
                f"the transcript {transcript} is of session {session_id}, recorded already in "
                f"{run} ({found.relative_to(run)}): a second trial of it would count twice; "
                "record another session, or remove that run folder to record this one anew"
            )


def refuse_changed_prompt(prepared: dict[str, Any], root: Path, prompt: str, case: str) -> None:
    """The case's prompt edited since the session was prepared: the agent was given another
    one, and the trial would be filed under a prompt it never saw."""
    digest = prepared.get(PROMPT_DIGEST)
    if isinstance(digest, str):
        same = digest == prompt_digest(prompt)
    else:  # prepared by an earlier proctor: the prompt file it handed over
        try:
            same = (root / "prompt.md").read_text(encoding="utf-8") == prompt + "\n"
        except (OSError, UnicodeDecodeError):
            return
    if not same:
        raise ConfigError(
            f"{case}: the case's prompt changed since the session was prepared (the agent was "
            f"given {root / 'prompt.md'}); put the case's prompt back to record this session, "
            "or prepare a new session and run it"
        )


def mark_recorded(root: Path, prepared: dict[str, Any], run: Path) -> None:
    """Name the run folder the prepared session ``root`` was recorded in (its ``session.json``),
    in the file as it is now (masked once the session was recorded), ``prepared`` only when
    it no longer reads."""
    try:
        current = json.loads((root / SESSION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        current = None
    kept = current if isinstance(current, dict) else prepared
    write_json(root / SESSION_FILE, {**kept, RECORDED_IN: str(run)})


def find_transcript(agent: str, workspace: Path, prepared: bool, kind: str | None = None) -> Path:
    """The newest session of ``agent`` that ran in ``workspace``, where the CLI keeps them;
    none found, the sentence says whether another agent's session ran there (the person ran
    another CLI than the session was prepared for) or none did (it was never run there).
    ``kind``: the built-in agent ``agent`` is (a profile's ``agent``; default ``agent``). The
    scripted agent's session is looked for where it writes it, in Claude Code's history (its
    program's sessions only); an agent that keeps no history (an ACP agent) is refused: its
    transcript is given with --transcript."""
    spec = spec_for(kind or agent)
    cli = spec.transcript_format if spec is not None else None
    if cli not in AGENTS or spec is None:
        raise ConfigError(
            f"--agent {agent}: {'an ACP agent' if cli == 'acp' else 'it'} keeps no history of "
            "its sessions for record to find this one in: give its transcript with "
            "--transcript PATH"
        )
    scripted = spec.id == SCRIPTED_AGENT
    sessions, _ = find_sessions([cli], None, os.environ)
    ran_here = [
        s
        for s in sessions
        if same_project(session_project(s), workspace) and (not scripted or _scripted_session(s))
    ]
    if ran_here:
        return max(ran_here, key=lambda s: s.path.stat().st_mtime).path
    if scripted:
        raise ConfigError(
            f"no session of the scripted agent found for {workspace} in Claude Code's history, "
            "where its program writes its transcript ($CLAUDE_CONFIG_DIR, else ~/.claude): "
            "run it in that folder first, or pass --transcript PATH if its transcript is "
            "elsewhere (a trial's raw-transcript.jsonl)"
        )
    others, _ = find_sessions([a for a in AGENTS if a != cli], None, os.environ)
    other = sorted({s.agent for s in others if same_project(session_project(s), workspace)})
    where = f"no {agent} session found for {workspace} in its history"
    if other:
        ran = " and ".join(other)
        fix = (
            f"the session was prepared for {agent}: prepare one for {other[0]} and run it there"
            if prepared
            else f"record it with --agent {other[0]}"
        )
        raise ConfigError(f"{where}, but a {ran} session ran there; {fix}")
    binary = f"`{spec.binary}`" if spec.binary else agent
    raise ConfigError(
        f"{where}: start {binary} in that folder and give it the prompt first, or pass "
        "--transcript PATH if its transcript is elsewhere"
    )


SCRIPTED_AGENT = "scripted"
SCRIPTED_ENTRYPOINT = "proctor-scripted"
"""The ``entrypoint`` of every line the scripted agent's program writes, in Claude Code's
format (Claude Code's own names the way it was started: ``cli``, ``sdk-ts``…)."""


def _scripted_session(session: Session) -> bool:
    """Whether ``session``, in Claude Code's history, is one the scripted agent wrote."""
    return first_record(session.path).get("entrypoint") == SCRIPTED_ENTRYPOINT
