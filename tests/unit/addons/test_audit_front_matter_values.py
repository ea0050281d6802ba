"""Front matter values the CLIs' YAML readers read in ways easy to get wrong: escapes of code
points outside Unicode, quoted texts wrapping onto a line at their key's indentation, a
``!!str`` tag, an escape giving only blanks (each expectation checked with js-yaml 4.1 as
Gemini CLI 0.61 bundles it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from proctor.addons.audit import yaml_mapping
from proctor.addons.audit.claude_repair import claude_repaired
from proctor.addons.audit.front_matter import codex_skill, front_matter, gemini_cli_skill
from proctor.addons.audit.subagent_front_matter import claude_code_agent, gemini_cli_agent
from proctor.addons.audit.yaml_check import BUN, CODEX, JS_YAML, yaml_fault
from proctor.addons.audit.yaml_flow_check import MAX_FLOW_DEPTH


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


def test_an_alias_is_the_value_its_anchor_was_given() -> None:
    """``description: *d`` is the text anchored ``&d`` above, at any depth (it was the text
    '*d', and Gemini CLI and Claude Code were said not to load the subagent)."""
    doc = _doc("name: &n tidy", "description: *n")
    assert front_matter(doc) == {"name": "tidy", "description": "tidy"}
    nested = _doc("display_name:", "  &d Tidies files.", "name: tidy", "description: *d")
    assert front_matter(nested)["description"] == "Tidies files."
    deep = _doc("metadata:", "  short: &d Tidies.", "name: tidy", "description: *d # c")
    assert front_matter(deep)["description"] == "Tidies."
    assert codex_skill(deep, "folder") == ("tidy", None)
    for text in (doc, nested):
        assert gemini_cli_agent(text, "stem") == ("tidy", None)
        assert gemini_cli_skill(text, "folder") == ("tidy", None)
        assert claude_code_agent(text, "stem") == ("tidy", None)
    block = _doc("name: tidy", "display_name: &d |", "  Tidies.", "description: *d")
    assert front_matter(block)["description"] == "Tidies."
    listed = _doc("name: tidy", "display_name: &d [a]", "description: *d")
    assert gemini_cli_agent(listed, "stem")[1] == (
        "its 'description' is not a text; Gemini CLI does not load it"
    )


def test_an_alias_no_anchor_above_resolves_is_a_fault_naming_its_line() -> None:
    doc = _doc("name: tidy", "description: *d", "display_name: &d later")
    why = "'description' in line 3 refers to an anchor '&d' that no line above sets"
    assert gemini_cli_agent(doc, "stem") == (
        "tidy",
        f"the front matter is not valid YAML: {why}; Gemini CLI does not load it",
    )
    assert why in str(codex_skill(doc, "folder")[1])
    # (Claude Code's repair quotes it: the text '*d', measured)
    assert claude_code_agent(doc, "stem") == ("tidy", None)
    after = _doc("name: &n tidy", "description: *n more")
    assert "'description' goes on after its alias '*n' ('more')" in str(
        gemini_cli_agent(after, "stem")[1]
    )


def test_a_complex_key_opening_a_value_is_a_fault() -> None:
    """``name: ? x`` stops js-yaml, libyaml and Bun (it was the name '? x')."""
    doc = _doc("name: ? x", "description: d")
    why = "the front matter is not valid YAML: 'name' opens a mapping key ('?') on its key's line"
    assert gemini_cli_agent(doc, "stem") == ("? x", f"{why}; Gemini CLI does not load it")
    assert claude_code_agent(doc, "stem") == ("? x", f"{why}; Claude Code does not load it")
    assert str(codex_skill(doc, "folder")[1]).endswith("on its key's line; Codex does not load it")
    # (Gemini CLI's line reader takes the skill, named by the text as written: '?' is '-')
    assert gemini_cli_skill(doc, "folder") == ("- x", None)
    assert front_matter(_doc("name: ?x", "description: d"))["name"] == "?x"
    assert gemini_cli_agent(_doc("name: ?x", "description: d"), "s")[1] is not None  # ('?')


@pytest.mark.parametrize(
    "lines",
    [
        ("name: !foo tidy", "description: d"),
        ("name: tidy", "description: !e!x d"),
        ("name: tidy", "description: d", "tools:", "  - !foo glob"),
    ],
)
def test_a_tag_js_yaml_knows_no_type_for_is_a_fault_for_gemini_cli(lines: tuple[str]) -> None:
    """js-yaml stops on ``!foo``; Codex's serde_yaml drops the tag (it loads ``!foo tidy`` as
    ``tidy``) and Claude Code loads it (measured)."""
    doc = _doc(*lines)
    name, why = gemini_cli_agent(doc, "stem")
    assert name == "tidy"
    tag = next(word for line in lines for word in line.split() if word.startswith("!"))
    assert why is not None and f"has the tag '{tag}', which js-yaml knows no type for" in why
    assert why.startswith("the front matter is not valid YAML: ")
    assert codex_skill(doc, "folder") == ("tidy", None)
    assert claude_code_agent(doc, "stem") == ("tidy", None)
    known = _doc("name: !!str tidy", "description: !<tag:yaml.org,2002:str> d")
    assert gemini_cli_agent(known, "stem") == ("tidy", None)


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029"])
def test_a_unicode_line_separator_is_a_character_of_its_line(separator: str) -> None:
    """YAML 1.2 (js-yaml, Bun) breaks lines at CR and LF only; libyaml (Codex) also at NEL,
    LS and PS (measured): the description 'a<LS>b' was cut at 'a' and 'b' said no key."""
    doc = _doc("name: tidy", f"description: a{separator}b c")
    assert front_matter(doc)["description"] == f"a{separator}b c"
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)
    assert gemini_cli_skill(doc, "folder") == ("tidy", None)
    assert claude_code_agent(doc, "stem") == ("tidy", None)
    assert "line 4 is not a 'key: value' line" in str(codex_skill(doc, "folder")[1])
    assert front_matter(_doc("name: tidy", "description: a\vb\fc"))["description"] == "a\vb\fc"


def test_gemini_cli_s_line_reader_reads_lines_as_javascript_does() -> None:
    """``parseSimpleFrontmatter`` splits at LF and CRLF, and its ``(.*)$`` does not match a
    line holding LS (its name unread: the skill is left out); NEL is text, kept by trim()."""
    assert gemini_cli_skill(_doc("name: a\u2028b", "description: c: d"), "f")[1] is not None
    assert gemini_cli_skill(_doc("name: a\x85b", "description: c: d"), "f") == ("a\x85b", None)


def test_a_flow_mapping_s_alias_is_the_value_its_anchor_was_given() -> None:
    doc = _doc("{name: &n tidy, description: *n, display_name: !!str 5}")
    assert front_matter(doc) == {"name": "tidy", "description": "tidy"}
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)


def test_nested_anchored_keys_are_each_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forty keys nested one in the next, each anchored (``kN: &aN``), are read one by one:
    each anchored value was read again for every key above it (twice as long per level; 20
    levels took 46 s)."""
    lines = ["name: tidy", "description: d", "meta:"]
    lines += ["  " * (n + 1) + f"k{n}: &a{n}" for n in range(40)]
    lines += ["  " * 41 + "leaf: v", "deep: *a39"]
    calls = 0
    entry = yaml_mapping._entry

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        assert calls <= len(lines), "a line's value was read more than once"
        return entry(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml_mapping, "_entry", counted)
    entries = yaml_mapping.entries_of(lines)
    assert entries["deep"] == ("{", "leaf: v")  # (the mapping anchored &a39)
    assert entries["meta"][0] == "{"
    assert calls > 40  # (each nested key was read, once)
    monkeypatch.undo()
    assert claude_code_agent(_doc(*lines), "stem") == ("tidy", None)


