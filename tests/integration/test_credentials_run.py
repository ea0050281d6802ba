"""The user's own key and login reach the agent of a real-provider trial, and nothing else:
a stand-in Claude Code CLI reports what it was given."""

from __future__ import annotations

import json
import stat
import tempfile
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

KEY = "sk-ant-api03-proctor-test-key-0001"
TOKEN = "sk-ant-oat01-proctor-test-login-0002"

# Says its version; otherwise notes what it was given in $EVIDENCE (outside everything proctor
# writes, so unmasked), prints the key, and fails to log in.
FAKE_CLAUDE = """#!/bin/sh
case "$1" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac
{ echo "key=${ANTHROPIC_API_KEY:-none}"; ls -a "$CLAUDE_CONFIG_DIR"; } > "$EVIDENCE"
echo "the key is $ANTHROPIC_API_KEY"
echo "Not logged in · Please run /login" >&2
exit 1
"""


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with a Claude Code login in their home, and a private temporary folder."""
    home = tmp_path / "user"
    (home / ".claude").mkdir(parents=True)
    login = {"claudeAiOauth": {"accessToken": TOKEN, "refreshToken": TOKEN + "-r"}}
    (home / ".claude" / ".credentials.json").write_text(json.dumps(login))
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("EVIDENCE", str(tmp_path / "seen.txt"))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return home


def profile_config(tmp_path: Path, **profile: object) -> Path:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir(exist_ok=True)
    binary.write_text(FAKE_CLAUDE)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    config = tmp_path / "proctor.json"
    entry = {"binary": str(binary), "mode": "headless", **profile}
    config.write_text(json.dumps({"codingagents": {"claude-code": entry}}))
    return config


def every_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def test_key_and_login_reach_the_agent_only_and_are_masked(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    make_case("a", config={"agents": ["claude-code"], "setup": ["env > setup-env.txt"]})
    result, out = run_cases(proctor, tmp_path, "--config", str(profile_config(tmp_path)))
    assert result.code == 3, result.err  # the stand-in fails: an agent-error
    run_dir = single_run_dir(out)
    trial = load_trial(run_dir, "a", agent="claude-code")
    assert trial["status"] == "agent-error"
    assert trial["reason"].startswith("authentication failed: Not logged in")
    assert "docs/agents.md#credentials" in trial["reason"]
    seen = (tmp_path / "seen.txt").read_text()
    assert f"key={KEY}" in seen  # the agent got the key...
    assert ".credentials.json" in seen.split()  # ...and the login, in its scratch home
    workspace = run_dir / "trials/a/claude-code/default/1/workspace"
    setup_env = (workspace / "setup-env.txt").read_text()
    assert "ANTHROPIC_API_KEY" not in setup_env  # the setup line did not get it
    written = every_text(run_dir)
    assert "the key is ***" in written  # the agent printed it: masked where proctor keeps it
    assert KEY not in written and TOKEN not in written
    assert not list((tmp_path / "tmp").rglob(".credentials.json")), "gone with the scratch home"


def test_credentials_none_lends_nothing_and_says_what_to_do(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    make_case("a", config={"agents": ["claude-code"]})
    config = profile_config(tmp_path, credentials="none")
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 2 and not out.exists()
    assert '"credentials": "none" and forwards none of ANTHROPIC_API_KEY' in result.err
    forwarding = profile_config(tmp_path, credentials="none", forwardEnv=["ANTHROPIC_API_KEY"])
    result, out = run_cases(proctor, tmp_path, "--config", str(forwarding))
    seen = (tmp_path / "seen.txt").read_text()
    assert f"key={KEY}" in seen
    assert ".credentials.json" not in seen.split()  # the login is not lent


def test_no_key_and_no_login_stops_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path
) -> None:
    (user / ".claude" / ".credentials.json").unlink()
    make_case("a", config={"agents": ["claude-code"]})
    result, out = run_cases(proctor, tmp_path, "--config", str(profile_config(tmp_path)))
    assert result.code == 2 and not out.exists()
    assert "agent 'claude-code' cannot authenticate: no ANTHROPIC_API_KEY" in result.err
    assert "/login" in result.err and "--model scripted" in result.err
    control = run_cases(
        proctor, tmp_path, "--config", str(profile_config(tmp_path)), "--model", "scripted"
    )
    assert "cannot authenticate" not in control[0].err  # the scripted model needs no login


def test_a_resume_names_the_dotenv_of_the_folder_its_run_was_started_in(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume reads the roles' keys from the ``.env`` of the folder its run was started in:
    the agent's key found only there is said to be in that file, by its path (the current
    folder's, which the sentence read before, holds none)."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    monkeypatch.chdir(project)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    make_case("a", config={"agents": ["claude-code"]})
    result, out = run_cases(proctor, tmp_path, "--config", str(profile_config(tmp_path)))
    assert result.code == 3, result.err  # the stand-in fails: an agent-error
    run_dir = single_run_dir(out)
    (run_dir / "trials/a/claude-code/default/1/trial.json").unlink()  # as a kill leaves it
    # The key is no longer exported, nor is there a login: only the project's .env holds it.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    (user / ".claude" / ".credentials.json").unlink()
    monkeypatch.chdir(elsewhere)
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2, resumed.err
    assert "agent 'claude-code' cannot authenticate: no ANTHROPIC_API_KEY" in resumed.err
    assert (
        f"; ANTHROPIC_API_KEY is in {project / '.env'}, which proctor reads for its own model "
        "roles only: an agent is lent what the environment holds, so export it"
    ) in resumed.err
    assert KEY not in resumed.err


@pytest.mark.parametrize(
    ("profile", "value", "said"),
    [
        ({}, KEY + "\n", "ANTHROPIC_API_KEY (in the environment)"),
        ({}, "sk-ant-api03 proctor-test-key-0001", "ANTHROPIC_API_KEY (in the environment)"),
        (
            {"credentials": "none", "forwardEnv": ["ANTHROPIC_API_KEY"]},
            KEY + "\r",
            "ANTHROPIC_API_KEY (in the environment)",
        ),
        (
            {"credentials": "none", "env": {"ANTHROPIC_API_KEY": KEY + "\t"}},
            None,
            "ANTHROPIC_API_KEY (in its profile's env)",
        ),
    ],
    ids=["newline", "space", "forwarded", "profile-env"],
)
def test_a_key_with_whitespace_in_it_stops_run_and_validate_naming_its_variable(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    user: Path,
    monkeypatch: pytest.MonkeyPatch,
    profile: dict[str, object],
    value: str | None,
    said: str,
) -> None:
    """Lent as it is, the CLI failed in its own way once the trial had started (an illegal
    header, a refused key): refused before any trial, naming the variable, never the value."""
    if value is not None:
        monkeypatch.setenv("ANTHROPIC_API_KEY", value)
    make_case("a", config={"agents": ["claude-code"]})
    config = str(profile_config(tmp_path, **profile))
    result, out = run_cases(proctor, tmp_path, "--config", config)
    checked = proctor("validate", "--source", str(tmp_path / "cases"), "--config", config)
    for outcome in (result, checked):
        assert outcome.code == 2, outcome.err
        (line,) = [x for x in outcome.err.splitlines() if "whitespace" in x]
        assert line == (
            f"proctor: error: agent 'claude-code' would be lent {said}, whose value has "
            "whitespace or control characters in it (a line break or a space at its end?); "
            "remove them"
        )
        assert "proctor-test-key" not in outcome.err + outcome.out
    assert not out.exists() and not (tmp_path / "seen.txt").exists()


def test_control_a_clean_key_is_lent(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    make_case("a", config={"agents": ["claude-code"]})
    config = str(profile_config(tmp_path))
    checked = proctor("validate", "--source", str(tmp_path / "cases"), "--config", config)
    assert checked.code == 0, checked.err


# Renews its OAuth login the way Claude Code does when its access token expires: the whole
# credentials file is rewritten with new tokens and a later expiry.
RENEWING_CLAUDE = """#!/bin/sh
case "$1" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac
printf '%s' '{"claudeAiOauth": {"accessToken": "sk-ant-oat01-proctor-renewed-0003",
 "refreshToken": "sk-ant-ort01-proctor-renewed-0004", "expiresAt": 1900000000000}}' \\
  > "$CLAUDE_CONFIG_DIR/.credentials.json"
