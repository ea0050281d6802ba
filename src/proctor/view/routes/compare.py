"""The Compare page: two runs per case × agent × condition (baseline run against candidate),
or two conditions of one run per case; each verdict shown with the figures behind it."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.errors import ConfigError, ProctorError, SchemaVersionError
from proctor.paths import RunPaths
from proctor.report.ab.choose import choose_pair, gate_missing, gate_pair, gate_sides
from proctor.report.ab.runs import compare_conditions, compare_runs
from proctor.report.html import clean_text
from proctor.report.planned import missing_of, planned_cells
from proctor.report.pooled_runs import runs_suites_note
from proctor.report.stored import stored_run
from proctor.report.trial_records import load_records
from proctor.view.confine import inside, run_folder
from proctor.view.index import ResultsIndex
from proctor.view.routes.runs import newest_first
from proctor.view.templating import render


def compare_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    index.refresh()
    _forget_gone_gates()
    q = request.query_params
    rows = newest_first(index.query("SELECT name, started_at, conditions, source FROM runs"))
    names = [r["name"] for r in rows]
    # "compare its conditions" offers the runs of two conditions or more, the newest first (a
    # run of one has nothing to compare: the newest run was chosen, and refused, whatever it
    # held); a run of one named in the address is not offered either: the page says so.
    two = [r["name"] for r in rows if len(json.loads(r["conditions"] or "[]")) > 1]
    context: dict[str, Any] = {"names": names, "q": q, "runs_cmp": None, "ab": None, "error": None}
    context["ab_names"] = two
    context["note"] = None
    notes: list[str] = []  # the page's note, as `proctor compare` notes them
    context["single"] = None
    context["choose"] = None
    context["default"] = {}
    # An address naming runs to compare (a, b) and a run's conditions too (run, treatment,
    # baseline): the runs are taken, and the page says what it left out, even when refused.
    ignored = _conditions_ignored(q)
    try:
        if bool(q.get("a")) != bool(q.get("b")):
            choose = context["choose"] = _one_side(rows, q)
            # The side left to choose is offered the chosen run's newest sibling, not itself.
            others = [n for n in names if n != choose["run"]]
            context["default"] = {choose["other"]: (choose["siblings"] or others or [None])[0]}
        elif q.get("a") and q.get("b"):
            before, after = _records(index, q["a"], notes), _records(index, q["b"], notes)
            context["runs_cmp"] = compare_runs(before, after)
            # Runs of different suites, as `proctor compare RUN RUN2` notes them: what the
            # groups of one case name were matched as.
            stored = [stored_run(folder, []) for folder in _folders(index, q["a"], q["b"])]
            suites = runs_suites_note(stored, context["runs_cmp"].groups)
            if suites is not None:
                notes.append(suites[0])
            if q["a"] == q["b"]:  # as `proctor compare` notes it
                notes.insert(
                    0,
                    f"{q['a']} is both the baseline and the candidate run: every group is "
                    "compared with itself; choose another candidate run",
                )
        elif q.get("run"):
            records = _records(index, q["run"], notes)
            # The run's plan, as `proctor compare RUN` reads it: the repeats a stopped run
            # never started are incomplete pairs too, and its planned conditions offered. A
            # plan that does not read is said in a note, as compare says it, and the pair
            # named compared without it (a gate to read, from that file too, is refused).
            folder = run_folder(index, q["run"])
            cells = planned_cells(folder, notes) if folder is not None else []
            context["conditions"] = sorted(
                {r.condition for r in records} | {cell[2] for cell in cells}
            )
            treatment, baseline = q.get("treatment") or None, q.get("baseline") or None
            # The pair of the run's A/B gate, as `proctor compare RUN` and `proctor report`
            # compare it, not another pair of a run of three conditions; one side named, the
            # other the gate's, as `proctor compare RUN --baseline X` chooses it.
            # Both named, the gate is not read (`proctor compare` reads it neither): a gate
            # that does not read is refused, as it refuses it, with the page's remedy.
            gated = None
            if folder is not None and not (treatment and baseline):
                try:
                    gated = _gate_of(folder)
                except ConfigError as exc:
                    raise ConfigError(
                        f"{exc}; it holds the run's gate: restore it, or choose the treatment "
                        "and the baseline above"
                    ) from exc
            sides = gate_sides(treatment, baseline, gated)
            treatment, baseline = sides.treatment, sides.baseline
            if sides.pair_from == "gate":
                notes.insert(
                    0,
                    "the conditions compared are those of the run's A/B gate (gate.ab), as "
                    "proctor report compares them; choose others above to compare them",
                )
            elif sides.from_gate:
                (side,) = sides.from_gate
                named = "baseline" if side == "treatment" else "treatment"
                notes.insert(
                    0,
                    f"the {side} compared is of the run's A/B gate (gate.ab), as proctor "
                    f"compare chooses it with the {named} named; choose another above to "
                    "compare it",
                )
            said = ", ".join(context["conditions"]) or "none"
            if len(context["conditions"]) > 1 and q["run"] not in two:  # the index not yet
                two.insert(0, q["run"])  # told of its plan: offered, as the address asks
            # Said as the page's own form would be used, not `proctor compare`'s flags.
            if len(context["conditions"]) == 1:
                # Not an error of the form: the page says what to do instead, with a link.
                context["single"] = {"run": q["run"], "condition": context["conditions"][0]}
            elif len(context["conditions"]) < 2:
                raise ConfigError(
                    f"run {q['run']} has fewer than two conditions ({said}); to compare two "
                    "runs, choose them above as the baseline and the candidate run"
                )
            elif treatment is not None and treatment == baseline:
                raise ConfigError(
                    f"the treatment and the baseline are both {treatment!r}: give two of the "
                    f"run's conditions ({said})"
                )
            else:
                # A gate naming a condition the run lacks (a hand-edited resolved.json), of the
                # sides it gave: refused as `proctor compare RUN` refuses it, with the page's
                # remedy; the form offers the pair chosen as without a gate.
                taken = {getattr(sides, side) for side in sides.from_gate}
                conditions = context["conditions"]
                missing = gate_missing(gated, conditions, used=taken) if gated else None
                if missing is not None:
                    raise ConfigError(f"{missing}; choose the treatment and the baseline above")
                context["ab"] = compare_conditions(records, treatment, baseline, planned=cells)
        # What compare notes of the runs read (a plan that does not read), each once.
        context["note"] = "; ".join(dict.fromkeys([*ignored, *notes])) or None
    except (ConfigError, SchemaVersionError) as exc:
        context["error"] = str(exc)
        context["note"] = "; ".join(ignored) or None  # (of a pair compared: none was)
    context["choices"] = _condition_choices(index, rows, two)
    shown = q.get("run") if q.get("run") in two else (two or [None])[0]
    pick = context["choices"].get(shown, {"conditions": [], "treatment": "", "baseline": ""})
    if shown == q.get("run") and "conditions" in context:  # the run's plan, as compared
        ab = context["ab"]
        pick = {
            "conditions": [(c, clean_text(c)) for c in context["conditions"]],
            "treatment": ab.treatment if ab else pick["treatment"],
            "baseline": ab.baseline if ab else pick["baseline"],
        }
        for side in ("treatment", "baseline"):  # a pair asked for stays chosen, even refused
            if q.get(side) in context["conditions"]:
                pick[side] = q[side]
        context["choices"][shown] = pick
    context["pick"] = pick
    return render(request, "compare.html", **context)


def _conditions_ignored(q: Any) -> list[str]:
    """The note for an address whose parameters of a run's conditions the page leaves out,
    said rather than dropped unseen: one that names runs to compare (``a``, ``b``, one or
    both) and ``run``, ``treatment`` or ``baseline`` too (the page takes the runs), or one
    that names a ``treatment`` or a ``baseline`` but no ``run`` whose conditions they would
    be. Empty otherwise."""
    runs = bool(q.get("a") or q.get("b"))
    if not runs and q.get("run"):
        return []
    names = ("run", "treatment", "baseline") if runs else ("treatment", "baseline")
    dropped = [f"{name}={q[name]}" for name in names if q.get(name)]
    if not dropped:
        return []
    said = ", ".join(dropped[:-1]) + " and " + dropped[-1] if len(dropped) > 1 else dropped[0]
    said = f"{said} {'are' if len(dropped) > 1 else 'is'} ignored"
    if not runs:
        return [
            f"{said}: the address names no run whose conditions to compare (run=…); choose "
            "the run under compare its conditions"
        ]
    taken = " and ".join(f"{name}={q[name]}" for name in ("a", "b") if q.get(name))
    return [
        f"{said}: the address names runs to compare ({taken}), which the page takes; to "
        "compare a run's conditions, choose it under compare its conditions"
    ]


_RUNS_PER_QUERY = 500
"""How many runs one query of their trials names (SQLite allows some hundreds of parameters)."""


def _condition_choices(
    index: ResultsIndex, rows: list[Any], offered: list[str]
) -> dict[str, dict[str, Any]]:
    """For each run ``offered`` to compare its conditions: its conditions (each a value and
    the text shown) and the pair ``proctor compare RUN`` would choose, treatment and baseline
    (``baseline`` or ``default`` is the baseline where the run has one), read from the index,
    not from the trials' records."""
    wanted = set(offered)
    triples: dict[str, list[tuple[str, str, str, int]]] = {name: [] for name in offered}
    runs = sorted(wanted)
    for start in range(0, len(runs), _RUNS_PER_QUERY):  # the runs offered, read alone
        some = runs[start : start + _RUNS_PER_QUERY]
        sql = (
            "SELECT DISTINCT run, case_name, agent, condition FROM trials "
            f"WHERE run IN ({', '.join('?' * len(some))})"
        )
        for r in index.query(sql, tuple(some)):
            triples[r["run"]].append((r["case_name"], r["agent"], r["condition"], 0))
    choices = {}
    for row in rows:
        name = row["name"]
        if name not in wanted:
            continue
        names = set(json.loads(row["conditions"] or "[]")) | {t[2] for t in triples[name]}
        # A condition no trial ran yet counts as one of a case of its own: never paired.
        alone = [(f"\0{c}", "", c, 0) for c in sorted(names)]
        folder = inside(index.root, name)
        try:
            gated = _gate_of(folder) if folder is not None else None
        except ProctorError:  # (a resolved.json that does not read: refused when run)
            gated = None
        if gated is None or not set(gated) <= names:  # (a gate of others: refused when run)
            gated = choose_pair([], planned=[*triples[name], *alone])
        pair = gated or ("", "")
        choices[name] = {
            "conditions": [(c, clean_text(c)) for c in sorted(names)],
            "treatment": pair[0],
            "baseline": pair[1],
        }
    return choices


