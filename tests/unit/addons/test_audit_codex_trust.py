"""Codex's project ``.codex/config.toml`` files and the trust levels that let them load (as
``codex mcp list`` 0.171 showed them: only a trusted folder's, a nearer folder's server
replacing one of the same name)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from proctor.addons.audit import audit_agent

SERVER = '[mcp_servers.{name}]\ncommand = "echo"\nargs = ["{said}"]\n'


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def trusting(home: Path, **levels: str) -> Path:
    """The user's config.toml with a server ``shared`` and ``levels`` (folder → level)."""
    config = home / ".codex" / "config.toml"
    text = SERVER.format(name="shared", said="user")
    for folder, level in levels.items():
        text += f'[projects."{home / folder}"]\ntrust_level = "{level}"\n'
    write(config, text)
    return config


def servers(home: Path, project: Path) -> dict[tuple[str, str], str | None]:
    result = audit_agent("codex", home, project)
    assert result.problems == []
    return {
        (c.name, str(Path(c.file).relative_to(home))): c.decoy
        for c in result.components
        if c.kind == "mcp"
    }


def project_config(project: Path) -> None:
    text = SERVER.format(name="local", said="p") + SERVER.format(name="shared", said="p")
    write(project / ".codex" / "config.toml", 'notify = ["echo", "done"]\n' + text)


def test_codex_loads_a_trusted_project_s_config_and_its_server_replaces_the_user_s(
    tmp_path: Path,
) -> None:
    trusting(tmp_path, proj="trusted")
    project = tmp_path / "proj"
    project_config(project)
    ours = project / ".codex" / "config.toml"
    assert servers(tmp_path, project) == {
        ("shared", ".codex/config.toml"): f"shadowed by the server of the same name in {ours}",
        ("local", "proj/.codex/config.toml"): None,
        ("shared", "proj/.codex/config.toml"): None,
    }
    result = audit_agent("codex", tmp_path, project)
    notify = [c for c in result.components if c.kind == "hook"]
    assert [(n.scope, n.decoy) for n in notify] == [
        ("project", "ignored in a project's config.toml")
    ]


def test_codex_skips_the_config_of_an_untrusted_project_or_one_with_no_trust_level(
    tmp_path: Path,
) -> None:
    config = trusting(tmp_path, proj="untrusted")
    project = tmp_path / "proj"
    project_config(project)
    entry = f'[projects."{project}"] trust_level'
    off = f'project not trusted: {entry} = "untrusted" in {config}'
    assert servers(tmp_path, project) == {
        ("shared", ".codex/config.toml"): None,
        ("local", "proj/.codex/config.toml"): off,
        ("shared", "proj/.codex/config.toml"): off,
    }
    trusting(tmp_path, elsewhere="trusted")
    off = f"project not trusted: no {entry} in {config}"
    assert servers(tmp_path, project)[("local", "proj/.codex/config.toml")] == off


