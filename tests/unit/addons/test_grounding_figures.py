"""Figures in advice and in signals, and the matching rule, each with a case that must fail."""

from __future__ import annotations

import re

import pytest
from pydantic import JsonValue

from proctor.addons.grounding.figures import (
    figures_in,
    is_grounded,
    sentence_around,
    signal_figures,
    ungrounded_figures,
)


def written(text: str) -> list[tuple[str, float]]:
    return [(f.written, f.value) for f in figures_in(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("used 48210 tokens", [("48210", 48210)]),
        ("used 12,345 tokens", [("12,345", 12345)]),
        ("1,234,567.5 units", [("1,234,567.5", 1234567.5)]),
        ("cost $1.20 then $12.40", [("$1.20", 1.2), ("$12.40", 12.4)]),
        ("You spent US$15 so far, A$20 and C€30", [("$15", 15), ("$20", 20), ("€30", 30)]),
        ("45% and 45 % and 45 percent", [("45%", 45), ("45 %", 45), ("45 percent", 45)]),
        (
            "12k, 12.3k, 1.2M, 3B, 2bn",
            [("12k", 12e3), ("12.3k", 12.3e3), ("1.2M", 1.2e6), ("3B", 3e9), ("2bn", 2e9)],
        ),
        ("a drop of -15 and (-20)", [("-15", -15), ("-20", -20)]),
        ("3x faster, 250ms later", [("3", 3), ("250", 250)]),
        ("on 2026-03-01", [("2026", 2026), ("03", 3), ("01", 1)]),
        ("10-20 reads", [("10", 10), ("20", 20)]),
        ("at 14:30", [("14", 14), ("30", 30)]),
        ("12,34", [("12", 12), ("34", 34)]),
        ("ends with 12.", [("12", 12)]),
    ],
)
def test_figures_are_extracted_as_written(text: str, expected: list[tuple[str, float]]) -> None:
    assert written(text) == expected


@pytest.mark.parametrize(
    "text", ["sha256 digest", "model v12", "test_42 failed", "version 1.2.3", "node 20.11.1"]
)
def test_names_and_versions_are_not_figures(text: str) -> None:
    assert all(f.value < 10 for f in figures_in(text)), written(text)


def test_tolerance_follows_the_written_precision() -> None:
    (plain, decimal, suffixed, percent) = figures_in("4,200 and 1.37 and 4.2k and 71%")
    assert (plain.tolerance, decimal.tolerance, suffixed.tolerance) == (0.5, 0.005, 50.0)
    assert percent.percent and not plain.percent


def test_signal_figures_walk_nested_values_and_strings_but_not_booleans_or_keys() -> None:
    signals: JsonValue = {
        "t42": 7,
        "nested": {"list": [11, {"deep": 12.5}]},
        "command": "pytest -k 1234 --count 55",
        "flag": True,
        "missing": None,
    }
    found = signal_figures(signals)
    assert sorted(found.values) == [7, 11, 12.5, 55, 1234]
    assert found.percents == ()


def test_only_decimal_ratios_stand_for_percentages() -> None:
    found = signal_figures({"contextUsed": 0.71, "whole": 1, "big": 2.5})
    assert found.percents == pytest.approx((71.0,))


def grounded(advice: str, signals: JsonValue) -> bool:
    return not ungrounded_figures(advice, signals)


@pytest.mark.parametrize(
    ("advice", "signals"),
    [
        ("You used 48,210 tokens.", {"tokensSoFar": 48210}),
        ("You used about 48.2k tokens.", {"tokensSoFar": 48210}),
        ("You used 48k tokens.", {"tokensSoFar": 48210}),
        ("That cost $12.37.", {"costUsd": 12.371}),
        ("The context is 71% full.", {"contextUsed": 0.71}),
        ("The context is 71 percent full.", {"contextUsed": 0.7149}),
        ("Score fell by -15 points.", {"delta": 15}),
        ("Score fell to -15.", {"delta": -15}),
        ("Run `pytest -k 1234` again.", {"cmd": "pytest -k 1234"}),
        ("Only 7 reads and 9 calls, 3x.", {"tokens": 100}),
        ("Re-read 14 files.", {"reads": [14]}),
    ],
)
def test_grounded_advice_passes(advice: str, signals: JsonValue) -> None:
    assert grounded(advice, signals), ungrounded_figures(advice, signals)


@pytest.mark.parametrize(
    ("advice", "signals"),
    [
        ("You wasted 4,200 tokens.", {"redundantReads": 14}),  # 14 x 300: computed, not given
        ("You used 48,200 tokens.", {"tokensSoFar": 48210}),  # rounded without saying so
        ("You used 50k tokens.", {"tokensSoFar": 48210}),  # outside the shown precision
        ("You used 48.3k tokens.", {"tokensSoFar": 48210}),
        ("That cost $12.40.", {"costUsd": 12.37}),
        ("The context is 72% full.", {"contextUsed": 0.71}),
        ("The context is 71 full.", {"contextUsed": 0.71}),  # a ratio only grounds a percentage
        ("You made 100% of the calls.", {"calls": 1}),  # an integer is not a ratio
        ("Since 2024 you did 12 calls.", {"calls": 12}),  # years are checked
        ("At 14:30 you did 12 calls.", {"calls": 12}),  # so are clock times
        ("Exactly 10 calls.", {"calls": 9}),  # 10 is the first checked figure
        ("Total 62 calls.", {"calls": 61, "reads": 1}),  # a sum is not in the signals
        ("-15 points.", {"delta": 16}),
    ],
)
def test_invented_figures_fail(advice: str, signals: JsonValue) -> None:
    assert not grounded(advice, signals)


