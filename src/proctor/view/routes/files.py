"""Files of a run, served as plain text and only from inside the run's folder."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from proctor.util.cutting import mask_wrapped, reach
from proctor.util.masking import mask
from proctor.view.confine import inside, run_folder
from proctor.view.index import ResultsIndex
from proctor.view.templating import not_found

_CHUNK = 1 << 20
SCREEN_LOG = "screen.log"
"""A trial's terminal screen, whose lines wrap at the terminal's width."""


def _chunks(path: Path) -> Iterator[bytes]:
    """The file masked piece by piece. Each piece keeps back as many characters as the longest
    secret could straddle into the next one, and UTF-8 is decoded across the pieces, so a key
    or a character split by a piece boundary is still seen whole. A terminal's screen
    (``screen.log``) wraps its lines, so there a key split by a line break is masked too."""
    wrapped = path.name == SCREEN_LOG
    masked = mask_wrapped if wrapped else mask
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    carry = ""
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            text = masked(carry + decoder.decode(chunk))
            keep = min(len(text), reach(wrapped=wrapped))
            carry = text[len(text) - keep :] if keep else ""
            if len(text) > keep:
                yield text[: len(text) - keep].encode("utf-8")
    tail = masked(carry + decoder.decode(b"", final=True))
    if tail:
        yield tail.encode("utf-8")


def file_view(request: Request) -> Response:
    """Any file of a known run as ``text/plain`` (never rendered as a page), secrets masked;
    refused (404) for anything that resolves outside the run folder."""
    index: ResultsIndex = request.app.state.index
    run = request.path_params["run"]
    folder = run_folder(index, run)
    relative = request.path_params["path"]
    path = inside(folder, relative) if folder is not None else None
    if path is None or not path.is_file():
        return not_found(request, f"file {relative} of run {run}")
    return StreamingResponse(
        _chunks(path),
        media_type="text/plain; charset=utf-8",
        headers={"content-disposition": "inline"},
    )


ROUTES = [Route("/runs/{run}/files/{path:path}", file_view, name="file")]
