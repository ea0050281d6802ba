"""The Trial page of a trial that has not run to its end: one a stopped run never started, one
still running (its page follows it), and the polls of such a page, answered 304 when nothing
changed; and the Run page's naming of the trials running now; a tool call that never returned."""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from proctor.models.io import read_record, write_record
from proctor.models.run import MatrixCell, ResolvedRecord, RunManifest
from proctor.models.trajectory import event_json
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import (
    end_run,
    end_trial,
    events,
    start_trial,
    write_run,
    write_trajectory_lines,
)

RUN = "run-20261201T000000Z-stopped"
KEY = "case-000/scripted/default/2"


def _plan(paths: object, repeats: int) -> None:
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r)
        for r in range(1, repeats + 1)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))  # type: ignore[attr-defined]


def test_a_trial_a_stopped_run_never_started_says_the_run_stopped(tmp_path: Path) -> None:
    """It said the trial "was not found", as of a trial the run never planned."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1)
    manifest = read_record(paths.run_json, RunManifest)
    write_record(paths.run_json, manifest.model_copy(update={"interrupted": True}))
    _plan(paths, 3)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}/trials/{KEY}")
        unplanned = client.get(f"/runs/{RUN}/trials/case-000/scripted/default/9")
    assert page.status_code == 404
    assert f"Run {RUN} stopped before this trial started" in page.text
    assert "not found" not in page.text
    assert f'<a href="/runs/{RUN}">Back to run {RUN}</a>' in page.text
    assert f"`proctor run --resume {tmp_path / RUN}` finishes it" in page.text
    assert "data-live" not in page.text  # nothing to follow
    assert unplanned.status_code == 404 and "was not found" in unplanned.text


def _running(tmp_path: Path) -> object:
    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    _plan(paths, 2)
    write_trajectory_lines(paths.trial("case-000", "scripted", "default", 2).trajectory, 3)
    return paths


def test_a_running_trial_s_followed_part_holds_its_timeline(tmp_path: Path) -> None:
    """The part a running trial's page fetches again held only "still running": its
    timeline grew on a reload only."""
    paths = _running(tmp_path)
    trajectory = paths.trial("case-000", "scripted", "default", 2).trajectory  # type: ignore[attr-defined]
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}/trials/{KEY}").text
        assert f'data-live="/fragments/runs/{RUN}/trials/{KEY}?shown=running&amp;page=1"' in page
        url = f"/fragments/runs/{RUN}/trials/{KEY}?shown=running&page=1"
        before = client.get(url).text
        assert "Trajectory (3 events)" in before and 'data-done="0"' in before
        with trajectory.open("a") as fh:
            for event in list(events(5))[3:]:
                fh.write(json.dumps(event_json(event)) + "\n")
        after = client.get(url).text
    assert "Trajectory (5 events)" in after and 'id="e4"' in after and 'id="e4"' not in before


def test_a_running_trial_with_no_event_yet_says_so(tmp_path: Path) -> None:
    """A trial that had just started said "no event recorded", as of a trial over."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    _plan(paths, 2)
    folder = paths.trial("case-000", "scripted", "default", 2).root
    folder.mkdir(parents=True)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}/trials/{KEY}").text
    assert "no event yet (the trial is still running)" in page
    assert "no event recorded" not in page


def test_the_run_page_names_the_trials_running_now(tmp_path: Path) -> None:
    """A run in progress lists a trial once it ends: its Run page said "0 of 2 trials" and
    "no trial matches" while a trial ran, and linked nowhere to the running trial's page."""
    paths = write_run(tmp_path, RUN, trials=0, cases=1, finished=False)
    _plan(paths, 2)
    paths.trial("case-000", "scripted", "default", 1).root.mkdir(parents=True)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}").text
        part = client.get(f"/fragments/runs/{RUN}").text
    link = (
        f'<a href="/runs/{RUN}/trials/case-000/scripted/default/1">case-000/scripted/default/1</a>'
    )
    for shown in (page, part):
        assert f'<p id="running-now"><span class="live">running now</span> {link}</p>' in shown
        assert "no trial has ended yet" in shown and "no trial matches" not in shown
    end_run(paths)  # its run.json records the end, then its journal
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        over = client.get(f"/runs/{RUN}").text
    assert "running-now" not in over  # a run that is over runs nothing


