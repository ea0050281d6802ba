"""The Trial page opened at a step (``?step=N``) the transcript does not hold."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import write_run, write_trajectory_lines

RUN = "run-20261201T000000Z-steps"
TRIAL = f"/runs/{RUN}/trials/case-000/scripted/default/1"


def test_a_step_the_transcript_does_not_hold_is_said_not_shown_as_page_one(
    tmp_path: Path,
) -> None:
    """``?step=999`` (a stale link, or one typed) showed the first page without a word: it
    says the transcript has no such step and which steps it has."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1, events_per_trial=12)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        held = client.get(f"{TRIAL}?step=0").text
        assert 'id="step-missing"' not in held
        steps = held.count('data-step="')
        assert steps > 1
        page = client.get(f"{TRIAL}?step=999").text
        assert f"this transcript has no step 999: its steps are 0 to {steps - 1}." in page
        assert f"no step {steps}:" in client.get(f"{TRIAL}?step={steps}").text
        write_trajectory_lines(paths.trial("case-000", "scripted", "default", 1).trajectory, 1)
        page = client.get(f"{TRIAL}?step=0").text
    assert "this transcript has no step 0: it has no step." in page
