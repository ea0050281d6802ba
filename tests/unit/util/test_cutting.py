"""A page's cut never splits a registered secret, and a secret a terminal wrapped over two
lines is masked: masking replaces whole secrets only, so half a key would show."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.util import masking
from proctor.util.cutting import (
    clear_cut,
    mask_wrapped,
    masked_data,
    masked_head,
    masked_short,
    masked_tail,
    read_head,
    secret_spans,
)
from proctor.util.masking import mask, register_secret
from proctor.view.timeline import LINE_SHOWN, _cut, shown_line

KEY = "sk-ant-api03-LEAKTESTKEY0123456789abcdef"


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    register_secret(KEY)


def _shows_part_of_the_key(text: str) -> bool:
    return any(KEY[: n + 1] in text for n in range(8, len(KEY)))


@pytest.mark.parametrize("before", [LINE_SHOWN - 20, LINE_SHOWN - 1, LINE_SHOWN - len(KEY) + 1])
def test_a_long_event_text_is_cut_before_a_key_it_would_split(before: int) -> None:
    shown = mask(_cut("x" * before + KEY + " and more"))
    assert not _shows_part_of_the_key(shown)
    assert shown.startswith("x" * before + " … [")
    assert f"[{len(KEY) + len(' and more'):,} more characters" in shown


def test_a_key_wholly_before_the_cut_is_masked_and_one_after_it_is_not_shown() -> None:
    assert mask(_cut("x" * 10 + KEY + "y" * LINE_SHOWN)).startswith("x" * 10 + "***yyy")
    assert KEY[:5] not in _cut("x" * LINE_SHOWN + KEY)


def test_a_long_raw_line_is_cut_before_a_key_it_would_split() -> None:
    line = ("é" * ((LINE_SHOWN - 40) // 2) + "x" * 30 + KEY + "tail").encode()
    shown = mask(shown_line(line))
    assert not _shows_part_of_the_key(shown) and "more bytes not shown" in shown
    assert shown.endswith(f"[{len(KEY) + len('tail'):,} more bytes not shown]")


def test_a_file_s_head_stops_before_a_key_the_limit_would_split(tmp_path: Path) -> None:
    path = tmp_path / "workspace.diff"
    path.write_text("+" + "d" * 980 + KEY + "\n" + "+rest\n" * 10)
    head, cut = read_head(path, 1000)
    assert cut and head == "+" + "d" * 980
    assert read_head(path, 100_000) == (path.read_text(), False)
    assert read_head(tmp_path / "none", 10) == (None, False)


def test_a_key_a_terminal_wrapped_over_two_lines_is_masked_lines_kept() -> None:
    screen = "x" * 150 + KEY[:10] + "\n" + KEY[10:] + " done\nnext\r\n"
    assert mask(screen) == screen  # the plain mask does not see it
    assert mask_wrapped(screen) == "x" * 150 + "***\n done\nnext\r\n"
    assert mask_wrapped(f"a {KEY} b") == "a *** b"


def test_a_screen_s_head_stops_before_a_key_split_over_lines(tmp_path: Path) -> None:
    path = tmp_path / "screen.log"
    lines = "x" * 150 + KEY[:10] + "\n" + KEY[10:] + "\n"
    path.write_text(lines * 3)
    limit = len(lines) + 155  # inside the second key, on the first of its lines
    head, cut = read_head(path, limit, wrapped=True)
    assert cut and head == lines + "x" * 150
    assert "LEAK" not in mask_wrapped(head)


def test_a_cut_inside_overlapping_secrets_goes_back_to_the_first() -> None:
    register_secret("ABCDEF-123")
    register_secret("123-GHIJKL")
    text = "..ABCDEF-123-GHIJKL.."
    assert clear_cut(text, 15) == 2
    assert clear_cut(text, 2) == 2 and clear_cut(text, 100) == len(text)


@pytest.mark.parametrize(
    "screen",
    [
        "x sk-ant-api03-\n  WRAPPEDKEY0123456789abcdef end\n",  # Codex CLI indents a wrapped line
        "│ x sk-ant-api03-WRAPP │\n│ EDKEY0123456789abcdef │\n",  # a box's edges
        "p" * 150 + "sk-ant-api03-WRAP\nPEDKEY0123456789abcdef\n",  # a bare wrap
    ],
)
def test_a_key_a_terminal_ui_wrapped_with_its_edges_is_masked(
    monkeypatch: pytest.MonkeyPatch, screen: str
) -> None:
    from proctor.util import masking
    from proctor.util.cutting import mask_wrapped

    key = "sk-ant-api03-WRAPPEDKEY0123456789abcdef"
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(key)
    shown = mask_wrapped(screen)
    assert "***" in shown and "WRAP" not in shown and "0123456789" not in shown, shown
    assert shown.count("\n") == screen.count("\n")  # the lines stay lines


@pytest.mark.parametrize("at", [1, 10, len(KEY) - 1, len(KEY) + 5])
def test_a_head_tail_or_short_form_is_masked_whole_before_the_cut(at: int) -> None:
    text = "x" * at + KEY + "y" * at
    for shown in (
        masked_head(text, at + 10),
        masked_tail(text, at + 10),
        masked_short(text, at + 10),
    ):
        assert not _shows_part_of_the_key(shown) and KEY[-9:] not in shown, shown
    assert masked_head(text, at + 3) == "x" * at + "***"
    assert masked_tail(text, at + 3) == "***" + "y" * at
    assert masked_short(text, at + 2) == "x" * at + "*…"
    assert masked_tail(text, 0) == masked_head(text, 0) == ""


def test_a_record_printed_as_json_is_masked_in_every_string_and_key() -> None:
    record = {"a": [f"x{KEY}", 3, None, {KEY: (KEY, 1.5)}], "b": True}
    assert masked_data(record) == {"a": ["x***", 3, None, {"***": ["***", 1.5]}], "b": True}


def test_secret_spans_are_every_place_a_secret_occurs_overlaps_merged() -> None:
    register_secret("ABCDEF-1")
    text = f"x {KEY} y {KEY[:20]} ABCDEF-1ABCDEF-1 z"
    start = text.index("ABCDEF-1")
    assert secret_spans(text) == [(2, 2 + len(KEY)), (start, start + 16)]
    assert secret_spans("nothing here") == []