echo "renewed: $(cat "$CLAUDE_CONFIG_DIR/.credentials.json")"
echo "Not logged in · Please run /login" >&2
exit 1
"""


def test_a_login_the_agent_renews_goes_back_to_the_user_and_stays_masked(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path
) -> None:
    config = profile_config(tmp_path)
    binary = tmp_path / "bin" / "claude"
    binary.write_text(RENEWING_CLAUDE)
    make_case("a", config={"agents": ["claude-code"]})
    login = user / ".claude" / ".credentials.json"
    login.chmod(0o640)
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 3, result.err
    mine = json.loads(login.read_text())
    assert mine["claudeAiOauth"]["refreshToken"] == "sk-ant-ort01-proctor-renewed-0004"
    assert stat.S_IMODE(login.stat().st_mode) == 0o640  # the user's own mode, kept
    written = every_text(single_run_dir(out))
    assert "renewed: " in written  # the agent printed its new login...
    assert "proctor-renewed-0003" not in written and "proctor-renewed-0004" not in written


def test_a_case_named_with_a_key_is_shown_masked_and_keeps_its_folder(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    name = f"c-{KEY}"
    make_case(name, config={"agents": ["claude-code"]})
    result, out = run_cases(proctor, tmp_path, "--config", str(profile_config(tmp_path)))
    assert result.code == 3, result.err
    run_dir = single_run_dir(out)
    assert (run_dir / "trials" / name / "claude-code").is_dir()  # the folder keeps its name
    assert KEY not in every_text(run_dir)  # the journal, the records, the reports
    assert KEY not in result.out and KEY not in result.err
    from proctor.session import journal

    trials = [e for e in journal.read(run_dir / "journal.jsonl") if e.case]
    assert [(e.event, e.case) for e in trials] == [
        ("trial-started", "c-***"),
        ("trial-finished", "c-***"),  # the same trial's two lines name it alike
    ]


@pytest.mark.parametrize(
    ("setup", "named"),
    [
        ('ln -s "$OUTSIDE" "$HOME/.claude"', "made $HOME/.claude a link to"),
        (
            'mkdir "$HOME/.c" && ln -s "$OUTSIDE" "$HOME/.c/x" && ln -s .c/x "$HOME/.claude"',
            "made $HOME/.claude a link to",
        ),
    ],
)
def test_a_setup_line_that_links_the_agents_folder_outside_gets_no_login_there(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    user: Path,
    monkeypatch: pytest.MonkeyPatch,
    setup: str,
    named: str,
) -> None:
    """The login would be copied, and the settings written, wherever the link leads: the
    trial is an infra-error naming the setup line and the link, and nothing lands there."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.setenv("OUTSIDE", str(outside))
    make_case("a", config={"agents": ["claude-code"], "setup": [setup]})
    result, out = run_cases(proctor, tmp_path, "--config", str(profile_config(tmp_path)))
    assert result.code == 2, result.err  # every trial an infra-error
    trial = load_trial(single_run_dir(out), "a", agent="claude-code")
    assert trial["status"] == "infra-error"
    assert trial["reason"].startswith(f"setup line 1 `{setup}` {named} {outside}")
    assert "outside the trial's scratch folder" in trial["reason"]
    assert list(outside.iterdir()) == []  # no login, no settings.json, no .claude.json
    assert not (tmp_path / "seen.txt").exists()  # the agent never started


