from pathlib import Path

from proctor.workspace.environment import agent_environment


def test_deny_list_removes_provider_and_harness_variables(tmp_path: Path) -> None:
    parent = {
        "PATH": "/usr/bin",
        "ANTHROPIC_API_KEY": "sk-ant-secret",
        "OPENAI_API_KEY": "sk-secret",
        "GEMINI_API_KEY": "g",
        "GOOGLE_CLOUD_PROJECT": "p",
        "PROCTOR_OPENAI_KEY": "k",
        "HOME": "/root",
        "XDG_CONFIG_HOME": "/root/.config",
        "KEEP_ME": "1",
    }
    env = agent_environment(parent, home=tmp_path, forward=["OPENAI_API_KEY"])
    assert env["OPENAI_API_KEY"] == "sk-secret"
    for name in (
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_CLOUD_PROJECT",
        "PROCTOR_OPENAI_KEY",
    ):
        assert name not in env
    assert env["HOME"] == str(tmp_path)
    assert env["XDG_CONFIG_HOME"].startswith(str(tmp_path))
    assert env["KEEP_ME"] == "1"


def test_control_without_forwarding_the_key_is_removed(tmp_path: Path) -> None:
    env = agent_environment({"OPENAI_API_KEY": "sk"}, home=tmp_path)
    assert "OPENAI_API_KEY" not in env
