"""A provisioned skill lands where each CLI looks for skills, and the agent loads it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.server import ModelRequest, Reply, ScriptedModelServer, default_roles
from tests.contract.conftest import ASSETS, require_cli
from tests.contract.test_multi_turn import session

READ_SKILL = {
    "codex": 'cat "$CODEX_HOME/skills/greet/SKILL.md"',
    "gemini-cli": 'cat "$HOME/.gemini/skills/greet/SKILL.md"',
}


@pytest.mark.parametrize("agent", ["codex", "gemini-cli"])
def test_skill_is_provisioned_and_read(run_cli: Callable[..., dict[str, Any]], agent: str) -> None:
    require_cli(agent)
    config = {
        "provision": {"skills": [{"name": "greet", "path": str(ASSETS / "skills/greet")}]},
        "evaluators": [{"use": "skill-loaded", "name": "greet"}],
    }
    plan = {"turns": [{"shell": READ_SKILL[agent]}, {"say": "Hello, Ada!"}]}
    out = run_cli(agent, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["evaluators"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert "exclamation mark" in result["output"], result["output"]


UNDESCRIBED: dict[str, str] = {
    "described": "---\nname: described\ndescription: Greets people warmly.\n---\n\nSay hello.\n",
    "nodesc": "---\nname: nodesc\n---\n\nTidies the nodesc folder.\n\nNODESC-BODY: sort it.\n",
    "nofm": "Tidies the nofm folder.\n\nNOFM-BODY: sort it.\n",
}
"""Three project skills: one with a description, one whose front matter has none, one with no
front matter at all (the cases ``proctor audit`` judges; see ``addons/audit/shared_components.py``)."""
CALL_UNDESCRIBED: dict[str, Any] = {
    "turns": [
        {"tool": "Skill", "input": {"skill": "nodesc"}},
        {"tool": "Skill", "input": {"skill": "nofm"}},
        {"say": "Done."},
    ]
}


class Listener:
    """A role that answers nothing and keeps every request: what the CLI sent the model."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    def respond(self, request: ModelRequest) -> Reply | None:
        self.requests.append(request)
        return None


def test_claude_code_offers_skills_without_a_description_to_the_model(tmp_path: Path) -> None:
    """Claude Code 2.1.197 leaves a skill with no ``description`` (front matter without one, or
    none at all) out of the ``skills`` of its ``system/init`` event, yet lists it to the model
    (with its body's first paragraph as the description) and loads it when the model calls the
    Skill tool. So the ``skills`` of ``system/init`` is no guide to what the model is offered;
    the listing in the request is."""
    require_cli("claude-code")
    listener = Listener()
    steps = CALL_UNDESCRIBED["turns"]
    server = ScriptedModelServer(CALL_UNDESCRIBED, roles=[listener, *default_roles(steps)])
    server.start()
    driver = session("claude-code", "headless", tmp_path, server.base_url)
    for name, text in UNDESCRIBED.items():
        (tmp_path / "ws/.claude/skills" / name).mkdir(parents=True)
        (tmp_path / "ws/.claude/skills" / name / "SKILL.md").write_text(text)
    try:
        assert driver.send("Tidy up.").kind == "turn-end", driver.log.failure
    finally:
        server.stop()

    events = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    init = next(e for e in events if (e.get("type"), e.get("subtype")) == ("system", "init"))
    assert {"described", "nodesc", "nofm"} <= set(init["slash_commands"])
    assert "described" in init["skills"]
    assert not {"nodesc", "nofm"} & set(init["skills"]), init["skills"]

    first, last = listener.requests[0], listener.requests[-1]
    listing = "\n".join(first.texts)
    assert "The following skills are available for use with the Skill tool" in listing
    assert "- described: Greets people warmly." in listing
    assert "- nodesc: Tidies the nodesc folder." in listing
    assert "- nofm: Tidies the nofm folder." in listing

    loaded = "\n".join(last.texts)
    assert "NODESC-BODY: sort it." in loaded and "NOFM-BODY: sort it." in loaded