@pytest.mark.parametrize(
    "lines",
    [
        ("name: tidy", "description:", "  a: 1"),
        ("name: tidy", "m: &m", "  a: 1", "description: *m"),
        ("name: tidy", "m: &m", "  # c", "  'a': 1", "description: *m"),
        ("name: tidy", "l:", "  - &m", "    a: 1", "description: *m"),
    ],
)
def test_key_value_lines_below_an_empty_value_are_a_mapping_not_a_text(
    lines: tuple[str, ...],
) -> None:
    """js-yaml and Bun read ``description:`` then ``  a: 1`` as the mapping ``{a: 1}``, and an
    alias to it too (measured: Claude Code does not load the subagent; it was said loaded,
    the description being the text 'a: 1')."""
    doc = _doc(*lines)
    assert claude_code_agent(doc, "stem") == (
        "tidy",
        "its 'description' is not a text; Claude Code does not load it",
    )
    assert codex_skill(doc, "folder")[1] is not None
    assert gemini_cli_agent(doc, "stem")[1] is not None
    text = _doc("name: tidy", "description:", "  &d Tidies: files, or not.")
    assert claude_code_agent(text, "stem")[1] is not None  # (`Tidies: …` is a key)
    assert front_matter(_doc("name: tidy", "description:", "  &d Tidies.")) == {
        "name": "tidy",
        "description": "Tidies.",
    }


