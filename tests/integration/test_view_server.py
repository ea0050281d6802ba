"""``proctor view`` as a real server (uvicorn on 127.0.0.1): the URL it prints, confinement
of raw request paths, and the playground's token, origin check and batches."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import psutil
import pytest

from proctor.errors import ConfigError
from proctor.view.synthetic import write_run
from tests.conftest import Run, viewer, viewer_process, write_case

EXAMPLES = Path(__file__).parents[2] / "examples" / "cases"


def raw_get(base: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """GET with the path sent exactly as written (no client-side normalising)."""
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    given = {k.lower() for k in headers or {}}
    conn.putrequest("GET", path, skip_host="host" in given, skip_accept_encoding=True)
    for name, value in (headers or {}).items():
        conn.putheader(name, value)
    try:
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", errors="replace")
    finally:
        conn.close()


def post(base: str, body: object, headers: dict[str, str]) -> tuple[int, dict[str, object]]:
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request(
            "POST",
            "/api/batches",
            json.dumps(body),
            {"content-type": "application/json", **headers},
        )
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_view_serves_on_loopback_and_confines_paths(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=2, cases=1)
    (tmp_path / "secret.txt").write_text("outside the results")
    (results / "run-a" / "leak").symlink_to(tmp_path / "secret.txt")
    with viewer(results) as base:
        assert raw_get(base, "/")[0] == 200
        assert raw_get(base, "/runs/run-a/files/run.json")[0] == 200  # control: inside
        for path in (
            "/runs/run-a/files/../../secret.txt",
            "/runs/run-a/files/%2e%2e/%2e%2e/secret.txt",
            "/runs/run-a/files//etc/passwd",
            "/runs/run-a/files/%2Fetc%2Fpasswd",
            "/runs/run-a/files/leak",
            "/runs/..%2f..%2fetc/files/passwd",
        ):
            status, text = raw_get(base, path)
            assert status in (400, 404), path
            assert "outside the results" not in text and "root:" not in text


def test_a_page_asked_for_under_another_host_name_is_refused(tmp_path: Path) -> None:
    write_run(tmp_path / "results", "run-a", trials=1, cases=1)
    with viewer(tmp_path / "results") as base:
        port = urlparse(base).port
        assert raw_get(base, "/", {"Host": f"127.0.0.1:{port}"})[0] == 200  # control
        assert raw_get(base, "/", {"Host": f"localhost:{port}"})[0] == 200
        status, text = raw_get(base, "/", {"Host": f"rebound.example:{port}"})
        assert status == 421 and "run-a" not in text


def test_another_address_is_served_only_with_a_warning(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=1, cases=1)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proctor",
            "view",
            str(results),
            "--host",
            "127.0.0.2",
            "--port",
            "0",
            "--no-open",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready
        line = process.stdout.readline()  # type: ignore[union-attr]
        base = re.search(r"(http://127\.0\.0\.2:\d+)/", line).group(1)  # type: ignore[union-attr]
        assert raw_get(base, "/")[0] == 200
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "warning: serving on 127.0.0.2" in err


def test_a_run_folder_opens_its_own_page(tmp_path: Path) -> None:
    paths = write_run(tmp_path / "results", "run-a", trials=1, cases=1)
    write_run(tmp_path / "results", "run-b", trials=1, cases=1)
    with viewer(paths.root) as base:
        status, text = raw_get(base, "/")
        assert status == 200 and "run-a" in text and "run-b" not in text


def _first_line(folder: Path, home: Path) -> str:
    """The line ``proctor view FOLDER`` prints when it serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "proctor", "view", str(folder), "--port", "0", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": str(home)},
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "proctor view printed nothing"
        return process.stdout.readline()  # type: ignore[union-attr]
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_a_run_folder_is_named_as_the_run_viewed(tmp_path: Path) -> None:
    """``proctor view RESULTS/run-a`` said ``viewing RESULTS at …/runs/run-a``: the folder
    above the one given. It names the run folder given, and the results directory it is in."""
    results = (tmp_path / "results").resolve()
    paths = write_run(results, "run-a", trials=1, cases=1)
    line = _first_line(paths.root, tmp_path / "home")
    assert line.startswith(f"proctor: viewing the run {paths.root} (in {results}) at http://"), line
    assert "/runs/run-a (Ctrl-C to stop)" in line, line
    line = _first_line(results, tmp_path / "home")  # the results directory given: named alone
    assert line.startswith(f"proctor: viewing {results} at http://"), line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such/folder"], "no such results directory"),
        (["pyproject.toml"], "not a file"),
        (["--source", "/no/such/project", "."], "--source /no/such/project: no such directory"),
        (["--host", "", "."], "--host: give an address to bind"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(proctor: Run, args: list[str], message: str) -> None:
    result = proctor("view", "--no-open", *args)
    assert result.code == 2 and message in result.err and "Traceback" not in result.err


def test_a_folder_inside_a_run_is_refused_and_its_run_folder_named(
    proctor: Run, tmp_path: Path
) -> None:
    """A run's trials/ (or a trial's folder) was taken for a results directory: the viewer
    listed no run and wrote its index into the run's trials/ folder."""
    paths = write_run(tmp_path / "results", "run-a", trials=1, cases=1)
    result = proctor("view", "--no-open", str(paths.trials_dir))
    assert result.code == 2 and "Traceback" not in result.err
    assert f"a folder inside the run folder {paths.root.resolve()}, not a results" in result.err
    assert not list(paths.trials_dir.glob(".proctor-view*"))


def test_a_run_folder_of_a_run_stopped_before_any_trial_is_refused(
    proctor: Run, tmp_path: Path
) -> None:
    """An empty run folder (a run stopped as its folder was made) was viewed as a results
    directory: no run listed, and the viewer's index written into it."""
    empty = tmp_path / "results" / "run-20261207T104508Z-6578a6"
    empty.mkdir(parents=True)
    result = proctor("view", "--no-open", str(empty))
    assert result.code == 2 and "Traceback" not in result.err
    assert (
        f"{empty.resolve()}: not a run folder (no run.json and no trial record), or a run "
        "stopped before it started any trial; start a new run"
    ) in result.err
    assert not list(empty.iterdir())


def test_a_busy_port_given_explicitly_is_a_config_error(proctor: Run, tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = proctor("view", str(tmp_path), "--no-open", "--port", str(port))
    assert result.code == 2 and f"--port {port}: cannot listen" in result.err


def _project(tmp_path: Path) -> Path:
    suite = tmp_path / "project" / "suite"
    shutil.copytree(EXAMPLES / "fix-a-bug", suite / "fix-a-bug")
    shutil.copytree(EXAMPLES / "ask-a-question", suite / "ask-a-question")
    return tmp_path / "project"


def test_playground_batches_need_the_token_and_the_origin_and_survive_a_restart(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    project = _project(tmp_path)
    # Each trial first waits for a file the test makes once it has seen the batch refuse a
    # second one: the first batch is surely still running then, however fast the machine.
    gate = tmp_path / "gate"
    plan = project / "suite" / "fix-a-bug" / "plan.json"
    waiting = {"shell": f"while [ ! -e '{gate}' ]; do sleep 0.05; done"}
    plan.write_text(json.dumps({"turns": [waiting, *json.loads(plan.read_text())["turns"]]}))
    with viewer(results, "--source", str(project)) as base:
        status, page = raw_get(base, "/playground")
        assert status == 200 and "fix-a-bug" in page
        token = re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        body = {"suite": "suite", "cases": ["fix-a-bug"]}
        assert post(base, body, {})[0] == 403
        assert post(base, body, {"x-proctor-token": "wrong"})[0] == 403
        assert (
            post(base, body, {"x-proctor-token": token, "origin": "http://evil.example"})[0] == 403
        )
        assert post(base, {"suite": "nope"}, {"x-proctor-token": token, "origin": base})[0] == 400
        status, batch = post(base, body, {"x-proctor-token": token, "origin": base})
        assert status == 202 and batch["state"] in ("queued", "running")
        assert post(base, body, {"x-proctor-token": token, "origin": base})[0] == 409
        gate.touch()
        deadline = time.monotonic() + 90
        while batch["state"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.5)
            batch = json.loads(raw_get(base, f"/api/batches/{batch['id']}")[1])
        assert batch["state"] == "finished" and batch["exitCode"] == 0, batch
        assert batch["trials"] == 2 and batch["run"]
        trial = f"/runs/{batch['run']}/trials/fix-a-bug/scripted/default/1"
        assert raw_get(base, trial)[0] == 200
        links = {t["key"]: t for t in batch["finishedTrials"]}  # each finished trial, linked
        assert links["fix-a-bug/scripted/default/1"]["url"] == trial
        assert links["fix-a-bug/scripted/default/1"]["status"] == "passed"
    with viewer(results, "--source", str(project)) as base:
        kept = json.loads(raw_get(base, f"/api/batches/{batch['id']}")[1])
        assert kept["state"] == "finished" and kept["run"] == batch["run"]


def _slow_project(tmp_path: Path) -> Path:
    """A suite whose one case runs for two minutes unless stopped."""
    write_case(
        tmp_path / "project" / "suite",
        "slow",
        plan={"turns": [{"shell": "sleep 120"}, {"say": "done"}]},
        config={"agents": ["scripted"], "timeoutSec": 300},
    )
    return tmp_path / "project"


def _start(base: str) -> tuple[int, dict[str, object]]:
    page = raw_get(base, "/playground")[1]
    token = re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    body = {"suite": "suite", "cases": ["slow"]}
    return post(base, body, {"x-proctor-token": token, "origin": base})


def _batch(base: str, batch_id: object) -> dict[str, Any]:
    return json.loads(raw_get(base, f"/api/batches/{batch_id}")[1])  # type: ignore[no-any-return]


def _running_with_its_run(base: str, batch_id: object) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    batch = _batch(base, batch_id)
    while not (batch["state"] == "running" and batch["run"]) and time.monotonic() < deadline:
        time.sleep(0.3)
        batch = _batch(base, batch_id)
    assert batch["state"] == "running" and batch["run"], batch
    return batch


def _runs_of(project: Path) -> list[psutil.Process]:
    """The batch processes still running on ``project`` (their command line names it)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(str(project) in part for part in process.info["cmdline"] or []):
            found.append(process)
    return found


def _suite_outcome(results: Path, run: str) -> dict[str, Any]:
    return json.loads((results / run / "suite.json").read_text())  # type: ignore[no-any-return]


def test_a_second_viewer_leaves_the_batch_alone_and_stopping_the_first_interrupts_it(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    project = _slow_project(tmp_path)
    with viewer_process(results, "--source", str(project)) as (base, first):
        status, started = _start(base)
        assert status == 202
        batch = _running_with_its_run(base, started["id"])
        with viewer(results, "--source", str(project)) as other:
            assert _batch(other, batch["id"])["state"] == "running"  # another viewer's batch
            assert _start(other)[0] == 409  # one batch at a time, across viewers too
        assert _batch(base, batch["id"])["state"] == "running"  # the second viewer stopped
        first.terminate()
        out, err = first.communicate(timeout=60)
        assert "stopping the playground's batch" in out, (first.returncode, out, err)
    assert _runs_of(project) == []  # the run stopped with its viewer
    with viewer(results, "--source", str(project)) as base:
        kept = _batch(base, batch["id"])
    assert kept["state"] == "interrupted" and kept["message"] == "the viewer stopped", kept
    assert kept["exitCode"] == 130
    outcome = _suite_outcome(results, batch["run"])
    assert outcome["interrupted"] is True and outcome["exitCode"] == 130


def test_a_killed_viewer_stops_its_batch_and_the_next_viewer_marks_it_interrupted(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    project = _slow_project(tmp_path)
    with viewer_process(results, "--source", str(project)) as (base, first):
        batch = _running_with_its_run(base, _start(base)[1]["id"])
        first.kill()
        first.wait(timeout=10)
        # The kernel gives the run Ctrl-C when the viewer dies: it ends well before its
        # two-minute step would.
        deadline = time.monotonic() + 45
        while _runs_of(project) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert _runs_of(project) == []
    assert _suite_outcome(results, batch["run"])["interrupted"] is True
    with viewer(results, "--source", str(project)) as base:
        kept = _batch(base, batch["id"])
    assert kept["state"] == "interrupted" and kept["message"] == "the viewer stopped", kept


def test_a_results_directory_under_a_project_s_own_run_json_is_viewed(tmp_path: Path) -> None:
    """A project's ``run.json`` (a script's settings) is no run folder: its results directory
    was refused as a folder inside a run."""
    from proctor.view.serve import open_results

    project = tmp_path / "proj"
    project.mkdir()
    (project / "run.json").write_text('{"script": "start"}')
    write_run(project / "proctor-results", "run-a", trials=1, cases=1)
    assert open_results(project / "proctor-results") == (
        (project / "proctor-results").resolve(),
        None,
    )
    assert open_results(project) == (project.resolve(), None)  # the project is no run either
    # A run whose run.json is cut short (or damaged) is still a run: its trials/ is refused.
    paths = write_run(tmp_path / "results", "run-b", trials=1, cases=1)
    (paths.root / "run.json").write_text('{"schemaVersion": 2, "runId"')
    with pytest.raises(ConfigError, match="a folder inside the run folder"):
        open_results(paths.trials_dir)


@pytest.mark.parametrize(
    "number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"]
)
def test_a_stop_that_comes_as_the_url_is_said_ends_the_viewer_as_a_later_one(
    tmp_path: Path, number: signal.Signals, stop_handlers: None
) -> None:
    """A stop sent as soon as the URL is read (a script, a supervisor) ends the viewer quietly
    with 0, as one a moment later does: it was an interrupted command (exit 130) when it came
    before the viewer's own handlers were set, and a hang-up test flipped between the two."""
    from proctor.cli.signals import terminate_as_interrupt
    from proctor.view.serve import serve

    (tmp_path / "results").mkdir()
    said: list[str] = []

    def say(text: str) -> None:
        said.append(text)
        if len(said) == 1:
            os.kill(os.getpid(), number)

    try:
        with terminate_as_interrupt():  # as the CLI runs every command
            code = serve(
                (tmp_path / "results").resolve(),
                only=None,
                host="127.0.0.1",
                port=0,
                fallback=False,
                open_browser=False,
                source=None,
                max_batches=1,
                say=say,
                warn=say,
            )
    except KeyboardInterrupt:
        pytest.fail("the stop left the viewer as an interrupted command (exit 130)")
    assert code == 0 and said[0].startswith("proctor: viewing "), said
