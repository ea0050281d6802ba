"""``proctor mark``: note a change in the local journal that ``proctor history --changes``
compares before and after."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("mark")
@click.argument("text")
@click.option(
    "--project",
    # (a file is refused in the command, in the sentence `history --project` says it in.)
    type=click.Path(path_type=str),
    help="The folder the change applies to (default: the current folder).",
)
@click.option(
    "--at",
    "at",
    metavar="TIME",
    help="When the change took effect (default: now), e.g. 2026-11-30, 2026-W48-1 (an ISO "
    "week date) or 2026-11-30T14:00; without a zone, on this machine's clock.",
)
def command(text: str, project: str | None, at: str | None) -> int:
    """Record a change (a plugin enabled, a prompt edited) in the local change journal."""
    import os

    from proctor.errors import ConfigError
    from proctor.history.journal import (
        add_mark,
        clock_gap,
        from_current,
        journal_path,
        mark_for,
        refuse_a_file,
    )
    from proctor.paths import current_folder

    if project is not None and not project.strip():  # an unset variable: not the current folder
        raise ConfigError("--project is empty: name the folder the change applies to")
    # `--project=~/app` reaches proctor as written (a shell expands `~` only at a word's start).
    folder = Path(os.path.expanduser(project)) if project is not None else None
    if folder is not None:
        try:
            refuse_a_file(from_current(folder, current_folder(), f"--project {project}"))
        except OSError:  # a name too long: no folder here, which the note below says
            pass
    mark = mark_for(text, folder, at, current_folder())
    path = journal_path(os.environ)
    from proctor.cli.history import HISTORY_AGENTS, echo_note, within
    from proctor.history.folders import history_folders

    for agent in HISTORY_AGENTS:  # never into a history folder, which a replay reads
        inside = next(
            (f for f in history_folders(agent, None, os.environ) if within(path, f)), None
        )
        if inside is not None:
            raise ConfigError(
                f"{path}: the change journal would be inside {inside}, a history folder "
                f"`proctor history` reads; set PROCTOR_DATA_DIR to another folder"
            )
    try:
        add_mark(path, mark)
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot write the change journal ({_unwritable(path, exc)}); expected a "
            "file in a folder proctor can write (PROCTOR_DATA_DIR names another folder)"
        ) from exc
    # On one line, whatever the text holds (a line break, a terminal's control codes).
    from proctor.util.text import controls_escaped, one_line

    said = one_line(mark.text)
    project_shown = controls_escaped(str(mark.project))  # a folder's name: shown, not obeyed
    from datetime import UTC, datetime, timedelta

    from proctor.history.journal import shown_time

    when = shown_time(datetime.fromisoformat(mark.at))  # as `history --changes` shows it
    click.echo(
        f"proctor: marked '{said}' at {when} for {project_shown} ({controls_escaped(str(path))})",
        err=True,
    )
    gap = clock_gap(at) if at is not None else None
    if gap is not None:
        echo_note(gap)
    from proctor.util.clock import unknown_tz

    unknown = unknown_tz()
    if at is not None and unknown is not None and _without_zone(at):
        echo_note(
            f"--at {at} has no zone, and TZ={unknown} names no time zone this system knows: "
            "it is taken in UTC"
        )
    import re

    if at is not None and re.search(r"[.,]\d{7,}", at):
        echo_note(
            f"--at {at}: the journal keeps a time to the microsecond; the digits past the "
            "sixth of its fraction are dropped"
        )
    if datetime.fromisoformat(mark.at) > datetime.now(UTC) + timedelta(minutes=1):
        echo_note(
            f"{when} is in the future: no task sits after the change until then (--at "
            "backdates a change; without a zone, a time is on this machine's clock)"
        )
    # The folder itself, not the mark's name of it (a name that is not UTF-8 is kept escaped).
    named = folder if folder is not None else current_folder()
    if mark.project is not None and (named is None or not os.path.isdir(named)):
        echo_note(
            f"{mark.project} is not a folder here; the mark is kept, and counts the sessions "
            "that ran in that folder"
        )
    return 0


def _without_zone(at: str) -> bool:
    """Whether ``--at`` (a form ``mark`` took) is on the machine's clock: a date, an ISO
    week date or a time without an offset."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(at.strip()).tzinfo is None
    except ValueError:  # a form Python does not read alike: a date's, without a zone
        return True


def _unwritable(path: Path, exc: OSError) -> str:
    """Why the journal ``path`` could not be written. Only ``os.path`` look-ups here: they
    answer False, never raise, where a folder on the way cannot be entered."""
    import os

    from proctor.history.journal import dangling_link
    from proctor.history.listing import shut_folder

    blocker = next((p for p in path.parents if os.path.isfile(p)), None)
    if blocker is not None:
        return f"{blocker} is a file, not a folder"
    if os.path.isdir(path):
        return "it is a folder, not a file"
    gone = dangling_link(path)
    if gone is not None:
        return f"it {gone}"
    if isinstance(exc, PermissionError):
        where = str(exc.filename or path)
        shut = shut_folder(where)
        if shut != where or os.path.lexists(where):
            return f"permission denied: {shut}"
        # Not there, and nothing on the way shut: the folder it would go in is not writable.
        folder = next((str(p) for p in Path(where).parents if os.path.lexists(p)), where)
        return f"permission denied: {folder} cannot be written in"
    return exc.strerror or str(exc)
