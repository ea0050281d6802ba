"""A trial's workspace diff so far (see :class:`proctor.execute.live.LiveDiff`): written while
its agent runs, after the agent's steps, and shown on its page in ``proctor view``; replaced
by the diff collected at the end; dropped, with its mark, when the worker dies before that."""

from __future__ import annotations

import json
import time
from html import unescape
from pathlib import Path
from typing import Any

from tests.conftest import SLOW_KEY, slow_run, slow_trial_folder, viewer, write_case
from tests.integration.test_view_trial_follows_agent import ENDED, get

Run = Any


def test_a_running_trial_s_page_shows_what_its_agent_changed_so_far(tmp_path: Path) -> None:
    # The slow case's agent writes b.txt, then sleeps 8 seconds: meanwhile its page shows it.
    with slow_run(tmp_path) as (results, process):
        folder = slow_trial_folder(results, process)
        run = folder.parents[4].name
        followed = f"/fragments/runs/{run}/trials/{SLOW_KEY}?shown=running&page=1"
        with viewer(results) as base:
            etag, seen = None, ""
            deadline = time.monotonic() + 60
            while "b.txt" not in seen and ENDED not in seen:
                assert time.monotonic() < deadline, seen
                status, body, tag = get(base, followed, etag)
                if status == 200:  # a 304 is a poll that found nothing changed
                    seen, etag = unescape(body), tag
                time.sleep(0.1)
            assert "b.txt" in seen and "Workspace diff so far" in seen, seen
            assert not (folder / "trial.json").exists()  # still running
        assert process.wait(timeout=120) == 0
    # The diff the trial keeps is the one collected at the end, and no mark is left.
    assert "+one" in (folder / "workspace.diff").read_text()
    assert not (folder / ".workspace.diff.live").exists()


def test_a_worker_that_dies_while_its_agent_runs_leaves_no_diff_so_far(
    proctor: Run, tmp_path: Path
) -> None:
    # Once the worker wrote the diff so far (after the step that wrote b.txt), the agent's
    # next step kills the worker (the parent of the agent, its shell's grandparent).
    out = tmp_path / "out"
    written = out / "run-*" / "trials" / "dies" / "scripted" / "default" / "1" / "workspace.diff"
    wait = f"for i in $(seq 300); do ls {written} >/dev/null 2>&1 && break; sleep 0.1; done"
    kill = f"{wait}; kill -9 $(cut -d' ' -f4 /proc/$PPID/stat); sleep 5"
    plan = {"turns": [{"shell": "echo one > b.txt"}, {"say": "wrote b.txt"}, {"shell": kill}]}
    write_case(tmp_path / "cases", "dies", config={"timeoutSec": 60}, plan=plan)
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    (folder,) = out.glob("run-*/trials/dies/scripted/default/1")
    record = json.loads((folder / "trial.json").read_text())
    assert "worker process died" in record["reason"], (record, result.err)
    assert not (folder / "workspace.diff").exists()  # no partial diff beside its record
    assert not (folder / ".workspace.diff.live").exists()
    assert not list(folder.glob(".workspace.diff.*"))
