"""Following a trial of a run in progress: the part of its Trial page the page's script
fetches every two seconds. While the trial runs, that is its whole record so far (the
timeline, the questions, the diff, the terminal, the files); once it is further (started,
ended, or its run stopped), a state that makes the page load again. Each answer carries an
ETag: a poll that finds nothing changed is answered 304, without reading the run's plan or
any of the trial's files."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.view.index import ResultsIndex
from proctor.view.routes.trial import TRIAL, trial_context, trial_key
from proctor.view.templating import VALIDATE, not_found, render, unchanged
from proctor.view.trial_state import fingerprint, trial_state


def trial_fragment(request: Request) -> Response:
    index: ResultsIndex = request.app.state.index
    run, key = request.path_params["run"], trial_key(request)
    etag = fingerprint(index, run, key, str(request.query_params))
    if etag is None:
        return not_found(request, f"trial {key} of run {run}")
    same = unchanged(request, etag)
    if same is not None:
        return same
    state = trial_state(index, run, key)
    if state is None:
        return not_found(request, f"trial {key} of run {run}")
    shown = request.query_params.get("shown", "")
    context = trial_context(request) if state == shown == "running" else None
    if context is not None:
        response = render(request, "_trial_live.html", **context)
    else:
        response = render(request, "_trial_state.html", run=run, key=key, state=state, shown=shown)
    response.headers.update({**VALIDATE, "etag": etag})
    return response


ROUTES = [Route("/fragments" + TRIAL, trial_fragment)]
