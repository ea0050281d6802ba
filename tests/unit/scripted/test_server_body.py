"""Request bodies: framing, size caps and gzip, read from bytes as the handler would."""

from __future__ import annotations

import gzip
import io
from email.message import Message

import pytest

from proctor.scripted.server import body
from proctor.scripted.server.body import BodyError, read_body

TRUNCATED = gzip.compress(b"x" * 5, mtime=0)[:-4]  # fixed bytes: test ids must match across workers


def _read(data: bytes, **headers: str) -> bytes:
    message = Message()
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    return read_body(io.BufferedReader(io.BytesIO(data)), message)


def test_sized_chunked_and_gzip_bodies() -> None:
    assert _read(b"hello!", Content_Length="5") == b"hello"
    assert _read(b"") == b""
    chunked = b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n"
    assert _read(chunked, Transfer_Encoding="chunked") == b"abcde"
    packed = gzip.compress(b"ab") + gzip.compress(b"cd") + b"\0\0"
    assert _read(packed, Content_Length=str(len(packed)), Content_Encoding="gzip") == b"abcd"


@pytest.mark.parametrize(
    ("data", "headers", "status", "match"),
    [
        (b"x", {"Content_Length": "-1"}, 400, "not a non-negative integer"),
        (b"x", {"Content_Length": "+1"}, 400, "not a non-negative integer"),
        (b"abc", {"Content_Length": "5"}, 400, "ended before"),
        (b"x", {"Content_Length": str(10**30)}, 413, "exceeds"),
        (b"0x3\r\nabc\r\n0\r\n\r\n", {"Transfer_Encoding": "chunked"}, 400, "chunk size"),
        (b"5\r\nab", {"Transfer_Encoding": "chunked"}, 400, "inside a chunk"),
        (b"", {"Transfer_Encoding": "chunked"}, 400, "chunk size"),
        (b"nope", {"Content_Length": "4", "Content_Encoding": "gzip"}, 400, "not valid gzip"),
        (b"x", {"Content_Length": "1", "Content_Encoding": "br"}, 400, "Content-Encoding"),
        (
            TRUNCATED,
            {"Content_Length": str(len(TRUNCATED)), "Content_Encoding": "gzip"},
            400,
            "trunc",
        ),
    ],
)
def test_unreadable_bodies(data: bytes, headers: dict[str, str], status: int, match: str) -> None:
    with pytest.raises(BodyError, match=match) as info:
        _read(data, **headers)
    assert info.value.status == status


def test_limits_apply_to_chunked_and_decompressed_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(body, "MAX_BODY", 10)
    with pytest.raises(BodyError, match="exceeds") as info:
        _read(b"6\r\nabcdef\r\n6\r\nghijkl\r\n0\r\n\r\n", Transfer_Encoding="chunked")
    assert info.value.status == 413
    packed = gzip.compress(b"x" * 11)
    with pytest.raises(BodyError, match="exceeds") as info:
        _read(packed, Content_Length=str(len(packed)), Content_Encoding="gzip")
    assert info.value.status == 413


def test_conflicting_content_lengths_are_refused() -> None:
    message = Message()
    message["Content-Length"] = "1"
    message["Content-Length"] = "2"
    with pytest.raises(BodyError, match="conflicting"):
        read_body(io.BufferedReader(io.BytesIO(b"ab")), message)
