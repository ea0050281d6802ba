from pathlib import Path

import pytest
from pydantic import ValidationError

from proctor.agents.provisioning import materialise_addon, mcp_server_config
from proctor.errors import WorkspaceError
from proctor.models.config import AddonEntry, McpEntry, Provision, ProvisionEntry


def test_headers_are_kept_for_url_servers_under_the_clis_key() -> None:
    entry = McpEntry.model_validate({"name": "r", "url": "https://x/mcp", "headers": {"A": "b"}})
    assert mcp_server_config(entry) == {
        "type": "http",
        "url": "https://x/mcp",
        "headers": {"A": "b"},
    }
    assert mcp_server_config(entry, "http_headers")["http_headers"] == {"A": "b"}


def test_stdio_servers_keep_args_and_env_as_given() -> None:
    entry = McpEntry.model_validate(
        {"name": "s", "command": "python", "args": ["server.py"], "env": {"A": "1"}}
    )
    assert mcp_server_config(entry) == {
        "command": "python",
        "args": ["server.py"],
        "env": {"A": "1"},
    }


@pytest.mark.parametrize("name", ["/tmp/x/victim", "../..", "..", "a/b", "", ".hidden"])
def test_unsafe_names_are_refused_by_the_model(name: str) -> None:
    with pytest.raises(ValidationError, match="names the add-on's folder"):
        Provision.model_validate({"skills": [{"name": name, "path": "s"}]})


@pytest.mark.parametrize("name", ["/elsewhere/victim", "..", "a/b"])
def test_materialise_refuses_a_dest_outside_its_root(tmp_path: Path, name: str) -> None:
    """Defence in depth: an entry built without validation still cannot reach rmtree."""
    (tmp_path / "src").mkdir()
    root = tmp_path / "home" / "skills"
    (root / "keep").mkdir(parents=True)
    entry = AddonEntry.model_construct(name=name)
    entry.__pydantic_extra__ = {"path": str(tmp_path / "src")}
    with pytest.raises(WorkspaceError, match="field 'name' must name one folder inside"):
        materialise_addon(entry, None, "skills", root / name)
    assert (root / "keep").is_dir() and (tmp_path / "home").is_dir()


def test_materialise_refuses_a_symlinked_dest(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "victim").mkdir()
    root = tmp_path / "skills"
    root.mkdir()
    (root / "s").symlink_to(tmp_path / "victim")
    entry = ProvisionEntry.model_validate({"name": "s", "path": str(tmp_path / "src")})
    with pytest.raises(WorkspaceError):
        materialise_addon(entry, None, "skills", root / "s")
    assert (tmp_path / "victim").is_dir()


def test_a_good_add_on_is_copied(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "SKILL.md").write_text("x")
    entry = AddonEntry.model_validate({"name": "s", "path": str(tmp_path / "src")})
    dest = materialise_addon(entry, None, "skills", tmp_path / "skills" / "s")
    assert (dest / "SKILL.md").read_text() == "x"


def test_the_credentials_an_mcp_server_is_handed_are_masked() -> None:
    """An MCP server's configuration reaches the agent in the clear (an agent may read it, or
    list its processes): its credentials are registered, its other settings are not."""
    from proctor.agents.acp.adapter import acp_mcp_server
    from proctor.models.config import McpEntry
    from proctor.util.masking import mask

    stdio = McpEntry(
        name="svc",
        command="python3",
        args=["server.py", "--api-token", "argTOKEN-planted-1", "--db=postgres://u:pwPLANTED2@db"],
        env={"SVC_API_TOKEN": "envTOKEN-planted-3", "SVC_REGION": "region-kept-4"},
    )
    remote = McpEntry(
        name="remote",
        url="https://mcp.example.com/x?key=queryKEY-planted-5",
        headers={"Authorization": "Bearer hdrTOKEN-planted-6", "X-Plain": "plain-kept-7"},
    )
    mcp_server_config(stdio)
    mcp_server_config(remote)
    shown = (
        "argTOKEN-planted-1 pwPLANTED2 envTOKEN-planted-3 region-kept-4 queryKEY-planted-5 "
        "hdrTOKEN-planted-6 plain-kept-7"
    )
    assert mask(shown) == "*** *** *** region-kept-4 *** *** plain-kept-7"
    acp = McpEntry(name="a", url="http://h/mcp", headers={"X-Api-Key": "acpKEY-planted-8"})
    acp_mcp_server(acp)
    assert mask("acpKEY-planted-8") == "***"
