"""The keys of proctor's roles, against a loopback server impersonating Anthropic that notes
each request and the key it came with: a manifest asks each provider once for all its pairs,
and a resume started from another folder reads the keys where the run was started."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, load_trial, single_run_dir
from tests.integration.test_role_key_check import VERDICT, judged_suite

KEY = "sk-ant-thefolder-" + "a" * 32
OTHER = "sk-ant-otherhere-" + "b" * 32
MODELS = "GET /v1/models?limit=1"


class Provider:
    takes = KEY
    """The only key the server takes; another is refused (401)."""
    seen: list[tuple[str, str]] = []
    """Each request, and the key it came with."""


class Handler(BaseHTTPRequestHandler):
    def _answer(self, body: Any) -> None:
        bearer = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        key = self.headers.get("x-api-key") or bearer
        Provider.seen.append((f"{self.command} {self.path}", key))
        status = 200 if key == Provider.takes else 401
        if status != 200:
            body = {"type": "error", "error": {"type": "authentication_error", "message": "no"}}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._answer({"data": [], "has_more": False, "first_id": None, "last_id": None})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer(
            {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": json.dumps(VERDICT)}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 10},
            }
        )

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The server, at the base URL of the environment; the key is left to each test."""
    Provider.takes, Provider.seen = KEY, []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    for name in ("ANTHROPIC_API_KEY", "PROCTOR_ANTHROPIC_KEY", "PROCTOR_ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", url)
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def manifest_of(proctor: Run, tmp_path: Path, pairs: int) -> tuple[Path, Path]:
    """The judged case with two conditions, and a manifest of ``pairs`` pairs of it: the
    cases' folder and the manifest."""
    cases = judged_suite(tmp_path)
    config = json.loads((cases / "judged" / "config.json").read_text())
    config["conditions"] = {"baseline": {}, "treatment": {}}
    (cases / "judged" / "config.json").write_text(json.dumps(config))
    labels = tmp_path / "goals.csv"
    labels.write_text("judged,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", str(pairs),
        "--output", str(manifest),
    )  # fmt: skip
    assert planned.code == 0, planned.err
    return cases, manifest


def run_manifest(proctor: Run, tmp_path: Path, cases: Path, manifest: Path, *args: str) -> Any:
    return proctor(
        "run", "--manifest", str(manifest), "--source", str(cases), "--out",
        str(tmp_path / "out"), "--config", str(tmp_path / "proctor.json"), *args,
    )  # fmt: skip


def test_a_manifest_checks_each_provider_once_for_all_its_pairs(
    proctor: Run, tmp_path: Path, anthropic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    cases, manifest = manifest_of(proctor, tmp_path, 3)
    result = run_manifest(proctor, tmp_path, cases, manifest)
    assert result.code == 0, result.err
    asked = [request for request, _key in Provider.seen]
    assert asked.count(MODELS) == 1, asked  # not once per pair
    assert asked[0] == MODELS  # before the first pair's first trial
    assert asked.count("POST /v1/messages") == 6  # every trial was judged: 3 pairs × 2
    # Run again, the pairs all finished: kept, and nothing is asked.
    Provider.seen = []
    assert run_manifest(proctor, tmp_path, cases, manifest).code == 0
    assert Provider.seen == []


def test_a_refused_key_stops_a_manifest_before_any_pair_s_trial(
    proctor: Run, tmp_path: Path, anthropic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", OTHER)
    cases, manifest = manifest_of(proctor, tmp_path, 3)
    result = run_manifest(proctor, tmp_path, cases, manifest, "--reporter", "junit")
    assert result.code == 2, result.err
    assert "refused the key in ANTHROPIC_API_KEY (in the environment" in result.err
    assert "(checked before any trial)" in result.err
    assert Provider.seen == [(MODELS, OTHER)]
    out = tmp_path / "out"
    assert not list(out.glob("*/run-*"))  # no pair's run folder
    junit = (out / "junit.xml").read_text()
    assert "<error" in junit and "refused the key" in junit and OTHER not in junit


def started_here(proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run started in ``tmp_path/project``, whose ``.env`` holds the judge's key, its second
    trial's record then removed (as a kill leaves it): the run folder."""
    cases = judged_suite(tmp_path, repeats=2)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    monkeypatch.chdir(project)
    out = tmp_path / "out"
    config = str(tmp_path / "proctor.json")
    first = proctor("run", "--source", str(cases), "--out", str(out), "--config", config)
    assert first.code == 0, first.err
    run_dir = single_run_dir(out)
    (run_dir / "trials/judged/scripted/default/2/trial.json").unlink()
    return run_dir


def test_a_resume_from_another_folder_reads_the_keys_where_the_run_was_started(
    proctor: Run, tmp_path: Path, anthropic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder the resume runs from holds a ``.env`` of its own, with another key: the
    run's own key is the one its checks and its judge calls carry."""
    run_dir = started_here(proctor, tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".env").write_text(f"ANTHROPIC_API_KEY={OTHER}\n")
    monkeypatch.chdir(elsewhere)
    Provider.seen = []
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0, resumed.err
    assert "1 kept, 1 run now" in resumed.err
    assert [key for _request, key in Provider.seen] == [KEY, KEY, KEY], Provider.seen
    asked = [request for request, _key in Provider.seen]
    assert asked == [MODELS, "GET /v1/models/claude-x", "POST /v1/messages"]
    assert load_trial(run_dir, "judged", repeat=2)["status"] == "passed"
    notes = [line for line in resumed.err.splitlines() if line.startswith("proctor: note:")]
    # The folder is there: nothing to say of it (the findings ledger's own note aside).
    assert [line for line in notes if "findings ledger" not in line] == []
    assert KEY not in resumed.out + resumed.err and OTHER not in resumed.out + resumed.err


def test_a_resume_whose_starting_folder_is_gone_reads_the_keys_here_and_says_so(
    proctor: Run, tmp_path: Path, anthropic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = started_here(proctor, tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    monkeypatch.chdir(elsewhere)
    shutil.rmtree(tmp_path / "project")
    Provider.seen = []
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 0, resumed.err
    note = (
        f"proctor: note: the folder the run was started in ({tmp_path / 'project'}) is gone: "
        f"its provider keys are read from the environment and {elsewhere / '.env'}\n"
    )
    assert note in resumed.err
    assert [key for _request, key in Provider.seen] == [KEY, KEY, KEY], Provider.seen
    assert load_trial(run_dir, "judged", repeat=2)["status"] == "passed"