def test_a_figure_from_another_checkpoint_fails_here() -> None:
    other: JsonValue = {"redundantReads": 14, "tokensSoFar": 48210}
    this: JsonValue = {"redundantReads": 2, "tokensSoFar": 31075}
    advice = "You re-read files 14 times."
    assert grounded(advice, other)
    assert not grounded(advice, this)


def test_ungrounded_figures_name_the_figure_and_its_sentence() -> None:
    advice = "You used 31,075 tokens. You wasted 4,200 tokens!\nTry 9 fewer reads."
    (only,) = ungrounded_figures(advice, {"tokensSoFar": 31075})
    assert (only.figure, only.value, only.text) == ("4,200", 4200, "You wasted 4,200 tokens!")


def test_is_grounded_uses_percentages_only_for_percent_figures() -> None:
    signals = signal_figures({"ratio": 0.5})
    (percent, plain) = figures_in("50% vs 50")
    assert is_grounded(percent, signals) and not is_grounded(plain, signals)


def test_a_long_sentence_is_shortened_around_the_figure() -> None:
    text = "word " * 100 + "4,200 " + "word " * 100
    sentence = sentence_around(text, 500, 505)
    assert "4,200" in sentence and len(sentence) < 240


def test_scientific_notation_is_one_figure_and_checked() -> None:
    from proctor.addons.grounding.figures import figures_in, ungrounded_figures

    assert [f.value for f in figures_in("1e6 then 2.5E4 then 1.5e-3")] == [1e6, 25000.0, 0.0015]
    assert [u.figure for u in ungrounded_figures("you used 1e6 tokens", {"tokens": 48210})] == [
        "1e6"
    ]
    assert ungrounded_figures("about 4.8e4 tokens", {"tokens": 48210}) == []  # within 0.05e4


def test_a_short_commit_id_or_an_overflowing_exponent_is_no_figure() -> None:
    text = "Revert commit 2e4512c; 99999e305 tokens; 3e400 calls; but 1e6 and 2.5e4 count"
    assert [f.written for f in figures_in(text)] == ["1e6", "2.5e4"]
    assert signal_figures({"head": "commit 7e9041b", "tokens": 25000}).values == (25000.0,)


def test_an_integer_signal_too_large_for_a_float_is_no_figure() -> None:
    huge = 10**400
    assert signal_figures({"x": huge, "tokens": 25000, "list": [-huge]}).values == (25000.0,)
    # Cited back, it is no figure of the advice either (it would be infinite): nothing to check.
    assert ungrounded_figures(f"x is {huge} over 25000 tokens", {"x": huge, "t": 25000}) == []


def _sentence_from_the_start(text: str, start: int, end: int) -> str:
    """The rule as first written: every sentence end from the start of the text is looked at."""
    ends = re.compile(r"[.!?](?=\s)|\n")
    left = 0
    for boundary in ends.finditer(text, 0, start):
        left = boundary.end()
    following = ends.search(text, end)
    right = following.end() if following else len(text)
    sentence = " ".join(text[left:right].split())
    if len(sentence) <= 240:
        return sentence
    return f"... {' '.join(text[max(left, start - 100) : min(right, end + 100)].split())} ..."


@pytest.mark.parametrize(
    "text",
    [
        "You read 12 files again. " * 300,
        "word " * 2000 + "then 1500 tokens were spent" + " more" * 2000 + ". Done.",
        "short. " + "x" * 5000 + " 1234 " + "y" * 5000,
    ],
)
def test_the_sentence_around_a_figure_is_found_near_it_as_from_the_start(text: str) -> None:
    for figure in figures_in(text):
        got = sentence_around(text, figure.start, figure.end)
        assert got == _sentence_from_the_start(text, figure.start, figure.end)


def test_a_currency_figure_after_a_country_prefix_is_checked() -> None:
    (only,) = ungrounded_figures("You spent US$15 so far.", {"a": 1})
    assert only.figure == "$15"
    assert ungrounded_figures("You spent US$15 so far.", {"spent": 15}) == []


def test_a_no_break_or_thin_space_groups_thousands_and_a_plain_space_parts_figures() -> None:
    assert written("48\u00a0210 tokens, 12\u202f345\u202f678 and -1\u2009234") == [
        ("48\u00a0210", 48210.0),
        ("12\u202f345\u202f678", 12345678.0),
        ("-1\u2009234", -1234.0),
    ]
    assert ungrounded_figures("you used 48\u00a0210 tokens", {"tokens": 48210}) == []
    assert written("step 1 234 files") == [("1", 1.0), ("234", 234.0)]  # two figures
    found = ungrounded_figures("you used 48 210 tokens", {"tokens": 48210})
    assert [u.figure for u in found] == ["48", "210"]
