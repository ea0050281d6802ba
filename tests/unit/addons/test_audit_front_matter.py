"""The audit's reading of skills' front matter agrees with what each CLI was measured to offer
(``tests/contract/test_skills.py``, run against the real CLIs)."""

from __future__ import annotations

import pytest

from proctor.addons.audit.front_matter import codex_skill, front_matter, gemini_cli_skill
from proctor.addons.audit.subagent_front_matter import (
    NO_AGENT_FRONT_MATTER,
    claude_code_agent,
    gemini_cli_agent,
    gemini_cli_agents,
)
from proctor.addons.audit.yaml_check import BUN, CODEX, JS_YAML, yaml_fault
from tests.contract.test_skills import (
    CLAUDE_AGENTS,
    CLAUDE_LOADED,
    CLAUDE_RENAMED,
    FRONT_MATTER_SKILLS,
    GEMINI_AGENTS,
    GEMINI_LOADED,
    OFFERED,
)

RULES = {"codex": codex_skill, "gemini-cli": gemini_cli_skill}


@pytest.mark.parametrize("agent", sorted(RULES))
def test_the_audit_loads_the_skills_each_cli_was_measured_to_offer(agent: str) -> None:
    loaded = {
        "FM" + folder.upper()
        for folder, text in FRONT_MATTER_SKILLS.items()
        if RULES[agent](text, folder)[1] is None
    }
    # (Gemini CLI offers "twice" with its second description, which has no marker.)
    assert loaded - {"FMTWICE"} == OFFERED[agent]


def test_gemini_cli_names_a_skill_as_its_line_reader_does_where_js_yaml_stops() -> None:
    text = '---\nname: "quoted"\ndescription: d\ntools: *none\n---\n'
    assert gemini_cli_skill(text, "folder") == ("-quoted-", None)
    assert gemini_cli_skill(text.replace("*none", "x"), "folder") == ("quoted", None)
    nested = "---\nname: outer\ndescription: d\nmeta:\n  name: inner\nx: *none\n---\n"
    assert gemini_cli_skill(nested, "folder") == ("inner", None)
    # (`name: *n`, its anchor in a list item's flow list: js-yaml reads it, measured)
    assert gemini_cli_skill(FRONT_MATTER_SKILLS["itemflow"], "f") == ("fmitemflow", None)
    assert codex_skill(FRONT_MATTER_SKILLS["itemflow"], "f") == ("fmitemflow", None)


SHAPES = {
    "qkeys": '---\n"name": qkeys\n"description": d\n---\nB\n',
    "sqkeys": "---\n'name': sqkeys\n'description': d\n---\nB\n",
    "flow": "---\n{name: flow, description: d}\n---\nB\n",
    "flowml": "---\n{name: flowml,\n description: d}\n---\nB\n",
    "indented": "---\n  name: indented\n  description: d\n---\nB\n",
}
"""Front matter every CLI loads (measured: Codex's skills/list, Gemini CLI's loadSkillFromFile
and parseAgentMarkdown, Claude Code's system/init agents) that is no plain ``name:`` line."""


@pytest.mark.parametrize("stem", sorted(SHAPES))
def test_quoted_keys_a_flow_mapping_and_an_indented_block_are_read(stem: str) -> None:
    text = SHAPES[stem]
    for rule in (codex_skill, gemini_cli_skill, claude_code_agent, gemini_cli_agent):
        assert rule(text, "file") == (stem, None), rule


def test_a_flow_mapping_that_is_not_one_string_each_is_refused() -> None:
    listed = "---\n{name: listed, description: [t, u]}\n---\nB\n"
    assert "'description' is a list or mapping" in str(codex_skill(listed, "f")[1])
    assert gemini_cli_skill(listed, "f")[1] is not None  # (its line reader finds no name: line)
    assert "'description' is not a text" in str(claude_code_agent(listed, "f")[1])
    after = "---\n{name: after, description: t}\nx: 1\n---\nB\n"
    assert "line 3 goes on after a closed value" in str(codex_skill(after, "f")[1])
    unclosed = "---\n{name: unclosed, description: t\n---\nB\n"
    assert "never closed" in str(gemini_cli_agent(unclosed, "f")[1])


