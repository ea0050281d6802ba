"""Role references keep where they were chosen, so a missing key names the file (or flag) to
fix, whichever layer won."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.llm.roles import build_roles, role_refs
from proctor.models.config import TopConfig


def _key_error(layers: list[tuple[str, dict[str, str]]]) -> str:
    refs = role_refs(layers)
    with pytest.raises(ConfigError) as caught:
        build_roles(refs, dict(refs), {}, {})
    return str(caught.value)


@pytest.mark.parametrize(
    ("layers", "where"),
    [
        (
            [("proctor.json", {"judge": "anthropic/claude-x"})],
            "proctor.json: field 'models.judge'",
        ),
        (
            [
                ("proctor.json", {"judge": "openai/gpt-x"}),
                ("cases/a/config.json", {"judge": "anthropic/claude-x"}),
            ],
            "cases/a/config.json: field 'models.judge'",
        ),
        (
            [
                ("cases/a/config.json", {"judge": "openai/gpt-x"}),
                ("--<role>-model", {"judge": "anthropic/claude-x"}),
            ],
            "--judge-model",
        ),
        (
            [("proctor.json", {"workhorse": "anthropic/claude-x"})],
            "proctor.json: field 'models.workhorse'",
        ),
    ],
)
def test_a_role_without_a_key_names_where_its_model_was_chosen(
    layers: list[tuple[str, dict[str, str]]], where: str
) -> None:
    message = _key_error(layers)
    assert message.startswith(f"{where}: the ")
    assert "role (anthropic/claude-x) needs a key: set PROCTOR_ANTHROPIC_KEY" in message
    assert "\n" not in message


def test_a_bad_flag_value_is_named_as_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"^--fast-model: expected 'provider/model'"):
        role_refs([("--<role>-model", {"fast": "claude"})])


def test_a_bad_role_in_a_file_is_named_by_its_field() -> None:
    """The field as a JSON path, what was expected and the value given."""
    config = TopConfig.model_validate(
        {"models": {"fast": {"model": "openai"}, "judge": "nope", "jduge": "openai/x"}}
    )
    with pytest.raises(ConfigError) as caught:
        role_refs([("config.json", {"judge": config.models["judge"]})])
    assert str(caught.value) == (
        "config.json: field 'models.judge': expected 'provider/model' (e.g. "
        'anthropic/claude-x), got "nope"'
    )
    with pytest.raises(ConfigError) as caught:
        role_refs([("config.json", {"fast": config.models["fast"]})])
    assert str(caught.value).startswith(
        "config.json: field 'models.fast.model': expected 'provider/model'"
    )
    with pytest.raises(ConfigError) as caught:
        role_refs([("config.json", {"jduge": config.models["jduge"]})])
    assert str(caught.value) == (
        "config.json: field 'models': unknown role 'jduge' (did you mean 'judge'? known: "
        "fast, workhorse, judge)"
    )


def test_where_a_reference_was_chosen_is_not_part_of_its_identity() -> None:
    refs = role_refs([("a.json", {"fast": "openai/x"}), ("--<role>-model", {"judge": "openai/x"})])
    assert refs["fast"] == refs["judge"] and str(refs["judge"]) == "openai/x"
    assert len({refs["fast"], refs["judge"]}) == 1


@pytest.mark.parametrize(
    ("env", "dotenv", "said"),
    [
        (
            {"ANTHROPIC_API_KEY": "sk-ant-abcdef123456\n"},
            {},
            "ANTHROPIC_API_KEY (in the environment)",
        ),
        (
            {},
            {"PROCTOR_ANTHROPIC_KEY": "sk-ant-abc def123456"},
            "PROCTOR_ANTHROPIC_KEY (in ./.env)",
        ),
    ],
)
def test_a_key_with_whitespace_in_it_stops_the_run_naming_its_variable(
    env: dict[str, str], dotenv: dict[str, str], said: str
) -> None:
    """Sent as it is, every call failed as a "network error" (an illegal header) after the
    run had started; the message never shows the key."""
    refs = role_refs([("proctor.json", {"judge": "anthropic/claude-x"})])
    with pytest.raises(ConfigError) as caught:
        build_roles(refs, dict(refs), env, dotenv)
    message = str(caught.value)
    assert message.startswith(said + ": the key has whitespace or control characters")
    assert "abc" not in message


def test_control_a_clean_key_is_taken() -> None:
    refs = role_refs([("proctor.json", {"judge": "anthropic/claude-x"})])
    roles = build_roles(refs, dict(refs), {"ANTHROPIC_API_KEY": "sk-ant-abcdef123456"}, {})
    assert roles.keys == {"anthropic": "sk-ant-abcdef123456"}


def test_the_roles_deadline_reaches_every_client_and_is_lifted_after() -> None:
    """While an agent runs its roles' calls end with the trial's time; the judge's after it
    are not bound by it."""
    from proctor.llm.refs import ModelRef
    from proctor.llm.roles import RoleSet

    roles = RoleSet(refs={"workhorse": ModelRef("openai", "m")}, keys={"openai": "sk-abcdef"})
    roles.deadline = 123.0
    assert roles.client("workhorse").deadline == 123.0
    roles.deadline = None
    assert roles.client("workhorse").deadline is None
    assert roles.client("judge", ModelRef("openai", "j")).deadline is None


def _open_connections(server: Any, expected: int) -> int:
    """The server's open connections, once they are ``expected`` (or after 5 s)."""
    deadline = time.monotonic() + 5
    while True:
        with server._httpd._lock:
            count = len(server._httpd._connections)
        if count == expected or time.monotonic() > deadline:
            return count
        time.sleep(0.02)


