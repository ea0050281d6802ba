"""``proctor run`` checks the keys of its own roles before the first trial, against a loopback
server impersonating Anthropic: a refused key stops the run before any trial, a taken one lets
it run, a server that is down is only warned about."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, closed_port, load_trial, single_run_dir, write_case
from tests.integration.test_findings_resume import started

KEY = "sk-ant-runcheck-" + "r" * 32
VERDICT = {"score": 85, "confidenceLevel": 70, "rationale": "The notes cover the task."}


class Provider:
    status = 200
    seen: list[str] = []
    models: list[str] | None = None
    """The models the server has (None: any asked for): another is answered 404 as
    Anthropic answers it."""


class Handler(BaseHTTPRequestHandler):
    def _answer(self, body: Any) -> None:
        Provider.seen.append(f"{self.command} {self.path}")
        status = 200 if self.path.startswith("/openai/") else Provider.status
        if status != 200:
            body = {"type": "error", "error": {"type": "authentication_error", "message": "no"}}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _no_model(self, model: str) -> bool:
        if Provider.models is None or model in Provider.models or Provider.status != 200:
            return False
        Provider.seen.append(f"{self.command} {self.path}")
        said = {"type": "error", "error": {"type": "not_found_error", "message": f"model: {model}"}}
        data = json.dumps(said).encode()
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return True

    def do_GET(self) -> None:
        _, _, model = self.path.partition("/v1/models/")
        if model and self._no_model(model):
            return
        listed = [{"id": m, "type": "model"} for m in Provider.models or []]
        self._answer({"data": listed, "has_more": False, "first_id": None, "last_id": None})

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if self._no_model(asked.get("model", "")):
            return
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
    Provider.status, Provider.seen, Provider.models = 200, [], None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", url)
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def judged_suite(tmp_path: Path, repeats: int = 1, pause: int = 0) -> Path:
    """A case judged by anthropic/claude-x (proctor.json's judge), each of its ``repeats``
    pausing ``pause`` seconds before it writes the notes the judge reads."""
    cases = tmp_path / "cases"
    turns: list[dict[str, Any]] = [{"shell": f"sleep {pause}"}] if pause else []
    turns += [{"write": {"path": "NOTES.md", "content": "# Notes\n"}}, {"say": "Done."}]
    write_case(
        cases,
        "judged",
        config={
            "repeats": repeats,
            "timeoutSec": 60,
            "evaluators": [{"use": "llm-judge", "rubric": "evaluation.md"}],
        },
        plan={"turns": turns},
    )
    (cases / "judged" / "evaluation.md").write_text("Score 0-100: do the notes explain it?\n")
    (tmp_path / "proctor.json").write_text(json.dumps({"models": {"judge": "anthropic/claude-x"}}))
    return cases


def run(proctor: Run, tmp_path: Path) -> Any:
    cases = judged_suite(tmp_path)
    return proctor(
        "run",
        "--source",
        str(cases),
        "--out",
        str(tmp_path / "out"),
        "--config",
        str(tmp_path / "proctor.json"),
    )


def test_a_refused_judge_key_stops_the_run_before_any_trial(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    Provider.status = 401
    result = run(proctor, tmp_path)
    assert result.code == 2, result.err
    assert "the judge role (anthropic/claude-x): anthropic at" in result.err
    assert "refused the key in ANTHROPIC_API_KEY (in the environment" in result.err
    assert KEY not in result.out + result.err
    assert Provider.seen == ["GET /v1/models?limit=1"]  # the judge was never asked
    assert not list((tmp_path / "out").glob("run-*/trials/*"))


def test_a_judge_model_the_provider_does_not_have_stops_the_run_before_any_trial(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    """The key is taken, but the judge's model does not exist: every trial ran its agent, then
    ended ``eval-error`` on the judge's ``API error (404): not_found_error: model: …``."""
    Provider.models = ["claude-x-4-5", "claude-other"]
    result = run(proctor, tmp_path)
    assert result.code == 2, result.err
    config = tmp_path / "proctor.json"
    assert (
        f"proctor: error: {config}: field 'models.judge': the judge role (anthropic/claude-x): "
        f"anthropic at {anthropic} has no model 'claude-x' (API error (404): not_found_error: "
        "model: claude-x); did you mean 'claude-x-4-5'"
    ) in result.err, result.err
    assert "name a model it has there (checked before any trial)" in result.err
    assert Provider.seen == [
        "GET /v1/models?limit=1",
        "GET /v1/models/claude-x",
        "POST /v1/messages",  # (one token, to confirm the lookup's 404)
        "GET /v1/models?limit=1000",
    ]
    assert not list((tmp_path / "out").glob("run-*/trials/*"))
    # validate --check-keys says it too, as a problem.
    args = ("validate", "--source", str(tmp_path / "cases"), "--check-keys", "--config")
    checked = proctor(*args, str(config))
    assert checked.code == 2 and "has no model 'claude-x'" in checked.err, checked.err
    assert "trial)" not in checked.err


def test_a_taken_judge_key_lets_the_run_go_on(proctor: Run, tmp_path: Path, anthropic: str) -> None:
    result = run(proctor, tmp_path)
    trial = load_trial(single_run_dir(tmp_path / "out"), "judged")
    assert trial["status"] == "passed", (trial["reason"], result.err)
    assert Provider.seen[0] == "GET /v1/models?limit=1"
    assert "POST /v1/messages" in Provider.seen


def test_a_judge_server_that_is_down_is_warned_about_and_the_run_goes_on(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with closed_port() as port:
        monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
        result = run(proctor, tmp_path)
    assert result.err.count("could not be checked before the run") == 1, result.err
    assert list((tmp_path / "out").glob("run-*/trials/judged"))
    assert KEY not in result.out + result.err


def test_validate_checks_the_keys_only_when_asked(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    Provider.status = 401
    run(proctor, tmp_path)  # (writes the case; refused)
    Provider.seen.clear()
    args = ("validate", "--source", str(tmp_path / "cases"), "--config")
    assert proctor(*args, str(tmp_path / "proctor.json")).code == 0
    assert Provider.seen == []
    result = proctor(*args, str(tmp_path / "proctor.json"), "--check-keys")
    assert result.code == 2 and "refused the key" in result.err


def test_a_resume_whose_judge_key_is_now_refused_stops_before_any_further_trial(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    """A run stopped with Ctrl-C after its first trial, then resumed once the provider refuses
    the judge's key: the resume checks the key first and stops (exit 2), running nothing."""
    cases = judged_suite(tmp_path, repeats=2, pause=3)
    out = tmp_path / "out"
    argv = ("run", "--source", str(cases), "--out", str(out), "--concurrency", "1")
    first = started(*argv, "--config", str(tmp_path / "proctor.json"))
    deadline = time.monotonic() + 60
    while not list(out.glob("run-*/trials/judged/*/*/1/trial.json")):
        assert time.monotonic() < deadline and first.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)  # (the second trial is under way, in its pause)
    os.killpg(first.pid, signal.SIGINT)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    run_dir = single_run_dir(out)
    second = run_dir / "trials/judged/scripted/default/2/trial.json"
    before = second.read_text() if second.exists() else None
    assert before is None or json.loads(before)["reason"].startswith("interrupted"), before
    journal = (run_dir / "journal.jsonl").read_text()

    Provider.status, Provider.seen = 401, []
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2, resumed.err
    assert "the judge role (anthropic/claude-x): anthropic at" in resumed.err
    assert "refused the key in ANTHROPIC_API_KEY" in resumed.err
    assert KEY not in resumed.out + resumed.err
    assert Provider.seen == ["GET /v1/models?limit=1"]  # the judge was never asked
    assert (second.read_text() if second.exists() else None) == before  # nothing ran
    assert (run_dir / "journal.jsonl").read_text() == journal  # not even resumed


def test_validate_check_keys_speaks_of_no_run(
    proctor: Run, tmp_path: Path, anthropic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``validate`` runs nothing: its refusal and its warning say neither "before any trial"
    nor "the run goes on"."""
    Provider.status = 401
    run(proctor, tmp_path)  # (writes the case; refused)
    args = ("validate", "--source", str(tmp_path / "cases"), "--config")
    result = proctor(*args, str(tmp_path / "proctor.json"), "--check-keys")
    assert result.code == 2 and "refused the key" in result.err
    assert "trial)" not in result.err, result.err
    with closed_port() as port:
        down = f"http://127.0.0.1:{port}"
        monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", down)
        result = proctor(*args, str(tmp_path / "proctor.json"), "--check-keys")
    assert result.code == 0, result.err
    assert f"the key for anthropic at {down} could not be checked (" in result.err
    assert "run" not in result.err.split("could not be checked", 1)[1], result.err


def test_validate_check_keys_says_what_it_checked(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    """A key taken is said, and so is a check that had nothing to ask: a silent exit 0 told
    a taken key from no check at all in no way."""
    run(proctor, tmp_path)  # (writes the case)
    args = ("validate", "--source", str(tmp_path / "cases"), "--check-keys", "--config")
    result = proctor(*args, str(tmp_path / "proctor.json"))
    assert result.code == 0, result.err
    assert f"keys     anthropic at {anthropic} took the key in ANTHROPIC_API_KEY (in" in result.out
    assert "characters); has claude-x\n" in result.out
    assert KEY not in result.out + result.err
    scripted = tmp_path / "scripted.json"
    scripted.write_text(json.dumps({"models": {"judge": "scripted/judge"}}))
    result = proctor(*args, str(scripted))
    assert result.code == 0, result.err
    assert "keys     none checked: no role calls a provider with a key of its own" in result.out
    result = proctor(*args, str(scripted), "--json")  # the same lines, under "keys"
    assert result.code == 0, result.err
    none = "none checked: no role calls a provider with a key of its own"
    assert json.loads(result.out)["keys"] == [none]


def test_validate_check_keys_says_the_taken_keys_beside_a_refused_one(
    proctor: Run, tmp_path: Path, anthropic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anthropic refuses the judge's key, the OpenAI-compatible server takes the key of an
    llm-judge's own model: the refusal is the problem, and the taken key is still said."""
    Provider.status = 401
    cases = judged_suite(tmp_path)
    case = json.loads((cases / "judged" / "config.json").read_text())
    case["evaluators"].append(
        {"use": "llm-judge", "rubric": "evaluation.md", "model": "openai/gpt-x"}
    )
    (cases / "judged" / "config.json").write_text(json.dumps(case))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("PROCTOR_OPENAI_BASE_URL", anthropic + "/openai/v1")
    args = ("validate", "--source", str(cases), "--check-keys", "--config")
    result = proctor(*args, str(tmp_path / "proctor.json"))
    assert result.code == 2 and f"anthropic at {anthropic} refused the key" in result.err
    assert f"keys     openai at {anthropic}/openai/v1 took the key in OPENAI_API_KEY" in result.out
    assert "keys     anthropic" not in result.out and KEY not in result.out + result.err
