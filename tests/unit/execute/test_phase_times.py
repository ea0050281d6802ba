"""A trial's phase times when a phase is cut short."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest

from proctor.execute import trial
from proctor.execute.context import Interrupted
from proctor.execute.trial import Phases, timings


def test_an_agent_phase_cut_short_counts_as_the_agents_time_not_the_harnesss() -> None:
    def drive(*_: Any) -> None:
        time.sleep(0.2)  # the agent at work, until Ctrl-C
        raise Interrupted("stopped")

    prepared = SimpleNamespace(adapter=SimpleNamespace(name="scripted"), before=None)
    done = Phases()
    with (
        mock.patch.object(trial, "prepare", return_value=prepared),
        mock.patch.object(trial, "drive", side_effect=drive),
        pytest.raises(Interrupted),
    ):
        trial._run_phases(mock.Mock(), done)
    times = timings(done, "2026-01-01T00:00:00.000Z", 250.0)
    assert times.agent_ms >= 200 and times.agent_pure_ms == times.agent_ms
    assert times.harness_ms <= 50  # the rest of the 250 ms: before the agent started