LINKED_SKILL_HOMES = {
    "claude-code": ".claude/skills",  # the trial's CLAUDE_CONFIG_DIR is <home>/.claude
    "codex": ".agents/skills",
    "gemini-cli": ".gemini/skills",
}


@pytest.mark.parametrize("agent", sorted(LINKED_SKILL_HOMES))
def test_a_skill_linked_in_from_outside_the_home_is_offered_to_the_model(
    agent: str, tmp_path: Path
) -> None:
    """An installer that links its skill's folder into the skills folder (``ln -s
    ~/src/greet ~/.claude/skills/greet``) instead of copying it: each CLI follows the link and
    offers the skill to the model, as it offers one copied in. So ``proctor audit`` lists
    such a skill as loaded, not as a decoy."""
    require_cli(agent)
    listener = Listener()
    plan: dict[str, Any] = {"turns": [{"say": "Done."}]}
    server = ScriptedModelServer(plan, roles=[listener, *default_roles(plan["turns"])])
    server.start()
    driver = session(agent, "headless", tmp_path, server.base_url)
    skills = tmp_path / "home" / LINKED_SKILL_HOMES[agent]
    skills.mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "checkout" / "linked"
    outside.mkdir(parents=True)
    description = "Greets people in the LINKEDSKILL way."
    (outside / "SKILL.md").write_text(
        f"---\nname: linked\ndescription: {description}\n---\n\nSay hello.\n"
    )
    (skills / "linked").symlink_to(outside, target_is_directory=True)
    (skills / "copied").mkdir()
    (skills / "copied" / "SKILL.md").write_text(
        "---\nname: copied\ndescription: Greets people in the COPIEDSKILL way.\n---\n\nHi.\n"
    )
    try:
        assert driver.send("Say hello.").kind == "turn-end", driver.log.failure
    finally:
        server.stop()
    # (Gemini CLI asks its router model first: every request is read.)
    offered = "\n".join(text for request in listener.requests for text in request.texts)
    assert "COPIEDSKILL" in offered  # the control: where this CLI looks for skills
    assert "LINKEDSKILL" in offered


