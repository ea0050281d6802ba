"""``proctor history``: what a project's proctor.json, the environment and the options given
change in the report, and what the report says of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run
from tests.unit.history.planted import plant


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
