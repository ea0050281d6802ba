"""`proctor eval` says why a run was interrupted on one line, as `proctor run` does."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli


def test_the_interrupted_reason_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reason with a line break (an error's text) printed as two lines, the second without
    the ``proctor:`` that says whose it is, and its control characters reached the terminal."""
    import proctor.session.evals as evals

    summary = {"interrupted": True, "reason": "stopped:\n  the agent\x1b[2J quit"}

    def interrupted(*_: Any) -> SimpleNamespace:
        return SimpleNamespace(summary=summary, exit_code=130)

    monkeypatch.setattr(evals, "run_evals", interrupted)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        cli, ["eval", "--json", "--dir", str(tmp_path)], standalone_mode=False
    )
    assert result.return_value == 130, result.output
    assert result.stderr.splitlines()[-1] == "proctor: exit 130: stopped: the agent\\x1b[2J quit"
