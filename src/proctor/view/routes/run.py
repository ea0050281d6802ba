"""The Run page: the matrix, the gate, the A/B panel, pass@k, task rules, error statuses and
the figures of one run, and its trials (filtered and paged)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.errors import ProctorError
from proctor.models.io import read_record
from proctor.models.journal import started_trials
from proctor.models.run import RunManifest
from proctor.models.trial import INTERRUPTED_PREFIX
from proctor.paths import RunPaths
from proctor.report.aggregate import stopped_progress
from proctor.report.html_model import Cell, TrialPoint, figures, matrix
from proctor.report.planned import PLAN_HELD, PLAN_LEFT_OUT
from proctor.report.progress import NO_RESUME
from proctor.report.trial_records import UNREADABLE
from proctor.view.confine import run_folder
from proctor.view.index import ResultsIndex
from proctor.view.records import MISSING_STAMP
from proctor.view.routes.runs import chosen_filters, summary
from proctor.view.stored import suite_of
from proctor.view.templating import int_param, not_found, render
from proctor.view.trial_state import RUNNING_SHOWN, not_started, plan_problem, running_trials

FILTERS = ("case", "agent", "condition", "status")
TRIALS_PER_PAGE = 100
_COLUMNS = {"case": "case_name", "agent": "agent", "condition": "condition", "status": "status"}


def trial_url(run: str, key: str) -> str:
    """The trial's page, its run and key quoted (a case folder may hold ``#`` or spaces)."""
    return f"/runs/{quote(run)}/trials/{quote(key)}"


def points_of(index: ResultsIndex, run: str, chosen: dict[str, str]) -> list[TrialPoint]:
    """The run's trials from the index, filtered, in matrix order."""
    where = " ".join(f"AND {_COLUMNS[f]} = ?" for f in chosen if f in _COLUMNS)
    rows = index.query(
        f"SELECT * FROM trials WHERE run = ? {where} ORDER BY case_name, agent, condition, repeat",
        (run, *(v for f, v in chosen.items() if f in _COLUMNS)),
    )
    return [
        TrialPoint(
            key=r["key"],
            case=r["case_name"],
            agent=r["agent"],
            condition=r["condition"],
            repeat=r["repeat"],
            status=r["status"],
            score=r["score"],
            reason=r["reason"],
            cost_usd=r["cost_usd"],
            tokens=r["tokens"],
            tool_calls=r["tool_calls"],
            total_ms=r["total_ms"],
            agent_ms=r["agent_ms"],
            harness_ms=r["harness_ms"],
            url=trial_url(run, r["key"]),
            warnings=tuple(json.loads(r["warnings"] or "[]")),
        )
        for r in rows
    ]


def _stand_ins(index: ResultsIndex, run: str) -> int:
    """How many of the run's trials have no record it can read (missing from a finished run,
    or a trial.json that does not read): each is an infra-error its suite.json did not count."""
    rows = index.query(
        "SELECT stamp, reason FROM trials WHERE run = ? AND status = 'infra-error'", (run,)
    )
    return sum(r["stamp"] == MISSING_STAMP or r["reason"].startswith(UNREADABLE) for r in rows)


def started_in(folder: Path) -> set[tuple[str, str, str, int]]:
    """The trials the run's journal says started (none when it cannot be read)."""
    try:
        return started_trials(RunPaths(folder).journal)
    except OSError:  # not a regular file: as a run without a journal
        return set()


def _progress(index: ResultsIndex, run: str, planned: int | None, folder: Path) -> str:
    """How far a stopped run got, as its report's gate line says it: the trials that
    finished, those the stop cut short (recorded as interrupted), those that started (its
    journal says) and left no record, those never started."""
    rows = index.query(
        "SELECT case_name, agent, condition, repeat, substr(reason, 1, ?) = ? AS cut "
        "FROM trials WHERE run = ?",
        (len(INTERRUPTED_PREFIX), INTERRUPTED_PREFIX, run),
    )
    cut = sum(1 for r in rows if r["cut"])
    started = started_in(folder)
    recorded = {(r["case_name"], r["agent"], r["condition"], r["repeat"]) for r in rows}
    return stopped_progress(len(rows) - cut, cut, planned, len(started - recorded))


def plan_unread(said: str, in_progress: bool, stopped: bool) -> str:
    """What the Run page says of a run whose ``resolved.json`` does not read (``said``, as
    :func:`proctor.view.trial_state.plan_problem` says it): the file, why, and what the page
    cannot show without the plan, as the run stands."""
    if in_progress:
        return f"{said}: the trials not started yet are not listed"
    if stopped:
        return f"{said}: the trials it never started are not listed"
    return (
        f"{said}: the trials it planned that have no record (their trial.json removed) are "
        "not listed nor counted as infra-errors"
    )


def _without_plan_note(problem: str | None, said: str) -> str | None:
    """``problem`` without the index's note of the same plan that does not read (see
    :func:`proctor.report.planned.planned_cells`), which the page says in its own place."""
    if problem is None:
        return None
    note = f"{said.removesuffix(PLAN_HELD)}{PLAN_LEFT_OUT}"
    return problem.replace(f"; {note}", "").replace(note, "") or None