FRONT_MATTER_HOMES = {"codex": ".agents/skills", "gemini-cli": ".gemini/skills"}
FRONT_MATTER_SKILLS: dict[str, str] = {
    "described": "---\nname: described\ndescription: FMDESCRIBED greets.\n---\n\nHi.\n",
    "plain": "FMPLAIN tidies.\n\nBody.\n",
    "nodesc": "---\nname: nodesc\n---\n\nFMNODESC body.\n",
    "noname": "---\ndescription: FMNONAME tidies.\n---\n\nBody.\n",
    "folder": "---\nname: other\ndescription: FMFOLDER tidies.\n---\n\nBody.\n",
    "unclosed": '---\nname: unclosed\ndescription: "FMUNCLOSED tidies.\n---\n\nBody.\n',
    "trailing": '---\nname: trailing\ndescription: "FMTRAILING" tidies.\n---\n\nBody.\n',
    "listed": "---\nname: listed\ndescription: [FMLISTED, tidies]\n---\n\nBody.\n",
    "twice": "---\nname: twice\ndescription: FMTWICE tidies.\ndescription: again\n---\n\nB.\n",
    "colons": "---\nname: colons\ndescription: FMCOLONS use it when: asked\n---\n\nBody.\n",
    "otherquote": '---\nname: otherquote\ndescription: FMOTHERQUOTE t.\nmodel: "x\n---\n\nB.\n',
    "indented": "---\nname: indented\ndescription: FMINDENTED t.\n  model: x\n---\n\nB.\n",
    "toplist": "---\n- name: toplist\n- description: FMTOPLIST t.\n---\n\nB.\n",
    "alias": "---\nname: alias\ndescription: FMALIAS t.\ntools: *x\n---\n\nB.\n",
    "tabbed": "---\nname: tabbed\n\tdescription: FMTABBED t.\n---\n\nB.\n",
    "tabwrapped": "---\nname: tabwrapped\ndescription:\n\tFMTABWRAPPED t.\n---\n\nB.\n",
    "renamed": "---\nname: renamed\nname: renamed2\ndescription: FMRENAMED t.\n---\n\nB.\n",
    "quotedkeys": '---\n"name": quotedkeys\n"description": FMQUOTEDKEYS t.\n---\n\nB.\n',
    "flowmap": "---\n{name: flowmap, description: FMFLOWMAP t.}\n---\n\nB.\n",
    "allindented": "---\n  name: allindented\n  description: FMALLINDENTED t.\n---\n\nB.\n",
    "cmtvalue": "---\nname: cmtvalue\ndescription:\n# note\n  FMCMTVALUE t.\n---\n\nB.\n",
    "blockdesc": "---\nname: blockdesc\ndescription: >-\n  FMBLOCKDESC one\n  two\n---\n\nB.\n",
    "emptyblock": "---\nname: FMEMPTYBLOCK\ndescription: |\n---\n\nB.\n",
    "listitem": "---\nname: listitem\ndescription: FMLISTITEM t.\ntools:\n  - a\n# c\n    b\n---\n",
    "dashdesc": "---\nname: FMDASHDESC\ndescription: -\n---\n\nB.\n",
    "anchored": "---\nname: anchored\nnote: &d FMANCHORED t.\ndescription: *d\n---\n\nB.\n",
    "keyed": "---\nname: FMKEYED\ndescription: ? x\n---\n\nB.\n",
    "tagged": "---\nname: tagged\ndescription: !foo FMTAGGED t.\n---\n\nB.\n",
    "separated": "---\nname: separated\ndescription: FMSEPARATED a\u2028b\n---\n\nB.\n",
    "mapdesc": "---\nname: FMMAPDESC\ndescription:\n  a: 1\n---\n\nB.\n",
    "aliasmap": "---\nname: FMALIASMAP\nm: &m\n  a: 1\ndescription: *m\n---\n\nB.\n",
    "flowanchor": "---\nname: flowanchor\nm: {a: &d FMFLOWANCHOR t.}\ndescription: *d\n---\n\nB.\n",
    "itemanchor": "---\nname: itemanchor\nl:\n  - &d FMITEMANCHOR t.\ndescription: *d\n---\n\nB.\n",
    "aliasprops": "---\nname: FMALIASPROPS\nn: &a t.\ndescription: &b *a\n---\n\nB.\n",
    "keyalias": "---\nname: keyalias\nn: &d x\n*d: y\ndescription: FMKEYALIAS t.\n---\n\nB.\n",
    "aliastwice": "---\nname: &n name\n*n : aliastwice\ndescription: FMALIASTWICE t.\n---\n\nB.\n",
    "flowtext": "---\nname: flowtext\ndescription: [FMFLOWTEXT] t.\n---\n\nB.\n",
    "flowalias": "---\nname: flowalias\ndescription: FMFLOWALIAS t.\ntools: [*d]\n---\n\nB.\n",
    "flowcomma": "---\n{name: flowcomma, description: [FMFLOWCOMMA] t.}\n---\n\nB.\n",
    "itemflow": "---\nl:\n  - [&n fmitemflow, x]\nname: *n\ndescription: FMITEMFLOW t.\n---\n",
    "itemdashes": "---\nname: itemdashes\nl:\n  - - &d FMITEMDASHES t.\ndescription: *d\n---\n",
    "flowbelow": "---\nname: flowbelow\ndescription:\n  [FMFLOWBELOW, t.]\n---\n\nB.\n",
    "flowbelowtext": "---\nname: flowbelowtext\ndescription:\n  [FMFLOWBELOWTEXT] t.\n---\n",
    "itemflowkey": (
        "---\nname: itemflowkey\ndescription: FMITEMFLOWKEY t.\nmetadata:\n  pairs:\n"
        "    - [a, b]: v\n---\n"
    ),
    "itemmapkey": "---\nname: itemmapkey\ndescription: FMITEMMAPKEY t.\nl:\n  - {a: 1}: v\n---\n",
    "itemkeyanchor": (
        "---\nname: itemkeyanchor\nl:\n  - [&d FMITEMKEYANCHOR t.]:\ndescription: *d\n---\n"
    ),
}
"""Skills whose front matter ``proctor audit`` judges per CLI (``addons/audit/front_matter.py``)."""
OFFERED = {
    "codex": {
        *("FMDESCRIBED", "FMNONAME", "FMFOLDER", "FMCOLONS"),
        *("FMQUOTEDKEYS", "FMFLOWMAP", "FMALLINDENTED", "FMCMTVALUE", "FMBLOCKDESC"),
        *("FMANCHORED", "FMTAGGED"),  # (serde_yaml drops an unknown tag)
        *("FMFLOWANCHOR", "FMITEMANCHOR"),
        "FMKEYALIAS",  # (libyaml: the alias `*d` as a key)
        *("FMFLOWALIAS", "FMFLOWTEXT"),  # (its repair: a value opening `[` YAML stops on is
        # read as its text: `tools: [*d]`, `description: [FMFLOWTEXT] t.`)
        *("FMITEMFLOW", "FMITEMDASHES"),  # (an anchor in a list item's flow list, or after
        # its second dash; a flow list below `description:` is a list, not a text)
        *("FMITEMFLOWKEY", "FMITEMMAPKEY", "FMITEMKEYANCHOR"),  # (`- [a, b]: v`, a flow key;
        # its repair does not read `[FMFLOWBELOWTEXT] t.` below `description:` as a text)
    },
    "gemini-cli": {
        *("FMDESCRIBED", "FMFOLDER", "FMUNCLOSED", "FMTRAILING", "FMLISTED", "FMCOLONS"),
        *("FMOTHERQUOTE", "FMINDENTED", "FMALIAS", "FMTABBED", "FMTABWRAPPED", "FMRENAMED"),
        *("FMQUOTEDKEYS", "FMFLOWMAP", "FMALLINDENTED", "FMCMTVALUE", "FMBLOCKDESC"),
        *("FMEMPTYBLOCK", "FMLISTITEM", "FMDASHDESC"),
        *("FMANCHORED", "FMKEYED", "FMTAGGED", "FMSEPARATED"),
        *("FMFLOWANCHOR", "FMITEMANCHOR"),
        *(
            "FMMAPDESC",
            "FMALIASMAP",
            "FMALIASPROPS",
            "FMKEYALIAS",
            *("FMALIASTWICE", "FMFLOWTEXT", "FMFLOWALIAS", "FMFLOWBELOW"),
        ),  # (by its line reader: js-yaml reads a
        # mapping or a list, not a text, or stops on an alias given an anchor)
        *("FMITEMFLOW", "FMITEMDASHES"),  # (js-yaml: `*d` is the text its anchor was given)
        *("FMITEMFLOWKEY", "FMITEMMAPKEY", "FMITEMKEYANCHOR"),  # (`- [a, b]: v`, a flow key)
        "FMFLOWBELOWTEXT",  # (by its line reader: js-yaml stops on `[x] t.` below its key)
    },
}


