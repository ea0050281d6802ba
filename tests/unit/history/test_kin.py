"""A fork or a copy of a Claude Code session kept under another project: ``--project`` counts
each session of the project as a replay of every project does (see proctor.history.kin).

The fixture is ``claude-fork/fork`` (see test_forks): the original (Read, Edit, Bash; four
responses, 76,906 input and 65 output tokens) and its fork (one Bash of its own; ccusage
counts 115,774 and 87 over both, so the fork's own two responses are 38,868 and 22). Each
file's lines are moved to a folder of its own, as a fork started or a copy kept there says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli
from tests.unit.history.test_forks import CASES, FIXTURES, ORIGINAL

RECORDED = "/tmp/fork-study/ws"
APP, OTHER, ELSEWHERE = "/work/app", "/work/other", "/work/elsewhere"
FORK = CASES["fork"][0]


def _kept(config: Path, source: str, project: str, name: str) -> Path:
    """A fixture file kept in ``project``'s folder under ``name``, its lines' folder
    ``project``."""
    text = (FIXTURES / "fork" / "projects" / "-tmp-fork-study-ws" / f"{source}.jsonl").read_text()
    target = config / "projects" / project.replace("/", "-") / f"{name}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text.replace(RECORDED, project))
    return target


def _history(config: Path, *args: str, cache: bool = False) -> dict[str, Any]:
    cached = () if cache else ("--no-cache",)
    result = CliRunner().invoke(cli, ["history", str(config), "--json", *cached, *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _sessions_of(report: dict[str, Any], project: str) -> list[dict[str, Any]]:
    return sorted((s for s in report["sessions"] if s["project"] == project), key=str)


def _own(session: dict[str, Any]) -> tuple[Any, ...]:
    used = session["usage"]["claude-opus-4-8"]
    return (
        session["steps"]["byKind"],
        session["startedAt"],
        used["responses"],
        used["inputTokens"],
        used["outputTokens"],
    )


def test_a_fork_kept_under_another_project_counts_its_own_work_with_project(
    tmp_path: Path,
) -> None:
    config = tmp_path / ".claude"
    _kept(config, ORIGINAL, APP, ORIGINAL)
    _kept(config, FORK, OTHER, FORK)
    (fork,) = _history(config, "--project", OTHER)["sessions"]
    assert _own(fork) == ({"shell": 1}, "2026-12-03T16:04:15.383000+00:00", 2, 38_868, 22)
    whole = _history(config)
    assert _sessions_of(whole, OTHER) == [fork]
    (original,) = _history(config, "--project", APP)["sessions"]
    assert _own(original) == (
        {"read": 2, "edit": 1},
        "2026-12-03T16:04:04.531000+00:00",
        4,
        76_906,
        65,
    )
    assert _sessions_of(whole, APP) == [original]


@pytest.mark.parametrize("asked", [APP, OTHER])
def test_a_copy_kept_under_another_project_is_a_copy_with_project(
    asked: str, tmp_path: Path
) -> None:
    """The session's own file (``<id>.jsonl``) in one project, a copy of it under another
    name in the other: the copy is listed as the full replay lists it, in its project's
    report, and counts in neither."""
    config = tmp_path / ".claude"
    original = _kept(config, ORIGINAL, APP, ORIGINAL)
    copy = _kept(config, ORIGINAL, OTHER, "22222222-2222-4222-8222-222222222222")
    report = _history(config, "--project", asked)
    whole = _history(config)
    assert [u["path"] for u in whole["unavailable"]] == [str(copy)]
    assert report["sessions"] == _sessions_of(whole, asked)
    if asked == APP:
        assert [s["path"] for s in report["sessions"]] == [str(original)]
        assert report["unavailable"] == []
    else:
        assert report["sessions"] == []
        assert report["unavailable"] == whole["unavailable"]
        reason = f"a copy of the lines of {original}: counted there"
        assert report["unavailable"][0]["reason"] == reason


def test_the_sessions_of_other_projects_are_measured_only_when_kin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of the other projects' sessions, only the fork's original is measured: a session of a
    third project, another copy of the fixture's prompt with responses of its own, is read to
    its first response only."""
    config = tmp_path / ".claude"
    original = _kept(config, ORIGINAL, APP, ORIGINAL)
    _kept(config, FORK, OTHER, FORK)
    unrelated = _kept(config, ORIGINAL, ELSEWHERE, "33333333-3333-4333-8333-333333333333")
    text = unrelated.read_text().replace(ORIGINAL, "33333333-3333-4333-8333-333333333333")
    unrelated.write_text(text.replace("msg_scripted_", "msg_other_"))
    from proctor.history import kin

    measured: list[str] = []
    kin_of = kin.kin_of

    def spied(records: Any, others: Any, measure: Any) -> Any:
        def counted(sessions: Any) -> Any:
            measured.extend(s.file for s in sessions)
            return measure(sessions)

        return kin_of(records, others, counted)

    monkeypatch.setattr(kin, "kin_of", spied)
    (fork,) = _history(config, "--project", OTHER)["sessions"]
    assert fork["steps"]["byKind"] == {"shell": 1}
    assert measured == [str(original)]


def test_a_warm_project_replay_tells_the_kin_from_the_cache(tmp_path: Path) -> None:
    """After a replay of every project, the summaries of the other projects' sessions are in
    the cache: a --project replay tells their kin from them, with the same figures."""
    config = tmp_path / ".claude"
    _kept(config, ORIGINAL, APP, ORIGINAL)
    _kept(config, FORK, OTHER, FORK)
    copy = _kept(config, ORIGINAL, OTHER, "22222222-2222-4222-8222-222222222222")
    whole = _history(config, cache=True)
    for _ in range(2):  # the kin from the cache, then everything from it
        report = _history(config, "--project", OTHER, cache=True)
        assert report["sessions"] == _sessions_of(whole, OTHER)
        assert [u["path"] for u in report["unavailable"]] == [str(copy)]
    (fork,) = report["sessions"]
    assert fork["steps"]["byKind"] == {"shell": 1}


def test_control_without_the_kin_the_copy_counts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.history import kin

    monkeypatch.setattr(kin, "kin_of", lambda *args: [])
    config = tmp_path / ".claude"
    _kept(config, ORIGINAL, APP, ORIGINAL)
    _kept(config, FORK, OTHER, FORK)
    (fork,) = _history(config, "--project", OTHER)["sessions"]
    assert fork["steps"]["byKind"] == {"read": 2, "edit": 1, "shell": 1}