SIBLINGS_SHOWN = 5
"""The other runs of a run's source that the Compare page offers when one side is chosen."""


def _one_side(rows: list[Any], q: Any) -> dict[str, Any]:
    """What the page says when one run of the two is chosen: which side is still to choose and,
    the likeliest choices, the other runs of the chosen run's source (its suite run again),
    the newest first (for a baseline to choose, those that ran before the candidate first).
    Raises ConfigError for a run this results directory does not hold."""
    side, other = ("a", "b") if q.get("a") else ("b", "a")
    run = q[side]
    by_name = {r["name"]: r for r in rows}
    if run not in by_name:
        raise ConfigError(
            f"run {run} is not in this results directory: choose the baseline and the "
            "candidate run above"
        )
    source = by_name[run]["source"]
    siblings = [r["name"] for r in rows if r["name"] != run and source and r["source"] == source]
    if side == "b":  # a candidate's likeliest baseline ran before it: the one just before first
        place = [r["name"] for r in rows].index(run)
        before = {r["name"] for r in rows[place + 1 :]}
        siblings.sort(key=lambda name: name not in before)
    return {
        "run": run,
        "side": side,
        "other": other,
        "source": source,
        "siblings": siblings[:SIBLINGS_SHOWN],
        "more": max(0, len(siblings) - SIBLINGS_SHOWN),
    }


