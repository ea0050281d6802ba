"""The package's static files: the viewer's script and the report's shared style sheet,
chart library and figures' script (all vendored; nothing comes from the network); and the
site's icon."""

from __future__ import annotations

import struct
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


def _icon(size: int = 16, colour: tuple[int, int, int] = (0x69, 0x09, 0xDA)) -> bytes:
    """A square of one colour as an ICO file (one 32-bit bitmap, no mask)."""
    red, green, blue = colour
    pixels = bytes((blue, green, red, 255)) * (size * size)
    mask = bytes(((size + 31) // 32) * 4 * size)
    bitmap = struct.pack("<IiiHHIIiiII", 40, size, 2 * size, 1, 32, 0, 0, 0, 0, 0, 0)
    image = bitmap + pixels + mask
    header = struct.pack("<HHH", 0, 1, 1)
    entry = struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(image), 6 + 16)
    return header + entry + image


ICON = _icon()


def favicon(request: Request) -> Response:
    """The site's icon. A page names none of its own (``data:,``), but a file served as plain
    text is no page, and the browser asks for ``/favicon.ico``: answered, it logs no 404."""
    return Response(ICON, media_type="image/x-icon", headers={"cache-control": "max-age=86400"})


ROUTES = [
    Route("/static/{name}", static_file, name="static"),
    Route("/favicon.ico", favicon, name="favicon"),
]