def test_an_unchanged_trial_is_not_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A followed trial's page asked every two seconds, and each answer read the run's plan
    and rendered the part again, though nothing had changed: it carries an ETag now, and an
    unchanged trial is answered 304, with no body, reading nothing."""
    import proctor.view.routes.trial_live as live
    import proctor.view.trial_state as state

    paths = _running(tmp_path)
    trial = paths.trial("case-000", "scripted", "default", 2)  # type: ignore[attr-defined]
    plans: list[Path] = []
    renders: list[str] = []
    real_plan, real_render = state.planned_cells, live.render
    monkeypatch.setattr(state, "planned_cells", lambda d: plans.append(d) or real_plan(d))
    monkeypatch.setattr(
        live, "render", lambda *a, **k: renders.append(a[1]) or real_render(*a, **k)
    )
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        for shown in ("running", "pending"):
            key = KEY
            if shown == "pending":  # a trial planned, not started
                _plan(paths, 3)
                key = "case-000/scripted/default/3"
            url = f"/fragments/runs/{RUN}/trials/{key}?shown={shown}&page=1"
            first = client.get(url)
            etag = first.headers["etag"]
            assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
            renders.clear()
            read = len(plans)
            state._plans.clear()  # the plan kept from the first answer: a read would show
            again = client.get(url, headers={"if-none-match": etag})
            assert again.status_code == 304 and again.content == b"", shown
            assert again.headers["etag"] == etag
            assert renders == [] and len(plans) == read, shown  # nothing read, nothing rendered
        url = f"/fragments/runs/{RUN}/trials/{KEY}?shown=running&page=1"
        etag = client.get(url).headers["etag"]
        with trial.trajectory.open("a") as fh:  # the running trial wrote two events
            for event in list(events(5))[3:]:
                fh.write(json.dumps(event_json(event)) + "\n")
        changed = client.get(url, headers={"if-none-match": etag})
    assert changed.status_code == 200 and "Trajectory (5 events)" in changed.text
    assert changed.headers["etag"] != etag


def test_a_trial_of_a_busy_run_is_answered_304_while_it_does_not_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial's ETag held the run's whole signature: each other trial starting or ending
    (a journal line) changed it, and following one trial of a run of four at a time was
    answered in full nearly every poll. Now only the trial itself, the run stopping or
    ending, or its plan changing, does; and each of those still reaches the page."""
    import proctor.view.index as index

    monkeypatch.setattr(index, "_REFRESH_EVERY_S", 0.0)  # each poll looks at the folder
    paths = write_run(tmp_path, RUN, trials=1, cases=1, events_per_trial=0, finished=False)
    _plan(paths, 12)
    base = f"/fragments/runs/{RUN}/trials/case-000/scripted/default"

    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:

        def poll(repeat: int, shown: str, etag: str) -> tuple[int, str, str]:
            got = client.get(
                f"{base}/{repeat}?shown={shown}&page=1", headers={"if-none-match": etag}
            )
            return got.status_code, got.headers.get("etag", ""), got.text

        # Trial 5 has not started; trials 2, 3 and 4 start, 2 ends, 6 starts: 304 each time.
        _, pending, text = poll(5, "pending", "")
        assert "has not started yet" in text
        for step in (lambda: start_trial(paths, "case-000", 2),
                     lambda: start_trial(paths, "case-000", 3),
                     lambda: start_trial(paths, "case-000", 4),
                     lambda: end_trial(paths, "case-000", 2),
                     lambda: start_trial(paths, "case-000", 6)):  # fmt: skip
            step()
            assert poll(5, "pending", pending)[0] == 304
        # It starts: the page hears it at once (and loads again, to follow it running).
        folder = start_trial(paths, "case-000", 5)
        status, _, text = poll(5, "pending", pending)
        assert status == 200 and 'data-reload="1"' in text
        # Running: others end and start, 304; its own events, 200.
        _, running, text = poll(5, "running", "")
        assert "still running" in text
        for step in (lambda: end_trial(paths, "case-000", 3),
                     lambda: end_trial(paths, "case-000", 4),
                     lambda: start_trial(paths, "case-000", 7)):  # fmt: skip
            step()
            assert poll(5, "running", running)[0] == 304
        write_trajectory_lines(folder / "trajectory.jsonl", 3)
        status, running, text = poll(5, "running", running)
        assert status == 200 and "Trajectory (3 events)" in text
        # It ends (its trial.json, its journal line): the page hears it.
        end_trial(paths, "case-000", 5)
        status, _, text = poll(5, "running", running)
        assert status == 200 and "The trial has ended" in text
        # The run ends with trial 8 not started: its page hears that too.
        _, waiting, _ = poll(8, "pending", "")
        end_trial(paths, "case-000", 6)
        assert poll(8, "pending", waiting)[0] == 304
        _, running, _ = poll(7, "running", "")
        end_run(paths)
        status, _, text = poll(8, "pending", waiting)
        assert status == 200 and "stopped before this trial started" in text
        status, _, text = poll(7, "running", running)
    assert status == 200 and "The trial has ended" in text


