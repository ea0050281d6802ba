"""``proctor annotate``: a person's mark on one trial of a run."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from proctor.models.run import AnnotationsRecord
    from proctor.models.trial import TrialAnnotation
    from proctor.paths import RunPaths


@click.command("annotate")
@click.argument("run_dir", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.argument("trial")
@click.option(
    "--verdict",
    type=click.Choice(["failed", "excluded"]),
    help="failed: count the trial as a failure; excluded: leave it out of the statistics "
    "(required unless --remove is given).",
)
@click.option(
    "--note",
    help="Why (kept with the mark and shown in reports; required unless --remove is given).",
)
@click.option(
    "--remove",
    is_flag=True,
    help="Take the trial's mark away: it counts as it ended again (the mark removed is said).",
)
def command(run_dir: Path, trial: str, verdict: str | None, note: str | None, remove: bool) -> int:
    """Mark TRIAL (case/agent/condition/repeat) of RUN_DIR, for example when the agent drifted
    to another bug. `report` and `compare` read the run with the mark applied and show it; the
    trial's own record is left as written. A new mark on a trial replaces the old one;
    --remove takes it away."""
    from proctor.errors import ConfigError
    from proctor.models.io import escape_surrogates, write_record
    from proctor.models.trial import TrialAnnotation
    from proctor.paths import LEDGER_FILE, RunPaths, ledger_holds
    from proctor.util.clock import now_iso
    from proctor.util.json_shown import WHOLE, json_text

    wanted = _mark_wanted(verdict, note, remove)
    parts = (_inside_trials(run_dir, trial) or trial).split("/")
    if len(parts) > 1 and not parts[-1]:  # one trailing slash, as a shell completes a folder
        parts = parts[:-1]
    if len(parts) > 1 and not parts[0]:  # one leading slash
        parts = parts[1:]
    if len(parts) == 5 and parts[0] == "trials":  # as suite.md lists it: trials/fix/…/1
        parts = parts[1:]
    if (
        len(parts) != 4
        or "" in parts  # fix//default/1: no agent, not the trials of another folder
        or not (parts[3].isascii() and parts[3].isdigit())  # not ², not ١
        or any(part in (".", "..") for part in parts)  # a folder of the run's trials, no other
    ):
        near = _nearest(run_dir, "/".join(parts))
        raise ConfigError(
            f"TRIAL {json_text(trial, WHOLE)}: expected case/agent/condition/repeat, "
            f"e.g. fix/codex/default/1{_what_is_off(parts)}"
            f"{f' ({near.strip()})' if near else ''}"
        )
    trial = "/".join(parts)
    parts[3] = str(int(parts[3]))  # 01 is repeat 1: the mark names it as reports do
    paths = RunPaths(run_dir)
    folder = paths.root / "trials"
    for i in range(3):  # a name as reports show it (plug\xff) is the folder it shows
        parts[i] = _entry_named(folder, parts[i])
        folder = folder / parts[i]
    trial = escape_surrogates("/".join(parts))  # the trial as reports name it, from here on
    if wanted is None:
        return _remove_mark(run_dir, parts, trial)
    verdict, note = wanted
    _refuse_links(paths.trials_dir, parts)
    if not paths.trial(parts[0], parts[1], parts[2], int(parts[3])).trial_json.is_file():
        _refuse_no_trial(run_dir, parts, trial)
    if not note.strip():
        raise ConfigError("--note: say why the trial is marked")
    mark = TrialAnnotation.model_validate(
        {
            "trial": trial,
            "verdict": verdict,
            "note": note.strip(),
            "at": now_iso(),
        }
    )
    with _marks_locked(paths) as record:
        replaced = [a for a in record.annotations if a.trial == mark.trial]
        record.annotations = [a for a in record.annotations if a.trial != mark.trial] + [mark]
        write_record(paths.annotations, record)
    click.echo(f"proctor: {mark.trial} marked {verdict}: {mark.note}", err=True)
    for old in replaced:  # the note a person wrote before is said, not dropped unseen
        click.echo(
            f"proctor: note: this replaces its mark of {old.at}: {old.verdict}: {old.note}",
            err=True,
        )
    ids = _findings_of(paths.root.parent, paths.root.name, mark.trial.rsplit("/", 1)[0])
    if ids and ledger_holds(paths.root.parent, paths.root.name):  # it took the run as it ended
        click.echo(
            f"proctor: note: {paths.root.parent / LEDGER_FILE} took this run in before the "
            f"mark: its findings of {mark.trial.rsplit('/', 1)[0]} ({', '.join(ids)}) stay as "
            "they were; the mark changes what `report` and `compare` count (`proctor findings "
            "dismiss ID --reason TEXT` dismisses one)",
            err=True,
        )
    return 0


def _mark_wanted(verdict: str | None, note: str | None, remove: bool) -> tuple[str, str] | None:
    """The verdict and note of the mark to make; None for ``--remove``, which takes neither."""
    if remove:
        given = [o for o, v in (("--verdict", verdict), ("--note", note)) if v is not None]
        if given:
            raise click.UsageError(
                f"--remove takes the trial's mark away: it takes no {' or '.join(given)}"
            )
        return None
    if verdict is None or note is None:
        missing = "--verdict" if verdict is None else "--note"
        raise click.UsageError(
            f"Missing option '{missing}': give it, or --remove to take a mark away"
        )
    return verdict, note


def _remove_mark(run_dir: Path, parts: list[str], trial: str) -> int:
    """``--remove``: the run's ``annotations.json`` without the mark of ``trial``, the mark
    said as it was. A trial with no mark is refused: one the run does not hold as a new mark
    of it is, one it holds naming the trials that are marked."""
    from proctor.errors import ConfigError
    from proctor.models.io import write_record
    from proctor.models.run import AnnotationsRecord
    from proctor.paths import RunPaths

    paths = RunPaths(run_dir)
    removed: list[TrialAnnotation] = []
    record = AnnotationsRecord()
    if os.path.lexists(paths.annotations):  # (no lock file made where no mark was ever made)
        with _marks_locked(paths, "remove the mark") as record:
            removed = [a for a in record.annotations if a.trial == trial]
            if removed:
                record.annotations = [a for a in record.annotations if a.trial != trial]
                write_record(paths.annotations, record)
    if not removed:
        if not paths.trial(parts[0], parts[1], parts[2], int(parts[3])).trial_json.is_file():
            _refuse_no_trial(run_dir, parts, trial)
        marked = [a.trial for a in record.annotations]
        more = f" and {len(marked) - 10} more" if len(marked) > 10 else ""
        listed = f"marked: {', '.join(marked[:10])}{more}" if marked else "no trial is marked"
        raise ConfigError(f"{run_dir}: trial {trial} has no mark to remove ({listed})")
    for old in removed:  # the note a person wrote is said, not dropped unseen
        click.echo(
            f"proctor: {trial}: mark removed, it counts as it ended again (the mark was, "
            f"of {old.at}: {old.verdict}: {old.note})",
            err=True,
        )
    return 0


@contextmanager
def _marks_locked(paths: RunPaths, change: str = "mark") -> Iterator[AnnotationsRecord]:
    """The run's marks, read while no other ``annotate`` reads or writes them: marks made at
    once (a loop of annotate in parallel) would each rewrite the file from what they read, and
    all but the last would be lost. One that does not read is refused (the refusal says what
    ``change`` would lose), never replaced."""
    from proctor.errors import ConfigError
    from proctor.report.annotations import read_annotations

    lock = paths.root / ".annotations.lock"
    try:
        held = os.open(lock, os.O_CREAT | os.O_WRONLY, 0o600)
    except OSError as exc:
        raise ConfigError(f"{lock}: cannot be made ({exc.strerror or exc})") from exc
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            record = read_annotations(paths.root, strict=True)
        except ConfigError as exc:
            # The marks already there are a person's work: never replaced by a file without them.
            doing = "a new mark" if change == "mark" else "removing a mark"
            raise ConfigError(
                f"{exc}; {doing} would lose the marks it holds: mend it (or move it away), "
                f"then {change} again"
            ) from exc
        yield record
    finally:
        os.close(held)


def _refuse_no_trial(run_dir: Path, parts: list[str], trial: str) -> NoReturn:
    """Refuse ``trial``, which has no ``trial.json`` in ``run_dir``, saying why: a results
    directory or a folder inside a run given as the run, a trial of a run still running that
    has not ended, or one the run does not hold (its nearest named)."""
    from proctor.errors import ConfigError, SchemaVersionError
    from proctor.paths import RunPaths, newest_run_in, run_holding
    from proctor.util.json_shown import WHOLE, json_text

    paths = RunPaths(run_dir)
    newest = newest_run_in(run_dir)
    if newest is not None:
        raise ConfigError(
            f"{run_dir}: a results directory, not a run folder; name the run folder of "
            f"the trial (the newest: {newest})"
        )
    holder = run_holding(run_dir) if not paths.run_json.is_file() else None
    if holder is not None:  # `proctor annotate RUN/trials …`, too deep
        raise ConfigError(
            f"{run_dir}: a folder inside the run folder {holder}, not a run folder; name "
            "the run folder of the trial"
        )
    from proctor.report.planned import planned_cells
    from proctor.session.journal import live_orchestrator

    running = live_orchestrator(paths.journal)
    # A plan that does not read is said with the refusal, not read as one planning nothing.
    unread = None
    try:
        planned = {"/".join(map(str, cell)) for cell in planned_cells(run_dir)}
    except (ConfigError, SchemaVersionError) as exc:
        planned, unread = set(), str(exc)
    if running is not None and (trial in planned or not planned):
        raise ConfigError(
            f"{run_dir}: no trial {trial} yet: the run is still running (process "
            f"{running}); a trial it plans can be marked once it has ended"
        )
    near = _nearest(run_dir, trial)
    why = "not in the run's plan" if running is not None else f"no trials/{trial}/trial.json"
    if unread is not None:  # not "not in the run's plan": that is not known
        why = f"no trials/{trial}/trial.json; {unread}"
    named = trial
    if any(part != part.strip() for part in parts):  # ` fix/…`: the space is shown, said
        why += "; a part of the name begins or ends with a space"
        named = json_text(trial, WHOLE)
    raise ConfigError(f"{run_dir}: no trial {named} ({why}{f'; {near.strip()}' if near else ''})")


_PARTS = ("case", "agent", "condition", "repeat")


def _inside_trials(run_dir: Path, trial: str) -> str | None:
    """TRIAL named by the path of its folder (``RUN/trials/fix/codex/default/1``, as a shell
    completes it, or absolute; the run reached through a link too) as case/agent/condition/
    repeat; None for a TRIAL that is no path into a ``trials`` folder, read as it is written.
    Refuses the path of a trial folder of another run, naming that run."""
    from proctor.errors import ConfigError
    from proctor.paths import RunPaths, run_holding
    from proctor.util.json_shown import WHOLE, json_text

    if trial.strip("/").count("/") < 4:  # case/agent/condition/repeat, or trials/… as listed
        return None
    trials = os.path.abspath(RunPaths(run_dir).trials_dir)
    given = os.path.abspath(trial)
    if given != trials and os.path.commonpath([trials, given]) == trials:
        return Path(os.path.relpath(given, trials)).as_posix()
    # The folder holding the trial's four parts, compared as the system reads it: the same
    # run named through a link (its last four parts stay as given: a link among them is
    # refused as the run's own never is).
    parts = Path(given).parts[-4:]
    holder = Path(given).parents[3]
    if os.path.realpath(holder) == os.path.realpath(trials):
        return "/".join(parts)
    other = run_holding(Path(trial))  # (named as given)
    if other is not None and os.path.realpath(other / "trials") == os.path.realpath(holder):
        raise ConfigError(
            f"TRIAL {json_text(trial, WHOLE)}: a trial folder of another run, {other}, not "
            f"of {run_dir}; give that run as RUN_DIR: proctor annotate {other} "
            f"{'/'.join(parts)} …"
        )
    return None


def _what_is_off(parts: list[str]) -> str:
    """``; its agent is empty`` or ``; its repeat is missing`` for a trial named with an empty
    part or too few parts; else nothing."""
    if parts == [""]:
        return "; it is empty"
    if "" in parts:
        if len(parts) != 4:
            return "; it has an empty part (two slashes together)"
        return f"; its {_listed([n for n, p in zip(_PARTS, parts, strict=True) if not p])} empty"
    if len(parts) < 4:
        return f"; its {_listed(list(_PARTS[len(parts) :]))} missing"
    return ""


def _listed(names: list[str]) -> str:
    """``agent is``, ``case and agent are``, ``agent, condition and repeat are``."""
    if len(names) == 1:
        return f"{names[0]} is"
    return f"{', '.join(names[:-1])} and {names[-1]} are"


def _findings_of(results_dir: Path, run_id: str, group: str) -> list[str]:
    """The ids of the findings the ledger of ``results_dir`` holds for ``group``
    (case/agent/condition) of the suite run ``run_id`` ran, as the ledger tells it (with those
    naming no suite, which may be of any): another suite's findings of a case of the same name
    are not this run's. None when the ledger does not read."""
    from proctor.errors import ConfigError, SchemaVersionError
    from proctor.report.findings import known_suites, load_ledger

    try:
        ledger = known_suites(results_dir, load_ledger(results_dir))
    except (ConfigError, SchemaVersionError):
        return []
    suite = ledger.run_suites.get(run_id)
    return [
        f.id
        for f in ledger.findings
        if f.suite in (None, suite) and f"{f.case}/{f.agent}/{f.condition}" == group
    ]


