"""Front matter values the CLIs' YAML readers read in ways easy to get wrong: escapes of code
points outside Unicode, quoted texts wrapping onto a line at their key's indentation, a
``!!str`` tag, an escape giving only blanks (each expectation checked with js-yaml 4.1 as
Gemini CLI 0.61 bundles it)."""

from __future__ import annotations

import pytest

from proctor.addons.audit.front_matter import (
    claude_code_agent,
    codex_skill,
    front_matter,
    gemini_cli_agent,
    gemini_cli_skill,
)


def _doc(*lines: str) -> str:
    return "\n".join(["---", *lines, "---", "body", ""])


@pytest.mark.parametrize(
    ("escape", "text"),
    [
        ("\\UFFFFFFFF", "x \uffff"),  # (js-yaml sums the digits in 32-bit integers: -1)
        ("\\U00110000", "x \ufffd\ufffd"),  # (two low surrogates, each alone)
        ("\\uD800", "x \ufffd"),
        ("\\uD83D\\uDE80", "x \U0001f680"),  # (a pair side by side is one character)
    ],
)
def test_an_escape_of_no_code_point_is_read_as_js_yaml_reads_it(escape: str, text: str) -> None:
    doc = _doc("name: tidy", f'description: "x {escape}"')
    assert front_matter(doc)["description"] == text
    assert gemini_cli_skill(doc, "folder") == ("tidy", None)
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)
    claude_code_agent(doc, "stem")  # (never fails)


@pytest.mark.parametrize("escape", ["\\UFFFFFFFF", "\\U00110000", "\\uD800"])
def test_codex_refuses_an_escape_of_no_code_point_as_libyaml_does(escape: str) -> None:
    name, why = codex_skill(_doc("name: tidy", f'description: "x {escape}"'), "folder")
    assert name == "folder"
    assert why is not None and escape in why


def test_a_quoted_value_wrapping_onto_its_key_s_indentation_is_not_read_as_keys() -> None:
    doc = _doc("name: tidy", 'description: "Use when', 'the user: asks to tidy"')
    assert front_matter(doc)["description"] == "Use when the user: asks to tidy"
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)
    skill = _doc("name: wrap", "description: 'Use when", "name: other'")
    assert front_matter(skill) == {"name": "wrap", "description": "Use when name: other"}
    assert gemini_cli_skill(skill, "folder") == ("wrap", None)
    assert codex_skill(skill, "folder") == ("wrap", None)


@pytest.mark.parametrize("value", ["!!str 5", "!!str true", "!!str 2025-01-01"])
def test_a_str_tag_makes_the_value_a_text(value: str) -> None:
    doc = _doc("name: tidy", f"description: {value}")
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)
    assert claude_code_agent(doc, "stem") == ("tidy", None)
    assert gemini_cli_skill(_doc("name: !!str 123", f"description: {value}"), "f") == ("123", None)


def test_an_escape_giving_only_blanks_is_a_text_where_the_cli_keeps_it() -> None:
    doc = _doc("name: tidy", 'description: "\\t"')
    assert front_matter(doc)["description"] == "\t"
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)
    assert claude_code_agent(doc, "stem") == ("tidy", None)
    assert codex_skill(doc, "folder")[0] == "folder"  # (Codex trims it: no description)
    why = codex_skill(doc, "folder")[1]
    assert why is not None and "description" in why
