"""A response a Claude Code fork copied from its parent session counts once over a history,
as ccusage counts it: in the session that had it first, the fork keeping only its own."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import msgspec
import pytest

from proctor.history import dedup
from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import find_sessions
from proctor.models import pricing
from proctor.models.list_prices import LIST_CHANGES, list_name
from proctor.models.pricing import PriceTable
from tests.unit.history.planted import PROJECT_A, ClaudeSession, project_folder

PARENT = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
FORK = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"


def history(tmp_path: Path) -> Path:
    """A session of two responses (100 and 200 input tokens), and a fork that copies both
    lines (same message and request ids) and adds one of its own (300)."""
    config = tmp_path / "home" / ".claude"
    parent = ClaudeSession(PARENT, PROJECT_A, "2026-11-02")
    parent.user("10:00:00", "Fix a.")
    parent.say("10:01:00", "Looking.", tokens=100)
    parent.say("10:02:00", "Done.", tokens=200)
    parent.write(project_folder(config, PROJECT_A) / f"{PARENT}.jsonl")
    fork = ClaudeSession(FORK, PROJECT_A, "2026-11-03")
    for line in parent.lines:  # the copied history, under the fork's session id
        record = json.loads(line)
        record["sessionId"] = FORK
        fork.raw(json.dumps(record))
    fork.parent = json.loads(parent.lines[-1])["uuid"]
    fork.user("09:00:00", "And b.")
    fork.say("09:01:00", "Done too.", tokens=300)
    fork.write(project_folder(config, PROJECT_A) / f"{FORK}.jsonl")
    return tmp_path / "home"


def summaries(home: Path) -> dict[str, SessionRecord]:
    sessions, _ = find_sessions(["claude-code"], home, {})
    found = [s for s in replay(sessions, Filters(), PriceTable(), workers=1)]
    assert all(isinstance(s, SessionRecord) for s in found)
    return {s.session_id: s for s in found if isinstance(s, SessionRecord) and s.session_id}


def inputs(summary: SessionRecord) -> int:
    return sum(u.input_tokens for u in summary.usage.values())


def test_a_fork_keeps_only_its_own_responses(tmp_path: Path) -> None:
    found = summaries(history(tmp_path))
    assert (inputs(found[PARENT]), inputs(found[FORK])) == (300, 600)  # each file alone
    dedup.count_each_response_once(list(found.values()), PriceTable())
    assert (inputs(found[PARENT]), inputs(found[FORK])) == (300, 300)
    assert sum(u.responses for u in found[FORK].usage.values()) == 1


def test_sessions_that_share_nothing_are_left_as_they_are(tmp_path: Path) -> None:
    """The control: the parent alone, and a session of other ids, keep every token."""
    found = summaries(history(tmp_path))
    before = {k: msgspec.structs.replace(s) for k, s in found.items()}
    dedup.count_each_response_once([found[PARENT]], PriceTable())
    assert found[PARENT] == before[PARENT]


def test_the_history_command_counts_a_copied_response_once(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from proctor.cli.main import cli

    home = history(tmp_path)
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # cold, then from the cache: the same totals
        result = CliRunner().invoke(cli, ["history", "--home", str(home), "--json"], env=env)
        assert result.exit_code == 0, result.output
        usage = json.loads(result.output)["total"]["usage"]
        assert sum(u["inputTokens"] for u in usage.values()) == 600


def test_a_repriced_fork_is_priced_on_its_own_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Once measured, the planted model (unpriced) is given a list price from the day the fork
    # started (2026-11-02, the day of the lines it copied): the fork, repriced once the copies
    # are left out, costs that price for its own response; the parent, not repriced, keeps
    # what it was measured with.
    found = summaries(history(tmp_path))
    assert found[FORK].started_at is not None and found[FORK].started_at.startswith("2026-11-02")
    name = list_name(next(iter(found[FORK].usage)))
    monkeypatch.setitem(LIST_CHANGES, name, ((date(2026, 11, 2), (1000, 0, 0, 0, 0), None),))
    pricing._changed.cache_clear()
    try:
        dedup.count_each_response_once(list(found.values()), PriceTable())
    finally:
        pricing._changed.cache_clear()
    assert found[FORK].cost_usd == pytest.approx(300 * 1000 / 1e6)
    assert found[PARENT].cost_usd is None and found[PARENT].unpriced_models == [name]