@pytest.mark.parametrize("provisioned", [True, False])
def test_a_skills_folder_linked_out_is_refused_only_where_skills_are_provisioned(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    user: Path,
    monkeypatch: pytest.MonkeyPatch,
    provisioned: bool,
) -> None:
    """A provisioned skill would be copied wherever the link leads; without one, the user's
    skills folder linked in is the agent's to read."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.setenv("OUTSIDE", str(outside))
    setup = 'mkdir -p "$HOME/.claude" && ln -s "$OUTSIDE" "$HOME/.claude/skills"'
    config: dict[str, object] = {"agents": ["claude-code"], "setup": [setup]}
    case = make_case("a", config=config)
    if provisioned:
        skill = case / "tidy"
        skill.mkdir()
        (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\n")
        config["provision"] = {"skills": [{"name": "tidy", "path": "tidy"}]}
        (case / "config.json").write_text(json.dumps(config))
    result, out = run_cases(proctor, tmp_path, "--config", str(profile_config(tmp_path)))
    assert result.code == (2 if provisioned else 3), result.err
    trial = load_trial(single_run_dir(out), "a", agent="claude-code")
    if provisioned:
        assert trial["status"] == "infra-error", trial["reason"]
        assert "made $HOME/.claude/skills a link to" in trial["reason"]
    else:
        assert trial["status"] == "agent-error", trial["reason"]  # the stand-in ran
    assert list(outside.iterdir()) == []


def test_a_relative_cache_folder_stops_run_and_validate_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path, user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A renewed login went back under a lock in `rel/credentials.lock` of the current folder;
    only `history` refused the value."""
    config = profile_config(tmp_path)
    (tmp_path / "bin" / "claude").write_text(RENEWING_CLAUDE)
    make_case("a", config={"agents": ["claude-code"]})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", "rel")
    said = (
        "PROCTOR_CACHE_DIR 'rel' is not a full path: each folder proctor runs in would have a "
        "cache folder of its own (give it as /…)"
    )
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 2 and result.err.endswith(f"proctor: error: {said}\n"), result.err
    assert not (tmp_path / "rel").exists() and not list(out.glob("run-*"))
    checked = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
    assert checked.code == 2 and said in checked.out + checked.err, checked.out + checked.err
    # The control: a full path holds the lock.
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 3, result.err
    assert (tmp_path / "cache" / "credentials.lock").exists()