@pytest.mark.parametrize(
    ("lines", "text"),
    [
        (("name: tidy", "m: {a: &d hi}", "description: *d"), "hi"),
        (("name: tidy", "m: {a: [b, &d hi], c: 'x, &e y'}", "description: *d"), "hi"),
        (("name: tidy", "m: {a: 'it''s, &e', b:", "   &d hi}", "description: *d"), "hi"),
        (("name: tidy", "l:", "  - &d hello", "description: *d"), "hello"),
        (
            ("name: tidy", "l:", "  - x", "  - &d hello", "    world", "description: *d"),
            "hello world",
        ),
        (("name: tidy", "l:", "- &d hello", "description: *d"), "hello"),
        (("name: tidy", "l:", "  - k: v", "    j: &d w", "description: *d"), "w"),
        (("name: tidy", "l:", "  - k: &d v", "description: *d"), "v"),
        (("{name: tidy, m: {a: &d hi}, description: *d}",), "hi"),
    ],
)
def test_an_anchor_in_a_flow_collection_or_on_a_list_item_is_found(
    lines: tuple[str, ...], text: str
) -> None:
    """js-yaml reads ``m: {a: &d hi}`` and ``- &d hello`` as anchors (the alias was said to
    refer to no anchor, or read as the text '*d')."""
    doc = _doc(*lines)
    assert front_matter(doc) == {"name": "tidy", "description": text}
    assert codex_skill(doc, "folder") == ("tidy", None)
    assert gemini_cli_skill(doc, "folder") == ("tidy", None)
    assert claude_code_agent(doc, "stem") == ("tidy", None)
    tools = _doc("name: tidy", "tools: [&d read_file]", "description: *d")
    assert gemini_cli_agent(tools, "stem") == ("tidy", None)


@pytest.mark.parametrize(
    "lines",
    [
        ("name: &a tidy", "description: &b *a"),
        ("name: tidy", "description: &d *d"),
        ("name: &a tidy", "description: !!str *a"),
        ("name: &a tidy", "l:", "  - &b *a", "description: d"),
    ],
)
def test_an_alias_with_an_anchor_or_a_tag_of_its_own_is_a_fault(lines: tuple[str, ...]) -> None:
    """js-yaml: "alias node should not have any properties" (libyaml refuses it too); Claude
    Code's repair quotes an unindented one: the text '&b *a' (measured), and with it every
    other unindented value holding an anchor: ``name: &a tidy`` is the name '&a tidy'."""
    doc = _doc(*lines)
    why = str(gemini_cli_agent(doc, "stem")[1])
    assert why.startswith("the front matter is not valid YAML: ")
    assert "gives its alias '*" in why and "which YAML does not allow" in why
    assert "gives its alias" in str(codex_skill(doc, "folder")[1])
    if "*" in lines[-1]:
        assert claude_code_agent(doc, "stem") == (lines[0].split(": ", 1)[1], None)
        assert front_matter(doc)["description"] == lines[-1].split(": ", 1)[1]
    else:
        assert "gives its alias" in str(claude_code_agent(doc, "stem")[1])


def test_an_alias_as_a_key_is_its_anchor_s_text() -> None:
    """``*d : v`` is the key its anchor gives (js-yaml, libyaml); ``*d: v`` is the alias
    ``d:`` for js-yaml and Bun, which no anchor sets (Gemini CLI stops, Claude Code does not
    load the subagent), the alias ``d`` then ``:`` for libyaml (Codex loads the skill)."""
    spaced = _doc("name: tidy", "display_name: &d model", "*d : m", "description: d")
    assert gemini_cli_agent(spaced, "stem") == ("tidy", None)  # (keys it knows: `model: m`)
    assert claude_code_agent(spaced, "stem") == ("tidy", None)
    joined = _doc("name: tidy", "n: &d x", "*d: y", "description: d")
    assert codex_skill(joined, "folder") == ("tidy", None)
    why = "line 4 opens with the alias '*d:', which refers to an anchor '&d:' that no line"
    assert why in str(gemini_cli_agent(joined, "stem")[1])
    assert why in str(claude_code_agent(joined, "stem")[1])
    unset = _doc("name: tidy", "*e : y", "description: d")
    assert "the alias '*e', which refers to an anchor '&e'" in str(codex_skill(unset, "f")[1])


def test_an_anchor_set_twice_is_the_later_one_below_it() -> None:
    """js-yaml and serde_yaml take an anchor set again (PyYAML refuses it): an alias is the
    value of the last one above it, in ``tools`` too."""
    doc = _doc("name: tidy", "a: &a one", "b: &a two", "description: *a")
    assert front_matter(doc) == {"name": "tidy", "description": "two"}
    assert codex_skill(doc, "folder") == ("tidy", None)
    given = ("name: tidy", "description: d", "model: &t glob", "display_name: &t nope")
    expected = "its 'tools' names '*t', not a tool Gemini CLI knows; it does not load it"
    assert gemini_cli_agent(_doc(*given, "tools: [*t]"), "stem") == ("tidy", expected)
    block = ("name: tidy", "description: d", "display_name: &t nope", "tools:", "  - &t glob")
    assert gemini_cli_agent(_doc(*block, "  - *t"), "stem") == ("tidy", None)
    ok = _doc("name: tidy", "description: d", "display_name: &t nope", "tools: [&t glob, *t]")
    assert gemini_cli_agent(ok, "stem") == ("tidy", None)


@pytest.mark.parametrize(
    "tools",
    [
        ("display_name: &d glob", "tools:", "  - *d"),
        ("display_name: &d glob", "tools: [*d, read_file]"),
        ("tools:", "  - &d glob", "  - *d"),
    ],
)
def test_an_alias_in_tools_is_its_anchor_s_tool(tools: tuple[str, ...]) -> None:
    """Gemini CLI reads ``- *d`` in a subagent's ``tools`` as the tool its anchor names (it was
    said to name '*d', not a tool it knows)."""
    assert gemini_cli_agent(_doc("name: tidy", "description: d", *tools), "stem") == ("tidy", None)
    unknown = _doc("name: tidy", "description: d", "display_name: &d nope", "tools: [*d]")
    assert "names '*d', not a tool" in str(gemini_cli_agent(unknown, "stem")[1])


