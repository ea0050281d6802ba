"""How times read in the Markdown summaries."""

from __future__ import annotations

import pytest

from proctor.util.text import columns, duration_text, shown_repr, shown_width


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "–"),
        (0, "0.0 s"),
        (42.54, "42.5 s"),
        (59.9, "59.9 s"),
        (59.96, "1m 00s"),  # rounded to a tenth, it is a minute
        (60, "1m 00s"),
        (330, "5m 30s"),
        (3599.4, "59m 59s"),
        (3599.6, "1h 00m"),  # rounded to the second first: never "60m 00s"
        (7500, "2h 05m"),
        (7199, "2h 00m"),  # 1h 59m 59s, to the minute
        (86_340, "23h 59m"),
        (86_399, "1d 00h"),
        (86_400 + 4 * 3600 + 59, "1d 04h"),
        (187_013.9, "2d 04h"),  # 51.95 hours
        # A half is rounded up at every unit (a format rounds half to even, or below a half
        # when the binary value is below it).
        (2.25, "2.3 s"),
        (0.35, "0.4 s"),
        (90.5, "1m 31s"),
        (92.5, "1m 33s"),
        (5_430, "1h 31m"),  # 90.5 minutes
        (174_600, "2d 01h"),  # 48.5 hours
    ],
)
def test_a_time_reads_in_the_largest_units_that_fit(seconds: float | None, text: str) -> None:
    assert duration_text(seconds) == text


@pytest.mark.parametrize(
    ("median", "low", "high", "seconds", "text"),
    [
        (2.5, 2, 3, False, "2.5 (2–3)"),  # a median of whole counts between two: its half kept
        (140.5, 94, 187, False, "140.5 (94–187)"),
        (2, 1, 4, False, "2 (1–4)"),
        (1527.5, 956, 2749, False, "1,527.5 (956–2,749)"),  # separated as every count is
        (0.125, 0.005, 1.0, True, "0.13 (0.01–1.00)"),  # halves up (a format: 0.12, 0.01)
        (0.33, 0.004, 1234.5, True, "0.33 (0.00–1,234.50)"),
    ],
)
def test_a_spread_reads_as_the_json_holds_it(
    median: float, low: float, high: float, seconds: bool, text: str
) -> None:
    from proctor.util.text import spread_text

    assert spread_text(median, low, high, seconds=seconds) == text


@pytest.mark.parametrize(
    ("value", "signed", "text"),
    [
        (2749, False, "2,749"),
        (-1793, True, "-1,793"),
        (999, False, "999"),
        (1527.5, False, "1,527.5"),
        (0, True, "0"),  # no sign before a 0
        (-0.0, False, "0"),
        (0.04, True, "+0.04"),  # not 0, so never shown as one
        (1234567, True, "+1,234,567"),
    ],
)
def test_a_count_reads_the_same_in_every_report(value: float, signed: bool, text: str) -> None:
    from proctor.util.text import count_text

    assert count_text(value, signed=signed) == text


@pytest.mark.parametrize(
    ("value", "signed", "text"),
    [
        (0.33, False, "0.33"),
        (0.3333, False, "0.33"),
        (-0.1666, True, "-0.17"),
        (0.125, False, "0.13"),  # a half up
        (0, True, "0.00"),
        (0.004, False, "0.00"),
        (-0.004, True, "0.00"),  # shown as 0: no sign
        (0.004, True, "0.00"),
        (-0.006, True, "-0.01"),
        (1204.5, False, "1,204.50"),
    ],
)
def test_seconds_read_the_same_in_every_report(value: float, signed: bool, text: str) -> None:
    from proctor.util.text import seconds_text

    assert seconds_text(value, signed=signed) == text


def test_a_bound_in_seconds_that_is_not_0_never_reads_as_0() -> None:
    from proctor.util.text import seconds_text

    assert seconds_text(0.004, signed=True, bound=True) == "+0.004"
    assert seconds_text(-1.234, signed=True, bound=True) == "-1.23"


def test_a_cost_has_the_separator_of_every_count() -> None:
    from proctor.util.text import dollars_text

    assert dollars_text(1234.5) == "$1,234.5000"
    assert dollars_text(0.01755) == "$0.0176"
    assert dollars_text(0.00001) == "<$0.0001"


def test_a_direction_override_is_shown_not_obeyed() -> None:
    from proctor.util.text import controls_escaped, one_line, table_cell

    text = "ok \u202eRTL override\u2066 and \x1b[31m red\tkept"
    shown = "ok \\u202eRTL override\\u2066 and \\x1b[31m red\tkept"
    assert controls_escaped(text) == shown
    assert "\u202e" not in one_line(text) and "\u202e" not in table_cell(text)
    assert controls_escaped("日本語 🎉 é") == "日本語 🎉 é"  # the control: text of any script stays


