"""The viewer as a Starlette application: pages rendered on the server, routes grouped by
page under :mod:`proctor.view.routes`, static files from the package, strict headers.

    app = build_app(ViewSettings(results=Path("proctor-results")))
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from proctor.view.index import ResultsIndex
from proctor.view.routes import ROUTES
from proctor.view.settings import ViewSettings
from proctor.view.templating import MaskedJSONResponse, not_found

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
"""No inline script runs on a viewer page: agent output that slipped past escaping could not
execute (a second wall behind autoescaping)."""

_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Adds the viewer's security headers to every HTTP response, and refuses a request whose
    ``Host`` is not one of ``hosts`` (when given): a page of another site that rebinds its name
    to 127.0.0.1 cannot read the results."""

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...] = ()) -> None:
        self.app = app
        self.hosts = {h.encode() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope.get("headers", [])).get(b"host", b"")
        if self.hosts and host not in self.hosts:
            if is_api(scope.get("path", "")):
                kind, body = b"application/json", b'{"error":"unknown host"}'
            else:
                kind, body = b"text/plain; charset=utf-8", b"unknown host"
            headers = [(b"content-type", kind), *_HEADERS]
            await send({"type": "http.response.start", "status": 421, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class SlashedAPIPaths:
    """An API path spelled with a trailing slash (``/api/runs/``) answered 404, naming the
    spelling without it when that is an endpoint, before the router would redirect it there as
    it does a page's: a script that does not follow redirects would get no JSON (and a POST
    would be sent on again). Every API path is spelled without a trailing slash."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not is_api(path) or not path.endswith("/"):
            await self.app(scope, receive, send)
            return
        bare = path.rstrip("/")
        routes = scope["app"].router.routes
        if any(route.matches({**scope, "path": bare})[0] != Match.NONE for route in routes):
            message = f"no API endpoint {path} (the endpoint is {bare}, without the trailing slash)"
        else:
            message = f"no API endpoint {path}"
        response = MaskedJSONResponse({"error": message}, status_code=404)
        await response(scope, receive, send)


def is_api(path: str) -> bool:
    """Whether ``path`` is one of the JSON API's (``/api/…``): its errors are JSON too."""
    return path == "/api" or path.startswith("/api/")


def http_error(request: Request, exc: Exception) -> Response:
    """A 404 (no such route) or 405 (a method the route does not take, ``Allow`` naming those
    it does): ``{"error": …}`` under ``/api/``, as the API's own errors; elsewhere the viewer's
    "Not here" page for a page there is not (``/runs``, a trial's folder typed short), as for
    a run there is not, and Starlette's plain text for another status."""
    assert isinstance(exc, HTTPException)
    path = request.url.path
    if exc.status_code in {204, 304}:
        return Response(status_code=exc.status_code, headers=exc.headers)
    if not is_api(path) and exc.status_code == 404 and request.method in ("GET", "HEAD"):
        return not_found(request, f"the page {path}")  # the viewer's page, as a run's is
    if not is_api(path):
        return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
    headers = dict(exc.headers or {})
    if "Allow" in headers:  # in a steady order (Starlette's comes from a set)
        headers["Allow"] = ", ".join(sorted(headers["Allow"].split(", ")))
    if exc.status_code == 404:
        message = f"no API endpoint {path}"
    elif exc.status_code == 405 and "Allow" in headers:
        message = f"{request.method} is not allowed on {path} (allowed: {headers['Allow']})"
    else:
        message = exc.detail
    return MaskedJSONResponse({"error": message}, status_code=exc.status_code, headers=headers)


def server_error(request: Request, exc: Exception) -> Response:
    """An unexpected failure: one JSON sentence under ``/api/``, plain text elsewhere, never
    a traceback (that goes to the viewer's standard error)."""
    if is_api(request.url.path):
        message = "the viewer failed to answer this request (its standard error says why)"
        return MaskedJSONResponse({"error": message}, status_code=500)
    return PlainTextResponse("Internal Server Error", status_code=500)


class ViewerApp(Starlette):
    """Starlette with :class:`SecurityHeaders` outside everything, its error middleware too:
    a 500 carries the same headers (and the same Host check) as any other response; inside
    them, :class:`SlashedAPIPaths`."""

    hosts: tuple[str, ...] = ()

    def build_middleware_stack(self) -> ASGIApp:
        stack = SlashedAPIPaths(super().build_middleware_stack())
        return SecurityHeaders(stack, hosts=self.hosts)


def build_app(settings: ViewSettings, index: ResultsIndex | None = None) -> Starlette:
    """The viewer over ``settings.results`` (its index is opened, or built, here)."""
    from proctor.agents.credentials import register_user_keys
    from proctor.view.playground import Playground

    register_user_keys(settings.source)
    index = index or ResultsIndex(settings.results, only=settings.only)
    index.refresh(force=True)
    app = ViewerApp(
        routes=ROUTES, exception_handlers={HTTPException: http_error, Exception: server_error}
    )
    app.hosts = tuple(urlsplit(origin).netloc for origin in settings.origins)
    app.state.settings = settings
    app.state.index = index
    app.state.playground = Playground(settings, index)
    return app
