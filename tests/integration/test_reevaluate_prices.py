"""``proctor run --repeat-check N --recorded RUN_DIR`` prices a recorded session's process
metrics as ``proctor record`` priced them: a session on proctor's scripted model costs
nothing, whatever model its transcript names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.session.manual import plan_one
from proctor.session.reevaluate import recorded_trials, reevaluate
from tests.conftest import Run
from tests.integration.test_by_hand import CASE

CORPUS = Path(__file__).parents[1] / "corpus"


@pytest.mark.parametrize(
    ("transcript", "priced"),
    [("codex-0.171.0-basic.transcript.jsonl", False), (None, True)],
    ids=["scripted-model", "control-real-model"],
)
def test_a_re_evaluated_recorded_session_is_priced_as_it_was_recorded(
    proctor: Run, tmp_path: Path, transcript: str | None, priced: bool
) -> None:
    """The scripted server's session (its response ids say so) was recorded at $0 and
    re-evaluated at gpt-5.5's list price; a session of a real model keeps its price."""
    given = CORPUS / "codex-0.171.0-basic.transcript.jsonl"
    if transcript is None:  # the same session, answered by a real model
        given = tmp_path / "real.jsonl"
        text = (CORPUS / "codex-0.171.0-basic.transcript.jsonl").read_text()
        given.write_text(text.replace("resp_scripted_", "resp_").replace("msg_scripted_", "m"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    out = tmp_path / "results"
    args = ["record", str(CASE), "--agent", "codex", "--workspace", str(workspace)]
    result = proctor(*args, "--transcript", str(given), "--out", str(out), "--keep-workspace")
    assert result.code == 1, result.err
    (run_dir,) = out.glob("run-*")
    (stored,) = run_dir.glob("trials/add-b/codex/default/1/trial.json")
    recorded = json.loads(stored.read_text())["process"]["effort"]["cost"]
    assert (recorded > 0) is priced
    plan, _ = plan_one(str(CASE), "default", Path("."), None, "codex")
    (trial,), left = recorded_trials(plan, run_dir)
    assert left == []
    again = reevaluate(trial, tmp_path / "scratch")
    assert again.process is not None
    assert again.process.effort.cost == recorded
