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


def test_credentials_are_removed_by_their_name_and_by_a_password_in_a_url(tmp_path: Path) -> None:
    removed = {
        "SERPAPI_APIKEY": "k",
        "R2_ACCESS_KEY_ID": "id",
        "MINIO_ACCESS_KEY": "k",
        "DEPLOY_PRIVATE_KEY_PEM": "-----BEGIN",
        "SENTRY_DSN": "https://key@o1.ingest.sentry.io/1",
        "NPM_CONFIG__AUTH": "dXNlcjpwYXNz",
        "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T/B/x",
        "SESSION_COOKIE": "c",
        "DATABASE_URL": "postgres://app:s3cret@db:5432/app",
        "REDIS_URL": "redis://:s3cret@cache:6379/0",
        "PIP_INDEX_URL": "https://user:tok@pypi.example.com/simple",
    }
    kept = {
        "PATH": "/usr/bin",
        "DATABASE_URL_PLAIN": "postgres://app@db:5432/app",  # a user, no password
        "HOMEPAGE": "https://example.com/a:b@c",  # an @ after the path: no user part
        "PG_HOST": "db:5432",
        "KEYBOARD": "us",
        "TOKENIZERS_PARALLELISM": "false",
    }
    env = agent_environment({**removed, **kept}, home=tmp_path, forward=["REDIS_URL"])
    assert sorted(set(removed) & set(env)) == ["REDIS_URL"]  # forwarded by name: kept
    assert all(env[name] == value for name, value in kept.items())


def test_a_ci_job_s_command_files_are_removed(tmp_path: Path) -> None:
    """An agent under evaluation in a GitHub Actions job cannot set the job's variables or
    PATH for its later steps, nor write the job summary of the run that evaluates it."""
    files = ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
    parent = {name: f"/runner/_temp/{name.lower()}" for name in files}
    parent |= {"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_WORKSPACE": "/w"}
    env = agent_environment(parent, home=tmp_path)
    assert not set(files) & set(env)
    assert (env["GITHUB_ACTIONS"], env["CI"], env["GITHUB_WORKSPACE"]) == ("true", "true", "/w")