@pytest.mark.parametrize("indent", ["    ", "  "])
def test_an_anchor_alone_below_an_empty_value_sets_the_value_below_it(indent: str) -> None:
    """``description:``, ``  &m``, ``    a: 1`` is a mapping for js-yaml and libyaml (it was a
    fault: 'indented under a value as if it were a key'); an alias to it is that mapping."""
    doc = _doc("name: tidy", "description:", "  &m", f"{indent}a: 1")
    for rule, cli in ((gemini_cli_agent, "Gemini CLI"), (claude_code_agent, "Claude Code")):
        assert rule(doc, "stem") == (
            "tidy",
            f"its 'description' is not a text; {cli} does not load it",
        )
    assert "a list or mapping" in str(codex_skill(doc, "folder")[1])
    mcp = _doc(
        "name: tidy",
        "description: d",
        "mcp_servers:",
        "  &m",
        f"{indent}s:",
        f"{indent}  command: x",
    )
    assert gemini_cli_agent(mcp, "stem") == ("tidy", None)
    listed = _doc("name: tidy", "l:", "  &l", "  - a", "description: *l")
    assert "'description' is not a text" in str(claude_code_agent(listed, "stem")[1])
    null = _doc("name: tidy", "description:", "  &m", "n: *m")
    assert front_matter(null) == {"name": "tidy"}
    text = _doc("name: tidy", "description:", "  &m", "  tidies", "n: *m")
    unknown = "its front matter has keys Gemini CLI does not know ('n'); it does not load it"
    assert gemini_cli_agent(text, "stem") == ("tidy", unknown)
    assert front_matter(text) == {"name": "tidy", "description": "tidies"}


def test_claude_code_s_second_try_quotes_every_unindented_special_value() -> None:
    """Claude Code 2.1.197's repair (its bundle's front matter reader): once Bun's parser stops,
    each unindented ``key: value`` holding ``{}[]*&#!|>%@``` or ``": "`` is double-quoted,
    comment and all, save a wholly quoted value and a flow list; a line holding a CR is
    left; the tabs opening a line are two spaces each."""
    block = 'name: &a x # c\ndescription: a "b" \\ &\n  k: *v\ntools: [a, b]\nq: "t"\n\tz: 1'
    assert claude_repaired(block) == (
        'name: "&a x # c"\ndescription: "a \\"b\\" \\\\ &"\n  k: *v\ntools: [a, b]\nq: "t"\n  z: 1'
    )
    assert claude_repaired("name: &a x\r\nd: *b\r") == "name: &a x\r\nd: *b\r"
    doc = _doc("name: tidy # the helper", "description: *none")
    assert claude_code_agent(doc, "stem") == ("tidy # the helper", None)
    assert claude_code_agent(_doc("name: tidy # the helper", "description: d"), "s")[0] == "tidy"
    crlf = "---\r\nname: tidy\r\ndescription: *none\r\n---\r\nbody\r\n"
    assert "refers to an anchor '&none'" in str(claude_code_agent(crlf, "stem")[1])


@pytest.mark.parametrize(
    "lines",
    [
        ("name: tidy", "l:", "  - k: |", "      &d text", "description: *d"),
        ("name: tidy", "l:", "  - k: >-", "      - &d text", "description: *d"),
        ("name: tidy", "l:", "  - |", "    &d text", "description: *d"),
        ("name: tidy", "l:", "  - k:", "      j: |", "        &d text", "description: *d"),
        ("name: tidy", "l:", "  - k: v", "    &d x", "description: *d"),
        ("name: tidy", "l:", "  - k: a", "      - &d x", "description: *d"),
        ("name: tidy", "l:", '  - k: "a', '      - &d b"', "description: *d"),
        ("name: tidy", "m:", '  k: "a', '    - &d x"', "description: *d"),
        ("name: tidy", "d: a", "  - &d x", "description: *d"),
    ],
)
def test_an_anchor_inside_a_text_below_its_first_line_sets_none(lines: tuple[str, ...]) -> None:
    """``- k: |`` then ``    &d text`` is the text '&d text', and a plain or quoted text
    going on over the lines below holds its '&d' as text (PyYAML, as js-yaml and libyaml,
    refuses the alias: "found undefined alias", or the line that is no key): the audit
    said the skill loaded, its description the anchor's."""
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("\n".join(lines))
    doc = _doc(*lines)
    assert front_matter(doc) == {"name": "tidy", "description": "*d"}
    for reading in (codex_skill(doc, "tidy"), gemini_cli_agent(doc, "stem")):
        assert "refers to an anchor '&d' that no line above sets" in str(reading[1])


