"""The user's own credentials: found where each CLI keeps them, lent per trial, masked."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from proctor.agents.credentials import (
    KINDS,
    LentFile,
    find,
    give_back,
    install,
    lends,
    problem,
)
from proctor.errors import WorkspaceError
from proctor.models.config import AgentProfile
from proctor.util.masking import mask

FORWARD = AgentProfile()
NONE = AgentProfile(credentials="none")


def login(folder: Path, name: str, document: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(document))
    return path


def test_keys_and_login_files_of_each_agent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    login(home / ".codex", "auth.json", {"tokens": {"access_token": "codex-access-123456"}})
    login(home / ".gemini", "oauth_creds.json", {"refresh_token": "gemini-refresh-123456"})
    env = {"HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-123456", "OPENAI_API_KEY": ""}
    claude = find("claude-code", env)
    assert (claude.keys, claude.files) == ({"ANTHROPIC_API_KEY": "sk-ant-123456"}, [])
    codex = find("codex", env)
    assert (codex.keys, codex.files) == ({}, [home / ".codex" / "auth.json"])  # empty key: none
    assert find("gemini-cli", env).files == [home / ".gemini" / "oauth_creds.json"]
    assert find("scripted", env).empty


def test_a_key_goes_where_the_user_sends_it(tmp_path: Path) -> None:
    """A gateway's base URL is lent with the key it is for: the key never goes to the
    provider's own host instead (the variable is deny-listed, as every ANTHROPIC_ one is)."""
    env = {
        "HOME": str(tmp_path),
        "ANTHROPIC_API_KEY": "sk-gateway-123456",
        "ANTHROPIC_BASE_URL": "https://gateway.example/anthropic",
        "OPENAI_BASE_URL": "https://gateway.example/openai",  # no OpenAI key: not lent
    }
    claude = find("claude-code", env)
    assert claude.routes == {"ANTHROPIC_BASE_URL": "https://gateway.example/anthropic"}
    assert find("codex", env).routes == {}
    assert find("claude-code", {**env, "ANTHROPIC_API_KEY": ""}).routes == {}


def test_a_moved_config_folder_is_where_the_login_is(tmp_path: Path) -> None:
    moved = tmp_path / "claude-config"
    login(moved, ".credentials.json", {"claudeAiOauth": {"accessToken": "x" * 20}})
    env = {"HOME": str(tmp_path / "nobody"), "CLAUDE_CONFIG_DIR": str(moved)}
    assert find("claude-code", env).files == [moved / ".credentials.json"]
    assert problem("claude-code", FORWARD, env) is None