KEPT_RUNS = 4
"""Runs whose records the Compare page keeps in memory between requests."""
_kept: OrderedDict[str, tuple[str, list[Any], list[str]]] = OrderedDict()
_kept_lock = threading.Lock()


def _folders(index: ResultsIndex, *runs: str) -> list[Path]:
    """The folders of ``runs``, each of which :func:`_records` has read."""
    return [folder for run in runs if (folder := run_folder(index, run)) is not None]


def _records(index: ResultsIndex, run: str, notes: list[str]) -> list[Any]:
    """The run's trial records, read again only when the run changed (its signature, with its
    annotations, and the index's stamps of its trial files tell): a comparison of big runs is
    then read once, not on every request. What their reading notes (a plan that does not
    read: the trials it planned without a record are left out) is added to ``notes``, kept
    with them."""
    folder = run_folder(index, run)
    if folder is None:
        raise ConfigError(f"run {run} is not in this results directory")
    row = index.run_row(run)
    stamps = index.query("SELECT key, stamp FROM trials WHERE run = ? ORDER BY key", (run,))
    listed = [row["signature"] if row is not None else "-"]
    listed += (f"{r['key']} {r['stamp']}" for r in stamps)
    try:  # its plan, which says the trials it lost (and is noted when it does not read)
        plan = RunPaths(folder).resolved_json.stat()
        listed.append(f"plan {plan.st_ino} {plan.st_ctime_ns} {plan.st_mtime_ns} {plan.st_size}")
    except OSError:
        listed.append("plan -")
    version = hashlib.sha256("\n".join(listed).encode()).hexdigest()
    key = f"{index.root}\0{run}"
    cacheable = row is not None and not row["in_progress"]
    with _kept_lock:
        hit = _kept.get(key)
        if cacheable and hit is not None and hit[0] == version:
            _kept.move_to_end(key)
            notes.extend(hit[2])
            return hit[1]
    records = load_records(folder)
    said: list[str] = []
    records += missing_of(folder, records, said)  # as the run page counts them
    notes.extend(said)
    if cacheable:
        with _kept_lock:
            _kept[key] = (version, records, said)
            while len(_kept) > KEPT_RUNS:
                _kept.popitem(last=False)
    return records


