"""The Trial page opened at a step (``?step=N``) the transcript does not hold."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from proctor.models.io import write_record
from proctor.models.run import MatrixCell, ResolvedRecord
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


def test_a_step_a_running_trial_has_not_taken_yet_is_said_so_and_followed(
    tmp_path: Path,
) -> None:
    """``?step=N`` past a running trial's end showed its first page without a word: it says the
    step is not there yet, shows the last page, and the part the page follows every two
    seconds asks for the step, so the note stays and the step's page shows once it is taken."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r) for r in (1, 2)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    trajectory = paths.trial("case-000", "scripted", "default", 2).trajectory
    write_trajectory_lines(trajectory, 12)  # steps 0 to 2, on 3 pages of 5 events
    running = f"/runs/{RUN}/trials/case-000/scripted/default/2"
    with TestClient(build_app(ViewSettings(results=tmp_path, page_size=5))) as client:
        page = client.get(f"{running}?step=9").text
        assert "This trial is still running" in page
        said = (
            "this trial has no step 9 yet: it is still running (its steps so far are 0 to 2), "
            "and this page shows the step once the agent takes it."
        )
        assert said in page, page
        assert "this transcript has no step" not in page
        assert "page 3 of 3" in page  # the last page, where the step will come
        follow = f"/fragments{running}?shown=running&amp;page=3&amp;step=9"
        assert f'data-live="{follow}"' in page
        fragment = client.get(follow.replace("&amp;", "&")).text
        assert said in fragment and 'data-done="0"' in fragment
        # The step taken: the part followed shows its page, the note gone.
        write_trajectory_lines(trajectory, 40)  # steps 0 to 9; step 9 is event 37, on page 8
        taken = client.get(follow.replace("&amp;", "&")).text
    assert 'id="step-missing"' not in taken and 'id="step-9"' in taken
    assert "page 8 of 8" in taken
