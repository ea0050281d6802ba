"""The Trial page (verdict, evaluators, the trajectory as a paged timeline, questions, the
workspace diff, the terminal, files) and the trial's raw transcript, paged."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.paths import TrialPaths
from proctor.report.html import clean_text
from proctor.report.stored import planned_cells
from proctor.util.cutting import mask_wrapped, read_head
from proctor.view.confine import inside, run_folder, trial_folder
from proctor.view.index import ResultsIndex
from proctor.view.offsets import read_lines
from proctor.view.questions import questions_of
from proctor.view.records import MISSING_STAMP
from proctor.view.stored import trial_of
from proctor.view.templating import int_param, not_found, render
from proctor.view.timeline import page_of_step, shown_line, timeline_page

DIFF_LIMIT = 512 * 1024
SCREEN_LIMIT = 256 * 1024
RAW_PAGE = 100


def _key(request: Request) -> str:
    p = request.path_params
    return f"{p['case']}/{p['agent']}/{p['condition']}/{p['repeat']}"


def highlight_diff(text: str) -> Markup:
    """The diff coloured by Pygments (which escapes it), after masking and cleaning."""
    from pygments import highlight  # type: ignore[import-untyped]
    from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
    from pygments.lexers import DiffLexer  # type: ignore[import-untyped]

    return Markup(highlight(clean_text(text), DiffLexer(), HtmlFormatter(nowrap=True)))


def own(folder: Path, path: Path) -> Path:
    """``path`` (a file of the trial folder) when it resolves inside that folder; else a path
    that does not exist, so a link leading out of the results is read as a missing file."""
    found = inside(folder, path.name)
    return found if found is not None else folder / f".outside.{path.name}"


def trial_files(folder: Path) -> list[str]:
    """The trial's own files (and its evaluator logs), trial-relative, for the files list."""
    names = []
    for path in sorted(folder.iterdir()):
        if path.is_file():
            names.append(path.name)
        elif path.name == "evaluators" and path.is_dir():
            names += [f"evaluators/{p.name}" for p in sorted(path.iterdir()) if p.is_file()]
    return names


def _planned(run_dir: Path, key: str) -> bool:
    """Whether the run's plan (its ``resolved.json``) holds the trial ``key``."""
    return key in {f"{c}/{a}/{cond}/{r}" for c, a, cond, r in planned_cells(run_dir)}


def trial_state(index: ResultsIndex, run: str, key: str) -> str | None:
    """Where a trial of a run in progress stands: ``"pending"`` (planned, not started: no
    folder yet), ``"running"`` (a folder, no record yet) or ``"done"`` (its record is written,
    or the run is over); None for a trial the run does not know."""
    index.refresh()
    run_dir, row = run_folder(index, run), index.run_row(run)
    if run_dir is None or row is None:
        return None
    folder = trial_folder(index, run, key)
    if folder is None:
        if not _planned(run_dir, key):
            return None
        return "pending" if row["in_progress"] else "done"
    if not row["in_progress"] or os.path.lexists(TrialPaths(folder).trial_json):
        return "done"
    return "running"


def _no_trial(request: Request, index: ResultsIndex, run: str, key: str) -> Response:
    """A 404 for a trial with no folder; for one the finished run planned, it says why the
    run counts it as an infra-error. A trial the plan of a run in progress holds has not
    started yet: its page says so, and follows the run until it starts."""
    what = f"trial {key} of run {run}"
    if trial_state(index, run, key) == "pending":
        base = f"/runs/{quote(run)}/trials/{quote(key)}"
        return render(request, "trial_pending.html", run=run, key=key, state="pending", base=base)
    rows = index.query(
        "SELECT reason FROM trials WHERE run = ? AND key = ? AND stamp = ?",
        (run, key, MISSING_STAMP),
    )
    if not rows:
        return not_found(request, what)
    message = f"{what} has no folder, and counts as an infra-error ({rows[0][0]})"
    return render(request, "error.html", status_code=404, message=message)


