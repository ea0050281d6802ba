"""Slash commands and subagents in the audit: each agent's folders, user, project and plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.addons.audit import audit
from proctor.addons.audit.render import render_text

AGENT_MD = "---\nname: {name}\ndescription: does {name}\n---\nYou are {name}.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def found(report: object, agent: str, kind: str) -> dict[str, tuple[str, str | None]]:
    agent_audit = report.for_agent(agent)  # type: ignore[attr-defined]
    return {c.name: (c.scope, c.decoy) for c in agent_audit.components if c.kind == kind}


def test_claude_code_commands_and_subagents_of_user_project_and_plugin(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    write(home / ".claude" / "commands" / "review.md", "Review $ARGUMENTS\n")
    write(home / ".claude" / "commands" / "frontend" / "component.md", "Make one\n")
    write(home / ".claude" / "agents" / "reviewer.md", AGENT_MD.format(name="code-reviewer"))
    write(home / ".claude" / "agents" / "notes.md", "no front matter\n")
    write(project / ".claude" / "commands" / "ship.md", "Ship it\n")
    write(project / ".claude" / "agents" / "tester.md", AGENT_MD.format(name="tester"))
    plugin = home / ".claude" / "plugins" / "cache" / "m" / "tidy" / "1.0.0"
    write(plugin / ".claude-plugin" / "plugin.json", '{"name": "tidy"}')
    write(plugin / "commands" / "tidy.md", "Tidy\n")
    write(plugin / "agents" / "tidier.md", AGENT_MD.format(name="tidier"))
    installed = {"version": 2, "plugins": {"tidy@m": [{"installPath": str(plugin)}]}}
    write(home / ".claude" / "plugins" / "installed_plugins.json", json.dumps(installed))
    write(home / ".claude" / "settings.json", '{"enabledPlugins": {"tidy@m": true}}')
    report = audit(home, project, ["claude-code"])
    assert found(report, "claude-code", "command") == {
        "component": ("user", None),
        "review": ("user", None),
        "tidy:tidy": ("plugin", None),
        "ship": ("project", None),
    }
    assert found(report, "claude-code", "subagent") == {
        "notes": ("user", "no front matter giving a name and a description"),
        "code-reviewer": ("user", None),
        "tidy:tidier": ("plugin", None),
        "tester": ("project", None),
    }
    text = render_text(report)
    assert "  slash commands:\n    component  (" in text
    assert "  subagents:\n" in text


def test_gemini_cli_and_codex_commands_and_subagents(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    write(home / ".gemini" / "commands" / "gcs" / "sync.toml", 'prompt = "sync"\n')
    write(home / ".gemini" / "agents" / "auditor.md", AGENT_MD.format(name="auditor"))
    write(project / ".gemini" / "commands" / "deploy.toml", 'prompt = "deploy"\n')
    ext = home / ".gemini" / "extensions" / "gext"
    write(ext / "gemini-extension.json", '{"name": "gext", "version": "1.0.0"}')
    write(ext / "commands" / "fs" / "grep-code.toml", 'prompt = "grep"\n')
    write(home / ".codex" / "prompts" / "draft.md", "Draft a PR\n")
    report = audit(home, project, ["codex", "gemini-cli"])
    assert found(report, "gemini-cli", "command") == {
        "gcs:sync": ("user", None),
        "fs:grep-code": ("plugin", None),
        "deploy": ("project", None),
    }
    assert found(report, "gemini-cli", "subagent") == {"auditor": ("user", None)}
    assert found(report, "codex", "command") == {"prompts:draft": ("user", None)}
    off = '{"experimental": {"enableAgents": false}}'
    write(project / ".gemini" / "settings.json", off)
    report = audit(home, project, ["gemini-cli"])
    assert found(report, "gemini-cli", "subagent") == {
        "auditor": ("user", "subagents switched off (experimental.enableAgents)")
    }


CLAUDE_AGENTS = {
    "colon": "---\nname: colon\ndescription: use it when: asked\n---\nB\n",
    "tabwrapped": "---\nname: tabwrapped\ndescription:\n\ton the next line\n---\nB\n",
    "alias": "---\nname: alias\ndescription: d\ncolor: *none\n---\nB\n",
    "twice": "---\nname: first\nname: last\ndescription: d\n---\nB\n",
    "quoted": '---\nname: "quoted"\ndescription: d\n---\nB\n',
    "otherquote": '---\nname: otherquote\ndescription: d\nmodel: "never closed\n---\nB\n',
    "tabbed": "---\nname: tabbed\n\tdescription: d\n---\nB\n",
    "indented": "---\nname: indented\ndescription: d\n  model: x\n---\nB\n",
    "nestedalias": "---\nname: nestedalias\ndescription: d\nmeta:\n  k: *none\n---\nB\n",
    "number": "---\nname: 12\ndescription: d\n---\nB\n",
    "listed": "---\nname: listed\ndescription: [a, b]\n---\nB\n",
    "trailing": '---\nname: trailing\ndescription: "d" then more\n---\nB\n',
    "bom": "\ufeff---\nname: bom\ndescription: d\n---\nB\n",
}


def test_claude_code_subagents_whose_front_matter_its_yaml_reader_cannot_read(
    tmp_path: Path,
) -> None:
    """Claude Code 2.1.197 reads a subagent's front matter with Bun's YAML parser, then once
    more after quoting each unindented value holding one of ``{}[]*&#!|>%@``` or ``: `` and
    turning the tabs that open a line into spaces; it loads the subagent when that gives a
    ``name`` and a ``description`` that are texts (measured: the ``agents`` of its
    ``system/init`` event). A key given twice keeps its last value."""
    home = tmp_path / "home"
    for stem, text in CLAUDE_AGENTS.items():
        write(home / ".claude" / "agents" / f"{stem}.md", text)
    subagents = found(audit(home, None, ["claude-code"]), "claude-code", "subagent")
    loaded = {name for name, (_, decoy) in subagents.items() if decoy is None}
    assert loaded == {"colon", "tabwrapped", "alias", "last", "quoted"}, subagents
    assert "'model'" in str(subagents["otherquote"][1])
    # (its second try, the tab made spaces, stops too: the fault named is the first's)
    assert "a tab indents line 3" in str(subagents["tabbed"][1])
    assert "'12'" not in subagents and "'name' is not a text" in str(subagents["12"][1])
    assert subagents["bom"][1] == "no front matter giving a name and a description"


def test_gemini_cli_subagents_whose_front_matter_js_yaml_cannot_read(tmp_path: Path) -> None:
    """Gemini CLI 0.61 reads a subagent's front matter with js-yaml alone (``parseAgentMarkdown``:
    "YAML frontmatter parsing failed"); its skills' line reader is no fallback here."""
    home = tmp_path / "home"
    agents = home / ".gemini" / "agents"
    write(agents / "ok.md", AGENT_MD.format(name="ok"))
    write(agents / "colon.md", "---\nname: colon\ndescription: use it when: asked\n---\nB\n")
    write(agents / "tabbed.md", "---\nname: tabbed\n\tdescription: d\n---\nB\n")
    write(agents / "twice.md", "---\nname: twice\ndescription: d\ndescription: e\n---\nB\n")
    subagents = found(audit(home, None, ["gemini-cli"]), "gemini-cli", "subagent")
    assert subagents["ok"] == ("user", None)
    for name in ("colon", "tabbed", "twice"):
        assert "not valid YAML" in str(subagents[name][1]), subagents


