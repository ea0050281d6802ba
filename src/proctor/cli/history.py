"""``proctor history``: the user's own recorded sessions, replayed as measurements."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import click

from proctor.cli.options import CONFIG_PATH, GivenPath

if TYPE_CHECKING:
    from proctor.history.cache import SummaryCache
    from proctor.history.layout import Session

HISTORY_AGENTS = ("claude-code", "codex", "gemini-cli")
MAX_WORKERS = 256
"""The most processes ``--workers`` starts (each is a fork of this one)."""


@click.command("history")
# (readable=False: a PATH that cannot be read is listed as unavailable, the others are read.)
@click.argument(
    "paths", nargs=-1, type=GivenPath("a session file or a folder of them", readable=False)
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    type=click.Choice(HISTORY_AGENTS),
    help="Only this agent's sessions (repeatable; default: all three).",
)
@click.option(
    "--home",
    # (checked in the command: a DIR behind a folder proctor may not enter is read as far
    # as it can be, each agent's history listed as unavailable, not refused as missing.)
    type=GivenPath("the folder holding .claude, .codex and .gemini", readable=False),
    metavar="DIR",
    help=(
        "Read DIR/.claude, DIR/.codex and DIR/.gemini instead of the usual places (a DIR "
        "that is not there, or not a folder, is a usage error, exit 2)."
    ),
)
@click.option(
    "--project", "project_text", metavar="PATH", help="Only sessions that ran in this folder."
)
@click.option(
    "--since",
    metavar="DATE",
    help="Only sessions that started on or after this day: YYYY-MM-DD, an ISO week date "
    "(2026-W48-1), a time (its day on this machine's clock: 2026-11-29T20:00-08:00), today, "
    "yesterday, or days or weeks back (7d, 2w).",
)
@click.option(
    "--until",
    metavar="DATE",
    help="Only sessions that started on or before this day (as --since takes it).",
)
@click.option(
    "--by",
    type=click.Choice(["project", "day", "week", "month", "agent"]),
    help="Add a table with a row per project, per day, per ISO week, per month or per agent "
    "(days, weeks and months of the local time zone).",
)
@click.option(
    "--changes",
    is_flag=True,
    help="Compare the tasks before and after each change marked with `proctor mark`.",
)
@click.option(
    "--config",
    type=CONFIG_PATH,
    help="Take model prices from this proctor.json's `pricing`, and check patterns and rule "
    "thresholds from its `metrics` (default: ./proctor.json); other models take the list "
    "prices proctor ships; - reads it from standard input.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=MAX_WORKERS),
    help=f"Parse on N processes, 1 to {MAX_WORKERS} (default: one per CPU proctor may use; "
    "never more than there are sessions).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Parse every session again, and keep nothing for the next replay (see docs/history.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of Markdown.")
def command(
    paths: tuple[Path, ...],
    agents: tuple[str, ...],
    home: Path | None,
    project_text: str | None,
    since: str | None,
    until: str | None,
    by: str | None,
    changes: bool,
    config: Path | None,
    workers: int | None,
    no_cache: bool,
    as_json: bool,
) -> int:
    """Summarise recorded agent sessions: tasks, verification, time, steps, rules, tokens.

    Reads each CLI's sessions where it keeps them (honouring CLAUDE_CONFIG_DIR, CODEX_HOME and
    GEMINI_CLI_HOME), or the folders and files given as PATHS. A session is a task when it
    changed code. Never writes into a history folder. Exits 0 whenever it could read what it
    was asked to read (an agent's history that is not there, or a folder given that holds no
    session, is listed as unavailable); 2 when none of the PATHS is a session or a folder that
    could be read, or an option is malformed (a --home that is not a folder).

    Summaries of unchanged sessions are read from proctor's cache folder
    ($PROCTOR_CACHE_DIR, else $XDG_CACHE_HOME/proctor, else ~/.cache/proctor) unless
    --no-cache is given.
    """
    import sys

    from proctor.cli.progress import ReplayProgress
    from proctor.errors import ConfigError
    from proctor.history.cache import SummaryCache
    from proctor.history.cache import cache_file as history_cache_file
    from proctor.history.changes import compare_changes, render_changes
    from proctor.history.copies import each_session_once
    from proctor.history.dedup import any_response_shared, count_each_response_once
    from proctor.history.folders import absolute_given, history_folders
    from proctor.history.forks import any_family, forks_measured_apart
    from proctor.history.journal import (
        from_current,
        journal_path,
        parse_day,
        read_marks,
        refuse_a_file,
    )
    from proctor.history.kin import kin_of
    from proctor.history.projects import (
        name_hashed_projects,
        same_project,
        unreadable_project_roots,
    )
    from proctor.history.record import SessionRecord
    from proctor.history.replay import Filters, Other, replay
    from proctor.history.sources import OTHER_AGENTS_ONLY, find_sessions, sessions_under
    from proctor.history.summary import (
        history_json,
        history_report,
        in_order,
        render_history,
        scope_text,
    )
    from proctor.models.history import Unavailable
    from proctor.models.io import model_to_json
    from proctor.models.pricing import PriceTable
    from proctor.paths import current_folder
    from proctor.transcripts.detect import CLI_NAMES
    from proctor.util.collection import collection_paused
    from proctor.util.text import controls_escaped

    if home is not None:
        _check_home(home)
    chosen = tuple(dict.fromkeys(agents)) or HISTORY_AGENTS  # --agent x --agent x: once
    cwd = current_folder()  # None in a folder deleted meanwhile: it holds no proctor.json
    if project_text is not None and not project_text.strip():  # an unset variable
        raise ConfigError("--project is empty: name the folder whose sessions to read")
    project = None
    if project_text is not None:
        # `--project=~/app` reaches proctor as written (a shell expands `~` only at a word's
        # start).
        given = Path(os.path.expanduser(project_text))
        # Named as the system reads it (`/work/app/../app` is /work/app), in the notes too.
        project = absolute_given(from_current(given, cwd, f"--project {project_text}"))
    filters = Filters(
        project=project,
        since=parse_day(since, "--since") if since is not None else None,
        until=parse_day(until, "--until") if until is not None else None,
    )
    if project is not None:
        try:
            refuse_a_file(project)
        except OSError as exc:  # a name too long for the system: no session ran there
            raise ConfigError(f"--project {project}: {exc.strerror or exc}") from None
    # The date options as given, for the notes that name what left sessions out.
    window = [f"--{name} {day}" for name, day in (("since", since), ("until", until)) if day]
    if filters.since and filters.until and filters.since > filters.until:
        raise ConfigError(
            f"--since {since} is after --until {until}: no session can start in that window"
        )
    from proctor.models.loading import load_top_config, top_config_path

    pricing = PriceTable()
    metrics = None  # the project's check patterns and rule thresholds, as its trials take them
    try:
        found = top_config_path(config, cwd) if cwd is not None else config
        if found is not None:  # ./proctor.json when no --config
            top, _ = load_top_config(found, cwd or found.parent)
            pricing, metrics = PriceTable(prices=dict(top.pricing)), top.metrics
    except ConfigError as exc:
        if config is not None:  # the file named: its prices were asked for
            raise
        # ./proctor.json of the folder it runs in: only its prices were to be read, and a
        # replay reads what it can.
        echo_note(
            f"{exc}; its prices are not used (models are priced at the list prices proctor "
            "ships, or shown unpriced), nor its metrics settings (proctor's defaults are)"
        )
    if paths and home is not None:
        echo_note(f"--home {home} is not read: the PATHS given are")
    # The journal first: one that cannot be read stops --changes before the replay.
    marks, notes = read_marks(journal_path(os.environ)) if changes else ([], [])
    if changes and by is not None:
        echo_note(f"--by {by} does not apply to --changes")
    if paths:
        # Absolute, as the history folders are: a session's path reads from any folder, and
        # is the same however the PATH was written.
        typed = {str(absolute_given(p)): str(p) for p in paths}
        sessions, unavailable = sessions_under([Path(p) for p in typed], chosen)
        # A PATH whose sessions --agent all left out was read, as a --since that keeps none;
        # so was a folder that could be listed (one that holds no session says so).
        if (
            not sessions
            and not any(u.reason.startswith(OTHER_AGENTS_ONLY) for u in unavailable)
            and not any(map(_listed_folder, typed))
        ):
            # Each PATH named as it was typed.
            reasons = "; ".join(f"{typed.get(u.path, u.path)}: {u.reason}" for u in unavailable)
            raise ConfigError(f"nothing to replay ({reasons})")
    else:
        sessions, unavailable = find_sessions(chosen, home, os.environ)
    for note in unreadable_project_roots(sessions):
        echo_note(note)
    cache = None
    if not no_cache:
        cache_file = history_cache_file(os.environ)  # a relative PROCTOR_CACHE_DIR: refused
        # Never into a history folder: those given, and every agent's, read now or not
        # (under --home, and the user's own).
        inside = next((where for root in paths if (where := _reads(cache_file, root))), None)
        homes = [home, None] if home is not None else [None]
        folders = (
            (agent, folder)
            for agent in HISTORY_AGENTS
            for where in homes
            for folder in history_folders(agent, where, os.environ)
        )
        for agent, folder in folders:
            if inside is None and within(cache_file, folder):
                inside = f"{folder}, {CLI_NAMES[agent]}'s history folder"
        if inside is None:
            cache = SummaryCache(cache_file, pricing, metrics)
        else:  # a replay never writes into a history folder
            echo_note(
                f"the history cache {cache_file} would be inside {inside}: "
                "no cache is kept (set PROCTOR_CACHE_DIR elsewhere)"
            )
    replayed: list[SessionRecord] = []
    with collection_paused(freeze=True), ReplayProgress(len(sessions)) as progress:
        # The days are kept after the forks are told (a fork started when its copy did) and
        # each response is given its one session (the other may be out of the window).
        everywhere = Filters(project=filters.project)
        listed = len(unavailable)
        # The Claude Code sessions --project leaves out, with what tells their kin (a fork or a
        # copy of one of its sessions kept in another project's folder: see history/kin).
        others: list[Other] | None = [] if filters.project is not None else None
        results = replay(
            sessions,
            everywhere,
            pricing,
            workers=workers,
            cache=cache,
            metrics=metrics,
            others=others,
        )
        try:
            for result in results:
                if isinstance(result, Unavailable):
                    unavailable.append(result)
                else:
                    replayed.append(result)
                progress.advance()
        except KeyboardInterrupt:
            # Ctrl-C: the workers are stopped, and the sessions measured so far are kept for
            # the next replay, which starts where this one stopped.
            results.close()
            _save(cache, sessions)
            raise

        def measure(them: list[Session]) -> list[SessionRecord]:
            """Sessions of other projects measured in full (as a replay of every project)."""
            found = replay(them, Filters(), pricing, workers=workers, cache=cache, metrics=metrics)
            return [record for record in found if isinstance(record, SessionRecord)]

        try:
            # Their families told as a replay of every project tells them, then left out.
            mine = {record.path for record in replayed}
            kin = kin_of(replayed, others, measure) if others else []
            replayed += kin
            if any_response_shared(replayed) or any_family(replayed):  # rare: a fork, a copy
                told = forks_measured_apart(
                    replayed, pricing, None, cache, workers=workers, metrics=metrics
                )
                count_each_response_once(replayed, pricing)  # a response copied otherwise: once
                unavailable += [u for u in told if u.path in mine]
            if kin:
                replayed = [record for record in replayed if record.path in mine]
        finally:  # the summaries (and the forks' measures) kept, Ctrl-C or not
            _save(cache, sessions)
        replayed, copied = each_session_once(replayed)  # a Codex or Gemini CLI file's copy
        unavailable += copied
        # What the replay found unavailable, in the order of its files (the workers finish
        # in no particular order), after what the listing found.
        unavailable[listed:] = sorted(unavailable[listed:], key=lambda u: (u.path, u.reason))
        if filters.since is not None or filters.until is not None:
            replayed = [record for record in replayed if filters.keeps(record)]
        if not replayed and sessions and filters != Filters():
            asked = [f"--project {project}"] if project is not None else []
            asked += window
            one = len(sessions) == 1
            said = (
                f"the 1 session listed does not pass {' '.join(asked)}"
                if one
                else f"none of the {len(sessions)} sessions listed passes {' '.join(asked)}"
            )
            if project is not None:  # the next step: the folders they ran in
                said += "" if os.path.isdir(project) else " (no such folder here)"
                said += "; `proctor history --by project` lists the " + (
                    "folder it ran in" if one else "folders they ran in"
                )
            echo_note(said)
        # A Gemini CLI chat known by its project's hash is named by the folder of that hash
        # when another session (or --project) names it.
        name_hashed_projects(replayed, [str(filters.project)] if filters.project else [])
        ordered = in_order(replayed)
        report = history_report(ordered, unavailable, pricing, by)  # type: ignore[arg-type]
    if changes:
        for note in notes:
            echo_note(note)
        elsewhere = 0
        if project is not None:  # the changes of that project only, as its sessions
            kept = [m for m in marks if m.project is None or same_project(m.project, project)]
            elsewhere, marks = len(marks) - len(kept), kept
        for gone in report.unavailable:  # the tables say nothing of what could not be read
            where = f"{gone.agent} " if gone.agent else ""
            echo_note(f"unavailable: {where}{gone.path}: {gone.reason}")
        if filters.since is not None or filters.until is not None:
            echo_note("--since/--until also limit the tasks --changes compares")
        limits = [f"--agent {a}" for a in dict.fromkeys(agents)] + window
        comparisons = compare_changes(marks, ordered, limited_by=" ".join(limits))
        if as_json:
            click.echo("[" + ",\n".join(model_to_json(c).rstrip() for c in comparisons) + "]")
        elif not comparisons and elsewhere:
            click.echo(
                f"No change marked for {controls_escaped(str(project))} ({elsewhere} marked "
                "for other projects: `proctor history --changes` without --project shows them)."
            )
        else:
            click.echo(render_changes(comparisons), nl=False)
        return 0
    if as_json:
        text = history_json(report, ordered)
        out = getattr(sys.stdout, "buffer", None)
        if out is None:  # a stream of text only
            sys.stdout.write(text.decode() + "\n")
        else:  # JSON is UTF-8: the bytes as they are, not decoded and encoded again
            sys.stdout.flush()
            out.write(text)
            out.write(b"\n")
    else:
        scope = scope_text(
            agents, None if project is None else str(project), filters.since, filters.until, by
        )
        click.echo(render_history(report, scope), nl=False)
    return 0


def echo_note(text: str) -> None:
    """``proctor: note: TEXT`` on standard error, its control characters escaped (see
    :func:`~proctor.util.text.controls_escaped`): a folder or file name that holds a
    terminal's escape sequence is shown, never obeyed, and kept in a log whose writer would
    strip the sequence (naming a file that is not there)."""
    from proctor.util.text import controls_escaped

    click.echo(f"proctor: note: {controls_escaped(text)}", err=True)


def _listed_folder(path: str) -> bool:
    """Whether ``path`` is a folder whose entries can be listed: what it was asked for was read."""
    try:
        with os.scandir(path):
            return True
    except OSError:  # not there, not a folder, no permission
        return False


def _check_home(home: Path) -> None:
    """A usage error for a ``--home`` that is not there or is not a folder (a typo more
    likely than an empty history). One that cannot be looked at (no permission on it or on a
    folder above it) is let by: each agent's history under it is then listed as unavailable,
    "permission denied: FOLDER", as a history folder named by the environment is."""
    try:
        found = os.stat(home)
    except PermissionError:
        return
    except (FileNotFoundError, NotADirectoryError):  # not there, or below a file
        raise click.BadParameter(f"{home}: no such folder", param_hint="'--home'") from None
    except OSError as exc:  # a link in a loop, a name too long
        why = f"{home}: cannot be read ({exc.strerror or exc})"
        raise click.BadParameter(why, param_hint="'--home'") from None
    if not stat.S_ISDIR(found.st_mode):  # a file, a device (/dev/null)
        raise click.BadParameter(f"{home} is not a folder", param_hint="'--home'")


def _reads(cache_file: Path, given: Path) -> str | None:
    """Where the cache would be written that the replay of ``given`` reads (said as the note
    names it), or None: inside a folder given; for a session file given alone, in the folder
    that holds it (a history folder) or in its subagents' folder (a Claude Code session's
    ``<session>/``, a Gemini CLI chat's ``<session id>/`` beside it); inside the CLI's folder
    that holds what is given (see :func:`_cli_folder_holding`). Any other folder above is not
    read: a session file in the home folder leaves ``~/.cache`` alone."""
    if within(cache_file, given):
        return f"{given}, which is read"
    # (os.path.isdir: a PATH behind a folder proctor may not enter is no folder it reads.)
    found = None if os.path.isdir(given) else _file_reads(cache_file, given)
    if found is not None:
        return found
    from proctor.history.homes import CLI_FOLDER_MARKS

    cli = _cli_folder_holding(given)
    if cli is None or not within(cache_file, cli):
        return None
    if cli == given.parent and given.name in CLI_FOLDER_MARKS:  # its projects/ or sessions/
        return f"{cli}, the folder of the history {given.name}/ given"
    return f"{cli}, the history folder that holds {given}"


def _file_reads(cache_file: Path, given: Path) -> str | None:
    """Where the cache would be written that the replay of the file ``given`` reads, in its
    folder or its subagents' (see :func:`_reads`), or None."""
    if os.path.realpath(cache_file.parent) == os.path.realpath(given.parent):
        return f"{given.parent}, the folder of {given.name}, which is read"
    from proctor.util.native_paths import first_record, gemini_subagent_chats

    session_id = first_record(given).get("sessionId")
    parts = [given.with_suffix("")]
    if isinstance(session_id, str) and session_id and "/" not in session_id:
        # A Gemini CLI chat's subagent chats, and those of its subagents' subagents.
        parts.append(given.parent / session_id)
        parts += sorted({chat.parent for chat in gemini_subagent_chats(given)})
    found = next((part for part in parts if within(cache_file, part)), None)
    if found is not None:
        return f"{found}, the subagents' folder of {given.name}"
    if _laid_out(given) and within(cache_file, given.parent):
        return f"{given.parent}, the history folder of {given.name}"
    return None