@pytest.mark.parametrize("shape", ["  - k: v", "  - v", "  k{n}: v", '  k{n}: "v"', "  k{n}: |"])
def test_nested_keys_and_list_items_are_read_in_one_pass(shape: str) -> None:
    """Each nested key's or list item's value is read from the lines below it without
    copying them: 2,000 of them look at each line a few times (every value copied the lines
    below it: 20,000 took 1 s)."""

    class Counted(list[str]):
        looked = 0

        def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
            found = super().__getitem__(index)
            Counted.looked += len(found) if isinstance(index, slice) else 1
            return found

    lines = Counted(["name: tidy", "l:", *(shape.format(n=n) for n in range(2000))])
    lines += ["description: d"]
    entries = yaml_mapping.entries_of(lines)
    assert entries["description"] == ("d", "d")
    assert Counted.looked < 10 * len(lines)


@pytest.mark.parametrize("anchored", ["name: &n name", 'name: &n "name"', "x: [&n name]"])
def test_an_alias_as_a_key_given_twice_is_the_key_its_anchor_gives(anchored: str) -> None:
    """``name: &n name`` then ``*n : b`` gives ``name`` twice: js-yaml stops ("duplicated
    mapping key"), Codex refuses its ``name`` twice, Bun keeps the last (PyYAML too); so
    Gemini CLI does not load the subagent, Codex not the skill, Claude Code loads the
    subagent named 'b'. An anchor in a flow list sets the key too."""
    doc = _doc(anchored, "*n : b", "name: c" if anchored.startswith("x") else "", "description: d")
    twice = "the front matter is not valid YAML: 'name' is given twice"
    assert gemini_cli_agent(doc, "stem")[1] == f"{twice}; Gemini CLI does not load it"
    assert codex_skill(doc, "folder") == (
        "folder",
        f"{twice.replace('front matter', 'front matter of SKILL.md')}; Codex does not load it",
    )
    assert claude_code_agent(doc, "stem") == ("c" if anchored.startswith("x") else "b", None)
    other = _doc("name: &n tidy", "*n : b", "description: d")  # (keys 'tidy' and 'name')
    assert codex_skill(other, "folder") == ("tidy", None)


@pytest.mark.parametrize(
    ("value", "alias"),
    [
        ("tools: [*d]", "d"),
        ("tools: [Read, *x]", "x"),
        ("metadata: {x: *d}", "d"),
        ("tools: [*d, &d glob]", "d"),
        ("tools: [glob,\n  *d]", "d"),
    ],
)
def test_an_alias_in_a_flow_collection_needs_an_anchor_before_it(value: str, alias: str) -> None:
    """js-yaml ("unidentified alias"), PyYAML and libyaml ("found undefined alias") stop on
    ``[*d]`` or ``{x: *d}`` with no ``&d`` before it: Gemini CLI does not load the subagent
    (it said the subagent named the tool '*d'); Codex reads a value opening ``[`` that YAML
    stops on as its text (its repair)."""
    lines = ("name: tidy", "description: d", *value.split("\n"))
    key = value.split(":")[0]
    line = 4 + value.count("\n")
    why = f"'{key}' in line {line} refers to an anchor '&{alias}' that nothing before it sets"
    for dialect in (JS_YAML, BUN):
        assert yaml_fault(list(lines), dialect) == why, dialect.name
    assert gemini_cli_agent(_doc(*lines), "stem") == (
        "tidy",
        f"the front matter is not valid YAML: {why}; Gemini CLI does not load it",
    )
    if key == "tools":
        assert codex_skill(_doc(*lines), "folder") == ("tidy", None)


@pytest.mark.parametrize("value", ["[&d a, *d]", "[a *d]", "{x: &d a, y: *d}", "['*d', \"*d\"]"])
def test_an_alias_in_a_flow_collection_after_its_anchor_or_inside_a_text_is_read(
    value: str,
) -> None:
    """``[&d a, *d]`` is ``[a, a]``; ``[a *d]`` is the text ``a *d`` (js-yaml, PyYAML)."""
    lines = ["name: tidy", "description: d", f"x: {value}"]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) is None, dialect.name


@pytest.mark.parametrize(
    ("lines", "line", "after"),
    [
        (["{name: tidy, description: [draft] a thing}"], 2, "a thing}"),
        (['{name: tidy, description: "draft" a thing}'], 2, "a thing}"),
        (["name: tidy", "description: d", "tools: [[a]", "  b]"], 5, "b]"),
    ],
)
def test_an_item_of_a_flow_collection_followed_by_text_without_a_comma_is_a_fault(
    lines: list[str], line: int, after: str
) -> None:
    """Inside a flow collection, a nested collection or a quoted text is followed by a ``,``,
    a ``:`` or a closing bracket: js-yaml ("missed comma between flow collection entries"),
    PyYAML and libyaml stop on ``{name: n, description: [x] y}``, and Codex does not load the
    skill (measured: ``tests/contract/test_skills.py``, ``flowcomma``); a comma on the line
    below is one (``[[a]`` then ``  , b]``)."""
    assert yaml_fault(["k: [[a] #c", "  , b]"], JS_YAML) is None
    what = "the front matter" if lines[0].startswith("{") else "'tools'"
    why = f"{what} in line {line} goes on after an item with no ',' before {after!r}"
    for dialect in (JS_YAML, BUN):
        assert yaml_fault(lines, dialect) == why, dialect.name
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("\n".join(lines))
    if what == "'tools'":  # (Codex reads a key's value opening `[` YAML stops on as its text)
        assert yaml_fault(lines, CODEX) is None
        return
    assert yaml_fault(lines, CODEX) == why
    assert codex_skill(_doc(*lines), "folder")[1] == (
        f"the front matter of SKILL.md is not valid YAML: {why}; Codex does not load it"
    )


