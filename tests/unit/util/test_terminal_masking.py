"""A key is masked in a terminal's raw stream however escapes and chunks split it
(:mod:`proctor.util.terminal_masking`): :func:`~proctor.util.terminal_masking.mask_terminal` on
a key split by escapes (cursor moves, colours, titles, links), wrapped in a terminal UI's box
(Gemini CLI's padded, coloured edges) or standing where the quick search might miss it; the
:class:`~proctor.util.terminal_masking.StreamMask` mirror however the chunks fall; and linear
time on long runs of padding, escapes and control characters."""

from __future__ import annotations

import pytest

from proctor.util import masking, terminal_masking

pytestmark = pytest.mark.usefixtures("one_secret")


TERMINAL_KEY = "sk-ant-api03-abcdefGHIJ0123456789"
BOX = "\u2502".encode()


@pytest.mark.parametrize(
    ("raw", "masked"),
    [
        (TERMINAL_KEY.encode(), b"***"),
        # the cursor moved on a cell, a colour changed, an inverse cursor drawn in the key
        (b"x " + TERMINAL_KEY[:16].encode() + b"\x1b[1C" + TERMINAL_KEY[16:].encode() + b" y", b"x ***\x1b[1C y"),
        (b"x " + TERMINAL_KEY[:5].encode() + b"\x1b[31m" + TERMINAL_KEY[5:9].encode() + b"\x1b[0m\x1b[7m" + TERMINAL_KEY[9:].encode() + b"\x1b[27m y", b"x ***\x1b[31m\x1b[0m\x1b[7m\x1b[27m y"),
        # a window title set in it, a backspace, a cursor jump to the next row
        (TERMINAL_KEY[:10].encode() + b"\x1b]0;title\x07" + TERMINAL_KEY[10:].encode(), b"***\x1b]0;title\x07"),
        (TERMINAL_KEY[:10].encode() + b"\x1b[12;3H" + TERMINAL_KEY[10:].encode(), b"***\x1b[12;3H"),
        # wrapped by a terminal UI in a box: the line break kept
        (BOX + b" " + TERMINAL_KEY[:10].encode() + b"  " + BOX + b"\r\n" + BOX + b" " + TERMINAL_KEY[10:].encode() + b" " + BOX, BOX + b" ***  " + BOX + b"\r\n" + BOX + b"  " + BOX),
        # controls: a blank is no escape, and a key's parts drawn apart are not one key
        (TERMINAL_KEY[:10].encode() + b" " + TERMINAL_KEY[10:].encode(), TERMINAL_KEY[:10].encode() + b" " + TERMINAL_KEY[10:].encode()),
        (TERMINAL_KEY[:10].encode() + b"  x  " + TERMINAL_KEY[10:].encode(), TERMINAL_KEY[:10].encode() + b"  x  " + TERMINAL_KEY[10:].encode()),
    ],
)  # fmt: skip
def test_a_key_the_terminal_stream_splits_with_escapes_is_masked(
    monkeypatch: pytest.MonkeyPatch, raw: bytes, masked: bytes
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    assert terminal_masking.mask_terminal(raw) == masked


GEMINI_EDGE = b"\x1b[2m\x1b[38;2;135;175;255m" + BOX
"""Gemini CLI's box edge, dim and coloured (bytes from a recording of its terminal UI)."""
GEMINI_BREAK = (
    b" " * 77 + GEMINI_EDGE + b"\x1b[39m\x1b[22m\r\n" + GEMINI_EDGE + b"\x1b[22m\x1b[39m "
)
"""Between two lines of a command's output in Gemini CLI's box: the line padded to the box's
width, the right edge drawn and coloured back, the break, the next line's left edge."""


@pytest.mark.parametrize("cut", [1, 10, 20, 32])
def test_a_key_wrapped_in_gemini_cli_s_box_is_masked_in_the_terminal_stream(
    monkeypatch: pytest.MonkeyPatch, cut: int
) -> None:
    """Gemini CLI pads each line of its box with blanks to its width and draws the edges in
    colour on both sides of the line break: a key (or its base64) wrapped there was kept in
    ``terminal.raw``. The bytes between the pieces stay, so the recording replays."""
    import base64

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    key = TERMINAL_KEY.encode()
    raw = GEMINI_EDGE + b"\x1b[22m\x1b[39m " + key[:cut] + GEMINI_BREAK + key[cut:] + b" " * 40
    kept = GEMINI_EDGE + b"\x1b[22m\x1b[39m ***" + GEMINI_BREAK + b" " * 40
    assert terminal_masking.mask_terminal(raw) == kept
    # (cat file; printf "$KEY") | base64 in the box: the encoding cut at 76 columns
    encoded = base64.encodebytes(b"a" * 50 + key + b"a" * 80).decode().splitlines()
    drawn = GEMINI_BREAK.join(line.encode() for line in encoded)
    masked = terminal_masking.mask_terminal(drawn)
    assert b"***" in masked and _shown_key(masked.replace(GEMINI_BREAK, b"")) == "", masked
    assert masked.count(b"\r\n") == drawn.count(b"\r\n")
    for size in (7, 64, 4096):  # the mirror, however the chunks fall
        mirror = terminal_masking.StreamMask()
        out = b"".join(mirror.feed(raw[i : i + size]) for i in range(0, len(raw), size))
        assert out + mirror.flush() == kept, size


def test_a_terminal_mask_takes_no_time_on_long_runs_of_padding() -> None:
    """Blanks and box edges, with or without line breaks, are read once after a start of a
    key: many starts, each followed by a long padding and no end, take linear time."""
    import time

    masking.register_secret(TERMINAL_KEY)
    for run in (b" " * 3000 + BOX, GEMINI_BREAK * 40):
        raw = (b"sk-ant" + run + b"!") * 300
        started = time.monotonic()
        assert terminal_masking.mask_terminal(raw) == raw
        assert time.monotonic() - started < 5


def _shown_key(data: bytes) -> str:
    """A piece of 12 characters of :data:`TERMINAL_KEY`'s base64 forms in ``data``."""
    from proctor.util.encoded import stream_forms

    text = data.decode("latin-1")
    pieces = {f[i : i + 12] for f in stream_forms(TERMINAL_KEY) for i in range(len(f) - 11)}
    return next((p for p in pieces if p in text), "")


def test_a_terminal_mask_takes_no_time_on_long_runs_of_escapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing between two characters of a key is given back once taken: a stream of many
    starts of the key, each followed by escapes and no end, is read in linear time."""
    import time

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    raw = (b"sk-ant" + b"\x1b[1C\x1b[31m\r\n  " * 50 + b"!") * 2000
    started = time.monotonic()
    assert terminal_masking.mask_terminal(raw) == raw
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 64])
def test_the_mirror_masks_a_key_split_with_escapes_however_the_chunks_fall(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    key = TERMINAL_KEY.encode()
    stream = b"x " + key[:16] + b"\x1b[1C" + key[16:24] + b"\x1b[38;5;12m" + key[24:] + b"\x1b[0m y"
    stream += b" s" + BOX + b" " + key[:6] + b"  " + BOX + b"\r\n" + BOX + b" " + key[6:] + b" sk-"
    mirror = terminal_masking.StreamMask()
    out = b"".join(mirror.feed(stream[i : i + size]) for i in range(0, len(stream), size))
    out += mirror.flush()
    assert (
        out
        == b"x ***\x1b[1C\x1b[38;5;12m\x1b[0m y s"
        + BOX
        + b" ***  "
        + BOX
        + b"\r\n"
        + BOX
        + b"  sk-"
    )
    assert mirror.feed(b"plain text") == b"plain text"  # nothing held without a start


@pytest.mark.parametrize(
    ("raw", "masked"),
    [
        # in a link's address (an OSC): the escape taken out whole would take the key too
        (b"\x1b]8;;https://h/?t=" + TERMINAL_KEY.encode() + b"\x1b\\link", b"\x1b]8;;https://h/?t=***\x1b\\link"),
        # right after an ESC whose second byte would be its first character
        (b"\x1b" + TERMINAL_KEY.encode(), b"\x1b***"),
        # an escape of two bytes (the cursor saved) between two of its characters
        (TERMINAL_KEY[:7].encode() + b"\x1b7" + TERMINAL_KEY[7:].encode(), b"***\x1b7"),
    ],
)  # fmt: skip
def test_a_key_the_quick_search_of_the_stream_might_miss_is_masked(
    monkeypatch: pytest.MonkeyPatch, raw: bytes, masked: bytes
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    assert terminal_masking.mask_terminal(raw) == masked


@pytest.mark.parametrize(
    "tail",
    [b"\x00" * 1023 + b"x", b"\x07\x08\r" * 341 + b"x", BOX * 341 + b"x"],
    ids=["nul", "controls", "edges"],
)
def test_the_mirror_reads_a_tail_of_control_characters_once(
    monkeypatch: pytest.MonkeyPatch, tail: bytes
) -> None:
    """Where a chunk's last kilobyte may hold a line's padding after a key's first character,
    a run of control characters or box edges not reaching the end was read again from each of
    its bytes (40 ms a chunk, 3 ms for edges): read once, a thousand chunks take a tenth of a
    second."""
    import time

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    mirror = terminal_masking.StreamMask()
    mirror.feed(tail)  # the patterns compiled
    started = time.monotonic()
    for _ in range(1000):
        assert mirror.feed(tail) == tail
    assert time.monotonic() - started < 1.5
