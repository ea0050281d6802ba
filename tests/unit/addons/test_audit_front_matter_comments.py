"""A front matter's comments and its lists at a key's own indentation, read as the CLIs' YAML
parsers read them (measured: js-yaml in Gemini CLI 0.61, Bun 1.4.0's parser in Claude Code,
serde_yaml in Codex 0.171, all loading each of these)."""

from __future__ import annotations

import pytest

from proctor.addons.audit.front_matter import codex_skill, front_matter, gemini_cli_skill
from proctor.addons.audit.subagent_front_matter import claude_code_agent, gemini_cli_agent

COMMENTED = {
    "plain": "---\nname: my-skill # the skill\ndescription: d\n---\n",
    "tab": "---\nname: my-skill\t# the skill\ndescription: d\n---\n",
    "quoted": "---\nname: 'my-skill'   # the skill\ndescription: d\n---\n",
    "numbers": "---\nname: my-skill # n\ndescription: d # e\ntemperature: 0.5 # t\n---\n",
    "below": "---\nname: my-skill\ndescription: # the text is below\n  d\n---\n",
}


@pytest.mark.parametrize("label", sorted(COMMENTED))
def test_a_values_trailing_comment_is_not_part_of_it(label: str) -> None:
    """``name: my-skill # the skill`` is named ``my-skill`` by every CLI (it was named
    'my-skill # the skill', and Gemini CLI was said not to load the subagent)."""
    text = COMMENTED[label]
    assert gemini_cli_agent(text, "s") == ("my-skill", None)
    assert gemini_cli_skill(text, "s") == ("my-skill", None)
    assert codex_skill(text, "s") == ("my-skill", None)
    assert claude_code_agent(text, "s") == ("my-skill", None)
    assert front_matter(text) == {"name": "my-skill", "description": "d"}


def test_a_hash_is_a_comment_only_after_a_blank_and_outside_quotes() -> None:
    assert codex_skill("---\nname: my#skill\ndescription: a#b #c\n---\n", "s") == ("my#skill", None)
    assert front_matter("---\nname: s\ndescription: a#b #c\n---\n")["description"] == "a#b"
    quoted = "---\nname: \"my-skill # x\"\ndescription: 'd # y'\n---\n"
    assert front_matter(quoted) == {"name": "my-skill # x", "description": "d # y"}


def test_a_value_that_is_all_comment_is_no_value() -> None:
    """Codex refuses ``description: # none`` (missing field); it was loaded."""
    _, why = codex_skill("---\nname: s\ndescription: # none\n---\n", "s")
    assert why is not None and "no front matter giving a description" in why


def test_a_list_at_its_keys_indentation_is_that_keys_value() -> None:
    """``tools:`` then ``- glob`` at the key's indentation is its list (it was 'not a list'),
    and ``- name: a`` there is an item, not a key named '- name'."""
    tools = "---\nname: my-agent\ndescription: d\ntools:\n- read_file # r\n- glob\n---\n"
    assert gemini_cli_agent(tools, "s") == ("my-agent", None)
    items = "---\nname: my-agent\ndescription: d\nitems:\n- name: a\n  x: 1\n- name: b\n---\n"
    assert gemini_cli_agent(items, "s") == (
        "my-agent",
        "its front matter has keys Gemini CLI does not know ('items'); it does not load it",
    )
    described = "---\nname: my-agent\ndescription:\n- a\n---\n"
    assert gemini_cli_agent(described, "s")[1] == (
        "its 'description' is not a text; Gemini CLI does not load it"
    )


@pytest.mark.parametrize(
    "tools",
    ["tools: [read_file,\n  glob]", "tools: [\n  read_file,\n  glob\n  ]"],
)
def test_a_flow_list_written_over_several_lines_is_read_whole(tools: str) -> None:
    """Gemini CLI loads it (js-yaml reads a flow list over lines): it was 'not a list', or
    its first item lost a letter."""
    text = f"---\nname: a\ndescription: d\n{tools}\n---\nbody\n"
    assert gemini_cli_agent(text, "s") == ("a", None)
    wrong = "---\nname: a\ndescription: d\ntools: [read_file,\n  nope]\n---\nbody\n"
    assert "names 'nope'" in str(gemini_cli_agent(wrong, "s")[1])


def test_a_block_line_that_begins_with_a_hash_is_text() -> None:
    """In a block scalar '#' begins no comment (a Markdown heading): it was dropped, and the
    description read as empty."""
    text = "---\nname: a\ndescription: >\n  # Usage\n---\nbody\n"
    assert gemini_cli_agent(text, "s") == ("a", None)
