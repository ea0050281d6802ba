"""Whether a run to resume still plans as it started: the plan made now against the run's
``resolved.json``, each difference named (a case renamed, gone or added; the first field that
differs, with what its digest covers)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.models.plan import RunPlan
from proctor.paths import RunPaths
from proctor.plan import records
from proctor.plan.records import resolved_record


def first_difference(old: Any, new: Any, where: str = "") -> str | None:
    """The first path at which two JSON values differ, or None."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            found = first_difference(old.get(key), new.get(key), f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return f"{where} ({len(old)} entries then, {len(new)} now)"
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found = first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if old == new else where or "."


PATH_KEYS = frozenset({"path", "fixture", "configFile"})


def _absolute(value: Any, cwd: Path | None, key: str = "") -> Any:
    """``value`` with its paths made absolute against ``cwd`` and resolved: a run planned from
    another folder, or through ``..`` or a link, names the same files differently (``cwd``
    None: the run's folder was gone, and its paths are whole)."""
    if isinstance(value, dict):
        return {k: _absolute(v, cwd, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_absolute(v, cwd, key) for v in value]
    if key in PATH_KEYS and isinstance(value, str) and value:
        path = Path(value) if os.path.isabs(value) else (cwd or Path.cwd()) / value
        return str(path.resolve())
    return value


def same_plan(paths: RunPaths, plan: RunPlan, cwd: Path | None) -> RunPlan:
    """``plan`` (made now) with its trials in the order the run planned them (``resolved.json``'s
    matrix); refuse the resume when it does not resolve to the run's ``resolved.json``, naming
    what changed. The same trials in another order are the same plan: a proctor that orders
    the conditions of a repeat otherwise resumes a run started by an older one."""
    try:
        stored = json.loads(paths.resolved_json.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{paths.resolved_json}: cannot be read ({exc})") from exc
    stored_cases = [c for c in stored.get("cases", []) if isinstance(c, dict)]
    # A run of a proctor before configDigest: its fixture digests took the first entries only.
    legacy = bool(stored_cases) and not any("configDigest" in c for c in stored_cases)
    now = resolved_record(plan, legacy=legacy).to_dict()
    for record in (stored, now):
        record.pop("schemaVersion", None)
    # A run of a proctor that wrote its MCP servers' values whole: read as one writes them now.
    for case in stored_cases:
        _provisions_as_recorded(case)
    # "trials": the settings of each case's trials, which a proctor before them did not record.
    for key in (*CASE_DIGESTS, "trials"):
        if not any(key in c for c in stored.get("cases", []) if isinstance(c, dict)):
            for case in now.get("cases", []):  # a run of a proctor that wrote no such digest
                case.pop(key, None)
    if stored.get("concurrency", 0) is None:
        now.pop("concurrency", None)  # sized by the Ray cluster; a resume runs it locally
        stored.pop("concurrency")
    now_cases = [c for c in now.get("cases", []) if isinstance(c, dict)]
    _fixtures_digested_by_time(stored_cases, now_cases, legacy, cwd)
    cases = changed_cases(stored_cases, now_cases)
    if cases:
        raise ConfigError(
            f"--resume {paths.root}: the cases changed since the run started ({cases}); start "
            "a new run instead"
        )
    # Each case's trials' settings are listed in the order the run planned them (its first
    # condition first): a proctor that orders the conditions otherwise lists the same ones in
    # another order, which is the same plan (the order to run in is the matrix's, below).
    for case in (*stored_cases, *now_cases):
        if isinstance(case.get("trials"), list):
            case["trials"] = sorted(case["trials"], key=_settings_key)
    stored_matrix, now_matrix = stored.pop("matrix", None), now.pop("matrix", None)
    changed = first_difference(_absolute(stored, cwd), _absolute(now, cwd))
    if not changed and isinstance(stored_matrix, list) and isinstance(now_matrix, list):
        changed = _other_cells(stored_matrix, now_matrix)
    elif not changed:
        changed = first_difference(stored_matrix, now_matrix, "matrix")
    if changed:
        where = changed.lstrip(".")
        what = _named(where, stored.get("cases")) + DIGESTS.get(where.rsplit(".", 1)[-1], "")
        raise ConfigError(
            f"--resume {paths.root}: the cases or the configuration changed since the run "
            f"started (resolved.json differs at {where}{what}); start a new run instead"
        )
    if isinstance(stored_matrix, list) and stored_matrix != now_matrix:
        return in_recorded_order(plan, stored_matrix)
    return plan


def _settings_key(entry: Any) -> str:
    """A trial's settings as text, to list a case's trials in one order whatever their
    planned order was."""
    return json.dumps(entry, sort_keys=True, default=str)


def _named(where: str, cases: Any) -> str:
    """The case a place of ``resolved.json`` under ``cases[N]`` belongs to, `` (case
    'fix-a-bug')``, so that a suite of many cases need not be counted through; else empty."""
    found = re.match(r"cases\[(\d+)\]", where)
    if found is None or not isinstance(cases, list) or int(found[1]) >= len(cases):
        return ""
    case = cases[int(found[1])]
    name = case.get("case") if isinstance(case, dict) else None
    return f" (case '{name}')" if isinstance(name, str) else ""


def _cell(entry: Any) -> str:
    """A cell of ``resolved.json``'s matrix as one key: case/agent/condition/repeat."""
    if not isinstance(entry, dict):
        return json.dumps(entry)
    return "/".join(str(entry.get(k)) for k in ("case", "agent", "condition", "repeat"))


def _other_cells(stored: list[Any], now: list[Any]) -> str | None:
    """The first trial the run planned that is not planned now, or the other way round, as
    the place ``resolved.json`` differs at; None when both hold the same trials (in whatever
    order)."""
    was, planned = Counter(map(_cell, stored)), Counter(map(_cell, now))
    if was == planned:
        return None
    gone = [c for c in dict.fromkeys(map(_cell, stored)) if was[c] > planned[c]]
    if gone:
        return f"matrix (trial {gone[0]} is no longer planned)"
    new = next(c for c in dict.fromkeys(map(_cell, now)) if planned[c] > was[c])
    return f"matrix (trial {new} was not planned then)"


def in_recorded_order(plan: RunPlan, matrix: list[Any]) -> RunPlan:
    """``plan`` with its trials in the order of ``matrix`` (the run's own, holding the same
    trials), numbered again from 0: the trials left run in the order the run planned them."""
    place = {cell: i for i, cell in enumerate(map(_cell, matrix))}
    ordered = sorted(plan.trials, key=lambda t: place.get("/".join(map(str, t.key)), len(place)))
    trials = [t.model_copy(update={"index": i}) for i, t in enumerate(ordered)]
    return plan.model_copy(update={"trials": trials})


def _fixtures_digested_by_time(
    stored: list[dict[str, Any]], now: list[dict[str, Any]], legacy: bool, cwd: Path | None
) -> None:
    """A run of a proctor that digested its folder fixtures' files by their modification
    times: each fixture whose digest now differs is digested so again (its path read against
    ``cwd``, the folder the run is planned from), and counts as the same when that digest is
    the one the run recorded."""
    recorded = {str(c.get("case")): c.get("fixtureDigest") for c in stored}
    for case in now:
        then, fixture = recorded.get(str(case.get("case"))), case.get("fixture")
        if not then or then == case.get("fixtureDigest") or not isinstance(fixture, str):
            continue
        limit = records.LEGACY_FIXTURE_ENTRIES if legacy else None
        path = Path(fixture) if os.path.isabs(fixture) else (cwd or Path.cwd()) / fixture
        if records.older_folder_digest(path, limit) == then:
            case["fixtureDigest"] = then


CASE_DIGESTS = ("content", "fixtureDigest", "configDigest", "filesDigest", "provisionDigest")


def changed_cases(stored: list[dict[str, Any]], now: list[dict[str, Any]]) -> str | None:
    """What became of the run's cases, by name, when the source no longer holds the same ones:
    a case renamed (one that is gone, and a new one with the same digests), one gone, one
    added; None when it holds the same cases."""
    was = [str(c.get("case")) for c in stored]
    names = [str(c.get("case")) for c in now]
    if set(was) == set(names):
        return None
    gone = [c for c in stored if str(c.get("case")) not in names]
    added = [c for c in now if str(c.get("case")) not in was]
    said: list[str] = []
    for old in list(gone):
        same = [c for c in added if _same_digests(old, c)]
        if len(same) == 1:
            said.append(f"case '{old.get('case')}' of the run is now '{same[0].get('case')}'")
            gone.remove(old)
            added.remove(same[0])
    if gone:
        said.append(f"the run's {_cases([str(c.get('case')) for c in gone], 'is', 'are')} gone")
    new = [str(c.get("case")) for c in added]
    if new and gone:
        said.append(f"the source now holds {_quoted(new)} instead")
    elif new:
        said.append(f"{_cases(new, 'is', 'are')} new in the source")
    return "; ".join(said)


def _same_digests(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether two cases' records hold the same digests (those both record; at least one)."""
    keys = [k for k in CASE_DIGESTS if old.get(k) is not None and new.get(k) is not None]
    return bool(keys) and all(old[k] == new[k] for k in keys)


def _quoted(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _cases(names: list[str], one: str, many: str) -> str:
    quoted = _quoted(names)
    return f"case {quoted} {one}" if len(names) == 1 else f"cases {quoted} {many}"


def _provisions_as_recorded(case: dict[str, Any]) -> None:
    """A stored case's provisions (its own and its conditions') as ``resolved.json`` records
    them now (see :func:`~proctor.plan.records.recorded_provision`); one that does not read
    is left as it is (the comparison names it)."""
    from pydantic import ValidationError

    from proctor.models.config import Provision
    from proctor.plan.records import recorded_provision

    holders = [case, *(c for c in (case.get("conditions") or {}).values() if isinstance(c, dict))]
    for holder in holders:
        stored = holder.get("provision")
        if not isinstance(stored, dict):
            continue
        try:
            provision = Provision.model_validate(stored)
        except ValidationError:
            continue
        holder["provision"] = recorded_provision(provision).model_dump(mode="json", by_alias=True)


DIGESTS = {
    "content": ": the prompt, plan.json, the answering rules or a zip fixture",
    "fixtureDigest": ": a file of the folder fixture",
    "configDigest": ": the case's config.json (a step budget, an environment value, a "
    "condition) or an environment value of proctor.json",
    "filesDigest": ": a file in the case folder outside its fixture (a scoring program, a "
    "rubric, a skill or plugin)",
    "provisionDigest": ": an MCP server's environment value, header or credential",
}
"""What each digest of ``resolved.json`` covers, for the refusal of a resume."""