@pytest.mark.parametrize("value", ["[draft] a thing", "{a: b} c", "[a] [b]", "[a,\n  b] c"])
def test_text_after_a_flow_collection_s_closing_bracket_is_a_fault(value: str) -> None:
    """js-yaml ("bad indentation of a mapping entry") and PyYAML stop on ``description:
    [draft] a thing``; so does Bun (Claude Code's second try quotes the unindented value that
    holds a ``[``: the description '[draft] a thing'), and libyaml (Codex reads a value opening
    ``[`` or ``{`` that YAML stops on as its text, and loads the skill: measured). A comment
    after it is none: ``[a]#c``."""
    lines = ["name: tidy", *f"description: {value}".split("\n")]
    closing = "]" if value.startswith("[") else "}"
    after = value[value.index(closing) + 1 :].strip()
    line = 2 + value.count("\n")
    why = f"'description' in line {line + 1} goes on after its closing {closing!r} ({after!r})"
    for dialect in (JS_YAML, BUN):
        assert yaml_fault(lines, dialect) == why, dialect.name
    assert yaml_fault(lines, CODEX) is None  # (its repair)
    doc = _doc(*lines)
    assert gemini_cli_agent(doc, "stem")[1] == (
        f"the front matter is not valid YAML: {why}; Gemini CLI does not load it"
    )
    if "\n" not in value:
        assert claude_repaired("\n".join(lines)) == f'name: tidy\ndescription: "{value}"'
        assert claude_code_agent(doc, "stem") == ("tidy", None)
        assert codex_skill(doc, "folder") == ("tidy", None)  # (it said: a list or mapping)
        assert front_matter(doc) == {"name": "tidy", "description": value}
    for fine in ("[a]#c", "[a] # c", "{a: b}  # c"):
        assert yaml_fault(["name: tidy", f"x: {fine}"], JS_YAML) is None, fine


@pytest.mark.parametrize("value", ["[Read, *x]", "[a] [b]"])
def test_claude_code_s_repair_quotes_a_flow_list_bun_does_not_read_alone(value: str) -> None:
    """Claude Code's repair keeps a value ``[…]`` only when Bun's parser reads it alone as a
    list: ``[Read, *x]`` (no ``&x`` in it) and ``[a] [b]`` are quoted, ``[&x a, *x]`` is
    kept."""
    assert claude_repaired(f"tools: {value}") == f'tools: "{value}"'
    assert claude_repaired("tools: [&x a, *x]") == "tools: [&x a, *x]"
    doc = _doc("name: tidy", "description: d", f"tools: {value}")
    assert claude_code_agent(doc, "stem") == ("tidy", None)


@pytest.mark.parametrize(
    "value",
    [
        'tools: ["a,\n  *b", c]',
        "tools: ['it''s,\n  *b', c]",
        'm: {k: "a,\n  *b"}',
        'tools: ["a\n  ] b", c]',
    ],
)
def test_a_quoted_text_in_a_flow_collection_going_on_below_is_text_there(value: str) -> None:
    """A quoted text in a flow collection that goes on to the next line is text there too:
    js-yaml and PyYAML read ``["a,`` then ``*b", c]`` as ``["a, *b", "c"]`` and ``["a`` then
    ``] b", c]`` as ``["a ] b", "c"]`` (the audit read ``*b"`` as an alias and ``]`` as the
    closing bracket, and said Claude Code and Gemini CLI did not load the subagent)."""
    lines = ["name: n", "description: d", *value.split("\n")]
    assert yaml.safe_load("\n".join(lines))["name"] == "n"
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) is None, dialect.name
    assert claude_code_agent(_doc(*lines), "stem") == ("n", None)
    after = [*lines[:-1], lines[-1].replace("c]", "*c]").replace('"}', '", j: *c}')]
    why = "in line 5 refers to an anchor '&c' that nothing before it sets"
    assert yaml_fault(after, JS_YAML) == f"'{value.split(':')[0]}' {why}"


