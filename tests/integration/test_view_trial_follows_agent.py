"""A trial's page in ``proctor view`` (a real server) while a real ``proctor run`` plays a
plan that sleeps between its steps: it shows each step the agent took as it takes it. It said
"0 events" until the trial ended, the trajectory being written only then."""

from __future__ import annotations

import http.client
import time
from pathlib import Path
from urllib.parse import urlparse

from tests.conftest import SLOW_FIRST, SLOW_KEY, SLOW_SECOND, slow_run, slow_trial_folder, viewer

ENDED = 'data-reload="1"'
"""What the followed part says once the trial is further than the page shows."""


def get(base: str, path: str, etag: str | None = None) -> tuple[int, str, str | None]:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("GET", path, headers={"if-none-match": etag} if etag else {})
        response = conn.getresponse()
        return response.status, response.read().decode(), response.getheader("etag")
    finally:
        conn.close()


def test_a_running_trial_s_page_shows_its_steps_as_the_agent_takes_them(tmp_path: Path) -> None:
    with slow_run(tmp_path) as (results, process):
        folder = slow_trial_folder(results, process)
        run = folder.parents[4].name
        followed = f"/fragments/runs/{run}/trials/{SLOW_KEY}?shown=running&page=1"
        with viewer(results) as base:
            etag, seen = None, ""
            deadline = time.monotonic() + 60
            while SLOW_FIRST not in seen and ENDED not in seen:
                assert time.monotonic() < deadline, seen
                status, body, tag = get(base, followed, etag)
                if status == 200:  # a 304 is a poll that found nothing changed
                    seen, etag = body, tag
                time.sleep(0.1)
            # Shown while the agent sleeps before its second step: the trial is running.
            assert SLOW_FIRST in seen, seen
            assert SLOW_SECOND not in seen
            assert "Bash" in seen  # the tool call of the first steps, too
            assert not (folder / "trial.json").exists()
            # The trajectory grows in place: a poll sent the last ETag gets the next step (or,
            # once the trial has ended, the state that makes the page load again).
            while SLOW_SECOND not in seen and ENDED not in seen:
                assert time.monotonic() < deadline, seen
                status, body, tag = get(base, followed, etag)
                if status == 200:
                    seen, etag = body, tag
                time.sleep(0.2)
        assert process.wait(timeout=120) == 0
    # The trajectory the trial keeps is the one collected from the whole transcript, as ever.
    from proctor.models.io import write_trajectory
    from proctor.transcripts.claude import parse_claude_transcript

    collected = tmp_path / "collected.jsonl"
    write_trajectory(collected, parse_claude_transcript(folder / "raw-transcript.jsonl").events)
    assert (folder / "trajectory.jsonl").read_bytes() == collected.read_bytes()
    assert SLOW_SECOND in collected.read_text()
