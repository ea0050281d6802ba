"""``proctor eval`` refused before any case runs (an agent CLI that cannot run, a judge
without a key) or stopped then leaves no results folder behind that it made: retried, it
leaves no pile of empty folders; what was there before stays, with what it held."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import project

Run = Any

EVAL = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("hi")).expect_ok()
    eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""


def test_an_eval_refused_or_stopped_before_any_case_leaves_only_what_was_there(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent CLI that cannot run (a binary that is not there) refuses the run once its
    cases are written: they go, and so does the results folder made for them, retry after
    retry; a results folder that was there keeps what it held (an earlier run's cases too).
    A stop while the agents are checked leaves the same."""
    root = project(tmp_path, {"a.eval.py": EVAL})
    (root / "proctor.json").write_text(
        json.dumps({"codingagents": {"codex": {"binary": str(tmp_path / "no-codex")}}})
    )
    args = ("--config", str(root / "proctor.json"), "--agent", "codex", "--model", "scripted")
    new = tmp_path / "new" / "out"
    for _ in range(2):
        result = proctor("eval", "--dir", str(root), "--out", str(new), "--no-stream", *args)
        assert result.code == 2, result.err
        assert "agent 'codex': the 'codex' CLI was not found" in result.err
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept"
    (kept / "evals-src" / "20260101T000000000000Z").mkdir(parents=True)
    (kept / "notes.md").write_text("mine")
    result = proctor("eval", "--dir", str(root), "--out", str(kept), "--no-stream", *args)
    assert result.code == 2, result.err
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*")) == [
        "evals-src",
        "evals-src/20260101T000000000000Z",
        "notes.md",
    ]

    def stopped(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("proctor.session.run.preflight", stopped)
    result = proctor("eval", "--dir", str(root), "--out", str(new), "--no-stream", *args)
    assert result.code == 130, result.err
    assert not (tmp_path / "new").exists()
