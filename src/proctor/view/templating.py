"""The viewer's Jinja2 environment: its own page templates over the report's shared ones
(so the viewer's run and trial pages and the HTML report render the same parts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from proctor.report.html import template_environment
from proctor.util.masking import mask

TEMPLATES = Path(__file__).with_name("templates")
_ENV = template_environment(TEMPLATES)


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A page from the template ``name``; every page gets the request and the settings.

    The whole page is masked (:func:`~proctor.util.masking.mask`): a key can sit in what the
    viewer shows as a name (a run, case or tag), not only in a record's text."""
    settings = request.app.state.settings
    html = _ENV.get_template(name).render(
        request=request, settings=settings, token=settings.token, **context
    )
    return HTMLResponse(mask(html), status_code=status_code)


class MaskedJSONResponse(JSONResponse):
    """A JSON answer of the viewer's API, masked as its pages are."""

    def render(self, content: Any) -> bytes:
        return mask(super().render(content).decode()).encode()


VALIDATE = {"cache-control": "no-cache"}
"""Kept by the browser, but asked again each time (``If-None-Match``)."""


def unchanged(request: Request, etag: str) -> Response | None:
    """A 304 when the request's ``If-None-Match`` names ``etag`` (what the page shows has not
    changed since), else None; a followed part's answer carries ``etag`` either way."""
    if etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers={**VALIDATE, "etag": etag})
    return None


def not_found(request: Request, what: str) -> HTMLResponse:
    """A 404 page naming what was not found (escaped like everything else)."""
    return render(request, "error.html", status_code=404, message=f"{what} was not found")


MAX_DIGITS = 9
"""The longest page or step number a query may give; a longer one is no number here (and a
string of thousands of digits would be refused by ``int`` itself)."""


def int_param(value: str | None, default: int) -> int:
    """A query parameter as a whole number (ASCII digits), else ``default``; a number of more
    than :data:`MAX_DIGITS` digits is the largest of that many (past any last page or step,
    which it then shows)."""
    if value is None or not value.isascii() or not value.isdecimal():
        return default
    return int(value) if len(value) <= MAX_DIGITS else 10**MAX_DIGITS - 1
