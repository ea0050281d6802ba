"""``proctor history``: what a project's proctor.json, the environment and the options given
change in the report, and what the report says of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.unit.history.planted import PROJECT_A, plant


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The planted Claude Code history (see tests/unit/history/planted.py)."""
    home = tmp_path / "home"
    plant(home / ".claude")
    return home


def _fired(result: str) -> dict[str, list[str]]:
    return {s["path"].rsplit("/", 1)[-1]: s["rulesFired"] for s in json.loads(result)["sessions"]}


def test_the_metrics_of_the_config_set_the_rules_and_the_cache_keeps_them_apart(
    proctor: Run, home: Path, tmp_path: Path
) -> None:
    # S1 reads and searches twice before its edit: long-orientation fires above 1, not 20.
    config = tmp_path / "pj.json"
    config.write_text(json.dumps({"metrics": {"longOrientationMax": 1}}))
    plain = proctor("history", "--home", str(home), "--json")
    assert "long-orientation" not in str(_fired(plain.out))
    for workers in ("1", "2"):  # replayed, then read back from the cache
        tight = proctor("history", "--home", str(home), "--config", str(config), "--json")
        assert tight.code == 0, tight.err
        assert sum("long-orientation" in fired for fired in _fired(tight.out).values()) == 1
        assert json.loads(tight.out)["total"]["ruleCounts"]["long-orientation"] == 1
        again = proctor("history", "--home", str(home), "--json", "--workers", workers)
        assert _fired(again.out) == _fired(plain.out)  # the defaults' summaries, not the config's
    markdown = proctor("history", "--home", str(home), "--config", str(config), "--no-cache")
    assert "long-orientation 1/2" in markdown.out


def test_unknown_records_are_in_the_summary(proctor: Run, home: Path) -> None:
    # S4 holds a broken line and a record of an unknown type (see planted.py).
    result = proctor("history", "--home", str(home), "--json", "--by", "project")
    report = json.loads(result.out)
    assert sum(s["unknownRecords"] for s in report["sessions"]) == 2
    assert report["total"]["unknownRecords"] == 2
    assert [(g["key"], g["unknownRecords"]) for g in report["groups"]] == [
        ("/work/projA", 0),
        ("/work/projB", 2),
    ]
    markdown = proctor("history", "--home", str(home))
    assert "- Unknown records: 2 lines the parsers did not recognise" in markdown.out
    clean = proctor("history", "--home", str(home), "--project", PROJECT_A)
    assert clean.code == 0 and "Unknown records" not in clean.out


@pytest.mark.parametrize("by", ["week", "month"])
def test_the_clock_line_names_weeks_or_months_beside_other_options(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    monkeypatch.setenv("TZ", "UTC")
    result = proctor("history", "--home", str(home), "--agent", "claude-code", "--by", by)
    assert f"Sessions of claude-code only ({by}s of the local time zone, UTC)." in result.out
    narrowed = proctor("history", "--home", str(home), "--project", PROJECT_A, "--by", by)
    assert f"that ran in {PROJECT_A} ({by}s of the local time zone, UTC)." in narrowed.out
    dated = proctor("history", "--home", str(home), "--since", "2026-11-01", "--by", by)
    assert f"(days and {by}s of the local time zone, UTC)." in dated.out


def test_a_relative_cache_folder_is_refused(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", "cache")
    refused = proctor("history", "--home", str(home))
    assert refused.code == 2 and "PROCTOR_CACHE_DIR 'cache' is not a full path" in refused.err
    assert not (tmp_path / "cache").exists() and "Traceback" not in refused.err
    assert proctor("history", "--home", str(home), "--no-cache").code == 0


def test_a_folder_that_holds_no_session_was_read(proctor: Run, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = proctor("history", str(empty))
    assert result.code == 0, result.err
    assert "Sessions: 0" in result.out
    assert f"- {empty}: no session transcript\n" in result.out  # no --agent: of any agent
    narrowed = proctor("history", str(empty), "--agent", "codex")
    assert f"- {empty}: no session transcript of the agents asked for\n" in narrowed.out
    (empty / "notes.jsonl").write_text('{"a": 1}\n')
    assert proctor("history", str(empty), "--json").code == 0
    # A file that is no session, and a PATH that is not there, were not read: exit 2.
    alone = proctor("history", str(empty / "notes.jsonl"))
    assert alone.code == 2 and "nothing to replay" in alone.err
    # A file is not a session transcript (whatever --agent asked for: it is no agent's); a
    # folder holds none.
    (tmp_path / "plain.txt").write_text("hello\n")
    for agent in ([], ["--agent", "codex"]):
        plain = proctor("history", str(tmp_path / "plain.txt"), *agent)
        assert plain.code == 2, plain.err
        assert (
            f"nothing to replay ({tmp_path / 'plain.txt'}: not a session transcript)\n" in plain.err
        )
    missing = proctor("history", str(tmp_path / "nowhere"))
    assert missing.code == 2 and "no such file or folder" in missing.err


def test_the_project_is_named_as_the_folder_it_is(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    up_and_back = f"{PROJECT_A}/../projA"
    result = proctor("history", "--home", str(home), "--project", up_and_back)
    assert result.code == 0 and "Sessions: 2 (2 tasks" in result.out
    assert f"Sessions that ran in {PROJECT_A}." in result.out and "/../" not in result.out
    monkeypatch.chdir(tmp_path)
    relative = proctor("history", "--home", str(home), "--project", "./home/../home")
    assert f"Sessions that ran in {tmp_path / 'home'}." in relative.out
    assert "/../" not in relative.err
