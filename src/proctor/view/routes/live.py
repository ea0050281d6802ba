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
from proctor.view.templating import MaskedJSONResponse, not_found, render


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
    context = run_context(request)
    if context is None:
        return not_found(request, f"run {request.path_params['run']}")
    return render(request, "_run_live.html", **context)


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