def test_codex_reads_each_folder_up_to_the_repository_root_by_its_own_trust_or_the_root_s(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    project = repo / "sub"
    write(repo / ".codex" / "config.toml", SERVER.format(name="root", said="r"))
    write(project / ".codex" / "config.toml", SERVER.format(name="sub", said="s"))
    trusting(tmp_path, repo="trusted")  # the sub-folder goes by its repository root's
    seen = servers(tmp_path, project)
    assert seen[("root", "repo/.codex/config.toml")] is None
    assert seen[("sub", "repo/sub/.codex/config.toml")] is None
    trusting(tmp_path, repo="trusted", **{"repo/sub": "untrusted"})
    seen = servers(tmp_path, project)
    assert seen[("root", "repo/.codex/config.toml")] is None
    assert (seen[("sub", "repo/sub/.codex/config.toml")] or "").startswith("project not trusted")
    config = trusting(tmp_path, repo="untrusted")  # said of the root's entry, which decides
    off = f'project not trusted: [projects."{repo}"] trust_level = "untrusted" in {config}'
    assert servers(tmp_path, project)[("sub", "repo/sub/.codex/config.toml")] == off
    trusting(tmp_path, **{"repo/sub": "trusted"})
    seen = servers(tmp_path, project)
    assert (seen[("root", "repo/.codex/config.toml")] or "").startswith("project not trusted")
    assert seen[("sub", "repo/sub/.codex/config.toml")] is None
    above = [c.above for c in audit_agent("codex", tmp_path, project).components]
    assert above == [None, "../", None]


def test_codex_a_trust_level_it_does_not_know_is_a_problem(tmp_path: Path) -> None:
    config = trusting(tmp_path, proj="yes")
    result = audit_agent("codex", tmp_path, tmp_path / "proj")
    assert result.problems == [
        f"{config}: field 'projects.\"{tmp_path / 'proj'}\".trust_level': expected "
        '"trusted" or "untrusted", got the string "yes"; '
        "Codex refuses to start with this config.toml"
    ]


def test_codex_lays_a_trusted_project_s_server_table_over_the_user_s_field_by_field(
    tmp_path: Path,
) -> None:
    config = trusting(tmp_path, proj="trusted")
    config.write_text(
        config.read_text() + '[mcp_servers.off]\ncommand = "off-cmd"\nenabled = false\n'
    )
    project = tmp_path / "proj"
    text = "[mcp_servers.shared]\nenabled = false\n[mcp_servers.off]\nenabled = true\n"
    write(project / ".codex" / "config.toml", text)
    ours = project / ".codex" / "config.toml"
    result = audit_agent("codex", tmp_path, project)
    assert [(c.name, c.scope, c.command, c.decoy) for c in result.components] == [
        ("shared", "user", "echo user", f"shadowed by the server of the same name in {ours}"),
        ("off", "user", "off-cmd", "disabled (enabled = false)"),
        ("shared", "project", "echo user", "disabled (enabled = false)"),
        ("off", "project", "off-cmd", None),
    ]


def test_a_project_s_codex_hooks_json_loads_by_the_same_trust_as_its_config(
    tmp_path: Path,
) -> None:
    """Codex 0.171's app server (``hooks/list``) lists a folder's ``.codex/hooks.json`` only for
    a folder the user trusts (its own entry, else its repository root's), as for config.toml."""
    repo = tmp_path / "repo"
    write(repo / ".git" / "HEAD", "ref: refs/heads/main\n")  # a repository, as Codex tells one
    project = repo / "sub"
    handler = '{"type": "command", "command": "%s"}'
    for folder, said in ((repo, "root"), (project, "sub")):
        write(
            folder / ".codex" / "hooks.json",
            '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [%s]}]}}' % (handler % said),
        )
    config = trusting(tmp_path, **{"repo/sub": "trusted"})

    def listed() -> dict[str | None, tuple[str | None, str | None]]:
        result = audit_agent("codex", tmp_path, project)
        assert result.problems == []
        return {c.command: (c.above, c.decoy) for c in result.components if c.kind == "hook"}

    root_entry = f'[projects."{repo}"] trust_level'
    assert listed() == {
        "root": ("../", f"project not trusted: no {root_entry} in {config}"),
        "sub": (None, None),
    }
    trusting(tmp_path, repo="trusted")  # the root's entry covers the folder below it too
    assert listed() == {"root": ("../", None), "sub": (None, None)}
    trusting(tmp_path, repo="untrusted")
    said = f'project not trusted: {root_entry} = "untrusted" in {config}'
    assert listed() == {"root": ("../", said), "sub": (None, said)}


def test_codex_takes_an_empty_git_folder_for_a_root_of_agents_md_not_of_its_config(
    tmp_path: Path,
) -> None:
    """Codex 0.171 (measured with ``codex debug prompt-input`` and ``codex mcp list``): an
    empty ``.git`` folder stops the walk for ``AGENTS.md``, yet for the ``config.toml`` it
    layers and trusts it is no repository; a ``.git`` folder with ``HEAD`` or a ``.git`` file
    (a worktree's) is one for both."""
    repo = tmp_path / "repo"
    project = repo / "sub"
    (repo / ".git").mkdir(parents=True)
    write(repo / "AGENTS.md", "rules\n")
    write(repo / ".codex" / "config.toml", SERVER.format(name="root", said="r"))
    trusting(tmp_path, repo="trusted", **{"repo/sub": "trusted"})
    project.mkdir()

    def seen() -> set[tuple[str, str | None]]:
        result = audit_agent("codex", tmp_path, project)
        assert result.problems == []
        return {(c.name, c.above) for c in result.components if c.scope == "project"}

    assert seen() == {("AGENTS.md", "../")}  # the root's config.toml: not layered
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert seen() == {("AGENTS.md", "../"), ("root", "../")}
    (repo / ".git" / "HEAD").unlink()
    (repo / ".git").rmdir()
    (repo / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    assert seen() == {("AGENTS.md", "../"), ("root", "../")}


def test_codex_notes_a_folder_whose_hooks_json_and_config_toml_both_declare_hooks(
    tmp_path: Path,
) -> None:
    """Codex 0.171 loads both and warns (app server ``hooks/list``): "loading hooks from both
    <hooks.json> and <config.toml>; prefer a single representation for this layer"; an event
    with no matcher group declares nothing, and an untrusted folder loads neither."""
    from proctor.addons.audit.render import render_agent

    stop = '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "a"\n'
    start = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "b"}]}]}}'
    config = trusting(tmp_path)
    config.write_text(config.read_text() + stop)
    hooks_json = tmp_path / ".codex" / "hooks.json"
    hooks_json.write_text(start)
    project = tmp_path / "proj"
    write(project / ".codex" / "config.toml", stop)
    write(project / ".codex" / "hooks.json", start)
    result = audit_agent("codex", tmp_path, project)
    said = (
        "{} and {} both declare hooks: Codex loads both and warns "
        '"prefer a single representation for this layer"'
    )
    assert result.notes == [said.format(hooks_json, config)]  # the project is not trusted
    assert result.problems == []
    assert len([c for c in result.components if c.kind == "hook" and c.decoy is None]) == 2
    assert f"  note: {said.format(hooks_json, config)}" in render_agent(result)
    trusting(tmp_path, proj="trusted")
    ours = project / ".codex"
    assert audit_agent("codex", tmp_path, project).notes == [
        said.format(ours / "hooks.json", ours / "config.toml")
    ]
    (ours / "hooks.json").write_text('{"hooks": {"SessionStart": []}}')
    assert audit_agent("codex", tmp_path, project).notes == []