def test_a_followed_trial_hears_its_run_s_process_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed, an orchestrator writes nothing more: the trial it ran is over all the same."""
    import proctor.view.index as index
    import proctor.view.records as records

    monkeypatch.setattr(index, "_REFRESH_EVERY_S", 0.0)
    paths = write_run(tmp_path, RUN, trials=1, cases=1, events_per_trial=0, finished=False)
    _plan(paths, 3)
    start_trial(paths, "case-000", 2)
    url = f"/fragments/runs/{RUN}/trials/{KEY}?shown=running&page=1"
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        etag = client.get(url).headers["etag"]
        assert client.get(url, headers={"if-none-match": etag}).status_code == 304
        # Its process is gone (killed): nothing of the run is written.
        monkeypatch.setattr(index, "alive", lambda process: False)
        monkeypatch.setattr(records, "alive", lambda process: False)
        gone = client.get(url, headers={"if-none-match": etag})
    assert gone.status_code == 200 and "The trial has ended" in gone.text


def test_a_turn_s_time_reads_as_the_reports_write_seconds(tmp_path: Path) -> None:
    """How long a turn took reads as every report writes a time in seconds (two decimals, a
    thousands separator), not with one decimal of its own."""
    name = "run-20261201T000000Z-timed"
    paths = write_run(tmp_path, name, trials=1, cases=1)
    trajectory = paths.trial("case-000", "scripted", "default", 1).trajectory
    turn = {"type": "turn_end", "ts": "2026-12-01T13:56:44.414Z", "durationMs": 1234567.0}
    with trajectory.open("a") as fh:
        fh.write(json.dumps(turn) + "\n")
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{name}/trials/case-000/scripted/default/1").text
    assert "turn ended after 1,234.57 s" in page


def test_a_trial_a_killed_run_started_and_never_recorded_says_so(tmp_path: Path) -> None:
    """The run page counts it as started but never recorded; its own page said the run
    stopped before it started."""
    from proctor.models.run import JournalEntry

    paths = write_run(tmp_path, RUN, trials=1, cases=1)
    manifest = read_record(paths.run_json, RunManifest)
    write_record(paths.run_json, manifest.model_copy(update={"interrupted": True}))
    _plan(paths, 3)
    started = JournalEntry(
        event="trial-started",
        time="2026-12-01T00:00:01Z",
        case="case-000",
        agent="scripted",
        condition="default",
        repeat=2,
    )
    with paths.journal.open("a") as fh:  # type: ignore[attr-defined]
        fh.write(started.model_dump_json(by_alias=True) + "\n")
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}/trials/{KEY}")
        never = client.get(f"/runs/{RUN}/trials/case-000/scripted/default/3")
    assert page.status_code == 404
    assert f"Run {RUN} stopped while this trial ran" in page.text
    assert "the trial started and left no record" in page.text
    assert f"Run {RUN} stopped before this trial started" in never.text  # the control


def _event(type_: str, **fields: object) -> str:
    return json.dumps({"ts": "2026-12-01T00:00:00.000Z", "type": type_, **fields}) + "\n"


def test_a_tool_call_that_never_returned_is_said_so_not_said_on_another_page(
    tmp_path: Path,
) -> None:
    """A call cut short by a timeout said its result was "not on this page" on the only page
    there is: it says none was recorded; a result on the next page is still said elsewhere."""
    results = tmp_path / "results"
    write_run(results, RUN, trials=1, cases=1, events_per_trial=0)
    folder = results / RUN / "trials/case-000/scripted/default/1"
    call = {"name": "Bash", "kind": "shell", "input": {"command": "sleep 30"}, "files": []}
    (folder / "trajectory.jsonl").write_text(
        _event("user_message", text="go")
        + _event("tool_call", id="a", **call)
        + _event("tool_result", id="a", output="done", isError=False, denied=False)
        + _event("tool_call", id="b", **call)
    )
    trial = f"/runs/{RUN}/trials/case-000/scripted/default/1"
    with TestClient(build_app(ViewSettings(results=results, page_size=2))) as client:
        first, last = client.get(f"{trial}?page=1").text, client.get(f"{trial}?page=2").text
    assert "result (not on this page)" in first
    assert "result (none recorded: the call never returned)" in last
    assert "not on this page" not in last


def test_a_running_trial_s_call_awaiting_its_result_says_none_yet(tmp_path: Path) -> None:
    """A running trial's last call, its result still to come, said "not on this page"."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    _plan(paths, 2)
    folder = paths.trial("case-000", "scripted", "default", 2).root
    folder.mkdir(parents=True)
    call = {"name": "Bash", "kind": "shell", "input": {"command": "make"}, "files": []}
    (folder / "trajectory.jsonl").write_text(
        _event("user_message", text="go") + _event("tool_call", id="a", **call)
    )
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}/trials/{KEY}").text
    assert "result (none yet)" in page and "not on this page" not in page