@pytest.mark.parametrize("agent", sorted(FRONT_MATTER_HOMES))
def test_codex_and_gemini_cli_offer_only_skills_whose_front_matter_describes_them(
    agent: str, tmp_path: Path
) -> None:
    """Codex 0.171 offers a skill whose front matter gives a description, under its ``name``
    (else its folder's), and that its YAML reads (with its few repairs); Gemini CLI 0.61 one
    that gives a name and a description, under that name, read by its line reader where
    js-yaml stops (a key given twice: the last). Neither offers a SKILL.md without front
    matter (Claude Code does)."""
    require_cli(agent)
    listener = Listener()
    plan: dict[str, Any] = {"turns": [{"say": "Done."}]}
    server = ScriptedModelServer(plan, roles=[listener, *default_roles(plan["turns"])])
    server.start()
    driver = session(agent, "headless", tmp_path, server.base_url)
    for name, text in FRONT_MATTER_SKILLS.items():
        folder = tmp_path / "home" / FRONT_MATTER_HOMES[agent] / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text)
    try:
        assert driver.send("Say hello.").kind == "turn-end", driver.log.failure
    finally:
        server.stop()
    offered = "\n".join(text for request in listener.requests for text in request.texts)
    assert {m for m in ("FM" + n.upper() for n in FRONT_MATTER_SKILLS) if m in offered} == (
        OFFERED[agent]
    ), offered
    # The renamed skill goes by its front matter's name: "- other: FMFOLDER ..." (Codex),
    # "<name>other</name> <description>FMFOLDER ..." (Gemini CLI).
    assert re.search(r"(- other: |<name>other</name>\s*<description>)FMFOLDER", offered), offered
    if agent == "gemini-cli":
        assert re.search(r"<name>renamed2</name>\s*<description>FMRENAMED", offered), offered
    # The skill named by an alias goes by its anchor's text (`name: *n`).
    assert re.search(r"(- fmitemflow: |<name>fmitemflow</name>\s*<description>)FMITEMFLOW", offered)