def trial_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], _key(request)
    run_dir, folder = run_folder(index, run), trial_folder(index, run, key)
    if run_dir is None or folder is None:
        return _no_trial(request, index, run, key)
    record, problem = trial_of(run_dir, folder)
    paths = TrialPaths(folder)
    row = index.run_row(run)
    # A trial of a run in progress has no record until it ends: that is no fault.
    running = (
        record is None
        and not paths.trial_json.exists()
        and not paths.trial_json.is_symlink()
        and row is not None
        and bool(row["in_progress"])
    )
    if running:
        problem = "this trial is still running: its verdict is recorded when it ends"
    trajectory, questions = own(folder, paths.trajectory), own(folder, paths.questions)
    size = request.app.state.settings.page_size
    offsets = index.trajectory_offsets(run, key, trajectory)
    step = int_param(request.query_params.get("step"), -1)
    if step >= 0:
        page = page_of_step(offsets, step, size)
    else:
        page = int_param(request.query_params.get("page"), 1)
    timeline = timeline_page(trajectory, offsets, page, size)
    diff, diff_cut = read_head(own(folder, paths.workspace_diff), DIFF_LIMIT)
    # A terminal wraps its lines: a key may be split over two of them.
    screen, screen_cut = read_head(own(folder, paths.screen_log), SCREEN_LIMIT, wrapped=True)
    base = f"/runs/{quote(run)}/trials/{quote(key)}"
    raw_name = (record.transcript.raw if record else None) or paths.raw_transcript.name
    raw = inside(folder, raw_name)
    return render(
        request,
        "trial.html",
        has_raw=raw is not None and raw.is_file(),  # a trial cut short may have none
        run=run,
        key=key,
        record=record,
        problem=problem,
        running=running,
        timeline=timeline,
        base=base,
        step_url=lambda n: f"{base}?step={n}#step-{n}",
        questions=questions_of(questions),
        diff=highlight_diff(diff) if diff else None,
        diff_cut=diff_cut,
        diff_recorded=diff is not None,  # an empty diff is no change; none is no record
        screen=None if screen is None else mask_wrapped(screen),
        screen_cut=screen_cut,
        files=trial_files(folder),
        file_base=f"/runs/{quote(run)}/files/trials/{quote(key)}",
    )


def trial_fragment(request: Request) -> Response:
    """Where a followed trial stands (see :func:`trial_state`), for the page's script: once
    that is not what the page shows, the page is loaded again."""
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], _key(request)
    state = trial_state(index, run, key)
    if state is None:
        return not_found(request, f"trial {key} of run {run}")
    shown = request.query_params.get("shown", "")
    return render(request, "_trial_state.html", run=run, key=key, state=state, shown=shown)


def raw_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], _key(request)
    run_dir, folder = run_folder(index, run), trial_folder(index, run, key)
    if run_dir is None or folder is None:
        return not_found(request, f"trial {key} of run {run}")
    record, _ = trial_of(run_dir, folder)
    name = (record.transcript.raw if record else None) or TrialPaths(folder).raw_transcript.name
    path = inside(folder, name)
    if path is None or not path.is_file():
        return not_found(request, f"the raw transcript of trial {key}")
    offsets = index.trajectory_offsets(run, f"{key}#raw", path)
    pages = max(1, -(-offsets.lines // RAW_PAGE))
    page = min(max(1, int_param(request.query_params.get("page"), 1)), pages)
    first = (page - 1) * RAW_PAGE
    lines = [shown_line(b) for b in read_lines(path, offsets, first, RAW_PAGE)]
    return render(
        request,
        "raw.html",
        run=run,
        key=key,
        lines=list(enumerate(lines, start=first + 1)),
        page=page,
        pages=pages,
        total=offsets.lines,
        base=f"/runs/{quote(run)}/trials/{quote(key)}",
        whole=f"/runs/{quote(run)}/files/trials/{quote(key)}/{quote(name)}",
    )


_TRIAL = "/runs/{run}/trials/{case}/{agent}/{condition}/{repeat}"
ROUTES = [
    Route(_TRIAL, trial_page, name="trial"),
    Route(_TRIAL + "/raw", raw_page, name="raw"),
    Route("/fragments" + _TRIAL, trial_fragment),
]