def test_joined_lines_is_one_line_keeping_the_spaces_within_a_line() -> None:
    from proctor.util.text import joined_lines

    assert joined_lines("first\nsecond") == "first second"
    assert joined_lines("a:\r\n    indented\r\n\nlast\n") == "a: indented last"
    assert joined_lines("one\u2028two\rthree") == "one two three"
    # A repr of code keeps its indentation (one_line would make it one space).
    assert joined_lines("'def f():\\n    return 1'") == "'def f():\\n    return 1'"
    assert joined_lines("\x1b[31mred") == "\\x1b[31mred"


def test_a_pass_at_k_table_shows_some_ks_and_the_largest() -> None:
    from proctor.report.html import some_ks

    assert some_ks([str(k) for k in range(1, 121)]) == [
        "1", "2", "3", "5", "10", "20", "50", "100", "120",
    ]  # fmt: skip
    assert some_ks(["1", "2", "3", "4"]) == ["1", "2", "3", "4"]  # a few: every one


@pytest.mark.parametrize(
    ("sentence", "shown"),
    [
        ("must: '*.py' and '*_test.py'", "must: '\\*.py' and '\\*\\_test.py'"),
        ("case __init__ ~x~ [a](b)", "case \\_\\_init\\_\\_ \\~x\\~ \\[a\\](b)"),
        ("<b>x</b> &amp; C:\\dir", "\\<b>x\\</b> \\&amp; C:\\\\dir"),
        ("# not a heading\n> nor a quote", "\\# not a heading\n\\> nor a quote"),
        (
            "run `proctor plan-repeats --conditions A,B` *now*",
            "run `proctor plan-repeats --conditions A,B` \\*now\\*",
        ),
        ("plain sentence: 3 < 4", "plain sentence: 3 < 4"),
    ],
)
def test_markdown_literal_escapes_what_markdown_would_read_as_markup(
    sentence: str, shown: str
) -> None:
    from proctor.util.text import markdown_literal

    assert markdown_literal(sentence) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plug\udcff/a", "'plug\\xff/a'"),  # a byte of a name that is not UTF-8, as records show it
        ("x\ud800", "'x\\ud800'"),  # a surrogate that is no byte of a name
        ("a\\udcff b", "'a\\\\udcff b'"),  # the characters themselves stay escaped as repr does
        ("it's", '"it\'s"'),
    ],
)
def test_shown_repr_writes_a_lone_surrogate_as_records_do(text: str, shown: str) -> None:
    assert shown_repr(text) == shown


def test_percent_text_rounds_a_half_up_and_signs_points() -> None:
    from proctor.util.text import percent_text

    assert [percent_text(x) for x in (0.625, 0.125, 0.145, 0.0945, 1.0, 0.0)] == [
        "63",
        "13",
        "15",  # 100 * 0.145 is 14.499999999999998 in binary: the noise is not rounded on
        "9",
        "100",
        "0",
    ]
    assert [percent_text(x, signed=True) for x in (0.125, -0.125, -0.001, 0.0)] == [
        "+13",
        "-13",
        "0",  # no "-0", nor "+0"
        "0",
    ]


def test_a_name_in_other_capitals_is_the_nearest() -> None:
    from proctor.util.text import did_you_mean

    assert did_you_mean("FIX-A-BUG", ["ask", "fix-a-bug"]) == "did you mean 'fix-a-bug'? "
    assert did_you_mean("Fix-A-Bg", ["ask", "fix-a-bug"]) == "did you mean 'fix-a-bug'? "
    # The one spelt the same way ignoring case comes first, then the close ones.
    assert did_you_mean("Smoke", ["smoky", "smoke"], n=2) == "did you mean 'smoke' or 'smoky'? "
    assert did_you_mean("QQQ", ["smoke"]) == ""


def test_a_column_of_wide_characters_lines_up_as_the_terminal_shows_it() -> None:
    """A case id in Japanese takes two terminal columns a character: padded by its length,
    the columns after it were pushed out of line (``proctor eval --dry-run``'s table)."""
    lines = columns(
        [
            ("case", "agent", "repeats"),
            ("日本/a", "scripted", "1"),
            ("builds/api", "scripted", "3"),
        ],
        (4, 8, -7),
        ("  ", "  ", ""),
    )
    assert lines[1] == "日本/a      scripted        1"
    assert lines[2] == "builds/api  scripted        3"
    assert shown_width("日本/a") == 6 and shown_width("e\u0301") == 1
    # Thai's vowel mark (of combining class 0), a zero-width space, a family joined by ZWJ,
    # a skin tone: as rich (and the terminal) measures them.
    assert shown_width("กัน") == 2 and shown_width("a\u200bb") == 2
    assert shown_width("👨\u200d👩\u200d👧") == 2 and shown_width("👍🏽") == 2
    assert shown_width("❤️") == 2 and shown_width("1️⃣") == 2 and shown_width("🇫🇷") == 2