CLAUDE_AGENTS: dict[str, str] = {
    "quotedkeys": '---\n"name": quotedkeys\n"description": d\n---\nB\n',
    "flowmap": "---\n{name: flowmap, description: d}\n---\nB\n",
    "allindented": "---\n  name: allindented\n  description: d\n---\nB\n",
    "cut": "---\nname: cut---x\ndescription: d\n---\nB\n",
    "descfirst": "---\ndescription: a---b\nname: descfirst\n---\nB\n",
    "dashes": "---\nname: dashes\ndescription: pre --- post\n---\nB\n",
    "cmtvalue": "---\nname: cmtvalue\ndescription:\n# note\n  d\n---\nB\n",
    "blockdesc": "---\nname: blockdesc\ndescription: >-\n  d\n  e\n---\nB\n",
    "emptyblock": "---\nname: emptyblock\ndescription: |\n---\nB\n",
    "listitem": "---\nname: listitem\ndescription: d\ntools:\n  - a\n# c\n    b\n---\nB\n",
    "dashdesc": "---\nname: dashdesc\ndescription: -\n---\nB\n",
    "anchored": "---\nname: anchored\nnote: &d d\ndescription: *d\n---\nB\n",
    "unanchored": "---\nname: unanchored\ndescription: *d\n---\nB\n",
    "keyed": "---\nname: keyed\ndescription: ? x\n---\nB\n",
    "tagged": "---\nname: tagged\ndescription: !foo d\n---\nB\n",
    "separated": "---\nname: separated\ndescription: a\u2028b\u2029c\x85d\n---\nB\n",
    "mapdesc": "---\nname: mapdesc\ndescription:\n  a: 1\n---\nB\n",
    "aliasmap": "---\nname: aliasmap\nm: &m\n  a: 1\ndescription: *m\n---\nB\n",
    "flowanchor": "---\nname: flowanchor\nm: {a: &d hi}\ndescription: *d\n---\nB\n",
    "itemanchor": "---\nname: itemanchor\nl:\n  - &d hello\ndescription: *d\n---\nB\n",
    "aliasprops": "---\nname: aliasprops\nn: &a d\ndescription: &b *a\n---\nB\n",
    "anchorname": "---\nname: &a anchorname\nn: &b d\ndescription: &c *b\n---\nB\n",
    "aliaskey": "---\nname: aliaskey\nn: &d x\n*d: y\ndescription: d\n---\nB\n",
    "aliaskeyspaced": "---\nname: aliaskeyspaced\nn: &d x\n*d : y\ndescription: d\n---\nB\n",
    "aliastwice": "---\nname: &n name\n*n : aliastwice\ndescription: d\n---\nB\n",
    "flowtext": "---\nname: flowtext\ndescription: [draft] d\n---\nB\n",
    "flowalias": "---\nname: flowalias\ndescription: d\ntools: [Read, *x]\n---\nB\n",
    "flowtwo": "---\nname: flowtwo\ndescription: d\ntools: [Read] [Grep]\n---\nB\n",
    "flowcomma": "---\n{name: flowcomma, description: [draft] d}\n---\nB\n",
    "itemflow": "---\nname: itemflow\ndescription: d\nl:\n  - [&a x]\nm:\n  k: *a\n---\nB\n",
    "itemdashes": "---\nname: itemdashes\ndescription: d\nl:\n  - - &a x\nm:\n  k: *a\n---\nB\n",
    "descflow": "---\nname: descflow\ndescription:\n  [a, b]\n---\nB\n",
    "descflowtext": "---\nname: descflowtext\ndescription:\n  [draft] d\n---\nB\n",
    "itemflowkey": "---\nname: itemflowkey\ndescription: d\nl:\n  - [a, b]: v\n---\nB\n",
    "itemmapkey": "---\nname: itemmapkey\ndescription: d\nl:\n  - {a: 1}: v\n---\nB\n",
    "itemkeyanchor": "---\nname: itemkeyanchor\ndescription: d\nl:\n  - [&a x]:\nm:\n  k: *a\n---\n",
}
"""Subagents whose front matter ``proctor audit`` judges for Claude Code
(``subagent_front_matter.py``)."""
CLAUDE_LOADED = {"quotedkeys", "flowmap", "allindented", "dashes", "cmtvalue", "blockdesc"} | {
    *("anchored", "unanchored", "tagged", "separated"),  # (its repair quotes `*d`, `!foo d`)
    *("flowanchor", "itemanchor", "aliasprops"),  # (its repair quotes `&b *a`)
    "aliaskeyspaced",
    *("aliastwice", "flowtext", "flowalias", "flowtwo"),  # (Bun keeps the last `name`; its
    # repair quotes a value holding `[` that Bun does not read alone as a list)
    *("itemflow", "itemdashes"),  # (the indented `k: *a`, which its repair leaves, is read)
    *("itemflowkey", "itemmapkey", "itemkeyanchor"),  # (`- [a, b]: v`: a flow key; not
    # `descflowtext`, whose `[draft] d` below `description:` its repair leaves)
}
CLAUDE_RENAMED = {"anchorname": "&a anchorname"}
"""Subagents Claude Code loads under a name that is not their file's stem: its repair quotes
``name: &a anchorname`` once the first reading stops."""


