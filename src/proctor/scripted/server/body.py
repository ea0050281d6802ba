"""Reading a request body safely: framing checked, size capped, gzip decoded.

Any body that cannot be read raises :class:`BodyError`; the handler answers it and closes the
connection, because bytes left unread would otherwise be parsed as the next request.
"""

from __future__ import annotations

import re
import zlib
from email.message import Message
from io import BufferedIOBase

MAX_BODY = 64 * 1024 * 1024
"""Largest request body accepted, before and after gzip (64 MiB); a larger one gets a 413."""
MAX_LINE = 8192
"""Longest chunk-size or trailer line read from a chunked body."""
DIGITS = re.compile(rb"[0-9]+")
HEX_DIGITS = re.compile(rb"[0-9A-Fa-f]+")


class BodyError(Exception):
    """The request body cannot be read; ``status`` is the HTTP status to answer (400 or 413)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def read_body(rfile: BufferedIOBase, headers: Message) -> bytes:
    """The decoded body of the request whose ``headers`` were just read from ``rfile``."""
    if "chunked" in headers.get("Transfer-Encoding", "").lower():
        raw = _chunked(rfile)
    else:
        raw = _sized(rfile, headers)
    encoding = headers.get("Content-Encoding", "identity").strip().lower()
    if encoding == "gzip":
        return _gunzip(raw, MAX_BODY)
    if encoding != "identity":
        raise BodyError(400, f"unsupported Content-Encoding {encoding!r} (use identity or gzip)")
    return raw


def _sized(rfile: BufferedIOBase, headers: Message) -> bytes:
    """A body framed by ``Content-Length`` (none means empty), checked before reading."""
    values = {str(v).strip() for v in headers.get_all("Content-Length") or []}
    if len(values) > 1:
        raise BodyError(400, "conflicting Content-Length headers")
    value = values.pop() if values else "0"
    if not DIGITS.fullmatch(value.encode()):
        raise BodyError(400, f"Content-Length {value[:40]!r} is not a non-negative integer")
    length = int(value)
    if length > MAX_BODY:
        raise BodyError(413, f"request body of {length} bytes exceeds {MAX_BODY} bytes")
    raw = rfile.read(length)
    if len(raw) < length:
        raise BodyError(400, "request body ended before Content-Length bytes")
    return raw


def _chunked(rfile: BufferedIOBase) -> bytes:
    """A ``Transfer-Encoding: chunked`` body, refused once it passes :data:`MAX_BODY`."""
    parts: list[bytes] = []
    total = 0
    while True:
        line = rfile.readline(MAX_LINE).split(b";")[0].strip()
        if not HEX_DIGITS.fullmatch(line):
            raise BodyError(400, f"bad chunk size {line[:40]!r}")
        size = int(line, 16)
        if size == 0:
            break
        total += size
        if total > MAX_BODY:
            raise BodyError(413, f"chunked request body exceeds {MAX_BODY} bytes")
        part = rfile.read(size)
        if len(part) < size:
            raise BodyError(400, "chunked request body ended inside a chunk")
        parts.append(part)
        rfile.readline(MAX_LINE)
    while rfile.readline(MAX_LINE).strip():
        pass
    return b"".join(parts)


def _gunzip(raw: bytes, limit: int) -> bytes:
    """Decompress every gzip member of ``raw``, refusing output beyond ``limit`` bytes (413)."""
    out = bytearray()
    while raw:
        inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        try:
            out += inflater.decompress(raw, limit + 1 - len(out))
        except zlib.error as exc:
            raise BodyError(400, f"body is not valid gzip: {exc}") from exc
        if len(out) > limit:
            raise BodyError(413, f"decompressed request body exceeds {limit} bytes")
        if not inflater.eof:
            raise BodyError(400, "body is not valid gzip: the stream is truncated")
        raw = inflater.unused_data.lstrip(b"\0")
    return bytes(out)
