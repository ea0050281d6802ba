"""The one case × agent × condition a person drives (``proctor prepare``, ``proctor record``),
found by its folder, or by its name or task id under ``--source``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from proctor.discover.folders import discover_cases, is_case_folder
from proctor.errors import ConfigError
from proctor.models.case import SkippedCase
from proctor.models.config import CliOverrides
from proctor.models.plan import RunPlan, TrialSpec
from proctor.paths import current_folder, read_against
from proctor.plan.resolve import load_run_plan
from proctor.session.start import warn
from proctor.util.json_shown import WHOLE, json_text
from proctor.util.text import did_you_mean


def _refuse_skipped(skipped: list[SkippedCase], name: str) -> None:
    """A case folder that discovery skips is named with the reason, not as no case at all."""
    for case in skipped:
        if case.name == name:
            raise ConfigError(f"{case.path}: not a case proctor can run: {case.reason}")


def plan_one(
    case: str,
    condition: str,
    source: Path,
    config: Path | None,
    agent: str,
    out: Path | None = None,
) -> tuple[RunPlan, TrialSpec]:
    """The plan of one case × agent × condition, the case named by its folder or by name (or
    task id) under ``source``; a blank one is refused (``""`` would be the current folder).
    ``out``: the results folder given (None: ``proctor.json``'s ``out``, else
    ``./proctor-results``). Where the current folder is gone, every path read must be whole
    (``source`` unless the case is given as its folder, the results folder): no
    ``./proctor.json`` nor ``./.env`` is read."""
    for what, given in (("CASE", case), ("--condition", condition), ("--agent", agent)):
        if not given.strip():
            raise ConfigError(f"{what} {json_text(given)}: expected a value, not a blank one")
    here = current_folder()  # None: gone (whole paths only, no ./proctor.json nor ./.env)
    folder = Path(case)
    if not folder.is_dir() and ("/" in case or case.startswith(".")):
        raise ConfigError(f"{case}: no such case folder")  # a path, not a name to look up
    chosen_source, names = (folder, []) if folder.is_dir() else (source, [case])
    if not names and is_case_folder(folder):
        _refuse_skipped(discover_cases(folder).skipped, folder.name)
    if names:
        if here is None:  # a relative --source names nothing there: refused
            read_against(None, source)
        others: list[str] = []  # another case's problem is no reason to refuse this one
        try:
            discovery = discover_cases(source, problems=others)
            folder_said = (f"{source / case}{os.sep}", json_text(str(source / case), WHOLE))
            marks = (f"'{case}'", json.dumps(case), *folder_said)  # its name, its folder
            # A problem of another case folder, said with its path first, is that case's own,
            # whatever value of its configuration it quotes ("fix", the name of this one).
            apart = [source / name for name in discovery.broken if name != case]
            heads = tuple(h for f in apart for h in (f"{f}{os.sep}", json_text(str(f), WHOLE)))
            own = [
                said
                for said in others
                if not said.startswith(heads) and any(mark in said for mark in marks)
            ]
            if own or (others and case not in (known := [c.name for c in discovery.cases])):
                raise ConfigError((own or others)[0])
        except ConfigError as exc:
            raise ConfigError(f"looking for case '{case}' under {source}: {exc}") from exc
        known = sorted(c.name for c in discovery.cases)
        if case not in known:
            _refuse_skipped(discovery.skipped, case)
            listed = ", ".join(known[:10]) + (", …" if len(known) > 10 else "") or "none"
            near = did_you_mean(case, known)  # as run's --case says it
            raise ConfigError(f"{case}: no such case under {source} ({near}cases: {listed})")
        found = next(c for c in discovery.cases if c.name == case)
        chosen_source = found.source.file if found.source and found.source.prefix else found.path
        for said in others:
            warn(f"another case under {source} is not read: {said}")
    cli = CliOverrides(
        agents=[agent],
        cases=names,
        conditions=[condition],
        repeats=1,
        out=str(out) if out is not None else None,
    )
    plan = load_run_plan(chosen_source, config, cli, here)
    if not plan.trials:
        raise ConfigError(f"{case}: no such case (with condition '{condition}') under {source}")
    return plan, plan.trials[0]


def session_source(case: str, source: Path) -> Path:
    """The ``--source`` a session of ``case`` records, whole: the case folder when ``case``
    is given as its folder (the source its plan reads, as ``run --source CASE`` records it,
    whatever folder the session is prepared or recorded from: two sessions of one case are
    one suite), else ``source`` read against the current folder. A relative path where that
    folder is gone raises ``getcwd``'s error (see :func:`~proctor.paths.read_against`)."""
    here = current_folder()
    folder = Path(case)
    if (here is not None or folder.is_absolute()) and folder.is_dir():
        return Path(os.path.realpath(read_against(here, folder)))
    return Path(os.path.realpath(read_against(here, source)))
