"""``proctor model serve``: prints the base URL, serves until interrupted, rejects bad plans."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from proctor.cli.model import command
from proctor.errors import ConfigError
from tests.conftest import CliResult


def test_serve_prints_url_serves_and_stops_on_interrupt(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"turns": [{"say": "hello from the plan"}]}))
    log = tmp_path / "requests.jsonl"
    script = "import sys; from proctor.cli.model import command; command(sys.argv[1:])"
    args = ["serve", "--plan", str(plan), "--log", str(log)]
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        body = {
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "Bash"}],
        }
        request = urllib.request.Request(
            url + "/v1/messages",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["content"][0]["text"] == "hello from the plan"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "scripted model: 1 step; Ctrl-C stops" in err
    assert json.loads(log.read_text())["played"]["segment"] == 1


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (None, "cannot be read"),
        ("{nope", "malformed JSON at line 1, column 2"),
        ('{"turns": [{"say": 1}]}', r"field 'turns\[0\]\.say': expected a non-empty string, got 1"),
        ('{"conditions": {"a": {"turns": []}}}', "--condition default: "),
    ],
)
def test_bad_plans_are_config_errors(tmp_path: Path, content: str | None, match: str) -> None:
    plan = tmp_path / "plan.json"
    if content is not None:
        plan.write_text(content)
    result = CliRunner().invoke(command, ["serve", "--plan", str(plan)])
    assert isinstance(result.exception, ConfigError)
    assert str(plan) in str(result.exception)
    with pytest.raises(ConfigError, match=match):
        raise result.exception


def test_a_plan_that_is_not_utf8_is_one_sentence_and_exit_2(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_bytes(b'{"turns": [{"say": "caf\xe9"}]}')
    result = proctor("model", "serve", "--plan", str(plan))
    assert result.code == 2 and "Traceback" not in result.err
    assert result.err.strip().splitlines() == [
        f"proctor: error: --plan {plan}: not UTF-8 text (byte 0xe9 at offset 23)"
    ]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"turns": [],}', "malformed JSON at line 1, column 14: a comma before the closing '}'"),
        ('\ufeff{"turns": []}', "malformed JSON at line 1, column 1: it starts with a byte-order"),
        ('{"turns": []} // x', "malformed JSON at line 1, column 15: a comment ('//')"),
        ('{"turns": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply to read"),
        ('{"turns": [{"sleep": ' + "9" * 5000 + "}]}", "a number has more than 4300 digits"),
        ('{"turns": [{"say": "a"}], "turns": []}', "key 'turns' is given twice in one object"),
    ],
)
def test_a_plan_is_read_as_validate_reads_a_cases_plan(
    tmp_path: Path, proctor: Callable[..., CliResult], content: str, said: str
) -> None:
    """The plan is read as a case's ``plan.json`` is: the line and column and what is wrong,
    never a traceback (a deep nesting, a long number) nor a key given twice served silently."""
    plan = tmp_path / "plan.json"
    plan.write_text(content, encoding="utf-8")
    result = proctor("model", "serve", "--plan", str(plan))
    assert result.code == 2 and "Traceback" not in result.err and result.out == ""
    [line] = result.err.strip().splitlines()
    assert line.startswith(f"proctor: error: --plan {plan}: {said}"), line


def test_a_log_in_a_missing_folder_is_refused_before_serving(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"turns": [{"say": "hi"}]}))
    log = tmp_path / "missing" / "requests.jsonl"
    result = proctor("model", "serve", "--plan", str(plan), "--log", str(log))
    assert result.code == 2 and result.out == ""
    assert result.err.strip() == (
        f"proctor: error: --log {log}: the folder {log.parent} does not exist"
    )
    assert not log.parent.exists()


def test_help_lists_serve() -> None:
    result = CliRunner().invoke(command, ["--help"])
    assert result.exit_code == 0 and "serve" in result.output
    result = CliRunner().invoke(command, ["serve", "--help"])
    assert "--plan" in result.output and "--port" in result.output and "--log" in result.output


def test_sigterm_stops_serve_at_once_kept_alive_connection_or_not(tmp_path: Path) -> None:
    """``proctor model serve`` as run from a shell: SIGTERM (a process manager's stop) ends it
    at once, idle or with a client's kept-alive connection open, exit 0. At once: well within
    the 5 s a server waiting out its requests' grace would take (a loaded machine took 1.2 s
    to stop an idle one, a bound of one second failed there)."""
    import http.client
    import time

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"turns": [{"say": "one"}, {"say": "two"}]}))
    for keep_alive in (False, True):
        proc = subprocess.Popen(
            [sys.executable, "-m", "proctor", "model", "serve", "--plan", str(plan)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            if keep_alive:
                conn = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]))
                body = {
                    "model": "m",
                    "max_tokens": 9,
                    "messages": [{"role": "user", "content": "hi"}],
                }
                conn.request(
                    "POST", "/v1/messages", json.dumps(body), {"Content-Type": "application/json"}
                )
                assert conn.getresponse().read()
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=10)
            took = time.monotonic() - started
        finally:
            if keep_alive:
                conn.close()
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0 and "Traceback" not in err, err
        assert took < 3.0, f"took {took:.2f} s to stop (kept-alive: {keep_alive})"


def test_a_plan_s_mistake_names_the_file_given_not_plan_json(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    plan = tmp_path / "demo-plan.json"
    plan.write_text('{"turns": [{"shell": "ls", "bogus": 1}]}')
    result = proctor("model", "serve", "--plan", str(plan))
    assert result.code == 2 and result.out == ""
    assert result.err.strip() == (
        f"proctor: error: --plan {plan}: field 'turns[0]': unknown key 'bogus' (known keys: shell, "
        "timeoutSec), for action 'shell'"
    )
    plan.write_text('{"turns": [], "errors": {"0": {"status": 500, "body": "oops"}}}')
    body = proctor("model", "serve", "--plan", str(plan))
    assert body.code == 2 and "Traceback" not in body.err
    assert (
        f"--plan {plan}: field 'errors.0.body': expected a JSON object, got the string \"oops\""
        in body.err
    )


def test_a_condition_the_split_plan_lacks_is_named_with_the_plan_s_conditions(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    plan = tmp_path / "ab.json"
    plan.write_text('{"conditions": {"baseline": {"turns": []}, "with-map": {"turns": []}}}')
    result = proctor("model", "serve", "--plan", str(plan), "--condition", "with-mpa")
    assert result.code == 2 and result.out == ""
    assert result.err.strip() == (
        f"proctor: error: --condition with-mpa: --plan {plan} has no entry for it under "
        "'conditions' (conditions: baseline, with-map)"
    )


def test_serve_plays_the_plan_s_injected_errors_as_a_trial_s_server_does(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps({"turns": [{"say": "after the retry"}], "errors": {"0": {"status": 429}}})
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor", "model", "serve", "--plan", str(plan)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        body = {
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "Bash"}],
        }
        request = urllib.request.Request(url + "/v1/messages", data=json.dumps(body).encode())
        with pytest.raises(urllib.error.HTTPError) as first:
            urllib.request.urlopen(request, timeout=10)
        assert first.value.code == 429
        first.value.close()
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["content"][0]["text"] == "after the retry"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err


def test_a_log_under_a_file_is_said_to_be_under_a_file(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"turns": [{"say": "hi"}]}))
    log = plan / "requests.jsonl"
    result = proctor("model", "serve", "--plan", str(plan), "--log", str(log))
    assert result.code == 2 and result.out == ""
    assert result.err.strip() == f"proctor: error: --log {log}: {plan} is not a folder"


def test_serve_warns_on_stderr_of_requests_that_did_not_go_as_planned(tmp_path: Path) -> None:
    """Run by hand, the server's terminal is where a user looks: a plan tool call the client
    did not offer, a prompt past the plan's last turn, an unknown path and a body it cannot
    read are each one warning there (and in the log, the 404's reason); a request played as
    planned, and an error the plan injects, are not said."""
    plan = tmp_path / "plan.json"
    steps = [{"tool": "Frobnicate", "input": {"x": 1}}, {"say": "after"}]
    plan.write_text(json.dumps({"turns": steps, "errors": {"3": {"status": 429}}}))
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor", "model", "serve", "--plan", str(plan), "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def post(path: str, body: object) -> int:
        request = urllib.request.Request(url + path, data=json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
                return int(response.status)
        except urllib.error.HTTPError as exc:
            exc.close()
            return exc.code

    tools = [{"name": "Bash", "input_schema": {"type": "object"}}]
    first = [{"role": "user", "content": "hi"}]
    call = {"type": "tool_use", "id": "t1", "name": "Frobnicate", "input": {"x": 1}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "no such tool"}
    played = [
        *first,
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    ]
    second = [
        *played,
        {"role": "assistant", "content": "after"},
        {"role": "user", "content": "more"},
    ]
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert post("/v1/messages", {"model": "m", "messages": first, "tools": tools}) == 200
        assert post("/v1/messages", {"model": "m", "messages": played, "tools": tools}) == 200
        assert post("/v1/messages", {"model": "m", "messages": second, "tools": tools}) == 200
        assert post("/v1/messages", {"model": "m", "messages": first, "tools": tools}) == 429
        assert post("/v1/nowhere", {}) == 404
        assert post("/v1/messages", {"messages": 5}) == 400
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0 and "Traceback" not in err, err
    # Each request is said once answered: a request sent at once after it may be said first.
    warnings = sorted(line for line in err.splitlines() if line.startswith("warning: "))
    assert warnings == sorted(
        [
            "warning: POST /v1/messages (request 0, anthropic): the plan called Frobnicate (turn 1, "
            "response 1), which the client did not offer the model (it offered Bash): the CLI "
            "answers such a call as an unknown tool; a read, search, write, edit or shell step is "
            "played with the CLI's own tool",
            "warning: POST /v1/messages (request 2, anthropic): prompt 2 comes after the plan's "
            "last turn (it has 1 turn, split by endTurn), so the model replied 'I have nothing "
            "left in my plan.'",
            "warning: POST /v1/nowhere answered 404: no endpoint for POST /v1/nowhere",
            "warning: POST /v1/messages answered 400: malformed request: messages: expected a "
            "list of messages, got 5",
        ]
    )
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["error"] for r in records if r["status"] == 404] == [
        "no endpoint for POST /v1/nowhere"
    ]


def test_a_plan_with_no_turn_is_served_with_a_warning_naming_its_field(tmp_path: Path) -> None:
    """A plan with no turn is served, as ``proctor run`` plays one, but said before the URL:
    every prompt would end at once with 'Done.' and a '0 steps' note alone hid why."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"variants": [[{"say": "hi"}], [{"endTurn": True}]]}))
    serve = [sys.executable, "-m", "proctor", "model", "serve", "--plan", str(plan)]
    for repeat, said in (("1", None), ("2", "only endTurn steps")):
        proc = subprocess.Popen(
            [*serve, "--repeat", repeat],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline().startswith("http://127.0.0.1:")
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0 and "Traceback" not in err, err
        warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
        if said is None:
            assert warnings == []
            continue
        assert warnings == [
            f"warning: --plan {plan} has no turn to play (field 'variants[1]', the variant "
            f"--repeat 2 plays, has {said}): every prompt ends at once, with no tool call and "
            "the reply 'Done.' (or 'I have nothing left in my plan.' past the plan's end)"
        ]


def test_an_empty_turns_list_is_said_so(tmp_path: Path) -> None:
    from proctor.cli.model import _empty_plan_warning

    plan = tmp_path / "plan.json"
    said = _empty_plan_warning({"turns": []}, plan, "default", 1)
    assert (
        said is not None
        and f"--plan {plan} has no turn to play (field 'turns' has no step)" in said
    )
    split = {"conditions": {"a": {"turns": [{"say": "x"}]}, "b": {"turns": []}}}
    assert _empty_plan_warning(split, plan, "a", 1) is None
    said = _empty_plan_warning(split, plan, "b", 1)
    assert said is not None and "(field 'conditions.b.turns' has no step)" in said


def test_a_condition_given_for_a_plan_not_split_by_condition_is_refused(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    """As a condition a split plan lacks is refused: the option would be ignored silently."""
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"turns": [{"say": "hi"}]}))
    result = proctor("model", "serve", "--plan", str(plan), "--condition", "with-map")
    assert result.code == 2 and result.out == ""
    assert result.err.strip() == (
        f"proctor: error: --condition with-map: --plan {plan} is not split by condition (it "
        "has no 'conditions'), so it plays the same for every condition; leave --condition "
        "out, or give the plan a 'conditions' object"
    )


def test_a_port_in_use_names_the_port_option_and_port_0(
    tmp_path: Path, proctor: Callable[..., CliResult]
) -> None:
    import socket

    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"turns": [{"say": "hi"}]}))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = proctor("model", "serve", "--plan", str(plan), "--port", str(port))
    assert result.code == 2 and result.out == "" and "Traceback" not in result.err
    assert result.err.strip() == (
        f"proctor: error: --port {port}: cannot listen on 127.0.0.1:{port} (Address already in "
        "use); --port 0 picks a free port"
    )