def test_gemini_cli_subagents_follow_its_schema() -> None:
    """Gemini CLI 0.61's agent schema: known keys only, and a name that is a slug."""
    base = "---\nname: {name}\ndescription: d\n{more}---\nB\n"
    meta = gemini_cli_agent(base.format(name="meta", more="meta: x\n"), "f")
    assert meta == (
        "meta",
        "its front matter has keys Gemini CLI does not know ('meta'); it does not load it",
    )
    for name in ("Upper", "has space", "dot.ted"):
        assert "is not lowercase letters" in str(
            gemini_cli_agent(base.format(name=name, more=""), "f")[1]
        )
    assert "'name' is not a text" in str(gemini_cli_agent(base.format(name="12", more=""), "f")[1])
    known = "model: m\ntools: [read_file]\nmax_turns: 3\ndisplay_name: D\n"
    assert gemini_cli_agent(base.format(name="un_der-1", more=known), "f") == ("un_der-1", None)
    remote = "---\nkind: remote\nname: remote\nagent_card_url: https://example.com/card\n---\n"
    assert gemini_cli_agent(remote, "f") == ("remote", None)
    with_model = remote.replace("card\n", "card\nmodel: x\n")  # (a local agent's key)
    assert "('model')" in str(gemini_cli_agent(with_model, "f")[1])


def test_claude_code_ends_the_front_matter_at_the_first_three_dashes_even_inside_a_line() -> None:
    """Claude Code 2.1.197's front matter is ``^---\\s*\\n([\\s\\S]*?)---``: ``name: cut---x``
    leaves ``name: cut`` and no description (measured: not in system/init's agents)."""
    cut = claude_code_agent("---\nname: cut---x\ndescription: d\n---\nB\n", "f")
    assert cut == (
        "cut",
        "no front matter giving a name and a description: Claude Code ends it at the '---' in line 2",
    )
    first = claude_code_agent("---\ndescription: a---b\nname: first\n---\nB\n", "first")
    assert "'---' in line 2" in str(first[1])
    assert claude_code_agent("---\nname: kept\ndescription: pre --- post\n---\nB\n", "f") == (
        "kept",
        None,
    )
    # (the other CLIs read the whole block)
    assert gemini_cli_agent("---\nname: cut---x\ndescription: d\n---\nB\n", "f") == (
        "cut---x",
        None,
    )


def test_the_audit_loads_the_subagents_claude_code_was_measured_to_load() -> None:
    named = {s: CLAUDE_RENAMED.get(s, s) for s in CLAUDE_AGENTS}
    loaded = {s for s, text in CLAUDE_AGENTS.items() if claude_code_agent(text, s) == (s, None)}
    assert loaded == CLAUDE_LOADED
    for stem, name in CLAUDE_RENAMED.items():
        assert claude_code_agent(CLAUDE_AGENTS[stem], stem) == (name, None)
    assert all(claude_code_agent(CLAUDE_AGENTS[s], s)[0] == named[s] for s in CLAUDE_LOADED)


def test_the_audit_loads_the_subagents_gemini_cli_was_measured_to_load() -> None:
    loaded = {s for s, text in GEMINI_AGENTS.items() if gemini_cli_agent(text, s) == (s, None)}
    assert loaded == GEMINI_LOADED


# What each parser reads as no string, measured: Bun 1.4.0's Bun.YAML.parse (Claude Code 2.1.197
# embeds Bun 1.4.0; its system/init listed the subagents so described) and the js-yaml that
# Gemini CLI 0.61 bundles, over ~150,000 short values.
TEXTS = ("2025-01-01 migration helper", "2025-1-1 notes", "2025-1-1", "_", ".", "-.", "1.2.3")
BUN_ONLY_TEXTS = ("2025-01-01", "2025-01-01T10:00:00Z", "0b101", "1_000", "0x_1")
NOT_TEXTS = ("true", "~", "NULL", ".inf", "-.Inf", ".nan", "0x1F", "-0x1F", "0o17", "017", "1e3")
JS_YAML_ONLY_TEXTS = ("+.5",)  # (js-yaml: no sign before ".5")


@pytest.mark.parametrize("value", TEXTS + BUN_ONLY_TEXTS + NOT_TEXTS + JS_YAML_ONLY_TEXTS)
def test_a_description_is_a_text_as_each_cli_s_yaml_parser_reads_it(value: str) -> None:
    text = f"---\nname: helper\ndescription: {value}\n---\nbody\n"
    claude = claude_code_agent(text, "stem")[1]
    gemini = gemini_cli_agent(text, "stem")[1]
    assert (claude is None) == (value in TEXTS + BUN_ONLY_TEXTS), claude
    assert (gemini is None) == (value in TEXTS + JS_YAML_ONLY_TEXTS), gemini
    if claude is not None:
        assert claude == "its 'description' is not a text; Claude Code does not load it"
    if gemini is not None:
        assert gemini == "its 'description' is not a text; Gemini CLI does not load it"