def test_claude_code_loads_subagents_as_the_audit_reads_their_front_matter(tmp_path: Path) -> None:
    """Claude Code 2.1.197 reads quoted keys, a flow mapping and an indented block, and ends
    the front matter at the first ``---`` even inside a line (``name: cut---x`` leaves no
    description): the ``agents`` of its ``system/init`` event."""
    require_cli("claude-code")
    plan: dict[str, Any] = {"turns": [{"say": "Done."}]}
    server = ScriptedModelServer(plan, roles=default_roles(plan["turns"]))
    server.start()
    driver = session("claude-code", "headless", tmp_path, server.base_url)
    for stem, text in CLAUDE_AGENTS.items():
        path = tmp_path / "ws/.claude/agents" / f"{stem}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    try:
        assert driver.send("Hi.").kind == "turn-end", driver.log.failure
    finally:
        server.stop()
    events = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    init = next(e for e in events if (e.get("type"), e.get("subtype")) == ("system", "init"))
    assert set(init["agents"]) & set(CLAUDE_AGENTS) == CLAUDE_LOADED, init["agents"]
    assert set(CLAUDE_RENAMED.values()) <= set(init["agents"]), init["agents"]


GEMINI_AGENTS: dict[str, str] = {
    "cmtvalue": CLAUDE_AGENTS["cmtvalue"],
    "blockdesc": CLAUDE_AGENTS["blockdesc"],
    "emptyblock": CLAUDE_AGENTS["emptyblock"],
    "listitem": CLAUDE_AGENTS["listitem"],
    "dashdesc": CLAUDE_AGENTS["dashdesc"],
    "toolsok": "---\nname: toolsok\ndescription: d\ntools: [read_file]\nmax_turns: 2.0\n---\nB\n",
    "toolsbad": "---\nname: toolsbad\ndescription: d\ntools: [nope]\n---\nB\n",
    "toolstext": "---\nname: toolstext\ndescription: d\ntools: read_file\n---\nB\n",
    "temptext": "---\nname: temptext\ndescription: d\ntemperature: '0.5'\n---\nB\n",
    "anchored": "---\nname: anchored\ndisplay_name: &d d\ndescription: *d\n---\nB\n",
    "unanchored": CLAUDE_AGENTS["unanchored"],
    "keyed": CLAUDE_AGENTS["keyed"],
    "tagged": CLAUDE_AGENTS["tagged"],
    "separated": CLAUDE_AGENTS["separated"],
    "mapdesc": CLAUDE_AGENTS["mapdesc"],
    "flowanchor": "---\nname: flowanchor\ntools: [&d read_file]\ndescription: *d\n---\nB\n",
    "itemanchor": "---\nname: itemanchor\ntools:\n  - &d read_file\ndescription: *d\n---\nB\n",
    "aliasprops": "---\nname: aliasprops\ndisplay_name: &a d\ndescription: &b *a\n---\nB\n",
    "aliastool": "---\nname: aliastool\ndisplay_name: &d glob\ndescription: d\ntools:\n  - *d\n---\n",
    "anchormcp": "---\nname: anchormcp\ndescription: d\nmcp_servers:\n  &m\n  s:\n    command: x\n---\n",
    "mcpblock": "---\nname: mcpblock\ndescription: d\nmcp_servers: |\n  s: x\n---\n",
    "aliastwice": CLAUDE_AGENTS["aliastwice"],
    "flowalias": "---\nname: flowalias\ndescription: d\ntools: [glob, *d]\n---\n",
    "flowtext": CLAUDE_AGENTS["flowtext"],
    "toolsbelow": "---\nname: toolsbelow\ndescription: d\ntools:\n  [read_file, glob]\n---\nB\n",
    "toolsbelowbad": "---\nname: toolsbelowbad\ndescription: d\ntools:\n  [nope]\n---\nB\n",
    "toolsalias": (
        "---\nname: toolsalias\ndescription: d\nmcp_servers:\n  s:\n    command: x\n"
        "    include_tools: &l\n      - glob\ntools: *l\n---\nB\n"
    ),
    "toolsaliasbad": (
        "---\nname: toolsaliasbad\ndescription: d\nmcp_servers:\n  s:\n    command: x\n"
        "    include_tools: &l\n      - nope\ntools: *l\n---\nB\n"
    ),
}
"""Subagents whose front matter ``proctor audit`` judges for Gemini CLI
(``subagent_front_matter.py``)."""
GEMINI_LOADED = {"cmtvalue", "blockdesc", "toolsok", "anchored", "separated"} | {
    *("flowanchor", "itemanchor", "aliastool", "anchormcp"),
    *("toolsbelow", "toolsalias"),  # (a flow list below `tools:`; an alias to a block list)
}