_gates: dict[str, tuple[tuple[int, int, int, int], tuple[str, str] | ProctorError | None]] = {}
"""Each run's A/B gate as read (:func:`gate_pair`), or the error its reader raised, by its
``resolved.json``'s path, with the file's inode, change time (ns), modification time (ns) and
size when read: a file rewritten with its size and modification time kept (``cp -p``, ``rsync
-t``) has a change time of its own, and one replaced by another file an inode of its own."""
_gates_lock = threading.Lock()


def _gate_of(folder: Path) -> tuple[str, str] | None:
    """:func:`gate_pair` of the run, its ``resolved.json`` read again only when the file
    changed: the page offers every run of two conditions or more, each with its gate's pair,
    and a reload reads none of them again. Raises what :func:`gate_pair` raises (a
    ``resolved.json`` that does not read), read again only when the file changed too."""
    path = RunPaths(folder).resolved_json
    key = str(path)
    try:
        info = path.stat()
    except OSError:  # none there: gate_pair says so, read each time (nothing to go stale)
        with _gates_lock:
            _gates.pop(key, None)
        return gate_pair(folder)
    stamp = (info.st_ino, info.st_ctime_ns, info.st_mtime_ns, info.st_size)
    with _gates_lock:
        hit = _gates.get(key)
    if hit is not None and hit[0] == stamp:
        gated = hit[1]
    else:
        try:
            gated = gate_pair(folder)
        except ProctorError as exc:
            gated = exc
        with _gates_lock:
            _gates[key] = (stamp, gated)
    if isinstance(gated, ProctorError):
        raise gated.with_traceback(None)  # (kept: its traceback not grown by each raise)
    return gated


def _forget_gone_gates() -> None:
    """Drop the gates kept of ``resolved.json`` files that are no longer there (a run
    removed, a results directory gone): what :data:`_gates` keeps does not grow forever."""
    with _gates_lock:
        paths = list(_gates)
    gone = [key for key in paths if not os.path.exists(key)]
    with _gates_lock:
        for key in gone:
            _gates.pop(key, None)


ROUTES = [Route("/compare", compare_page, name="compare")]