def test_no_key_and_no_login_is_one_sentence_with_the_fix(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    sentence = problem("codex", FORWARD, env)
    assert sentence is not None
    assert sentence.startswith("agent 'codex' cannot authenticate: no OPENAI_API_KEY or")
    assert "codex login" in sentence and "--model scripted" in sentence
    assert problem("scripted", FORWARD, env) is None


def test_a_key_variable_set_but_empty_is_named_so(tmp_path: Path) -> None:
    """``ANTHROPIC_API_KEY=`` exported empty reads as a key set: the sentence says it is empty."""
    env = {"HOME": str(tmp_path), "ANTHROPIC_API_KEY": ""}
    sentence = problem("claude-code", FORWARD, env, tmp_path)
    assert sentence is not None
    assert "in the environment (ANTHROPIC_API_KEY set but empty) and no login in" in sentence
    assert "set but empty" not in (problem("codex", FORWARD, env, tmp_path) or "")


def test_a_key_only_in_dotenv_is_said_to_be_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """proctor's own roles take a key from ./.env and an agent does not: the sentence said only
    "no ANTHROPIC_API_KEY in the environment" to a user whose .env held it."""
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-dotenv-123456\n")
    monkeypatch.chdir(tmp_path)
    sentence = problem("claude-code", FORWARD, {"HOME": str(tmp_path / "home")})
    assert sentence is not None and sentence.endswith(
        "; ANTHROPIC_API_KEY is in ./.env, which proctor reads for its own model roles only: "
        "an agent is lent what the environment holds, so export it"
    )
    assert "sk-ant-dotenv" not in sentence
    assert problem("codex", FORWARD, {"HOME": str(tmp_path / "home")}) == (
        f"agent 'codex' cannot authenticate: no OPENAI_API_KEY or CODEX_API_KEY in the "
        f"environment and no login in {tmp_path / 'home' / '.codex'} (set OPENAI_API_KEY, or "
        "log in once with `codex login`; or run with --model scripted)"
    )


def test_credentials_none_needs_a_forwarded_key(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "GEMINI_API_KEY": "AIza-123456"}
    login(tmp_path / ".gemini", "oauth_creds.json", {"access_token": "y" * 20})
    sentence = problem("gemini-cli", NONE, env)
    assert sentence is not None and '"credentials": "none"' in sentence  # the login is not lent
    forwarding = AgentProfile(credentials="none", forward_env=["GEMINI_API_KEY"])
    assert problem("gemini-cli", forwarding, env) is None
    assert not lends(NONE, on_scripted_model=False)
    assert not lends(FORWARD, on_scripted_model=True)
    assert lends(FORWARD, on_scripted_model=False)


def test_install_copies_owner_only_and_masks_every_secret(tmp_path: Path) -> None:
    home = tmp_path / "user"
    login(
        home / ".claude",
        ".credentials.json",
        {"claudeAiOauth": {"accessToken": "sk-ant-oat-secret-1111111", "refreshToken": "rt-secret-2222222222"},
         "scopes": ["user:inference"]},
    )  # fmt: skip
    lent = find(
        "claude-code", {"HOME": str(home), "CLAUDE_CODE_OAUTH_TOKEN": "oauth-env-3333333333"}
    )
    scratch = tmp_path / "scratch"
    install(lent, scratch)
    copy = scratch / ".claude" / ".credentials.json"
    assert copy.read_bytes() == (home / ".claude" / ".credentials.json").read_bytes()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    text = mask(
        "sk-ant-oat-secret-1111111 rt-secret-2222222222 oauth-env-3333333333 user:inference"
    )
    assert "secret" not in text and "oauth-env-3333333333" not in text
    assert "user:inference" in text  # a field that is no secret stays readable


@pytest.mark.parametrize("linked", [".codex", ".codex/auth.json"])
def test_install_never_writes_a_login_through_a_link_out_of_the_scratch_home(
    tmp_path: Path, linked: str
) -> None:
    """A linked folder on the way is refused; a linked login file is replaced by the copy,
    never written through."""
    home = tmp_path / "user"
    login(home / ".codex", "auth.json", {"tokens": {"access_token": "codex-secret-44444444"}})
    scratch, outside = tmp_path / "scratch", tmp_path / "elsewhere"
    outside.mkdir()
    (scratch / linked).parent.mkdir(parents=True)
    (scratch / linked).symlink_to(outside if linked == ".codex" else outside / "auth.json")
    if linked == ".codex":
        with pytest.raises(WorkspaceError, match=f"{scratch / linked} is a link to {outside}"):
            install(find("codex", {"HOME": str(home)}), scratch)
    else:
        install(find("codex", {"HOME": str(home)}), scratch)
        assert not (scratch / linked).is_symlink()
    assert list(outside.iterdir()) == []


def test_a_link_that_stays_in_the_trial_s_scratch_folder_is_lent_through(tmp_path: Path) -> None:
    """The scratch home's folder linked elsewhere in the scratch folder (the workspace), as
    the setup lines may: the login is lent there, as the setup check allows."""
    home = tmp_path / "user"
    login(home / ".codex", "auth.json", {"tokens": {"access_token": "codex-secret-55555555"}})
    scratch = tmp_path / "scratch"
    (scratch / "workspace" / "cfg").mkdir(parents=True)
    (scratch / "home").mkdir()
    (scratch / "home" / ".codex").symlink_to(scratch / "workspace" / "cfg")
    install(find("codex", {"HOME": str(home)}), scratch / "home", within=scratch)
    assert (scratch / "workspace" / "cfg" / "auth.json").is_file()


def test_install_replaces_a_link_inside_the_scratch_home_without_writing_through_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "user"
    login(home / ".codex", "auth.json", {"tokens": {"access_token": "codex-secret-55555555"}})
    scratch = tmp_path / "scratch"
    (scratch / ".codex").mkdir(parents=True)
    (scratch / "other.json").write_text("theirs")
    (scratch / ".codex" / "auth.json").symlink_to(scratch / "other.json")
    install(find("codex", {"HOME": str(home)}), scratch)
    copy = scratch / ".codex" / "auth.json"
    assert not copy.is_symlink() and "codex-secret-55555555" in copy.read_text()
    assert (scratch / "other.json").read_text() == "theirs"


def test_every_real_agent_has_a_kind() -> None:
    assert sorted(KINDS) == ["claude-code", "codex", "gemini-cli"]


def test_a_token_s_type_is_no_secret(tmp_path: Path) -> None:
    home = tmp_path / "user"
    login(
        home / ".gemini",
        "oauth_creds.json",
        {
            "access_token": "ya29.a0-long-access-token-value",
            "token_type": "Bearer",
            "expiry_date": 1,
        },
    )
    install(find("gemini-cli", {"HOME": str(home)}), tmp_path / "scratch")
    assert (
        mask("Authorization: Bearer ya29.a0-long-access-token-value") == "Authorization: Bearer ***"
    )


def lend_codex(
    tmp_path: Path, last_refresh: str = "2026-12-01T08:00:00Z"
) -> tuple[Path, list[LentFile]]:
    user = login(
        tmp_path / "user" / ".codex",
        "auth.json",
        {"tokens": {"refresh_token": "codex-refresh-old-0001"}, "last_refresh": last_refresh},
    )
    user.chmod(0o600)
    lent = install(find("codex", {"HOME": str(tmp_path / "user")}), tmp_path / "scratch")
    return user, lent


def renew(copy: Path, token: str, last_refresh: str) -> None:
    copy.write_text(json.dumps({"tokens": {"refresh_token": token}, "last_refresh": last_refresh}))


def test_a_login_the_agent_renewed_goes_back_to_the_user(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    assert give_back(lent, tmp_path / "lock") == []  # nothing renewed: nothing written
    renew(lent[0].copy, "codex-refresh-new-0002", "2026-12-01T09:00:00Z")
    notes = give_back(lent, tmp_path / "lock")
    assert json.loads(user.read_text())["tokens"]["refresh_token"] == "codex-refresh-new-0002"
    assert stat.S_IMODE(user.stat().st_mode) == 0o600
    assert notes == [f"the agent renewed its login: {user} holds the new one"]
    assert mask("codex-refresh-new-0002") == "***"  # the new token is masked too
    assert [p.name for p in user.parent.iterdir()] == ["auth.json"]  # no temporary file left


def test_a_fresher_login_than_another_trial_gave_back_replaces_it(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    renew(user, "codex-refresh-other-0003", "2026-12-01T09:00:00Z")  # another trial, earlier
    renew(lent[0].copy, "codex-refresh-new-0004", "2026-12-01T10:00:00Z")
    give_back(lent, tmp_path / "lock")
    assert json.loads(user.read_text())["tokens"]["refresh_token"] == "codex-refresh-new-0004"


def test_control_a_newer_login_of_the_user_is_never_replaced(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    renew(user, "codex-refresh-relogin-0005", "2026-12-01T11:00:00Z")  # `codex login` meanwhile
    renew(lent[0].copy, "codex-refresh-new-0006", "2026-12-01T10:00:00Z")
    notes = give_back(lent, tmp_path / "lock")
    assert json.loads(user.read_text())["tokens"]["refresh_token"] == "codex-refresh-relogin-0005"
    assert "left as it is" in notes[0]


def test_a_half_written_copy_is_not_given_back(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    before = user.read_bytes()
    lent[0].copy.write_text('{"tokens": {"refresh_')
    assert give_back(lent, tmp_path / "lock") == []
    assert user.read_bytes() == before


def test_claude_and_gemini_logins_are_dated_by_their_expiry(tmp_path: Path) -> None:
    from proctor.agents.credentials import _fresher

    old = json.dumps({"claudeAiOauth": {"accessToken": "a" * 20, "expiresAt": 1000}}).encode()
    new = json.dumps({"claudeAiOauth": {"accessToken": "b" * 20, "expiresAt": 2000}}).encode()
    assert _fresher(new, old) and not _fresher(old, new)
    g_old = json.dumps({"access_token": "c" * 20, "expiry_date": 1000}).encode()
    g_new = json.dumps({"access_token": "d" * 20, "expiry_date": 2000}).encode()
    assert _fresher(g_new, g_old) and not _fresher(g_old, g_new)


def test_a_login_kept_behind_a_symlink_is_renewed_where_the_link_points(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    dotfiles = tmp_path / "dotfiles" / "auth.json"
    dotfiles.parent.mkdir()
    user.rename(dotfiles)
    user.symlink_to(dotfiles)
    renew(lent[0].copy, "codex-refresh-new-0007", "2026-12-01T09:00:00Z")
    give_back(lent, tmp_path / "lock")
    assert user.is_symlink()  # the user's link stays a link...
    assert json.loads(dotfiles.read_text())["tokens"]["refresh_token"] == "codex-refresh-new-0007"


def test_a_login_the_user_removed_meanwhile_is_not_brought_back(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    user.unlink()  # `codex logout` while the trial ran
    renew(lent[0].copy, "codex-refresh-new-0008", "2026-12-01T09:00:00Z")
    notes = give_back(lent, tmp_path / "lock")
    assert not user.exists()
    assert "was not updated" in notes[0]


def test_the_key_fragment_claude_code_approves_is_in_its_seed_and_masked_elsewhere(
    tmp_path: Path,
) -> None:
    from proctor.agents.claude_code.adapter import seed_home

    key = "sk-ant-api03-SEEDfragmentTEST-9876543210abcdefXYZ"
    seed_home(tmp_path / "home", tmp_path / "home" / ".claude", tmp_path / "ws", key)
    state = json.loads((tmp_path / "home" / ".claude.json").read_text())
    assert state["customApiKeyResponses"]["approved"] == [key[-20:]]  # as Claude Code reads it
    assert mask(f"approved: {key[-20:]}") == "approved: ***"  # masked where it shows up


def test_user_keys_of_the_environment_and_dotenv_are_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.agents.credentials import register_user_keys

    monkeypatch.setenv("GEMINI_API_KEY", "AIzaREGISTEREDenvKEY1234")
    (tmp_path / ".env").write_text("CODEX_API_KEY=sk-REGISTEREDdotenv-5678\nOTHER=plain-value-9\n")
    register_user_keys(tmp_path)
    assert mask("AIzaREGISTEREDenvKEY1234 sk-REGISTEREDdotenv-5678 plain-value-9") == (
        "*** *** plain-value-9"
    )


def test_forwarded_keys_are_masked_and_forwarded_settings_are_not() -> None:
    """``forwardEnv`` also passes a provider's settings the deny-list's prefixes hold back:
    masked, the model a trial ran would read ``***`` in every record and table."""
    from proctor.agents.credentials import register_given_secrets

    environ = {
        "MY_SERVICE_TOKEN": "svc-planted-1",
        "AWS_BEARER_TOKEN_BEDROCK": "bedrock-planted-2",
        "ANTHROPIC_CUSTOM_HEADERS": "X-Key: headers-planted-3",
        "ANTHROPIC_MODEL": "claude-opus-4-8",
        "AWS_REGION": "us-east-1",
        "ANTHROPIC_BASE_URL": "https://me:base-planted-4@gw.example.com",
    }
    given = {"DEPLOY_TOKEN": "deploy-planted-5", "DB": "postgres://a:db-planted-6@h", "N": "7-kept"}
    register_given_secrets(environ, given, environ)
    shown = " ".join([*environ.values(), *given.values()])
    assert mask(shown) == (
        "*** *** *** claude-opus-4-8 us-east-1 https://me:***@gw.example.com *** "
        "postgres://a:***@h 7-kept"
    )


def test_a_copy_the_agent_rewrote_as_other_json_is_not_given_back(tmp_path: Path) -> None:
    """Only a renewal goes back: a JSON object without the login's fields would replace the
    user's login with the agent's text."""
    user, lent = lend_codex(tmp_path)
    before = user.read_bytes()
    lent[0].copy.write_text(json.dumps({"note": "written by the agent"}))
    notes = give_back(lent, tmp_path / "lock")
    assert user.read_bytes() == before
    assert notes == [
        f"the trial's copy of {user} changed but is no renewal of the login lent (it lacks "
        f"'tokens', 'last_refresh'): {user} was left as it is"
    ]


def test_a_copy_the_agent_replaced_with_a_link_is_not_read(tmp_path: Path) -> None:
    user, lent = lend_codex(tmp_path)
    before = user.read_bytes()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(
        json.dumps({"tokens": {"refresh_token": "not-a-renewal-0009"}, "last_refresh": "2027"})
    )
    lent[0].copy.unlink()
    lent[0].copy.symlink_to(elsewhere)
    assert give_back(lent, tmp_path / "lock") == []
    assert user.read_bytes() == before
