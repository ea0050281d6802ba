"""Following runs in progress: fragments of the Runs and Run pages that the page's script
fetches every few seconds and swaps in (new trials appear without a reload), and a JSON
summary of every run."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.view.index import ResultsIndex
from proctor.view.routes.run import run_context
from proctor.view.routes.runs import FILTERS, chosen_filters, facets, summaries
from proctor.view.templating import VALIDATE, MaskedJSONResponse, not_found, render, unchanged
from proctor.view.trial_state import run_fingerprint


def runs_fragment(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    index.refresh()
    chosen = chosen_filters(request, (*FILTERS, "q"))
    return render(
        request,
        "_runs_live.html",
        runs=summaries(index, chosen),
        facets=facets(index),
        chosen=chosen,
        gone=index.gone,
    )


def run_fragment(request: Request) -> Response:
    """The followed part of a Run page, with an ETag: a poll that finds the run as it was
    (no trial started or ended, nothing of its record changed) is answered 304, without
    listing its trials' folders or rendering anything."""
    name = request.path_params["run"]
    etag = run_fingerprint(request.app.state.index, name, str(request.query_params))
    if etag is None:
        return not_found(request, f"run {name}")
    same = unchanged(request, etag)
    if same is not None:
        return same
    context = run_context(request)
    if context is None:
        return not_found(request, f"run {name}")
    response = render(request, "_run_live.html", **context)
    response.headers.update({**VALIDATE, "etag": etag})
    return response


def runs_json(request: Request) -> Response:
    """Every run's progress: trials on disk, planned, passes over scored, still running.

    A results folder (or the one run's folder) deleted or moved under the viewer is a 404
    naming it, not an empty list: a script tells it from a folder with no run yet. Once it is
    back, the list is."""
    index: ResultsIndex = request.app.state.index
    index.refresh()
    if index.gone:
        return MaskedJSONResponse({"error": index.gone}, status_code=404)
    return MaskedJSONResponse(
        [
            {
                "run": s.name,
                "command": s.command,
                "trials": s.trials,
                "cutShort": s.cut_short,
                "planned": s.planned,
                "passes": s.passes,
                "scored": s.scored,
                "inProgress": s.in_progress,
                "exitCode": s.exit_code,
                "problem": s.problem,
            }
            for s in summaries(index, {})
        ]
    )


ROUTES = [
    Route("/fragments/runs", runs_fragment),
    Route("/fragments/runs/{run}", run_fragment),
    Route("/api/runs", runs_json),
]