@pytest.mark.parametrize("value", ["[" * 1200 + "]" * 1200, "[" * 1000, "{a: " * 1000])
def test_flow_collections_nested_too_deep_are_a_fault_not_a_crash(
    value: str, tmp_path: Path, proctor: Callable[..., Any]
) -> None:
    """Flow lists or mappings nested deeper than ``MAX_FLOW_DEPTH`` are a fault: proctor does
    not read them (its readers recurse, as js-yaml's and PyYAML's do, which run out of stack),
    so Gemini CLI does not load the subagent; ``proctor audit`` reported a RecursionError."""
    text = _doc("name: a", "description: d", f"m: {value}")
    for folder in (".agents/skills/a", ".gemini/agents"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / ".agents/skills/a/SKILL.md").write_text(text)
    (tmp_path / ".gemini/agents/a.md").write_text(text)
    (tmp_path / "home").mkdir()
    result = proctor("audit", "--home", str(tmp_path / "home"), "--project", str(tmp_path))
    assert (result.code, result.err) == (0, "")
    why = f"'m' in line 4 nests lists or mappings deeper than {MAX_FLOW_DEPTH:,}"
    assert f"DECOY: the front matter is not valid YAML: {why}" in result.out
    assert why in (gemini_cli_agent(text, "a")[1] or "")


@pytest.mark.parametrize(
    "item",
    [
        "  - [&d x, y]",
        "  - {k: &d x}",
        "  - - &d x",
        "  - - [&d x]",
        "  - k: [&d x]",
        "  - [&d x,\n    y]",
    ],
)
def test_an_anchor_in_a_list_item_s_flow_collection_or_after_its_second_dash_is_found(
    item: str,
) -> None:
    """js-yaml, libyaml and Bun read ``- [&d x, y]`` and ``- - &d x`` as setting ``&d`` (an
    alias to it below was said to refer to no anchor; Claude Code loads such a subagent, its
    repair leaving the indented ``k: *d``: measured)."""
    lines = ["name: tidy", "description: d", "l:", *item.split("\n"), "m:", "  k: *d"]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) is None, dialect.name
        assert yaml_fault([*lines[:-2], "n: *d"], dialect) is None, dialect.name
    assert claude_code_agent(_doc(*lines), "stem") == ("tidy", None)
    assert yaml.safe_load("\n".join(lines))["m"] == {"k": "x"}


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ("  - [*e]", "a list item in line 5 refers to an anchor '&e' that nothing before it sets"),
        ("  - - [x] y", "a list item in line 5 goes on after its closing ']' ('y')"),
        ("  - [x, y", "the '[' that opens a list item in line 5 is never closed"),
    ],
)
def test_a_flow_collection_opening_a_list_item_is_scanned_as_a_key_s_is(
    item: str, why: str
) -> None:
    """js-yaml stops on ``- [*e]`` ("unidentified alias"), on ``- [x] y`` and on a ``[``
    never closed (they were not looked into)."""
    lines = ["name: tidy", "description: d", "l:", *item.split("\n")]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) == why, dialect.name


@pytest.mark.parametrize("below", ["  [read_file, glob]", "  [read_file,\n   glob]", "  &t [glob]"])
def test_a_flow_list_below_an_empty_value_is_a_list(below: str) -> None:
    """``tools:`` then ``  [read_file, glob]`` is a list for js-yaml (Gemini CLI loads the
    subagent: measured; it said 'tools' is not a list), and a flow collection below
    ``description:`` no text (Claude Code and Codex do not load it: measured)."""
    tools = _doc("name: tidy", "description: d", "tools:", *below.split("\n"))
    assert gemini_cli_agent(tools, "stem") == ("tidy", None)
    bad = _doc("name: tidy", "description: d", "tools:", "  [nope]")
    assert "its 'tools' names 'nope', not a tool" in str(gemini_cli_agent(bad, "stem")[1])
    description = _doc("name: tidy", "description:", *below.split("\n"))
    why = "its 'description' is not a text; Claude Code does not load it"
    assert claude_code_agent(description, "stem") == ("tidy", why)
    assert "'description' is a list or mapping" in str(codex_skill(description, "folder")[1])
    assert yaml_mapping.entries_of(["m:", "  {a: 1}"]) == {"m": ("{a: 1}", "{a: 1}")}


@pytest.mark.parametrize(
    ("below", "why"),
    [
        ("  [*e]", "'tools' in line 5 refers to an anchor '&e' that nothing before it sets"),
        ("  [glob] x", "'tools' in line 5 goes on after its closing ']' ('x')"),
        ("  [glob]\n  x", "line 6 goes on after a closed value"),
    ],
)
def test_a_flow_list_below_an_empty_value_is_scanned_as_one_on_its_key_s_line(
    below: str, why: str
) -> None:
    """js-yaml stops on each ("unidentified alias", "bad indentation of a mapping entry")."""
    lines = ["name: tidy", "description: d", "tools:", *below.split("\n")]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) == why, dialect.name


