"""Which finding an id given to ``proctor findings dismiss`` names: the whole id, or a unique
prefix of at least four digits in either case; several or none is a sentence."""

from __future__ import annotations

import pytest

from proctor.cli.findings import one_line
from proctor.cli.findings_folder import finding_named
from proctor.models.findings import Finding, FindingsLedger


def ledger(*ids: str) -> FindingsLedger:
    findings = [
        Finding(
            id=i,
            case=f"c{n}",
            agent="scripted",
            condition="default",
            check="command",
            first_seen_run="run-1",
            last_seen_run="run-1",
        )
        for n, i in enumerate(ids)
    ]
    return FindingsLedger(runs=["run-1"], findings=findings)


LEDGER = ledger("4ade1b6124", "4adf000000", "9c0ffee123")


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ("4ade1b6124", "4ade1b6124"),
        ("4ADE1B6124", "4ade1b6124"),
        (" 4ade1b6124\n", "4ade1b6124"),
        ("4ade", "4ade1b6124"),
        ("9C0F", "9c0ffee123"),
        ("4adf0", "4adf000000"),
    ],
)
def test_an_id_or_a_unique_prefix_names_its_finding(given: str, named: str) -> None:
    assert finding_named(LEDGER, given) == named


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("4ad", "too short to name a finding: give at least 4 digits"),
        ("4ad0", "no finding '4ad0'"),
        ("ffff", "no finding 'ffff'"),
        ("", "no finding ''"),
        ("4ade1b61245", "no finding '4ade1b61245'"),  # longer than any id
        ("no\x1b[31m", "no finding 'no\\x1b[31m'"),
    ],
)
def test_an_id_that_names_no_finding_is_a_sentence(given: str, said: str) -> None:
    with pytest.raises(ValueError) as raised:
        finding_named(LEDGER, given)
    assert said in str(raised.value)


def test_an_id_edited_by_hand_with_capitals_is_named_as_written() -> None:
    assert finding_named(ledger("ABCDEF0123", "abcdef9999"), "ABCDEF0123") == "ABCDEF0123"


def test_an_id_edited_by_hand_with_capitals_is_named_in_either_case() -> None:
    """Whole or by a prefix, letters and all, as the docs say of every id."""
    held = ledger("57018AA8F3", "4ade1b6124")
    assert finding_named(held, "57018aa8f3") == "57018AA8F3"
    assert finding_named(held, "57018a") == "57018AA8F3"
    assert finding_named(held, "4ADE1B") == "4ade1b6124"


def test_a_prefix_of_several_findings_names_them_all_and_none_is_taken() -> None:
    with pytest.raises(ValueError) as raised:
        finding_named(ledger("4ade1b6124", "4ade200000", "4ade300000"), "4ADE")
    assert str(raised.value) == (
        "'4ADE' names 3 findings (4ade1b6124, 4ade200000, 4ade300000): give more of the id"
    )


def test_a_prefix_of_findings_of_two_suites_names_the_suite_of_each() -> None:
    """Two suites of one results directory: the ids alone do not say which is which."""
    held = ledger("4ade1b6124", "4ade200000", "4ade300000")
    suites = ["suites/api", "suites/cli", "suites/\x1b[31mred"]
    for finding, suite in zip(held.findings, suites, strict=True):
        finding.suite = suite
    with pytest.raises(ValueError) as raised:
        finding_named(held, "4ade")
    assert str(raised.value) == (
        "'4ade' names 3 findings (4ade1b6124 of suites/api, 4ade200000 of suites/cli, "
        "4ade300000 of suites/\\x1b[31mred): give more of the id"
    )
    held.findings[2].suite = None  # a finding of an older ledger, no run took up yet
    with pytest.raises(ValueError) as raised:
        finding_named(held, "4ADE")
    assert "4ade300000 of no known suite)" in str(raised.value)


def test_a_reason_is_shown_on_one_line_with_its_controls_escaped() -> None:
    assert one_line("  flaky\nhost\r\n\tagain \x1b[31m ") == "flaky host again \\x1b[31m"


def test_a_suite_folder_named_with_an_escape_sequence_is_shown_escaped_in_the_table() -> None:
    """The suite column, shown when the findings are of two suites, escapes a terminal's
    escape sequence in the folder's name, as the case and check columns do."""
    from proctor.cli.findings import render_table
    from proctor.models.findings import Finding

    def finding(suite: str) -> Finding:
        return Finding(
            id=suite[-1] * 10, suite=suite, case="c", agent="a", condition="d", check="k",
            first_seen_run="run-1", last_seen_run="run-1",
        )  # fmt: skip

    table = render_table([finding("/s/\x1b[31mred"), finding("/s/b")])
    assert "/s/\\x1b[31mred" in table and "\x1b" not in table