def test_gemini_cli_lists_each_remote_subagent_of_a_front_matter_that_is_a_list(
    tmp_path: Path,
) -> None:
    """Gemini CLI 0.61 reads a front matter that is a list as remote subagents, one per item
    (``remoteAgentsListSchema``): the audit lists each, by its name."""
    home = tmp_path / "home"
    remote = "---\n- name: {a}\n  agent_card_url: https://e.com/a\n- name: {b}\n"
    remote += "  agent_card_url: https://e.com/b\n---\n"
    write(home / ".gemini" / "agents" / "remote.md", remote.format(a="la", b="lb"))
    write(home / ".gemini" / "agents" / "bad.md", remote.format(a="lc", b="LD"))
    subagents = found(audit(home, None, ["gemini-cli"]), "gemini-cli", "subagent")
    assert subagents["la"] == subagents["lb"] == ("user", None)
    assert "item 2 of its list of remote agents" in str(subagents["lc"][1])
    assert "remote" not in subagents


def test_gemini_cli_commands_it_skips_are_decoys_and_named_as_it_names_them(
    tmp_path: Path,
) -> None:
    """Gemini CLI 0.61's FileCommandLoader skips a file that is not valid TOML or gives no
    ``prompt`` text (both were listed as loaded), and names each part of its path with
    ``[^a-zA-Z0-9_.-]`` made ``_`` (``my cmd.toml`` is ``/my_cmd``); a Codex prompt's name
    is its file's, as it is."""
    home, project = tmp_path / "home", tmp_path / "project"
    commands = project / ".gemini" / "commands"
    write(commands / "broken.toml", 'description = "Broken\nprompt = "x"\n')
    write(commands / "noprompt.toml", 'description = "d"\n')
    write(commands / "listed.toml", 'prompt = ["a"]\n')
    write(commands / "git stuff" / "commit é.toml", 'prompt = "commit"\n')
    write(home / ".codex" / "prompts" / "my draft.md", "Draft\n")
    report = audit(home, project, ["codex", "gemini-cli"])
    listed = found(report, "gemini-cli", "command")
    assert listed["git_stuff:commit__"] == ("project", None)
    assert "not valid TOML: " in str(listed["broken"][1])
    for name in ("noprompt", "listed"):
        assert listed[name][1] == "the file gives no 'prompt' text; Gemini CLI does not load it"
    assert found(report, "codex", "command") == {"prompts:my draft": ("user", None)}