def test_the_roles_give_their_connections_back_when_they_are_done() -> None:
    """A client dropped for a new server's URL, and every client once the trial is over, is
    closed: its connection was left to the garbage collector, open until it came (in a trial's
    worker, and in the process of an evaluation outside a run)."""
    from proctor.llm.refs import ModelRef
    from proctor.llm.roles import RoleSet
    from proctor.scripted.server import ScriptedModelServer

    with ScriptedModelServer({"turns": []}) as server:
        roles = RoleSet(refs={"judge": ModelRef("scripted", "judge")})
        roles.set_url("scripted", server.base_url)
        roles.client("judge").complete("s", "u", max_tokens=16)
        first = roles.client("judge").provider.client
        assert _open_connections(server, 1) == 1
        roles.set_url("scripted", server.base_url)  # (the next trial's server, in a worker)
        assert first.is_closed()
        assert _open_connections(server, 0) == 0
        roles.client("judge").complete("s", "u", max_tokens=16)
        assert _open_connections(server, 1) == 1
        roles.close()
        assert roles.client("judge").provider.client.is_closed()
        assert _open_connections(server, 0) == 0
        assert len(roles.calls()) == 1, "the records of the calls made stay"


def test_a_key_from_another_folder_s_env_is_said_to_be_there(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume reads the ``.env`` of the folder its run was started in: a message about a key
    found there, or missing, names that file, not ``./.env`` (the current folder's)."""
    from proctor.llm.secrets import key_source, load_dotenv

    started, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    started.mkdir()
    elsewhere.mkdir()
    (started / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-abcdef123456\n")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("PROCTOR_ANTHROPIC_KEY", raising=False)
    monkeypatch.chdir(elsewhere)
    there = load_dotenv(started)
    assert key_source("anthropic", {}, there) == (
        f"ANTHROPIC_API_KEY (in {started / '.env'}: sk-…, 19 characters)"
    )
    refs = role_refs([("proctor.json", {"judge": "anthropic/claude-x"})])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=re.escape(f"in the environment or in {empty}/.env)")):
        build_roles(refs, dict(refs), {}, load_dotenv(empty))
    monkeypatch.chdir(started)
    assert "(in ./.env: sk-…" in key_source("anthropic", {}, load_dotenv(started))
    monkeypatch.chdir(empty)
    with pytest.raises(ConfigError, match=r"in the environment or in \./\.env\)"):
        build_roles(refs, dict(refs), {}, load_dotenv())


def test_a_key_variable_set_but_empty_is_named_so(tmp_path: Any) -> None:
    """An unfilled ``ANTHROPIC_API_KEY=`` line reads as a key set; the sentence says it is
    empty, and where, so the user does not look for the key elsewhere."""
    from proctor.llm.secrets import load_dotenv

    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=\n")
    refs = role_refs([("proctor.json", {"judge": "anthropic/claude-x"})])
    with pytest.raises(ConfigError) as raised:
        build_roles(refs, dict(refs), {"PROCTOR_ANTHROPIC_KEY": ""}, load_dotenv(tmp_path))
    assert str(raised.value).endswith(
        "; PROCTOR_ANTHROPIC_KEY is set but empty in the environment, and ANTHROPIC_API_KEY is "
        f"set but empty in {tmp_path / '.env'}"
    )
    with pytest.raises(ConfigError) as unset:
        build_roles(refs, dict(refs), {}, {})
    assert "empty" not in str(unset.value)


def test_a_key_without_a_public_prefix_shows_none_of_its_characters() -> None:
    """A message naming where a key came from may be kept in a trial's record: it shows a
    maker's public prefix (``sk-``) and the length, never a character of a key of
    another shape (a gateway's own)."""
    from proctor.llm.secrets import key_source

    own = "gw9Xq2LmZr7TpK4vNs8e"
    said = key_source("openai", {"OPENAI_API_KEY": own}, {})
    assert said == f"OPENAI_API_KEY (in the environment: {len(own)} characters)"
    assert own[:3] not in said
    theirs = "sk-proj-0123456789abcdefghij"
    assert key_source("openai", {"OPENAI_API_KEY": theirs}, {}) == (
        f"OPENAI_API_KEY (in the environment: sk-…, {len(theirs)} characters)"
    )
