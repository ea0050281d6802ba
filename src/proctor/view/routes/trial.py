"""The Trial page (verdict, evaluators, the trajectory as a paged timeline, questions, the
workspace diff, the terminal, files) and the trial's raw transcript, paged."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.paths import LIVE_DIFF_MARKER, LIVE_MARKER, TrialPaths, names_live
from proctor.report.eval_turns import BoundedEval, bounded_eval
from proctor.report.html import clean_text
from proctor.util.cutting import mask_wrapped, read_head
from proctor.view.confine import inside, run_folder, trial_folder
from proctor.view.index import ResultsIndex
from proctor.view.offsets import read_lines
from proctor.view.questions import questions_of
from proctor.view.records import MISSING_STAMP
from proctor.view.routes.run import manifest_of, started_in
from proctor.view.stored import trial_of
from proctor.view.templating import int_param, not_found, render
from proctor.view.timeline import page_of_step, shown_line, timeline_page
from proctor.view.trial_state import plan_problem, trial_state

DIFF_LIMIT = 512 * 1024
SCREEN_LIMIT = 256 * 1024
RAW_PAGE = 100


def trial_key(request: Request) -> str:
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
        if path.name in (LIVE_MARKER, LIVE_DIFF_MARKER, f"{LIVE_DIFF_MARKER}.tmp"):
            continue  # (a mark of the worker's, while its trajectory or diff is the live one)
        if path.is_file():
            names.append(path.name)
        elif path.name == "evaluators" and path.is_dir():
            names += [f"evaluators/{p.name}" for p in sorted(path.iterdir()) if p.is_file()]
    return names


def _no_trial(request: Request, index: ResultsIndex, run: str, key: str) -> Response:
    """A 404 for a trial with no folder; for one the finished run planned, it says why the
    run counts it as an infra-error, and for one a run stopped before it started, that the
    run stopped. A trial the plan of a run in progress holds has not started yet: its page
    says so, and follows the run until it starts."""
    what = f"trial {key} of run {run}"
    state = trial_state(index, run, key)
    base = f"/runs/{quote(run)}/trials/{quote(key)}"
    if state == "pending":
        return render(request, "trial_pending.html", run=run, key=key, state="pending", base=base)
    rows = index.query(
        "SELECT reason FROM trials WHERE run = ? AND key = ? AND stamp = ?",
        (run, key, MISSING_STAMP),
    )
    if rows:
        message = f"{what} has no folder, and counts as an infra-error ({rows[0][0]})"
        return render(request, "error.html", status_code=404, message=message)
    run_dir, row = run_folder(index, run), index.run_row(run)
    if state is None and run_dir is not None and (problem := plan_problem(run_dir)):
        # Not "not found" alone: whether the run planned it is not known.
        message = f"{what} has no folder, and whether the run planned it is not known ({problem})"
        return render(request, "error.html", status_code=404, message=message)
    if state != "stopped" or run_dir is None or row is None:
        return not_found(request, what)
    manifest = manifest_of(run_dir)
    # One the run's last stretch started and that left no record: killed with the run (its
    # worker with it), or its record refused by a full disk, as report counts it.
    started = key in {"/".join(map(str, k)) for k in started_in(run_dir)}
    hint = f"`proctor run --resume {run_dir}` finishes it"
    if manifest is not None:
        hint = manifest.finish_hint(run_dir)
    return render(
        request,
        "trial_pending.html",
        status_code=404,
        run=run,
        key=key,
        state="stopped",
        started=started,
        left=row["finished_at"] is None,
        hint=hint,
        base=base,
    )


def trial_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], trial_key(request)
    context = trial_context(request)
    if context is None:
        return _no_trial(request, index, run, key)
    return render(request, "trial.html", **context)


def trial_context(request: Request) -> dict[str, Any] | None:
    """What the Trial page shows (and, while the trial runs, the part of it the page
    follows); None for a trial with no folder."""
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], trial_key(request)
    run_dir, folder = run_folder(index, run), trial_folder(index, run, key)
    if run_dir is None or folder is None:
        return None
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
    steps = len(offsets.tool_calls)
    step_missing = None
    if step >= steps and not running:  # a stale link, or typed: said, not page 1 in silence
        held = f"its steps are 0 to {steps - 1}" if steps > 1 else "its only step is 0"
        held = held if steps else "it has no step"
        step_missing = f"this transcript has no step {step}: {held}"
    elif step >= steps:  # a running trial's step to come: its last page, where it will be
        held = f"its steps so far are 0 to {steps - 1}" if steps > 1 else "its only step is 0"
        held = held if steps else "it has no step yet"
        step_missing = (
            f"this trial has no step {step} yet: it is still running ({held}), and this page "
            "shows the step once the agent takes it"
        )
    if step >= steps and running:
        page = MAX_PAGE  # (the last page: the timeline holds the page to its last)
    elif step >= 0:
        page = page_of_step(offsets, step, size)
    else:
        page = int_param(request.query_params.get("page"), 1)
    timeline = timeline_page(trajectory, offsets, page, size)
    # The part followed asks for the step again: it shows the step's page once it is there.
    follow = f"/fragments{base_of(run, key)}?shown=running&page={timeline.page}"
    follow += f"&step={step}" if running and step >= steps else ""
    diff, diff_cut = read_head(own(folder, paths.workspace_diff), DIFF_LIMIT)
    # The diff so far, written by the worker while the agent runs (not the one collected);
    # of a trial not running, one a run killed whole left (nothing dropped it): a part.
    marked = names_live(own(folder, folder / LIVE_DIFF_MARKER), own(folder, paths.workspace_diff))
    diff_live, diff_left = running and marked, not running and marked
    # A terminal wraps its lines: a key may be split over two of them.
    screen, screen_cut = read_head(own(folder, paths.screen_log), SCREEN_LIMIT, wrapped=True)
    base = base_of(run, key)
    bounded = bounded_eval(own(folder, paths.eval_result))
    raw_name = (record.transcript.raw if record else None) or paths.raw_transcript.name
    raw = inside(folder, raw_name)
    return dict(
        has_raw=raw is not None and raw.is_file(),  # a trial cut short may have none
        run=run,
        key=key,
        record=record,
        problem=problem,
        running=running,
        timeline=timeline,
        step_missing=step_missing,
        follow=follow,
        base=base,
        step_url=lambda n: f"{base}?step={n}#step-{n}",
        questions=questions_of(questions),
        # Cut as the HTML report cuts it: a test that logged a large file made the page as
        # large as the file.
        eval_view=bounded.view if isinstance(bounded, BoundedEval) else bounded,
        eval_cut=bounded.cut if isinstance(bounded, BoundedEval) else None,
        diff=highlight_diff(diff) if diff else None,
        diff_cut=diff_cut,
        diff_recorded=diff is not None,  # an empty diff is no change; none is no record
        diff_live=diff_live,
        diff_left=diff_left,
        screen=None if screen is None else mask_wrapped(screen),
        screen_cut=screen_cut,
        files=trial_files(folder),
        file_base=f"/runs/{quote(run)}/files/trials/{quote(key)}",
    )


MAX_PAGE = 10**9
"""A page past any timeline's last: the timeline shows its last page."""


def base_of(run: str, key: str) -> str:
    """The address of a trial's page."""
    return f"/runs/{quote(run)}/trials/{quote(key)}"


def raw_page(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], trial_key(request)
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


TRIAL = "/runs/{run}/trials/{case}/{agent}/{condition}/{repeat}"
ROUTES = [
    Route(TRIAL, trial_page, name="trial"),
    Route(TRIAL + "/raw", raw_page, name="raw"),
]