def test_gemini_cli_names_a_command_over_utf_16_units(tmp_path: Path) -> None:
    """Gemini CLI 0.61 makes ``_`` each UTF-16 unit outside ``[a-zA-Z0-9_.-]``: an emoji is
    two (``🚀ops/deploy.toml`` is ``/__ops:deploy``; it was ``_ops:deploy``), and its cut to 47
    counts them."""
    home, project = tmp_path / "home", tmp_path / "project"
    commands = project / ".gemini" / "commands"
    write(commands / "\U0001f680ops" / "deploy.toml", 'prompt = "go"\n')
    write(commands / ("\U0001f680" * 26 + ".toml"), 'prompt = "go"\n')
    listed = found(audit(home, project, ["gemini-cli"]), "gemini-cli", "command")
    assert set(listed) == {"__ops:deploy", "_" * 47 + "..."}


def test_gemini_cli_reads_a_command_file_as_toml_0_5(tmp_path: Path) -> None:
    """Gemini CLI 0.61's TOML reader (@iarna/toml, TOML 0.5) refuses an array mixing types, a
    date-time with a lowercase ``t`` or ``z`` and quotes right after a multi-line string's
    closing ones, and takes a control character in a comment (tomllib, TOML 1.0, does the
    opposite of each)."""
    home, project = tmp_path / "home", tmp_path / "project"
    commands = project / ".gemini" / "commands"
    write(commands / "mixed.toml", 'prompt = "x"\nargs = [1, "a"]\n')
    write(commands / "numbers.toml", 'prompt = "x"\nargs = [[1], [1.5, nan]]\n')
    write(commands / "lower.toml", 'prompt = "x"\nwhen = 1979-05-27t07:32:00z\n')
    write(commands / "quotes.toml", 'prompt = """x""""\n')
    write(commands / "comment.toml", 'prompt = "x" # a\x01b\n')
    write(commands / "fine.toml", 'prompt = """a "q" # not a comment"""\nd = "1979-05-27t07:32"\n')
    listed = found(audit(home, project, ["gemini-cli"]), "gemini-cli", "command")
    assert listed["comment"] == ("project", None)
    assert listed["fine"] == ("project", None)
    assert "types integer and string" in str(listed["mixed"][1])
    assert "types float and number" in str(listed["numbers"][1])
    assert "lowercase 't' or 'z'" in str(listed["lower"][1])
    assert "right after the closing" in str(listed["quotes"][1])
    for name in ("mixed", "numbers", "lower", "quotes"):
        assert str(listed[name][1]).startswith("the file is not valid TOML: ")


def test_a_command_file_nested_deeper_than_tomllib_reads_is_read_whole(
    tmp_path: Path,
) -> None:
    """An array nested 3000 deep stopped the audit with a RecursionError; Gemini CLI's reader
    reads it, so the command is listed as loaded, and one never closed, without a prompt or
    whose prompt is a number is a decoy (any deep file was listed as loaded)."""
    home, project = tmp_path / "home", tmp_path / "project"
    commands = project / ".gemini" / "commands"
    deep = "[" * 3000 + "]" * 3000
    write(commands / "deep.toml", f'prompt = "x"\na = {deep}\n')
    write(commands / "open.toml", f'prompt = "x"\na = {"[" * 3000}\n')
    write(commands / "noprompt.toml", f"a = {deep}\n")
    write(commands / "number.toml", f"prompt = 1\na = {deep}\n")
    listed = found(audit(home, project, ["gemini-cli"]), "gemini-cli", "command")
    assert listed["deep"] == ("project", None)
    assert str(listed["open"][1]).startswith("the file is not valid TOML: ")
    for name in ("noprompt", "number"):
        assert listed[name][1] == "the file gives no 'prompt' text; Gemini CLI does not load it"


