"""A front matter value's text as YAML 1.2 reads it: each expected text here is what js-yaml 4.1
(as Gemini CLI 0.61 bundles it) and PyYAML give for the same YAML."""

from __future__ import annotations

import pytest

from proctor.addons.audit.front_matter import codex_skill, front_matter, gemini_cli_skill
from proctor.addons.audit.subagent_front_matter import claude_code_agent, gemini_cli_agent
from proctor.addons.audit.yaml_mapping import entries_of
from proctor.addons.audit.yaml_scalar import yaml_lines

BLOCKS = {
    "d: |+\n  x\n\n\nn: 1": "x\n\n\n",  # (keep: every line break at its end)
    "d: |+\n  x\n\n# c\n\nn: 1": "x\n\n",  # (up to the comment that ends it)
    "d: >+\n  x\n  y\n\n": "x y\n\n",
    "d: |+\n\n": "\n",
    "d: |\n  x\n\n": "x\n",
    "d: |-\n  x\n\n": "x",
    "d: >\n  a\n  b\n\n    code\n    more\n  c\n  d": "a b\n\n  code\n  more\nc d\n",
    "d: >\n  a\n    b\n  c": "a\n  b\nc\n",  # (a more-indented line is not folded)
    "d: >\n  a\n\n    b\n\n  c": "a\n\n  b\n\nc\n",
    "d: >\n  a\n  \tb\n  c": "a\n\tb\nc\n",
    "d: >\n  a\n   \n  b": "a\n \nb\n",
    "d: >\n\n  a\n  b": "\na b\n",
    "d: |1\n   a\n  b": "  a\n b\n",  # (an indentation indicator)
    "d: >2\n   a\n  b": " a\nb\n",
}


@pytest.mark.parametrize("yaml", sorted(BLOCKS))
def test_a_block_scalar_keeps_and_folds_its_line_breaks_as_yaml_does(yaml: str) -> None:
    """``+`` keeps every line break at a block's end (it kept one), a folded block keeps the
    line breaks around a more-indented line (it folded them into spaces), and an indentation
    indicator sets its lines' indentation (it was taken from its first line)."""
    assert entries_of(yaml.splitlines())["d"][1] == BLOCKS[yaml]


def test_a_folded_description_s_more_indented_lines_keep_their_line_breaks() -> None:
    text = (
        "---\nname: fold\ndescription: >\n  Use it.\n\n    make x\n    make y\n  Then\n  go.\n---\n"
    )
    assert front_matter(text)["description"] == "Use it.\n\n  make x\n  make y\nThen go."


FLOW = {
    "{name: my-skill # the name\n, description: d}": "my-skill",
    "{name: my-skill,\n # a comment line\n description: d}": "my-skill",
    '{name: "my # skill", description: d # the text\n}': "my # skill",
    "{name: 'it''s', description: d}": "it's",
}


@pytest.mark.parametrize("block", sorted(FLOW))
def test_a_comment_inside_a_flow_mapping_is_not_part_of_a_value(block: str) -> None:
    """``{name: my-skill # the name`` is named ``my-skill`` (it was 'my-skill # the name')."""
    text = f"---\n{block}\n---\nB\n"
    assert front_matter(text) == {"name": FLOW[block], "description": "d"}
    assert codex_skill(text, "f") == (FLOW[block], None)


QUOTED = {
    "'it''s'": "it's",
    '"say \\"hi\\""': 'say "hi"',
    '"caf\\u00e9 \\x41\\U0001F600"': "café A\U0001f600",
    '"two\\nlines"': "two\nlines",
    '"tab\\there"': "tab\there",
    "'one\n  two'": "one two",
    '"one\\\n  two"': "onetwo",
    "'one\n\n  two'": "one\ntwo",
    "one\n  two": "one two",
}


@pytest.mark.parametrize("value", sorted(QUOTED))
def test_a_quoted_value_is_unquoted_as_yaml_does(value: str) -> None:
    """``name: 'it''s'`` is named ``it's`` (it was ``it''s``), a double-quoted name's escapes
    are undone (``\\"``, ``\\n``, ``\\u00e9``: they were shown as written), and a value over
    several lines is folded (only its first line was read)."""
    text = f"---\nname: {value}\ndescription: d\n---\nB\n"
    assert front_matter(text)["name"] == QUOTED[value]
    assert codex_skill(text, "f") == (QUOTED[value], None)
    assert claude_code_agent(text, "f")[0] == QUOTED[value]


def test_gemini_cli_reads_a_quoted_name_s_text() -> None:
    text = "---\nname: 'it''s'\ndescription: \"caf\\u00e9\"\n---\nB\n"
    assert gemini_cli_skill(text, "f") == ("it's", None)
    assert front_matter(text)["description"] == "café"
    agent = '---\nname: "a\\x2db"\ndescription: d\n---\nB\n'
    assert gemini_cli_agent(agent, "f") == ("a-b", None)


