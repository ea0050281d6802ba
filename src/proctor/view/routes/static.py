"""The package's static files: the viewer's script and the report's shared style sheet,
chart library and figures' script (all vendored; nothing comes from the network)."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from proctor.report.html import ASSETS

VIEW_STATIC = Path(__file__).parents[1] / "static"
FILES: dict[str, Path] = {
    "style.css": ASSETS / "style.css",
    "chart.umd.min.js": ASSETS / "chart.umd.min.js",
    "charts.js": ASSETS / "charts.js",
    "view.js": VIEW_STATIC / "view.js",
}


def static_file(request: Request) -> Response:
    path = FILES.get(request.path_params["name"])
    if path is None:
        return PlainTextResponse("not found", status_code=404)
    return FileResponse(path, headers={"cache-control": "max-age=300"})


ROUTES = [Route("/static/{name}", static_file, name="static")]
