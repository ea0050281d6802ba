"""A trial's worker stuck where nothing interrupts it (a user's regular expression that
backtracks without end holds the interpreter, and its timers with it) is stopped once it runs
far past its timeout: the trial is a timeout, and the run ends."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from proctor.execute import executor
from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

BACKTRACKS = "```rules\n(a+)+$ => Yes\n```\n"
"""Against ``aaa…a!`` this takes longer than the test is willing to wait, by far."""


def test_a_worker_stuck_in_a_regular_expression_is_stopped(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executor, "OVERRUN_GRACE_SEC", 2.0, raising=False)
    plan = {"turns": [{"ask": "a" * 48 + "!"}, {"say": "done"}]}
    make_case("stuck", config={"agents": ["scripted"], "timeoutSec": 2}, plan=plan, qna=BACKTRACKS)
    began = time.monotonic()
    result, out = run_cases(proctor, tmp_path)
    assert time.monotonic() - began < 60, "the run waited for the regular expression"
    record = load_trial(single_run_dir(out), "stuck")
    assert record["status"] == "timeout", record["reason"]
    assert "its worker was stopped" in record["reason"]
    assert result.code in (1, 3), result.err
