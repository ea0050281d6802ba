"""Which results directory ``proctor findings`` (and its ``dismiss``) reads when none is named:
the one ``proctor run`` writes to, ``out`` of the ``--config`` file (else of ``./proctor.json``),
else ``./proctor-results``; and which finding of its ledger an id given to ``dismiss`` names."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from proctor.models.config import DEFAULT_OUT
from proctor.paths import CURRENT_FOLDER_GONE, current_folder, no_run_in, proctor_run_folder
from proctor.util.text import controls_escaped, one_line

if TYPE_CHECKING:
    from proctor.models.findings import FindingsLedger


class Folder(NamedTuple):
    """A results directory and how it was chosen: ``""`` when named on the command line, else
    a phrase (``the results directory ./proctor.json's out names``, ``the out of --config
    ci.json``, ``the default results directory``)."""

    path: Path
    chosen: str = ""


def default_folder(config: Path | None = None) -> Folder:
    """``out`` of the ``--config`` file ``config`` when given, else of ``./proctor.json``, when
    it sets one (as ``proctor run`` writes there), else ``./proctor-results``. A ``--config``
    file that is missing or does not read is a ConfigError (one sentence naming it); a
    ``./proctor.json`` that does not read is a note on stderr, and the default is read. Run
    from a current folder that is gone, a ConfigError saying so, as the default is in it."""
    from proctor.errors import ConfigError, ProctorError
    from proctor.models.loading import load_top_config

    if config is not None:
        top, _ = load_top_config(config, None)  # its errors are the command's
        if top.out:
            return Folder(Path(top.out), f"the out of --config {config}")
        return Folder(Path(DEFAULT_OUT), f"{DEFAULT_CHOSEN}: --config {config} sets no out")
    here = current_folder()
    if here is None:
        raise ConfigError(CURRENT_FOLDER_GONE)
    try:
        top, found = load_top_config(None, here)
    except ProctorError as exc:
        click.echo(f"proctor: note: {exc}; its out is not read: {DEFAULT_OUT} is", err=True)
        return Folder(Path(DEFAULT_OUT), DEFAULT_CHOSEN)
    if top.out and found is not None:
        return Folder(Path(top.out), f"the results directory ./{found.name}'s out names")
    return Folder(Path(DEFAULT_OUT), DEFAULT_CHOSEN)


DEFAULT_CHOSEN = "the default results directory"


def results_folder(
    given: Path | None, config: Path | None = None, naming: str = "proctor findings RESULTS_DIR"
) -> Folder:
    """The results directory named (``RESULTS_DIR``, ``--dir``), else :func:`default_folder`
    (the out of ``config``, ``--config``, when given); a ConfigError (one sentence) when it is
    none, or when both a folder and ``config`` are given. A default that is no folder says how
    it was chosen and how to name another (``naming``: the command's way)."""
    from proctor.errors import ConfigError

    if given is not None and config is not None:
        raise click.UsageError(
            f"the results directory is given twice: {given} by name, and by the out of "
            f"--config {config}; give one of them"
        )
    folder = Folder(given) if given is not None else default_folder(config)
    path, chosen = folder
    how = f"; {chosen}" if chosen else ""
    above = _results_folder_above(path)
    if above is not None:  # the ledger, a run folder or a file or folder in one
        what, holder = above
        command = naming.replace("RESULTS_DIR", controls_escaped(str(holder)))
        raise ConfigError(
            f"{path}: {what}; findings live in the results directory that holds it: `{command}`"
        )
    if not path.is_dir():
        what = "a file" if path.exists() else "no such folder"
        hint = f"; name the one your runs are in: `{naming}`" if chosen else ""
        if path.is_file() and path.suffix == ".json":  # a configuration, named for --config's
            hint = f"; to read the out of a configuration file, give --config {path}"
        raise ConfigError(f"{path}: not a results directory ({what}{how}){hint}")
    if (
        not (path / "findings.json").exists()
        and any(path.glob("run-*"))
        and (said := no_run_in(path)) is not None
    ):  # as `proctor report` says of it: no run to apply, no ledger to list
        raise ConfigError(f"{path}{f' ({chosen})' if chosen else ''}: {said}")
    if not (path / "findings.json").exists() and not any(path.glob("run-*")):
        held = sorted(
            {p.parent.name for p in path.glob("*/findings.json")}
            | {p.parent.parent.name for p in path.glob("*/run-*/run.json")}
        )
        if held:  # `proctor run --manifest`'s --out: one results directory per pair
            listed = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
            raise ConfigError(
                f"{path}{f' ({chosen})' if chosen else ''}: a folder of results directories "
                f"({listed}), not a results directory: each keeps the findings of its own "
                "runs; name one: "
                f"`{naming.replace('RESULTS_DIR', str(path / held[0]))}`"
            )
        raise ConfigError(
            f"{path}: not a results directory (no run-* folder and no findings.json{how}; "
            "`proctor run --out DIR` makes one)"
        )
    return folder


def _results_folder_above(path: Path) -> tuple[str, Path] | None:
    """What ``path`` is when it is no results directory but the ledger of one
    (``out/findings.json``), a run folder, or a file or folder in a run folder
    (``out/run-…/run.json``, ``out/run-…/trials``), and the results directory that holds it;
    None otherwise. A run folder is one proctor wrote (:func:`proctor_run_folder`): a
    project's own ``run.json`` makes none of the project, nor of its ``./proctor-results``;
    and none is looked for above a folder holding a ledger (a results directory)."""
    if path.name == LEDGER_NAME and path.is_file():
        return "the findings ledger, not a results directory", _above(path)
    if proctor_run_folder(path):
        return "a run folder", _above(path)
    if (path / LEDGER_NAME).is_file():
        return None
    for folder in path.parents if path.exists() else ():
        if proctor_run_folder(folder):
            kind = "a folder" if path.is_dir() else "a file"
            return f"{kind} of the run folder {folder}, not a results directory", _above(folder)
        if (folder / LEDGER_NAME).is_file():  # a results directory: no run holds it
            return None
    return None


def _above(path: Path) -> Path:
    """The folder that holds ``path``, written as the user wrote ``path`` (``..`` for ``.``)."""
    return Path(os.path.normpath(path / ".."))


LEDGER_NAME = "findings.json"
"""The ledger's file in its results directory (see :mod:`proctor.report.findings`)."""


def other_folders(folder: Folder, config: Path | None = None) -> list[Path]:
    """The results directories a user may mean besides a default one: ``./proctor-results``
    and ``out`` of the ``--config`` file (else of ``./proctor.json``), those that hold a
    ledger; none when ``folder`` was named."""
    if not folder.chosen:
        return []
    from proctor.errors import ProctorError
    from proctor.models.loading import load_top_config

    candidates = [Path(DEFAULT_OUT)]
    try:
        top, _ = load_top_config(config, current_folder())
        if top.out:
            candidates.append(Path(top.out))
    except ProctorError:
        pass  # (said when the default was chosen)
    here = os.path.realpath(folder.path)
    return [
        path
        for path in dict.fromkeys(candidates)
        if os.path.realpath(path) != here and (path / "findings.json").is_file()
    ]


def holding(folders: list[Path], finding: str) -> Path | None:
    """The first of ``folders`` whose ledger names ``finding`` (its whole id, or a prefix of
    one id alone); None when none does or a ledger does not read."""
    from proctor.errors import ProctorError
    from proctor.report.findings import load_ledger

    for path in folders:
        try:
            finding_named(load_ledger(path), finding)
        except (ProctorError, ValueError, OSError):
            continue
        return path
    return None


def not_found(
    chosen: Folder, ledger: Path, given: str, why: ValueError, config: Path | None
) -> str:
    """The sentence for an id the ledger does not name: the ledger read and how its folder
    was chosen; when it was the default, the other results directories with a ledger looked
    in, and the one that holds the finding, if any."""
    folder = chosen.path
    how = f" ({chosen.chosen})" if chosen.chosen else ""
    text = f"{ledger}{how}: {why} (`proctor findings {folder} --all` lists them)"
    others = other_folders(chosen, config)
    found = holding(others, given)
    if found is not None:
        return (
            f"{text}; {found / 'findings.json'} has it: `proctor findings {found} dismiss "
            f"{controls_escaped(given)} --reason TEXT` dismisses it there"
        )
    if others:
        return f"{text}; not in {', '.join(str(o / 'findings.json') for o in others)} either"
    return text


ID_PREFIX_LEAST = 4
"""The fewest leading hex digits of an id that name its finding (as git takes a commit's)."""


def finding_named(ledger: FindingsLedger, given: str) -> str:
    """The id of the one finding of ``ledger`` that ``given`` names: its whole id, or at least
    :data:`ID_PREFIX_LEAST` of its first digits, in either case. ValueError (a sentence) when
    none or several do: several are listed, each with its suite when they are of more than
    one."""
    ids = [f.id for f in ledger.findings]
    if given.strip() in ids:  # as written (an id edited by hand may hold capitals)
        return given.strip()
    wanted = given.strip().lower()
    whole = [i for i in ids if i.lower() == wanted]  # an id edited by hand, named in lower case
    if len(whole) == 1:
        return whole[0]
    if len(wanted) >= ID_PREFIX_LEAST:
        matches = [i for i in ids if i.lower().startswith(wanted)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            shown = ", ".join(_with_suites(ledger, matches[:10], matches))
            shown += " …" if len(matches) > 10 else ""
            raise ValueError(
                f"'{controls_escaped(given)}' names {len(matches)} findings ({shown}): give "
                "more of the id"
            )
    elif wanted and any(i.lower().startswith(wanted) for i in ids):
        raise ValueError(
            f"'{controls_escaped(given)}' is too short to name a finding: give at least "
            f"{ID_PREFIX_LEAST} digits of its id"
        )
    raise ValueError(f"no finding '{controls_escaped(given)}'")


def _with_suites(ledger: FindingsLedger, shown: list[str], matches: list[str]) -> list[str]:
    """The ids ``shown`` (of ``matches``), each with the suite of its finding (``4ade1b6124 of
    suites/api``) when ``matches`` are findings of more than one suite, since the ids alone do
    not tell them apart; as they are otherwise."""
    suites = {f.id: f.suite for f in ledger.findings if f.id in matches}
    if len(set(suites.values())) < 2:
        return shown
    return [
        f"{i} of {one_line(suite) if (suite := suites[i]) else 'no known suite'}" for i in shown
    ]
