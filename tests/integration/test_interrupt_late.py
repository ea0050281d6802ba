"""A Ctrl-C or SIGTERM that lands as the executor returns (after its own stop could take it)
leaves the run interrupted with its aggregate written, read back from the trials' records."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import proctor
from proctor.execute import executor
from tests.conftest import MakeCase


@pytest.fixture
def handlers() -> Iterator[None]:
    """The stop signals' handlers given back (a stop leaves them ignored, as the command
    restores them)."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


def test_a_stop_as_the_executor_returns_reads_the_records_back(
    make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handlers: None
) -> None:
    make_case("one", plan={"turns": [{"say": "hi"}]})
    make_case("two", plan={"turns": [{"say": "hi"}]})
    ran = executor.LocalExecutor.run

    def stopped_on_return(self: Any, *args: Any, **kwargs: Any) -> Any:
        ran(self, *args, **kwargs)
        raise KeyboardInterrupt  # as a signal landing after the executor's stop

    monkeypatch.setattr(executor.LocalExecutor, "run", stopped_on_return)
    result = proctor.run(tmp_path / "cases", out=tmp_path / "out", reporters=["json"])
    assert result.exit_code == 130
    assert result.suite.interrupted
    assert sorted(r.case for r in result.records) == ["one", "two"]
    assert all(r.status == "passed" for r in result.records)
    suite = json.loads((result.paths.root / "suite.json").read_text())
    assert suite["totals"]["n"] == 2 and suite["exitCode"] == 130
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # as after any stop