def test_a_command_file_nested_deeper_than_proctor_reads_is_listed_as_loaded_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI's @iarna/toml reads arrays any depth (10,000,000 measured); past the depth
    proctor reads (``MAX_DEPTH``, lowered here) the command was a decoy Gemini CLI "does not
    load". It is listed as loaded, and a note says its prompt was not checked."""
    from proctor.addons.audit import toml_05

    monkeypatch.setattr(toml_05, "MAX_DEPTH", 2000)
    home, project = tmp_path / "home", tmp_path / "project"
    path = write(
        project / ".gemini" / "commands" / "deep.toml",
        f'prompt = "x"\na = {"[" * 3000}{"]" * 3000}\n',
    )
    report = audit(home, project, ["gemini-cli"])
    assert found(report, "gemini-cli", "command")["deep"] == ("project", None)
    gemini = report.for_agent("gemini-cli")
    assert gemini is not None and gemini.notes == [
        f"{path}: arrays or inline tables nested 3,000 deep, deeper than 2,000; proctor does "
        "not read it, so it is listed as loaded, its prompt not checked"
    ]


def test_a_deep_command_file_is_measured_by_its_depth_and_leaves_the_limit_as_it_was() -> None:
    """Many shallow arrays beside one deep one: read by its depth (1,201), not refused for
    the count of its brackets; the recursion limit is the same after, even with several
    threads reading deep files at once."""
    import sys
    import threading

    from proctor.addons.audit.toml_05 import loads

    shallow = ",".join(["[]"] * 120_000)
    text = f'prompt = "x"\nx = [{shallow}]\na = {"[" * 1200}{"]" * 1200}\n'
    assert loads(text)["prompt"] == "x"
    before = sys.getrecursionlimit()
    deep = f'prompt = "x"\na = {"[" * 20_000}{"]" * 20_000}\n'
    threads = [threading.Thread(target=loads, args=(deep,)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sys.getrecursionlimit() == before


def test_a_command_file_is_read_as_gemini_cli_reads_it_a_lone_cr_and_bytes_not_utf_8(
    tmp_path: Path,
) -> None:
    """Gemini CLI reads a command file's text as written (a lone CR is no line break) and a
    byte that is not UTF-8 as U+FFFD; the audit read a CR as a line break and called a file
    not UTF-8 unreadable, a decoy without a prompt."""
    home, project = tmp_path / "home", tmp_path / "project"
    commands = project / ".gemini" / "commands"
    commands.mkdir(parents=True)
    (commands / "comment.toml").write_bytes(b'prompt = "x" # a\rb\n')
    (commands / "lines.toml").write_bytes(b'prompt = "x"\rdescription = "y"\r')
    (commands / "string.toml").write_bytes(b'prompt = "a\rb"\n')
    (commands / "latin.toml").write_bytes(b'prompt = "caf\xe9"\n')
    report = audit(home, project, ["gemini-cli"])
    listed = found(report, "gemini-cli", "command")
    assert listed["comment"] == ("project", None)
    assert listed["latin"] == ("project", None)
    assert str(listed["lines"][1]).startswith("the file is not valid TOML: ")
    assert "Illegal character '\\r'" in str(listed["string"][1])
    assert not report.for_agent("gemini-cli").problems


def test_a_local_date_or_time_where_gemini_cli_s_toml_reader_stops(tmp_path: Path) -> None:
    """@iarna/toml refuses a local date or time right before ``}``, ``]`` or ``,`` and a line
    right after a local time ``HH:MM:SS``; tomllib reads them, and they were listed loaded."""
    home, project = tmp_path / "home", tmp_path / "project"
    commands = project / ".gemini" / "commands"
    write(commands / "time.toml", 'prompt = "x"\nt = {a = 07:32:00}\n')
    write(commands / "date.toml", 'prompt = "x"\nt = {d = 1979-05-27}\n')
    write(commands / "dates.toml", 'prompt = "x"\na = [1979-05-27, 1979-05-28 ]\n')
    write(commands / "line.toml", 'time = 07:32:00\nprompt = "x"\n')
    write(commands / "fine.toml", 'prompt = "x"\nt = 07:32:00\n# c\nz = [1979-05-27T07:32:00Z]\n')
    listed = found(audit(home, project, ["gemini-cli"]), "gemini-cli", "command")
    assert listed["fine"] == ("project", None)
    for name in ("time", "date", "dates"):
        assert "a local date or time right before" in str(listed[name][1])
    assert "a line right after a local time" in str(listed["line"][1])