def test_gemini_cli_loads_subagents_as_the_audit_reads_their_front_matter(tmp_path: Path) -> None:
    """Gemini CLI 0.61 (``experimental.enableAgents``) lists to the model the subagents whose
    front matter js-yaml reads and its schema takes: ``tools`` a list of its tool names,
    ``temperature`` a number, a non-empty ``description``."""
    require_cli("gemini-cli")
    listener = Listener()
    plan: dict[str, Any] = {"turns": [{"say": "Done."}]}
    server = ScriptedModelServer(plan, roles=[listener, *default_roles(plan["turns"])])
    server.start()
    driver = session("gemini-cli", "headless", tmp_path, server.base_url)
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data.setdefault("experimental", {})["enableAgents"] = True
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(data))
    for stem, text in GEMINI_AGENTS.items():
        path = tmp_path / "home" / ".gemini" / "agents" / f"{stem}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    try:
        assert driver.send("Hi.").kind == "turn-end", driver.log.failure
    finally:
        server.stop()
    offered = "\n".join(request.system for request in listener.requests)
    listed = re.findall(r"<subagent>\s*<name>([^<]*)</name>", offered)
    assert "generalist" in listed, offered  # (the control: its own subagents are listed)
    assert set(listed) & set(GEMINI_AGENTS) == GEMINI_LOADED, listed
