"""A real Claude Code fork (``claude -p --resume <id> --fork-session``) replayed by ``proctor
history``: the fork's file starts with a copy of the earlier session's lines (the same uuids,
times and message ids, only the session id rewritten), and the history counts that copy once,
in the session it came from: each session's own steps and times, and the tokens the CLI itself
reported over both runs."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from proctor.cli.main import cli
from proctor.drive.headless import run_headless
from proctor.execute.collect import USAGE_FIELDS
from proctor.models.trial import TokenCounts
from proctor.scripted.server import ScriptedModelServer
from tests.contract.conftest import require_cli
from tests.contract.test_multi_turn import session

PLAN: dict[str, Any] = {
    "turns": [
        {"write": {"path": "one.py", "content": "print(1)\n"}},
        {"say": "First session done."},
        {"endTurn": True},
        {"shell": "cat one.py"},
        {"say": "Fork done."},
    ]
}


def test_a_forked_session_counts_only_its_own_steps_times_and_tokens(tmp_path: Path) -> None:
    require_cli("claude-code")
    server = ScriptedModelServer(PLAN, log_path=tmp_path / "requests.jsonl")
    server.start()
    driver = session("claude-code", "headless", tmp_path, server.base_url)
    try:
        assert driver.send("Write one.py.").kind == "turn-end", driver.log.failure
        first_report = dict(driver.log.reported_usage)
        launch = driver.launch  # type: ignore[attr-defined]
        argv = driver.adapter.headless_argv(launch, "Show it.", 2)  # type: ignore[attr-defined]
        argv.insert(argv.index("--resume") + 2, "--fork-session")
        out, err = tmp_path / "fork.jsonl", tmp_path / "fork.err"
        run = run_headless(
            argv,
            cwd=launch.cwd,
            env=launch.env,
            deadline=time.monotonic() + 120,
            stdout=out,
            stderr=err,
        )
        assert run.exit_code == 0, err.read_text()[-2000:]
    finally:
        server.stop()
    events = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    fork_report = driver.adapter.headless_report(launch, events, "").reported_usage or {}  # type: ignore[attr-defined]
    config_dir = Path(launch.env["CLAUDE_CONFIG_DIR"])
    files = sorted(config_dir.glob("projects/*/*.jsonl"))
    assert len(files) == 2, files  # the original, untouched, and the fork

    result = CliRunner().invoke(
        cli, ["history", str(config_dir), "--json", "--no-cache", "--agent", "claude-code"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["unavailable"] == []
    by_kind = {s["sessionId"]: s["steps"]["byKind"] for s in report["sessions"]}
    original = next(s for s in report["sessions"] if s["steps"]["byKind"].get("write"))
    fork = next(s for s in report["sessions"] if s is not original)
    assert by_kind == {
        original["sessionId"]: {"write": 1},
        fork["sessionId"]: {"read": 1},
    }  # cat one.py
    assert original["isTask"] and not fork["isTask"]
    assert fork["startedAt"] > original["endedAt"]  # not when the copy's first line was

    # The tokens are what the CLI reported for the two runs, each response once.
    reported: dict[str, list[int]] = {}
    for report_rows in (first_report, fork_report):
        for model, row in report_rows.items():
            counts = TokenCounts.model_validate(row)
            sums = reported.setdefault(model, [0, 0, 0, 0])
            for place, field in enumerate(USAGE_FIELDS):
                sums[place] += getattr(counts, field)
    total = report["total"]["usage"]
    counted = {
        model: [
            row["inputTokens"],
            row["outputTokens"],
            row["cacheReadTokens"],
            row["cacheWriteTokens"],
        ]
        for model, row in total.items()
    }
    assert counted == reported
