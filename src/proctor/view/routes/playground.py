"""The Evals and playground page, and its API: ``POST /api/batches`` starts a batch (202),
``GET /api/batches/{id}`` reports its progress. A state-changing request must carry the
viewer's token (``X-Proctor-Token``) and come from the viewer's own origin."""

from __future__ import annotations

import hmac
import json

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proctor.view.playground import BatchRefused, Playground
from proctor.view.templating import MaskedJSONResponse, render


def allowed_origin(request: Request) -> bool:
    """The request's Origin is the viewer's own address (a request without one is allowed
    only when the browser says it is the page's own, ``Sec-Fetch-Site: same-origin``: a
    browser sends an Origin with every POST, and a request with neither is no page's)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") == "same-origin"
    settings = request.app.state.settings
    own = settings.origins or (f"{request.url.scheme}://{request.headers.get('host', '')}",)
    return origin in own


MAX_BATCH_BODY = 1024 * 1024
"""The largest body ``POST /api/batches`` takes (1 MiB): a suite name and a list of case names
fit in it many times over."""

TOO_LARGE = (
    f"the request body is larger than 1 MiB ({MAX_BATCH_BODY} bytes), "
    "the most a batch request may be"
)


def _refuse(message: str, status: int) -> MaskedJSONResponse:
    return MaskedJSONResponse({"error": message}, status_code=status)


async def _limited_body(request: Request) -> bytes | None:
    """The request's body, or None when it is larger than :data:`MAX_BATCH_BODY`: a body whose
    ``Content-Length`` says so is refused before any of it is read, and one sent without it
    (in chunks) is read only until it passes the limit, never whole."""
    try:
        declared = int(request.headers.get("content-length", ""))
    except ValueError:
        declared = None
    if declared is not None and declared > MAX_BATCH_BODY:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BATCH_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def playground_page(request: Request) -> Response:
    playground: Playground = request.app.state.playground
    suites, problems = playground.listing()
    return render(
        request,
        "playground.html",
        suites=suites,
        problems=problems,
        batches=playground.batches(),
        source=request.app.state.settings.source,
    )


async def start_batch(request: Request) -> Response:
    settings = request.app.state.settings
    if not settings.allow_changes:
        return _refuse(
            "refused: the viewer listens on every address; the playground runs batches only "
            "when it is bound to one (127.0.0.1 by default)",
            403,
        )
    token = request.headers.get("x-proctor-token", "")
    if not hmac.compare_digest(token.encode(), settings.token.encode()):
        return _refuse("refused: this request lacks the viewer's token", 403)
    if not allowed_origin(request):
        return _refuse("refused: the request comes from another origin", 403)
    raw = await _limited_body(request)
    if raw is None:
        return _refuse(TOO_LARGE, 413)
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, RecursionError):  # RecursionError: nesting no request needs
        return _refuse("the request body is not JSON", 400)
    suite = body.get("suite") if isinstance(body, dict) else None
    cases = body.get("cases", []) if isinstance(body, dict) else None
    if not isinstance(suite, str) or not isinstance(cases, list):
        return _refuse("expected a JSON object with 'suite' (a string) and 'cases' (a list)", 400)
    if not all(isinstance(c, str) for c in cases):
        return _refuse("'cases' must list case names", 400)
    playground: Playground = request.app.state.playground
    try:
        from starlette.concurrency import run_in_threadpool

        batch = await run_in_threadpool(playground.start, suite, list(cases))
    except BatchRefused as exc:
        return _refuse(str(exc), exc.status)
    return MaskedJSONResponse(batch, status_code=202)


def batch_status(request: Request) -> Response:
    playground: Playground = request.app.state.playground
    batch = playground.batch(request.path_params["batch"])
    if batch is None:
        return _refuse("no such batch", 404)
    return MaskedJSONResponse(batch)


ROUTES = [
    Route("/playground", playground_page, name="playground"),
    Route("/api/batches", start_batch, methods=["POST"]),
    Route("/api/batches/{batch}", batch_status),
]