WINDOWS = '---\nname: win\ndescription: "Reads C:\\Users\\me"\n---\nB\n'


def test_an_escape_yaml_does_not_know_stops_codex_and_js_yaml() -> None:
    """``"C:\\Users"`` is no valid double-quoted text (``\\U`` wants 8 hex digits): js-yaml
    stops ("expected hexadecimal character"), so Gemini CLI does not load the subagent (its
    skill falls back to its line reader), nor Codex (libyaml: "found unknown escape
    character") the skill; both were said to load it."""
    why = "'description' holds the escape '\\U', which YAML does not know"
    assert why in str(gemini_cli_agent(WINDOWS, "f")[1])
    assert why in str(codex_skill(WINDOWS, "f")[1])
    assert gemini_cli_skill(WINDOWS, "f") == ("win", None)
    for fine in ("C:\\\\Users", "tab\\there", "caf\\u00e9", "a\\/b"):
        assert codex_skill(f'---\nname: win\ndescription: "{fine}"\n---\n', "f") == ("win", None)


@pytest.mark.parametrize("value", ["&n tidy", "!!str tidy", "&n !!str 'tidy'"])
def test_a_value_s_anchor_and_str_tag_are_not_its_text(value: str) -> None:
    """``name: &n tidy`` is named ``tidy`` by js-yaml (it was '&n tidy')."""
    text = f"---\nname: {value}\ndescription: d\n---\nB\n"
    assert codex_skill(text, "f") == ("tidy", None)
    assert gemini_cli_agent(text, "f") == ("tidy", None)


def test_a_block_line_less_indented_than_its_first_ends_its_text() -> None:
    """A fault each CLI stops on, said as one (not a crash of the audit)."""
    text = "---\nname: x\ndescription: >\n    x\n  a\n---\n"
    assert front_matter(text) == {"name": "x", "description": "x"}
    assert "line 5 is less indented" in str(codex_skill(text, "f")[1])


def test_an_empty_value_in_a_flow_mapping_is_read_as_empty() -> None:
    """``{name: x, description:, kind: local}`` (it crashed the audit)."""
    text = "---\n{name: x, description:, kind: local}\n---\nB\n"
    assert front_matter(text) == {"name": "x"}
    assert codex_skill(text, "f")[1] is not None


def test_a_quoted_text_wrapped_onto_an_unindented_line_goes_on() -> None:
    """``description: "Tidies`` then ``files."`` is ``Tidies files.`` for js-yaml and libyaml
    (PyYAML alike): Codex and Gemini CLI load it (it was 'never closed', not loaded)."""
    text = '---\nname: wrap\ndescription: "Tidies\nfiles."\n---\nB\n'
    assert front_matter(text) == {"name": "wrap", "description": "Tidies files."}
    assert codex_skill(text, "f") == ("wrap", None)
    assert gemini_cli_agent(text, "f") == ("wrap", None)
    assert "never closed" in str(codex_skill('---\nname: w\ndescription: "a\nb\n---\n', "f")[1])


@pytest.mark.parametrize(("escaped", "text"), [("\\ ", "b  c"), ("\\\t", "b\t c")])
def test_an_escaped_blank_ending_a_wrapped_quoted_line_is_kept(escaped: str, text: str) -> None:
    """``"b\\ `` then ``  c"``: js-yaml and libyaml keep the escaped blank and fold the line
    break (``b  c``); it read as an escaped line break (``bc``)."""
    front = f'---\nname: n\ndescription: "b{escaped}\n  c"\n---\nB\n'
    assert front_matter(front) == {"name": "n", "description": text}


def test_an_empty_value_tagged_str_is_the_empty_text() -> None:
    """``name: !!str`` alone is "" for js-yaml (Gemini CLI loads the skill under the name ""),
    not null: its line reader's ``!!str`` was taken as the name."""
    text = "---\nname: !!str\ndescription: d\n---\nB\n"
    assert gemini_cli_skill(text, "f") == ("", None)
    assert gemini_cli_skill("---\nname: &a !!str # c\ndescription: d\n---\n", "f") == ("", None)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\x85b\u2028c\u2029d\ve\ff\x1cg\n", ["a\x85b\u2028c\u2029d\ve\ff\x1cg"]),
        ("a\r\nb\rc\n\n", ["a", "b", "c", ""]),
        ("", []),
    ],
)
def test_yaml_1_2_breaks_lines_at_cr_and_lf_only(text: str, lines: list[str]) -> None:
    """js-yaml reads NEL, LS, PS (and VT, FF) as characters of a line (``str.splitlines``
    broke the line at each); libyaml, YAML 1.1, breaks at NEL, LS and PS too."""
    assert yaml_lines(text) == lines
    assert yaml_lines("a\x85b\u2028c\u2029d\ve", yaml_1_1=True) == ["a", "b", "c", "d\ve"]