def _nearest(run_dir: Path, trial: str) -> str:
    """``did you mean 'fix/codex/default/1'? `` for the trials of the run (ended or planned)
    nearest ``trial``, as reports name them; else nothing."""
    from proctor.models.io import escape_surrogates
    from proctor.paths import RunPaths
    from proctor.report.planned import planned_cells
    from proctor.util.text import did_you_mean

    paths = RunPaths(run_dir)
    ended = {
        escape_surrogates(path.parent.relative_to(paths.trials_dir).as_posix())
        for path in paths.trial_jsons()
    }
    # (suggestions only: a plan that does not read offers none; the refusal says why)
    planned = {"/".join(map(str, cell)) for cell in planned_cells(run_dir, [])}
    return did_you_mean(trial, sorted(ended | planned), n=2)


def _entry_named(folder: Path, name: str) -> str:
    """The entry of ``folder`` that ``name`` names: the one spelled so, else the one a report
    shows so (a byte of its name that is not UTF-8 written ``\\xff``, as in every record)."""
    from proctor.models.io import escape_surrogates

    if "\\" not in name or os.path.lexists(folder / name):
        return name
    try:
        found = [entry for entry in os.listdir(folder) if escape_surrogates(entry) == name]
    except OSError:
        return name
    return found[0] if len(found) == 1 else name


def _refuse_links(trials: Path, parts: list[str]) -> None:
    """Refuse a trial reached through a link (a trial folder, or ``trial.json``), which the
    reports never read as the run's own (:meth:`proctor.paths.RunPaths.trial_jsons`): a
    linked ``trial.json`` is counted as a damaged trial, a linked folder not at all. So is a
    ``trial.json`` that is a folder."""
    from proctor.errors import ConfigError

    path = trials
    for name in [*parts, "trial.json"]:
        path = path / name
        if path.is_symlink():
            what = "file" if name == "trial.json" else "folder"
            counted = (
                "reports count the trial as an infra-error"
                if what == "file"
                else "reports do not read what is in it"
            )
            raise ConfigError(
                f"{path}: a link, not a {what} of the run's own; {counted}, so it cannot be marked"
            )
    if os.path.lexists(path) and not path.is_file():  # a folder, a device in its place
        kind = "a folder" if path.is_dir() else "not a file"
        raise ConfigError(
            f"{path}: {kind}, not a record; reports count the trial as an infra-error, so it "
            "cannot be marked"
        )
