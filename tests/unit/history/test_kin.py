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


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _after_the_prompt(path: Path, made: Any) -> None:
    """Lines ``made(prompt)`` put into a session file just after its first user line."""
    lines = _lines(path)
    at = next(i for i, line in enumerate(lines) if line.get("type") == "user")
    _write(path, [*lines[: at + 1], *made(lines[at]), *lines[at + 1 :]])


def _api_error(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    """The line Claude Code writes for a request that failed (model ``<synthetic>``)."""
    usage = dict.fromkeys(
        ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
        0,
    )
    message = {
        "id": "msg-synthetic-1",
        "model": "<synthetic>",
        "role": "assistant",
        "type": "message",
        "stop_reason": "stop_sequence",
        "usage": usage,
        "content": [{"type": "text", "text": "API Error: 529 overloaded"}],
    }
    return [
        {
            "parentUuid": prompt["uuid"],
            "isSidechain": False,
            "cwd": prompt["cwd"],
            "sessionId": prompt["sessionId"],
            "type": "assistant",
            "uuid": "5ce00000-0000-4000-8000-000000000000",
            "timestamp": prompt["timestamp"],
            "isApiErrorMessage": True,
            "message": message,
        }
    ]


def _hooks(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    """The progress lines of 70 hooks run on the prompt, before its first response."""
    return [
        {
            "type": "progress",
            "parentUuid": prompt["uuid"],
            "cwd": prompt["cwd"],
            "sessionId": prompt["sessionId"],
            "uuid": f"{n:08d}-0000-4000-8000-000000000000",
            "timestamp": prompt["timestamp"],
            "data": {"type": "hook_progress", "hookEvent": "UserPromptSubmit", "hookName": f"h{n}"},
        }
        for n in range(70)
    ]


@pytest.mark.parametrize("before", [_api_error, _hooks], ids=["api-error", "70-hooks"])
@pytest.mark.parametrize("asked", [APP, OTHER])
def test_what_comes_before_the_first_response_does_not_hide_the_kin(
    before: Any, asked: str, tmp_path: Path
) -> None:
    """The sessions of the other project begin with an API error (a ``<synthetic>`` line,
    which counts no response) or with more lines than a header's before their first response:
    they are read to the first response the parsers count, and their kin found."""
    config = tmp_path / ".claude"
    for path in (_kept(config, ORIGINAL, APP, ORIGINAL), _kept(config, FORK, OTHER, FORK)):
        _after_the_prompt(path, before)
    report = _history(config, "--project", asked)
    whole = _history(config)
    assert report["sessions"] == _sessions_of(whole, asked)
    (session,) = report["sessions"]
    steps = {"shell": 1} if asked == OTHER else {"read": 2, "edit": 1}
    assert session["steps"]["byKind"] == steps


def test_a_project_replay_tells_the_same_kin_cold_and_warm(tmp_path: Path) -> None:
    """The one exception docs/history.md names: a fork whose copy starts after its original's
    first response (the first exchange compacted away) is not found from the fork's project,
    and no more when the original's summary is in the cache (which holds all its responses,
    some of them the fork's) than when it is read to its first response."""
    config = tmp_path / ".claude"
    _kept(config, ORIGINAL, OTHER, ORIGINAL)
    fork = _kept(config, FORK, APP, FORK)
    lines = _lines(fork)
    first = next(line["message"]["id"] for line in lines if line.get("type") == "assistant")
    last = max(i for i, line in enumerate(lines) if (line.get("message") or {}).get("id") == first)
    exchange = ("user", "attachment", "assistant")
    _write(
        fork, [line for i, line in enumerate(lines) if line.get("type") not in exchange or i > last]
    )
    cold = _history(config, "--project", APP, cache=True)
    whole = _history(config, cache=True)
    warm = _history(config, "--project", APP, cache=True)
    assert warm == cold
    (session,) = cold["sessions"]
    assert session["steps"]["byKind"] == {"read": 1, "edit": 1, "shell": 1}  # not found
    assert _sessions_of(whole, APP)[0]["steps"]["byKind"] == {"shell": 1}


@pytest.mark.parametrize(
    "change",
    [
        {"message": {"model": "claude-opus-4-8"}},  # an API error's line naming a model
        {"isApiErrorMessage": None},  # the CLI's filler: "No response requested."
    ],
    ids=["flagged", "synthetic"],
)
def test_a_session_is_told_by_the_first_response_the_parsers_count(
    change: dict[str, Any], tmp_path: Path
) -> None:
    """Neither a line with ``isApiErrorMessage`` nor one of model ``<synthetic>`` is a
    response: the session's first response is the one after it."""
    from proctor.history.projects import claude_head

    path = _kept(tmp_path / ".claude", ORIGINAL, OTHER, ORIGINAL)
    told = claude_head(path)

    def odd(prompt: dict[str, Any]) -> list[dict[str, Any]]:
        (line,) = _api_error(prompt)
        line["message"].update(change.get("message", {}))
        line.update({k: v for k, v in change.items() if k != "message"})
        return [line]

    _after_the_prompt(path, odd)
    assert claude_head(path) == told
    assert told[1][1] is not None