# Front matter js-yaml (Gemini CLI 0.61), Bun 1.4.0 and PyYAML stop on, as do Codex 0.171's
# skills/list and Claude Code 2.1.197's system/init unless they repair it ("repaired": Codex and
# Claude Code read an unquoted value holding ": " as its text).
YAML_FAULTS = {  # (line 1 is the "---" above the front matter)
    "Use 'foo: bar' syntax": ("'description' holds ': ' in a value that is not quoted", True),
    'a "b: c" d': ("'description' holds ': ' in a value that is not quoted", True),
    ">-\n    a\n  b": (
        "line 5 is less indented than the first line of the block that opens 'description'",
        False,
    ),
    "|\n\n    a\n   b": (
        "line 6 is less indented than the first line of the block that opens 'description'",
        False,
    ),
    "d\n# c\n  extra": ("line 5 is indented under a value that the comment in line 4 ends", False),
    "d\n  # c\n  extra": (
        "line 5 is indented under a value that the comment in line 4 ends",
        False,
    ),
    "|\n    a\n# c\n    b": (
        "line 6 is indented under a value that the comment in line 5 ends",
        False,
    ),
    # (Codex: "did not find expected '-' indicator"; js-yaml: "bad indentation of a sequence
    # entry"; Claude Code leaves the subagent out)
    "d\ntools:\n  - a\n# c\n    b": (
        "line 7 is indented under a value that the comment in line 6 ends",
        False,
    ),
    # (Codex: "block sequence entries are not allowed in this context"; js-yaml: "bad
    # indentation of a mapping entry"; Claude Code leaves the subagent out)
    "-": ("'description' opens a list item ('-') on its key's line", False),
    "- x": ("'description' opens a list item ('-') on its key's line", False),
}
YAML_READ = (
    "say 'x:'",  # (no ': ', no ':' at the end)
    "it's a 'x #y: z'",  # (a comment from ' #' on)
    'say "hi" now',
    ">-\n  a\n    b",  # (more indented than the first line: kept as text)
    "|1\n   a\n  b",  # (an indentation given in the header)
    "|\n    a\n  # c\nx: 1",  # (a less-indented comment ends the block)
    "d\n    # c\nx: 1",
    "d\n\n  more",  # (a blank line does not end a value)
    "\n# c\n  extra",  # (a comment between a key and its value below)
    "d\ntools:\n  - a\n    b",  # (a list item's text going on)
    "d\ntools:\n  - k: v\n    j: w",  # (a mapping in a list item)
)


@pytest.mark.parametrize("value", sorted(YAML_FAULTS))
def test_yaml_faults_quotes_inside_a_plain_value_blocks_and_comments(value: str) -> None:
    lines = f"name: x\ndescription: {value}".splitlines()
    fault, repaired = YAML_FAULTS[value]
    assert yaml_fault(lines, JS_YAML) == fault
    assert yaml_fault(lines, CODEX) == (None if repaired else fault)
    claude = claude_code_agent("---\n" + "\n".join(lines) + "\n---\nB\n", "x")[1]
    not_yaml = f"the front matter is not valid YAML: {fault}; Claude Code does not load it"
    assert claude == (None if repaired else not_yaml)


@pytest.mark.parametrize("value", YAML_READ)
def test_yaml_reads_quotes_inside_a_plain_value_blocks_and_comments(value: str) -> None:
    lines = f"name: x\ndescription: {value}".splitlines()
    for dialect in (JS_YAML, CODEX, BUN):
        assert yaml_fault(lines, dialect) is None, dialect.name


def test_a_comment_line_between_a_key_and_its_value_below_is_read_past() -> None:
    """Codex 0.171, Gemini CLI 0.61 (js-yaml and its schema) and Claude Code 2.1.197 all load
    ``description:``, ``# c``, ``  extra`` with the description ``extra``."""
    text = "---\nname: cmtval\ndescription:\n# c\n  extra\n---\nB\n"
    assert front_matter(text) == {"name": "cmtval", "description": "extra"}
    for rule in (codex_skill, gemini_cli_skill, claude_code_agent, gemini_cli_agent):
        assert rule(text, "f") == ("cmtval", None), rule.__name__


