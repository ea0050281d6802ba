"""`limits` in proctor.json: a provider's trials run at most N at once, start spaced apart, and
pause after the provider rate-limits; the journal's times show it."""

from __future__ import annotations

import json
import stat
from datetime import datetime
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, run_cases, single_run_dir


def timeline(run_dir: Path) -> list[tuple[str, int, float]]:
    """(event, repeat, seconds) of every trial line of the journal."""
    out = []
    for line in (run_dir / "journal.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["event"].startswith("trial-"):
            at = datetime.fromisoformat(entry["time"].replace("Z", "+00:00")).timestamp()
            out.append((entry["event"], entry["repeat"], at))
    return out


def most_at_once(events: list[tuple[str, int, float]]) -> int:
    running = peak = 0
    for event, _, _ in sorted(events, key=lambda e: (e[2], e[0] == "trial-started")):
        running += 1 if event == "trial-started" else -1
        peak = max(peak, running)
    return peak


def starts(events: list[tuple[str, int, float]]) -> list[float]:
    return sorted(at for event, _, at in events if event == "trial-started")


def scripted_suite(make_case: MakeCase, tmp_path: Path, limits: dict[str, object] | None) -> Path:
    make_case(
        "a",
        config={"repeats": 4},
        plan={"turns": [{"shell": "sleep 0.2"}, {"say": "done"}]},
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"limits": limits} if limits else {}))
    return config


def test_a_provider_runs_one_at_a_time_spaced_apart(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    limits = {"scripted": {"concurrency": 1, "startSpacingSec": 0.5}}
    config = scripted_suite(make_case, tmp_path, limits)
    result, out = run_cases(proctor, tmp_path, "--config", str(config), "--concurrency", "2")
    assert result.code == 0, result.err
    events = timeline(single_run_dir(out))
    assert most_at_once(events) == 1
    gaps = [b - a for a, b in zip(starts(events), starts(events)[1:], strict=False)]
    assert len(gaps) == 3 and min(gaps) >= 0.45


def test_control_without_limits_trials_overlap(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    config = scripted_suite(make_case, tmp_path, None)
    _, out = run_cases(proctor, tmp_path, "--config", str(config), "--concurrency", "2")
    assert most_at_once(timeline(single_run_dir(out))) == 2


RATE_LIMITED_CLAUDE = """#!/bin/sh
case "$1" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac
echo 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error"}}' >&2
exit 1
"""


def test_rate_limiting_pauses_the_provider_doubling(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir()
    binary.write_text(RATE_LIMITED_CLAUDE)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000")
    make_case("a", config={"agents": ["claude-code"], "repeats": 3})
    config = tmp_path / "proctor.json"
    profile = {"binary": str(binary), "mode": "headless"}
    top = {"codingagents": {"claude-code": profile}, "limits": {"anthropic": {"concurrency": 1}}}
    config.write_text(json.dumps(top))
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 3
    events = timeline(single_run_dir(out))
    finished = sorted(at for event, _, at in events if event == "trial-finished")
    begun = starts(events)
    assert begun[1] - finished[0] >= 0.95  # paused a second after the first 429
    assert begun[2] - finished[1] >= 1.95  # two after the second in a row


def test_a_limit_on_something_that_is_no_provider_is_a_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    config = scripted_suite(make_case, tmp_path, {"claude-code": {"concurrency": 1}})
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 2 and not out.exists()
    assert (
        "field 'limits.claude-code': unknown provider 'claude-code' (known: anthropic, google, "
        "openai, scripted; agent claude-code runs on 'anthropic')" in result.err
    )