@pytest.mark.parametrize(
    "anchored",
    [
        ("mcp_servers:", "  s:", "    command: x", "    include_tools: &l", "      - glob"),
        (
            "mcp_servers:",
            "  s:",
            "    command: x",
            "    include_tools: &l [glob,",
            "      grep_search]",
        ),
    ],
)
def test_an_alias_to_a_list_is_that_list(anchored: tuple[str, ...]) -> None:
    """``tools: *l`` is the list ``&l`` was set on, in block or flow form over several lines
    (Gemini CLI loads the subagent, or not when the list names a tool it does not know:
    measured; it said 'tools' is not a list)."""
    doc = _doc("name: tidy", "description: d", *anchored, "tools: *l")
    assert gemini_cli_agent(doc, "stem") == ("tidy", None)
    bad = doc.replace("glob", "nope")
    assert "its 'tools' names 'nope', not a tool" in str(gemini_cli_agent(bad, "stem")[1])
    lines = ["x: &l", "- a", "- b", "m:", "  - &n", "    - c", "t: *l", "u: *n"]
    assert yaml_mapping.key_lines(lines, "t") == ["- a", "- b"]
    assert yaml_mapping.list_items("[", yaml_mapping.key_lines(lines, "u")) == ["c"]


@pytest.mark.parametrize(
    "item",
    ["  - [a, b]: v", "  - {a: 1}: v", "  - [a]:", "  - [a] : v", "  - [a]: v\n    b: w"],
)
def test_a_flow_collection_followed_by_a_colon_in_a_list_item_is_a_key(item: str) -> None:
    """``- [a, b]: v`` is a list item holding a mapping whose key is the flow list ``[a, b]``
    (js-yaml and PyYAML read it; Codex, Gemini CLI and Claude Code load such a skill or
    subagent: measured), not a flow list with text after its ``]``."""
    lines = ["name: tidy", "description: d", "l:", *item.split("\n")]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) is None, dialect.name
    assert codex_skill(_doc(*lines), "tidy") == ("tidy", None)
    assert claude_code_agent(_doc(*lines), "stem") == ("tidy", None)
    yaml.compose("\n".join(lines))


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (
            "  - [*e]: v",
            "a list item in line 5 refers to an anchor '&e' that nothing before it sets",
        ),
        ("  - [a]: [b] c", "a list item in line 5 goes on after its closing ']' ('c')"),
        (
            "  - [a]: {b: *e}",
            "a list item in line 5 refers to an anchor '&e' that nothing before it sets",
        ),
        ("  - [a,\n    b]: v", "a list item in line 6 goes on after its closing ']' (': v')"),
        ("  - [a]:v", "a list item in line 5 goes on after its closing ']' (':v')"),
    ],
)
def test_a_flow_key_in_a_list_item_and_its_value_are_scanned(item: str, why: str) -> None:
    """js-yaml and PyYAML stop on each: an alias with no anchor in the key or its value, text
    after the value's ``]``, a key over two lines (an implicit key is on one line), no blank
    after the ``:``."""
    lines = ["name: tidy", "description: d", "l:", *item.split("\n")]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) == why, dialect.name
    with pytest.raises(yaml.YAMLError):
        yaml.compose("\n".join(lines))


def test_the_anchors_of_a_flow_key_in_a_list_item_and_of_its_value_are_set() -> None:
    lines = ["name: tidy", "l:", "  - [&n x, y]: &d Tidies.", "  - [z]:", "      &e w"]
    lines += ["description: *d", "m: *n", "k: *e"]
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) is None, dialect.name
    entries = yaml_mapping.entries_of(lines)
    assert (entries["description"], entries["m"], entries["k"][1]) == (
        ("Tidies.",) * 2,
        ("x",) * 2,
        "w",
    )
    yaml.compose("\n".join(lines))
    assert codex_skill(_doc(*lines), "tidy") == ("tidy", None)


def test_a_faulty_flow_value_below_an_empty_key_is_not_repaired_by_codex() -> None:
    """Codex reads ``description: [draft] t.`` as its text, but not ``description:`` then
    ``  [draft] t.`` (its repair takes a value on its key's line: measured, the skill is left
    out); Gemini CLI's line reader loads both."""
    below = _doc("name: tidy", "description:", "  [draft] t.")
    why = "'description' in line 4 goes on after its closing ']' ('t.'); Codex does not load it"
    assert why in str(codex_skill(below, "tidy")[1])
    assert codex_skill(_doc("name: tidy", "description: [draft] t."), "tidy") == ("tidy", None)
    assert gemini_cli_skill(below, "tidy") == ("tidy", None)


def test_deeply_nested_keys_are_each_read_once() -> None:
    """A nested key's value is read only for its anchor: the lines below it are not read again
    for each level above them (a block nested 2,000 deep took minutes)."""
    depth = 300
    lines = ["name: tidy", "description: d", "meta:"]
    lines += ["  " * (level + 1) + f"k{level}:" for level in range(depth)] + ["  &d x"]
    read = 0
    original = yaml_mapping._below

    def counted(lines: list[str], start: int) -> Any:
        nonlocal read
        for line in original(lines, start):
            read += 1
            yield line

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml_mapping, "_below", counted)
        assert yaml_mapping.entries_of(lines)["meta"][0] == "{"
        assert len(yaml_mapping.key_lines(lines, "meta")) == depth + 1
    assert read < 10 * depth