def test_a_block_s_text_is_read_as_yaml_reads_it() -> None:
    """A ``|`` block keeps its line breaks, a ``>`` block folds them, ``-`` strips the last:
    the text, not the ``|``, is the name or description (Gemini CLI's js-yaml: ``BLKLIT
    one\\ntwo\\n`` and ``BLKFOLD one two``)."""
    literal = "---\nname: tidy\ndescription: |\n  one\n  two\n---\nB\n"
    assert front_matter(literal)["description"] == "one\ntwo"
    folded = "---\nname: tidy\ndescription: >-\n  one\n  two\n\n  three\n---\nB\n"
    assert front_matter(folded)["description"] == "one two\nthree"
    named = "---\nname: >-\n  cleanup\ndescription: d\n---\nB\n"
    assert codex_skill(named, "tidy") == ("cleanup", None)
    assert gemini_cli_skill(named, "tidy") == ("cleanup", None)


@pytest.mark.parametrize("below", ["", "x: 1\n"])
def test_a_block_with_no_line_under_it_gives_no_description(below: str) -> None:
    """``description: |`` alone is an empty text: Codex 0.171 refuses the skill ("missing field
    `description`"), Claude Code 2.1.197 and Gemini CLI 0.61's agent schema ("String must
    contain at least 1 character") the subagent; Gemini CLI loads the skill (js-yaml gives a
    text, if empty)."""
    text = f"---\nname: blk\ndescription: |\n{below}---\nB\n"
    assert "description" not in front_matter(text)
    assert codex_skill(text, "blk") == (
        "blk",
        "no front matter giving a description in SKILL.md; Codex does not load it",
    )
    assert claude_code_agent(text, "blk") == ("blk", NO_AGENT_FRONT_MATTER)
    assert gemini_cli_skill(text, "blk") == ("blk", None)
    if not below:
        assert gemini_cli_agent(text, "blk") == (
            "blk",
            "its description is empty; Gemini CLI does not load it",
        )


def test_an_unclosed_flow_mapping_names_its_brace() -> None:
    unclosed = "---\n{name: unclosed, description: t\n---\nB\n"
    assert gemini_cli_agent(unclosed, "f")[1] == (
        "the front matter is not valid YAML: the '{' that opens the front matter is never"
        " closed; Gemini CLI does not load it"
    )
    listed = "---\nname: x\ndescription: d\ntools: [a, b\n---\nB\n"
    assert "the '[' that opens 'tools' is never closed" in str(gemini_cli_agent(listed, "f")[1])


# What Gemini CLI 0.61's parseAgentMarkdown (its zod localAgentSchema and remote agent schemas)
# was measured to refuse beyond the keys, the name and the description, and to take.
GEMINI_AGENT_FAULTS = {
    "tools: read_file": "its 'tools' is not a list",  # ("Expected array, received string")
    "tools:": "its 'tools' is not a list",  # (null)
    "tools: [read_file, nope]": "its 'tools' names 'nope', not a tool Gemini CLI knows",
    "tools:\n  - 5": "its 'tools' names '5', not a tool Gemini CLI knows",
    "tools:\n  - a\n    b": "its 'tools' names 'a b', not a tool Gemini CLI knows",
    "tools:\n  - mcp__x": "its 'tools' names 'mcp__x', not a tool Gemini CLI knows",
    "tools:\n  - mcp_s___": "its 'tools' names 'mcp_s___', not a tool Gemini CLI knows",
    "temperature: hot": "its 'temperature' is not a number",
    "temperature: '0.5'": "its 'temperature' is not a number",
    "temperature: .nan": "its 'temperature' is not a number",
    "temperature:": "its 'temperature' is not a number",
    "max_turns: 0": "its 'max_turns' is not a whole number above 0",
    "max_turns: -1": "its 'max_turns' is not a whole number above 0",
    "max_turns: 2.5": "its 'max_turns' is not a whole number above 0",
    "max_turns: many": "its 'max_turns' is not a whole number above 0",
    "timeout_mins: '5'": "its 'timeout_mins' is not a whole number above 0",
    "model: 5": "its 'model' is not a text",
    "model:": "its 'model' is not a text",
    "display_name: [a]": "its 'display_name' is not a text",
    "kind: other": "its 'kind' is 'other', not 'local' or 'remote'",
    "mcp_servers: x": "its 'mcp_servers' is not a mapping",
    "mcp_servers:": "its 'mcp_servers' is not a mapping",
    "mcp_servers: |\n  s: x": "its 'mcp_servers' is not a mapping",  # (a text: "s: x\n")
    "mcp_servers:\n  s x": "its 'mcp_servers' is not a mapping",
}
GEMINI_AGENT_TAKES = (
    "tools: [read_file, 'glob']",
    "tools:\n  - mcp_srv_tool\n  - mcp_*\n  - mcp_s_*\n  - discovered_tool_x\n  - '*'",
    "tools:\n  - search_file_content\n  - run_shell_command",
    "temperature: 1",
    "temperature: .inf",
    "max_turns: 2.0",
    "max_turns: 0x10",
    "max_turns: 1e3",
    "timeout_mins: 5",
    "kind: local",
    "mcp_servers:\n  s:\n    command: x",
)


