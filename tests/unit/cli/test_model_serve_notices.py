"""What ``proctor model serve`` says on stderr of the requests that did not go as planned: a
sentence once, then its count (a client retrying after the plan's last turn is not a line a
request), a refused body's secret masked and a path's escape sequence shown, not obeyed."""

from __future__ import annotations

from proctor.cli.model import Notices, notice
from proctor.models.logs import RequestRecord
from proctor.scripted.server.app import ScriptedModelServer
from proctor.util.masking import register_secret

KEY = "sk-ant-api03-SECRETSECRETSECRET1234567890"


def _past_the_end(index: int) -> RequestRecord:
    played = {"segment": 2, "exhausted": True}
    return RequestRecord(
        method="POST", path="/v1/messages", index=index, dialect="anthropic", played=played
    )


def test_a_request_said_alike_again_is_counted_not_said_again() -> None:
    said: list[str] = []
    notices = Notices(said.append)
    for index in range(101):
        notices(_past_the_end(index))
    notices(RequestRecord(method="POST", path="/v1/nowhere", status=404, error="no endpoint"))
    alike = (
        "POST /v1/messages (anthropic): prompt 2 comes after the plan's last turn, so the "
        "model replied 'I have nothing left in my plan.'"
    )
    assert said == [
        "warning: POST /v1/messages (request 0, anthropic): prompt 2 comes after the plan's last "
        "turn, so the model replied 'I have nothing left in my plan.'",
        f"warning: {alike} (10 times so far)",
        f"warning: {alike} (100 times so far)",
        "warning: POST /v1/nowhere answered 404: no endpoint",
    ]
    notices.stopped()
    assert said[4:] == [f"warning: {alike} (101 times in all)"]  # the 404 was said once only
    notices.stopped()
    assert len(said) == 5  # nothing new since


def test_a_count_said_last_is_not_said_again_when_the_server_stops() -> None:
    said: list[str] = []
    notices = Notices(said.append)
    for index in range(10):
        notices(_past_the_end(index))
    notices.stopped()
    assert len(said) == 2 and said[1].endswith("(10 times so far)")  # and not said again


def test_a_refused_body_s_secret_is_masked_in_the_warning_and_the_log(tmp_path: object) -> None:
    register_secret(KEY)
    error = f'malformed request: system: expected a string, got {{"token": "{KEY}"}}'
    record = RequestRecord(method="POST", path="/v1/messages", status=400, error=error)
    server = ScriptedModelServer({"turns": [{"say": "hi"}]})
    server.recorded(record)  # as the server records it: the log line's error masked too
    assert KEY not in (record.error or "")
    assert notice(record) == (
        "POST /v1/messages answered 400: malformed request: system: expected a string, got "
        '{"token": "***"}'
    )


def test_a_path_s_escape_sequence_is_shown_not_obeyed() -> None:
    path = "/\x1b[31mRED\x1b[0m\nline"
    record = RequestRecord(method="GET", path=path, status=404, error=f"no endpoint for GET {path}")
    shown = "/\\x1b[31mRED\\x1b[0m\\nline"
    assert notice(record) == f"GET {shown} answered 404: no endpoint for GET {shown}"