@pytest.mark.parametrize("text", ["not json", '{"schemaVersion": 99}'])
def test_a_trial_without_a_folder_of_a_run_whose_plan_does_not_read_says_so(
    tmp_path: Path, text: str
) -> None:
    """A trial with no folder, in a stopped run whose resolved.json does not read: the page
    said it "was not found", as of a trial the run never planned (a plan that is not JSON read
    as one of no trial), or failed (one of a newer schema); it says the plan does not read,
    naming the file, and so whether the run planned the trial is not known."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1)
    manifest = read_record(paths.run_json, RunManifest)
    write_record(paths.run_json, manifest.model_copy(update={"interrupted": True}))
    paths.resolved_json.write_text(text)
    with TestClient(
        build_app(ViewSettings(results=tmp_path)), raise_server_exceptions=False
    ) as client:
        page = client.get(f"/runs/{RUN}/trials/case-000/scripted/default/9")
    assert page.status_code == 404, page.text
    assert "was not found" not in page.text
    assert "whether the run planned it is not known" in page.text
    assert f"{paths.resolved_json}: " in unescape(page.text)
    assert "it holds the run&#39;s plan" in page.text


def test_a_running_trial_shows_its_workspace_diff_so_far(tmp_path: Path) -> None:
    """The diff its worker writes while the agent runs (marked as the live one) is shown as
    what the agent changed so far, and the part followed shows it change; the diff collected
    at the end, as the trial's diff."""
    from proctor.models.io import write_text_atomic
    from proctor.paths import LIVE_DIFF_MARKER

    paths = _running(tmp_path)
    trial = paths.trial("case-000", "scripted", "default", 2)  # type: ignore[attr-defined]

    def live_diff(text: str) -> None:  # as the worker's follower writes it, and marks it
        write_text_atomic(trial.workspace_diff, text)
        st = trial.workspace_diff.stat()
        (trial.root / LIVE_DIFF_MARKER).write_text(f"{st.st_ino} {st.st_size}\n")

    live_diff("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+first\n")
    url = f"/fragments/runs/{RUN}/trials/{KEY}?shown=running&page=1"
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}/trials/{KEY}").text
        live_diff(
            "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+second\n"
        )
        part = client.get(url).text
        write_text_atomic(trial.workspace_diff, "")  # collected (its mark not yet removed)
        collected = client.get(url).text
    for shown, change in ((page, "first"), (part, "second")):
        text = unescape(shown)
        assert "Workspace diff so far" in text and "what the agent has changed so far" in text
        assert f"+{change}" in text
        assert LIVE_DIFF_MARKER not in text  # the worker's mark is not one of the trial's files
    assert "Workspace diff so far" not in collected and "no change" in collected


def test_a_diff_so_far_a_killed_run_left_is_shown_as_a_part_not_the_trial_s(
    tmp_path: Path,
) -> None:
    """A run killed whole (its orchestrator gone) leaves its running trial's diff so far and
    its mark, which nothing dropped: the page showed it under "Workspace diff" as the diff
    the trial recorded."""
    import os
    import re

    from proctor.paths import LIVE_DIFF_MARKER

    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    _plan(paths, 2)
    journal = paths.journal
    journal.write_text(journal.read_text().replace(f'"pid":{os.getpid()}', '"pid":4000000'))
    trial = paths.trial("case-000", "scripted", "default", 2)
    write_trajectory_lines(trial.trajectory, 3)
    trial.workspace_diff.write_text("diff --git a/half.txt b/half.txt\nnew file\n+PARTIAL\n")
    st = os.stat(trial.workspace_diff)
    (trial.root / LIVE_DIFF_MARKER).write_text(f"{st.st_ino} {st.st_size}\n")
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        left = client.get(f"/runs/{RUN}/trials/{KEY}").text
        os.unlink(trial.root / LIVE_DIFF_MARKER)  # the control: the diff collected at the end
        collected = client.get(f"/runs/{RUN}/trials/{KEY}").text
    (section,) = re.findall(r'<section id="diff">.*?</section>', left, re.S)
    assert "still running" not in section
    assert "Workspace diff so far" in section and "+PARTIAL" in section
    assert "a partial diff: what the agent had changed as of its last step before" in section
    assert "the trial was cut short (no diff was recorded" in section
    (section,) = re.findall(r'<section id="diff">.*?</section>', collected, re.S)
    assert "so far" not in section and "partial" not in section and "+PARTIAL" in section