@pytest.mark.parametrize("more", sorted(GEMINI_AGENT_FAULTS))
def test_gemini_cli_subagents_values_follow_its_schema(more: str) -> None:
    text = f"---\nname: helper\ndescription: d\n{more}\n---\nB\n"
    fault = GEMINI_AGENT_FAULTS[more]
    who = "it" if "Gemini CLI" in fault else "Gemini CLI"
    assert gemini_cli_agent(text, "f") == ("helper", f"{fault}; {who} does not load it")


@pytest.mark.parametrize("more", GEMINI_AGENT_TAKES)
def test_gemini_cli_subagents_values_its_schema_takes(more: str) -> None:
    text = f"---\nname: helper\ndescription: d\n{more}\n---\nB\n"
    assert gemini_cli_agent(text, "f") == ("helper", None)


REMOTE = "---\nkind: remote\nname: r\n{more}---\n"
GEMINI_REMOTE = {
    "agent_card_json: '{\"a\": 1}'\n": None,
    "agent_card_url: foo:bar\n": None,
    "agent_card_url: https://e.com/c\nagent_card_json: '{}'\n": (
        "it gives both 'agent_card_url' and 'agent_card_json'"
    ),
    "": "it gives neither 'agent_card_url' nor 'agent_card_json'",
    "agent_card_url: /rel/path\n": "its 'agent_card_url' is not a URL",
    "agent_card_url: http://\n": "its 'agent_card_url' is not a URL",
    "agent_card_json: '{a'\n": "its 'agent_card_json' is not valid JSON",
    "description:\nagent_card_url: https://e.com/c\n": "its 'description' is not a text",
}


@pytest.mark.parametrize("more", sorted(GEMINI_REMOTE))
def test_gemini_cli_remote_subagents_follow_its_schema(more: str) -> None:
    fault = GEMINI_REMOTE[more]
    expected = None if fault is None else f"{fault}; Gemini CLI does not load it"
    assert gemini_cli_agent(REMOTE.format(more=more), "f") == ("r", expected)


def test_gemini_cli_reads_a_front_matter_that_is_a_list_as_its_remote_subagents() -> None:
    """Gemini CLI 0.61 reads a list front matter with its ``remoteAgentsListSchema``: each item
    a remote agent (parseAgentMarkdown gives ``["la", "lb"]``); one refused item refuses all
    ("Remote Agents List: 1.name: Name must be a valid slug")."""
    two = "---\n# agents\n- name: la\n  agent_card_url: https://e.com/a\n- name: lb\n"
    two += "  kind: remote\n  agent_card_url: https://e.com/b\n---\n"
    assert gemini_cli_agents(two, "f") == [("la", None), ("lb", None)]
    why = "item 2 of its list of remote agents: {}; Gemini CLI does not load it"
    bad = two.replace("name: lb", "name: LB")
    slug = why.format("its name is not lowercase letters, digits, '-' and '_'")
    assert gemini_cli_agents(bad, "f") == [("la", slug), ("LB", slug)]
    unclosed = two.replace("https://e.com/b", '"https://e.com/b')
    assert gemini_cli_agents(unclosed, "f")[1] == (
        "lb",
        why.format("the quote that opens 'agent_card_url' is never closed"),
    )
    local = "---\n- name: le\n  description: d\n---\n"
    assert gemini_cli_agents(local, "f") == [
        (
            "le",
            why.replace("2", "1").format("it gives neither 'agent_card_url' nor 'agent_card_json'"),
        )
    ]
    texts = "---\n- a\n- b\n---\n"
    assert gemini_cli_agents(texts, "f")[0] == (
        "f[1]",
        why.replace("2", "1").format("it is not a mapping of keys"),
    )
    # (a mapping front matter: the one subagent; Claude Code reads no list)
    assert gemini_cli_agents("---\nname: x\ndescription: d\n---\n", "f") == [("x", None)]
    assert claude_code_agent(two, "f")[1] is not None
