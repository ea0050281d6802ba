"""A Gemini CLI chat known by its project's hash alone is named by the folder of that hash
when another session of the history (or --project) names it: one project is one row."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from proctor.cli.main import cli

ROOT = Path(__file__).resolve().parents[3]
GEMINI_CHAT = (
    ROOT
    / "tests/fixtures/transcripts/gemini/tmp/proj/chats"
    / "session-2026-11-29T11-00-5b2c9e41.jsonl"
)
CODEX_ROLLOUT = (
    ROOT
    / "tests/fixtures/transcripts/codex/rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"
)


def history(tmp_path: Path, folder: Path, hashed: Path, *extra: str) -> dict[str, object]:
    """``proctor history --json`` of a home holding a Codex session that ran in ``folder``
    and a Gemini CLI chat whose project's hash is that of ``hashed`` (no .project_root)."""
    home = tmp_path / "home"
    digest = hashlib.sha256(str(hashed).encode()).hexdigest()
    chats = home / ".gemini" / "tmp" / digest / "chats"
    chats.mkdir(parents=True)
    lines = GEMINI_CHAT.read_text().splitlines()
    header = json.loads(lines[0])
    header["projectHash"] = digest
    (chats / GEMINI_CHAT.name).write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    day = home / ".codex" / "sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    rollout = CODEX_ROLLOUT.read_text().replace('"/ws/proj"', json.dumps(str(folder)))
    (day / CODEX_ROLLOUT.name).write_text(rollout)
    args = ["history", "--home", str(home), "--json", "--no-cache", *extra]
    result = CliRunner().invoke(cli, args, env={"PROCTOR_CACHE_DIR": str(tmp_path / "c")})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def projects(report: dict[str, object]) -> dict[str, str]:
    return {s["agent"]: s["project"] for s in report["sessions"]}  # type: ignore[attr-defined,index]


def test_a_chat_of_a_hashed_project_is_named_by_another_agent_s_session_of_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    report = history(tmp_path, folder, folder, "--by", "project")
    assert projects(report) == {"codex": str(folder), "gemini-cli": str(folder)}
    assert [row["key"] for row in report["groups"]] == [str(folder)]  # type: ignore[attr-defined,index]


def test_control_a_hash_of_another_folder_stays_a_hash(tmp_path: Path) -> None:
    folder, other = tmp_path / "app", tmp_path / "other"
    folder.mkdir()
    other.mkdir()
    named = projects(history(tmp_path, folder, other))
    assert named["gemini-cli"] == "gemini:" + hashlib.sha256(str(other).encode()).hexdigest()


def test_the_folder_project_names_names_a_chat_of_its_hash(tmp_path: Path) -> None:
    folder, other = tmp_path / "app", tmp_path / "other"
    folder.mkdir()
    other.mkdir()
    # The Codex session ran elsewhere: only --project names the chat's folder.
    report = history(tmp_path, folder, other, "--project", str(other))
    assert projects(report) == {"gemini-cli": str(other)}


def test_a_hashed_project_is_shortened_in_the_tables_and_whole_in_the_json(
    tmp_path: Path,
) -> None:
    """A project known by its 64-digit hash alone is `gemini:<first 8 digits>…` in every
    table of `--by project`, with a line saying so; the JSON keeps the whole hash."""
    folder, other = tmp_path / "app", tmp_path / "other"
    folder.mkdir()
    other.mkdir()
    digest = hashlib.sha256(str(other).encode()).hexdigest()
    report = history(tmp_path, folder, other, "--by", "project")
    assert f"gemini:{digest}" in [row["key"] for row in report["groups"]]  # type: ignore[attr-defined,index]
    result = CliRunner().invoke(
        cli,
        ["history", "--home", str(tmp_path / "home"), "--by", "project", "--no-cache"],
        env={"PROCTOR_CACHE_DIR": str(tmp_path / "c")},
    )
    assert result.exit_code == 0, result.output
    assert digest not in result.stdout
    rows = [line for line in result.stdout.splitlines() if f"| gemini:{digest[:8]}… |" in line]
    assert len(rows) == 3  # the figures, the rules broken and the tokens of each model
    assert (
        "|\n\n(`gemini:…`: a Gemini CLI project known only by the SHA-256 of its folder's path, "
        "whose first digits are shown here; `--json` gives the whole hash.)\n" in result.stdout
    )


def test_two_hashed_projects_that_share_their_first_digits_are_told_apart() -> None:
    from proctor.history.summary import group_labels
    from proctor.models.history import GroupSummary

    keys = ["gemini:" + "ab12cd34" + "0" * 56, "gemini:" + "ab12cd34" + "1" * 56, "/work/app"]
    groups = [GroupSummary.model_construct(key=key) for key in keys]
    assert list(group_labels(groups).values()) == [
        "gemini:ab12cd340000…",
        "gemini:ab12cd341111…",
        "/work/app",
    ]
