"""``proctor parse``: show what proctor reads from a native agent transcript."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import click

from proctor.agents.spec import agent_names
from proctor.errors import ConfigError
from proctor.models.io import escape_surrogates
from proctor.models.trajectory import (
    EVENT_ADAPTER,
    Event,
    HookEvent,
    OtherEvent,
    SkillEvent,
    SubagentEvent,
    ToolCall,
    ToolResult,
    Trajectory,
    TurnEnd,
    Usage,
)
from proctor.util.clock import local_clock
from proctor.util.text import cache_write_text, controls_escaped, noun_for

if TYPE_CHECKING:
    from proctor.transcripts.builder import EventSink, StartHook

AGENTS = tuple(agent_names())
LINE_WIDTH = 100


@click.command("parse")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--agent",
    type=click.Choice(AGENTS),
    default=None,
    help="Read PATH as this agent's transcript (default: detect the format).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the trajectory as JSON.")
def command(path: Path, agent: str | None, as_json: bool) -> int:
    """Print the normalised trajectory, token usage and parse coverage of PATH.

    PATH is a Claude Code, Codex or Gemini CLI transcript file (or an ACP session log), or a
    session folder (a Claude Code <session>/ folder or project folder, a CODEX_HOME, a .gemini
    folder, any folder with sessions below it): of several sessions, the newest is shown, with
    a note. Events are printed as they are parsed, so a transcript of any size runs in flat
    memory; their times are on this machine's clock, under their date, as `proctor history`
    takes its days. An empty file or a file in no known format is an error (exit 2), unless
    --agent names the format to read it as (a file that agent's reader refuses is still one).
    """
    from proctor.session.transcript import session_in

    if str(path) == "-" and not path.exists():
        # The parsers read a file more than once (Codex's and Gemini CLI's in two passes).
        raise ConfigError("-: a transcript is read from its file, not from standard input")
    file, fmt, count = session_in(path, agent)
    _note_other_sessions(path, file, count)
    _note_cut(file)
    if agent is not None and count == 0:
        _note_forced(file, fmt, agent)
    # A reader that stops early (``proctor parse … | head``) ends the stream quietly, exit 0,
    # as it ends any command (proctor.cli.main.until_output_gone).
    if as_json:
        sys.stdout.flush()
        stream_json(file, fmt, sys.stdout.buffer)
    else:
        stream_text(file, fmt, click.echo)
    return 0


def _note_other_sessions(folder: Path, shown: Path, count: int) -> None:
    """A folder of many sessions: say which one is shown, and what reads them all."""
    if count > 1:
        import shlex

        def named(path: Path | str) -> str:  # a terminal's escape shown, never obeyed
            return controls_escaped(escape_surrogates(str(path)))

        # The command is one to copy: a folder with a space in its name is quoted.
        click.echo(
            f"proctor: note: {named(folder)} holds {count:,} session files; this is the "
            f"newest, {named(shown)} (`proctor history {named(shlex.quote(str(folder)))}` "
            "summarises them all)",
            err=True,
        )


def _note_cut(file: Path) -> None:
    """A transcript whose last line is cut short: what is shown may not be the whole session
    (the line itself is counted as unparsed)."""
    from proctor.transcripts.cut_short import LAST_LINE_CUT, last_line_cut

    if last_line_cut(file):
        click.echo(f"proctor: note: {escape_surrogates(str(file))}: {LAST_LINE_CUT}", err=True)


def _note_forced(file: Path, fmt: str, agent: str) -> None:
    """A file of another format read as ``--agent`` says: most of its records come out as
    ``other`` events, which a note explains (forcing a reading is allowed, never silent)."""
    from proctor.transcripts.detect import FORMAT_NAMES, sniffed_format

    found = sniffed_format(file)
    if found is not None and found != fmt:
        click.echo(
            f"proctor: note: {file} is {FORMAT_NAMES[found]}; --agent {agent} reads it as "
            f"{FORMAT_NAMES[fmt]}, so most of its records are `other` events (without "
            "--agent it is read as what it is)",
            err=True,
        )


def _stream(
    file: Path, fmt: str, sink: EventSink, on_start: StartHook | None = None
) -> tuple[Trajectory, dict[str, Any] | None]:
    """The parse, events handed to ``sink``; with Codex's usage cross-check, from the same
    reading of the rollout."""
    if fmt == "codex":
        from proctor.transcripts.codex import parse_codex_rollout_checked
        from proctor.transcripts.codex.threads import subagent_threads

        return parse_codex_rollout_checked(file, sink, on_start, subagent_threads(file))
    from proctor.transcripts.detect import stream_parse

    return stream_parse(file, fmt, sink, on_start), None


def stream_json(file: Path, fmt: str, out: BinaryIO) -> None:
    """One JSON document: ``format``, ``path``, ``events`` (one per line), ``usage``,
    ``coverage``, the session id and CLI version, and ``usageCheck`` for Codex."""
    import orjson

    from proctor.models.io import escape_surrogates

    # A file name that is not UTF-8 is shown with its bytes escaped (bad\xffname).
    path = orjson.dumps(escape_surrogates(str(file)))
    # Written with the first event, or at the end: a file the parser refuses before it hands
    # one on (another program's JSON, an older Gemini CLI chat cut short) leaves no half
    # document on standard output, only the error.
    opening = b'{"format": ' + orjson.dumps(fmt) + b', "path": ' + path + b', "events": ['
    separator = b"\n"

    def sink(event: dict[str, Any]) -> None:
        nonlocal separator
        try:
            data = orjson.dumps(event)
        except TypeError:  # a lone surrogate (half an emoji) in the transcript's text
            text = json.dumps(event, ensure_ascii=False)
            data = escape_surrogates(text, json_string=True).encode()
        if separator == b"\n":
            out.write(opening)
        out.write(separator + data)
        separator = b",\n"

    trajectory, check = _stream(file, fmt, sink)
    if separator == b"\n":  # no event
        out.write(opening)
    tail = trajectory.model_dump(by_alias=True, exclude_none=True, mode="json", exclude={"events"})
    tail.pop("format", None)
    if check is not None:
        tail["usageCheck"] = check
    out.write(b"\n]")
    for key, value in tail.items():
        out.write(b", " + orjson.dumps(key) + b": " + orjson.dumps(value))
    out.write(b"}\n")
    out.flush()


def stream_text(file: Path, fmt: str, echo: Callable[[str], Any]) -> None:
    """Readable lines: a header, one numbered line per event, usage, coverage."""
    count = 0
    started = False

    def start(session: str | None, version: str | None) -> None:
        nonlocal started
        started = True
        echo(str(file))
        echo(
            f"format {fmt}"
            + (f" · session {session}" if session else "")
            + (f" · version {version}" if version else "")
        )
        echo("")

    day_shown: str | None = None

    def sink(data: dict[str, Any]) -> None:
        nonlocal count, day_shown
        count += 1
        event = EVENT_ADAPTER.validate_python(data)
        day, clock = local_day_and_clock(event.ts)
        if day is not None and day != day_shown:  # the date, as history's days, when it changes
            echo(f"     {day}" + ("" if day_shown else f" (times of {local_clock()})"))
            day_shown = day
        head = f"{count:>4} {clock:<8} {event.type:<14} "
        echo(escape_surrogates(head + _short(describe(event), LINE_WIDTH - len(head))))

    trajectory, check = _stream(file, fmt, sink, start)
    if not started:  # nothing was handed on
        start(trajectory.session_id, trajectory.agent_version)
    for line in footer(trajectory, check):
        echo(line)


def local_day_and_clock(ts: str | None) -> tuple[str | None, str]:
    """The day (``2026-11-29``) and time (``10:00:04``) of an event's time on the machine's
    clock, as ``proctor history`` takes its days; a time without an offset as it is written,
    ``?`` for a text that is no time."""
    if not ts:
        return None, ""
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None, "?"
    if moment.utcoffset() is not None:
        try:
            moment = moment.astimezone()
        except (OverflowError, ValueError, OSError):  # a damaged clock's year 1
            pass
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}", moment.strftime("%H:%M:%S")


def _short(text: str | None, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def describe(event: Event) -> str:
    """One line of text for an event (without its number, time and type); a subagent's
    event, whatever its type, begins ``[sidechain]``."""
    side = "[sidechain] " if event.sidechain else ""
    if isinstance(event, ToolCall):
        detail = json.dumps(event.input or {}, ensure_ascii=False)
        files = f" files={','.join(event.files)}" if event.files else ""
        return f"{side}{event.name} ({event.kind}) {event.id}{files} {detail}"
    if isinstance(event, ToolResult):
        if event.denied:
            state = "denied"
        else:
            state = "?" if event.is_error is None else ("error" if event.is_error else "ok")
        return f"{side}{event.id} {state}: {event.output}"
    if isinstance(event, Usage):
        return (
            f"{side}{event.model} in={event.input_tokens:,} out={event.output_tokens:,} "
            f"cache_read={event.cache_read_tokens:,} cache_write={event.cache_write_tokens:,}"
            + (f" (1h={event.cache_write_1h_tokens:,})" if event.cache_write_1h_tokens else "")
        )
    if isinstance(event, TurnEnd):
        took = f"{event.duration_ms:.0f} ms" if event.duration_ms is not None else ""
        return side + f"{took} {event.text or ''}".strip()
    if isinstance(event, OtherEvent):
        raw = event.raw if isinstance(event.raw, str) else json.dumps(event.raw, ensure_ascii=False)
        body = event.text if event.text is not None else raw
        return f"{side}{event.record_type}: {body}"
    if isinstance(event, HookEvent):
        return f"{side}{event.name} {event.command or ''} exit={event.exit_code}"
    if isinstance(event, SkillEvent | SubagentEvent):
        return f"{side}{event.name or ''}".strip()
    return f"{side}{event.text or ''}"


def footer(trajectory: Trajectory, check: dict[str, Any] | None) -> list[str]:
    """The usage and coverage lines printed after the events."""
    out = ["", "usage"]
    if not trajectory.usage:
        out.append("  (none)")
    for model, usage in sorted(trajectory.usage.items()):
        out.append(
            f"  {model}: input {usage.input_tokens:,}, output {usage.output_tokens:,}, "
            f"cache read {usage.cache_read_tokens:,}, cache write "
            f"{cache_write_text(usage.cache_write_tokens, usage.cache_write_1h_tokens)} "
            f"({usage.responses:,} {noun_for(usage.responses, 'response')})"
        )
    if check is not None:
        verdict = {True: "matches", False: "DIFFERS", None: "no total in the rollout"}[check["ok"]]
        out.append(
            f"  check against total_token_usage: {verdict}"
            + (f" {check['difference']}" if check["ok"] is False else "")
            + (f"; source {check['source']}," if check["source"] is not None else ";")
            + f" {check['repeatsSkipped']} repeated token_count skipped"
        )
    coverage = trajectory.coverage
    unknown = ", ".join(f"{k} ×{v}" for k, v in sorted(coverage.unknown_record_types.items()))
    out += [
        "",
        f"coverage: {coverage.lines:,} {noun_for(coverage.lines, 'line')}, "
        f"{coverage.unparsed_lines:,} unparsed, "
        f"unknown record types: {unknown or 'none'}",
    ]
    return out
