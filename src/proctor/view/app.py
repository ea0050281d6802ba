"""The viewer as a Starlette application: pages rendered on the server, routes grouped by
page under :mod:`proctor.view.routes`, static files from the package, strict headers.

    app = build_app(ViewSettings(results=Path("proctor-results")))
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from proctor.view.index import ResultsIndex
from proctor.view.routes import ROUTES
from proctor.view.settings import ViewSettings

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
            await send({"type": "http.response.start", "status": 421, "headers": _HEADERS})
            await send({"type": "http.response.body", "body": b"unknown host"})
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class ViewerApp(Starlette):
    """Starlette with :class:`SecurityHeaders` outside everything, its error middleware too:
    a 500 carries the same headers (and the same Host check) as any other response."""

    hosts: tuple[str, ...] = ()

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack(), hosts=self.hosts)


def build_app(settings: ViewSettings, index: ResultsIndex | None = None) -> Starlette:
    """The viewer over ``settings.results`` (its index is opened, or built, here)."""
    from proctor.agents.credentials import register_user_keys
    from proctor.view.playground import Playground

    register_user_keys(settings.source)
    index = index or ResultsIndex(settings.results, only=settings.only)
    index.refresh(force=True)
    app = ViewerApp(routes=ROUTES)
    app.hosts = tuple(urlsplit(origin).netloc for origin in settings.origins)
    app.state.settings = settings
    app.state.index = index
    app.state.playground = Playground(settings, index)
    return app