def run_page(request: Request) -> Response:
    context = run_context(request)
    if context is None:
        return not_found(request, f"run {request.path_params['run']}")
    return render(request, "run.html", **context)


def manifest_of(folder: Path) -> RunManifest | None:
    """The run's ``run.json``, or None when it does not read."""
    try:
        return read_record(RunPaths(folder).run_json, RunManifest)
    except (ProctorError, OSError):
        return None


def run_context(request: Request) -> dict[str, Any] | None:
    """What the run page (and its live fragment) shows; None for an unknown run."""
    index: ResultsIndex = request.app.state.index
    index.refresh()
    name = request.path_params["run"]
    folder = run_folder(index, name)  # first: a run not indexed yet is looked for there
    row = index.run_row(name)
    if row is None or folder is None:
        return None
    chosen = chosen_filters(request, FILTERS)
    # The matrix and the figures are the chosen groups' whole: a status filter narrows the
    # trials table only (pass rates and stability over the passed trials alone would lie).
    points = points_of(index, name, {f: v for f, v in chosen.items() if f != "status"})
    status = chosen.get("status")
    listed = points if status is None else [p for p in points if p.status == status]
    left = not row["in_progress"] and row["finished_at"] is None
    # A run in progress has no aggregate yet: the suite.json of a stopped run being resumed
    # (its exit 130) stands until the resume ends, and is not its verdict.
    suite = (
        None
        if row["in_progress"]
        else suite_of(
            folder, missing=_stand_ins(index, name), stopped=row["signature"] if left else None
        )
    )
    statuses = [
        r[0] for r in index.query("SELECT DISTINCT status FROM trials WHERE run = ?", (name,))
    ]

    def group_url(case: str, agent: str, condition: str) -> str:
        query = urlencode({"case": case, "agent": agent, "condition": condition})
        return f"/runs/{quote(name, safe='')}?{query}#trials"

    def cell_url(cell: Cell) -> str:
        return group_url(cell.case, cell.agent, cell.condition)

    pages = max(1, -(-len(listed) // TRIALS_PER_PAGE))
    page = min(pages, max(1, int_param(request.query_params.get("tpage"), 1)))
    shown = listed[(page - 1) * TRIALS_PER_PAGE : page * TRIALS_PER_PAGE]
    problem = row["exit_reason"] if suite is None else None
    if suite is not None and suite.interrupted and not row["in_progress"]:
        # Stopped (Ctrl-C, a SIGTERM) before every trial ran, or left by a process that is
        # gone (its gate then read from the trials that ran): a resume finishes it. How far
        # it got is said in the words of the report's gate line.
        manifest = manifest_of(folder)
        hint = NO_RESUME if manifest is None else manifest.finish_hint(folder)
        progress = _progress(index, name, row["planned"] or None, folder)
        if left:
            problem = (
                f"this run did not finish (the process that ran it is gone): {progress}; {hint}"
            )
        else:
            problem = f"this run was {progress}: {hint}"
    # A trial of a run in progress is listed once it ends: the ones running now are named
    # (and linked) above the matrix, so their pages can be followed; those planned and not
    # started (yet, or ever: the run stopped) are listed by case, each linked.
    running = running_trials(folder) if row["in_progress"] else []
    waiting: list[tuple[str, list[tuple[str, str]]]] = []
    if row["planned"] and row["planned"] > row["trials"]:
        seen = [r[0] for r in index.query("SELECT key FROM trials WHERE run = ?", (name,))]
        if not row["in_progress"]:  # one that started and left no record did start
            seen += ["/".join(map(str, key)) for key in started_in(folder)]
        waiting = [
            (case, [(key, trial_url(name, key)) for key in keys])
            for case, keys in not_started(folder, [*seen, *running])
        ]
    # A plan that does not read lists none of them: said where they would be listed.
    unread = plan_problem(folder)
    plan = None
    if unread is not None:
        stopped = row["finished_at"] is None or (suite is not None and suite.interrupted)
        plan = plan_unread(unread, bool(row["in_progress"]), stopped)
        problem = _without_plan_note(problem, unread)
    others = index.query("SELECT COUNT(*) FROM runs WHERE name != ?", (name,))[0][0]
    return dict(
        run=summary(row),
        others=others,  # runs this one can be compared with on the Compare page
        problem=problem,
        plan_unread=plan,
        running=[(key, trial_url(name, key)) for key in running[:RUNNING_SHOWN]],
        running_more=max(0, len(running) - RUNNING_SHOWN),
        not_started=waiting,
        not_started_count=sum(len(keys) for _, keys in waiting),
        suite=suite,
        points=points,
        listed=len(listed),
        rows=shown,
        cells=matrix(points, suite),
        figures=figures(points, suite, group_url),
        cell_url=cell_url,
        filters={
            "choices": {
                "case": json.loads(row["cases"]),
                "agent": json.loads(row["agents"]),
                "condition": json.loads(row["conditions"]),
                "status": sorted(statuses),
            },
            "chosen": chosen,
        },
        page=page,
        pages=pages,
        page_query=lambda n: urlencode({**chosen, "tpage": n}),
        query=urlencode({**chosen, "tpage": page}),
    )


ROUTES = [Route("/runs/{run}", run_page, name="run")]