DEEPEST = 5
"""The most folders a CLI keeps between its folder of sessions and a session's file, or a
subagent's: Codex's year, month and day; Gemini CLI's project, ``chats/`` and a subagent's
folder; Claude Code's project, session, ``subagents/``, ``workflows/`` and a run's."""


def _cli_folder_above(given: Path) -> bool:
    """Whether ``given`` is a CLI's own folder of sessions, the CLI's folder above it (named
    ``.claude``, ``.codex`` or ``.gemini``, or holding what such a folder holds)."""
    from proctor.history.homes import cli_folder

    return cli_folder(given.parent, given.name)


def _cli_folder_holding(given: Path) -> Path | None:
    """The CLI's folder that holds ``given`` (a folder or a file given as a PATH, as written
    and with its links resolved): the folder above a CLI's ``projects/``, ``sessions/``,
    ``archived_sessions/`` or ``tmp/`` that ``given`` is, or lies in (a project, a day, a
    ``chats/`` folder, a session's file), or a ``.claude``, ``.codex`` or ``.gemini`` folder
    that holds it; None when there is none (within :data:`DEEPEST` folders above)."""
    from proctor.history.homes import CLI_FOLDERS

    for path in dict.fromkeys((Path(os.path.abspath(given)), Path(os.path.realpath(given)))):
        # The PATH, the folders between, the CLI's folder of sessions and the CLI's folder.
        for folder in [path, *path.parents][: DEEPEST + 3]:
            if folder.name in CLI_FOLDERS:
                return folder
            if _cli_folder_above(folder):
                return folder.parent
    return None


def _laid_out(session_file: Path) -> bool:
    """Whether a session file lies where its CLI keeps sessions (a Claude Code project folder
    under ``projects/``, a Codex day folder under ``sessions/``, a Gemini CLI ``chats/``):
    its folder is then a history folder as a whole, not one that merely holds it."""
    folders = session_file.parent.parts
    return (
        (len(folders) > 1 and folders[-2] == "projects")
        or "sessions" in folders[-4:]
        or "archived_sessions" in folders[-4:]
        or folders[-1:] == ("chats",)
    )


def within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or inside it, links resolved."""
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _save(cache: SummaryCache | None, sessions: list[Session]) -> None:
    """The summaries measured now written to the cache, with its notes on stderr."""
    if cache is None:
        return
    cache.save((s.file for s in sessions), (p for s in sessions for p in s.parts))
    for note in cache.notes:
        echo_note(note)
