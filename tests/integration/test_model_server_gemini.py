"""The scripted model server driven over plain HTTP with Gemini's API, as Gemini CLI would."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from proctor.scripted.server import ScriptedModelServer

PLAN = {
    "turns": [
        {"shell": "ls"},
        {"write": {"path": "a.txt", "content": "A\n"}},
        {"say": "Reading."},
        {"read": "a.txt"},
        {"search": "A"},
        {"edit": {"path": "a.txt", "old": "A", "new": "B"}},
        {"say": "Done with Gemini."},
        {"endTurn": True},
        {"say": "Second turn."},
    ]
}
CONTEXT = (
    "This is the Gemini CLI. We are setting up the context for our chat.\n"
    "Today's date is Monday.\nI'm currently working in the directory: /ws/gem\n"
)


def _decl(name: str, *params: str) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in params}
    return {
        "name": name,
        "description": name,
        "parametersJsonSchema": {"type": "object", "properties": props},
    }


GEMINI_TOOLS = [
    {
        "functionDeclarations": [
            _decl("run_shell_command", "command", "description", "dir_path"),
            _decl("write_file", "file_path", "content"),
            _decl("read_file", "absolute_path"),
            _decl("grep_search", "pattern", "dir_path"),
            _decl("replace", "file_path", "old_string", "new_string", "expected_replacements"),
        ]
    }
]


def post(
    url: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()


def generate(
    server: ScriptedModelServer, body: dict[str, Any], stream: bool, model: str = "gemini-3.1-pro"
) -> dict[str, Any]:
    """One generate call; a stream is folded into one response (parts concatenated)."""
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    status, data = post(
        f"{server.base_url}/v1beta/models/{model}:{method}", body, {"x-goog-api-key": "dummy"}
    )
    assert status == 200, data
    if not stream:
        return json.loads(data)
    chunks = [
        json.loads(line[6:]) for line in data.decode().split("\n") if line.startswith("data: ")
    ]
    assert len(chunks) >= 1
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}}],
        "usageMetadata": chunks[-1]["usageMetadata"],
    }


class GeminiLike:
    def __init__(self, server: ScriptedModelServer, stream: bool):
        self.server, self.stream = server, stream
        self.contents: list[dict[str, Any]] = [
            {"role": "user", "parts": [{"text": CONTEXT}]},
            {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
        ]
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def prompt(self, text: str) -> list[str]:
        self.contents.append({"role": "user", "parts": [{"text": text}]})
        for _ in range(10):
            body = {
                "contents": self.contents,
                "tools": GEMINI_TOOLS,
                "systemInstruction": {"parts": [{"text": "Be Gemini."}]},
            }
            response = generate(self.server, body, self.stream)
            assert response["usageMetadata"]["promptTokenCount"] > 0
            parts = response["candidates"][0]["content"]["parts"]
            self.contents.append({"role": "model", "parts": parts})
            calls = [p["functionCall"] for p in parts if "functionCall" in p]
            if not calls:
                return [p["text"] for p in parts]
            self.calls.append((calls[0]["name"], calls[0]["args"]))
            reply = {"functionResponse": {"name": calls[0]["name"], "response": {"output": "ok"}}}
            self.contents.append({"role": "user", "parts": [reply]})
        raise AssertionError("the turn did not end")


@pytest.mark.parametrize("stream", [True, False])
def test_gemini_loop_maps_actions_to_gemini_tools(stream: bool) -> None:
    with ScriptedModelServer(PLAN) as server:
        gemini = GeminiLike(server, stream)
        assert gemini.prompt("Make a.txt") == ["Done with Gemini."]
        assert gemini.prompt("More") == ["Second turn."]
    assert gemini.calls == [
        ("run_shell_command", {"command": "ls", "description": "ls"}),
        ("write_file", {"file_path": "/ws/gem/a.txt", "content": "A\n"}),
        ("read_file", {"absolute_path": "/ws/gem/a.txt"}),
        ("grep_search", {"pattern": "A", "dir_path": "/ws/gem"}),
        ("replace", {"file_path": "/ws/gem/a.txt", "old_string": "A", "new_string": "B"}),
    ]


def test_gemini_router_and_next_speaker_requests_get_schema_json() -> None:
    router = {
        "type": "OBJECT",
        "properties": {
            "reasoning": {"type": "STRING"},
            "model_choice": {"type": "STRING", "enum": ["flash", "pro"]},
        },
        "required": ["reasoning", "model_choice"],
    }
    speaker = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "next_speaker": {"type": "string", "enum": ["model", "user"]},
        },
    }
    with ScriptedModelServer(PLAN) as server:
        contents = [{"role": "user", "parts": [{"text": "Make a.txt"}]}]
        routed = generate(
            server,
            {"contents": contents, "generationConfig": {"responseSchema": router}},
            False,
            "flash-lite",
        )
        spoken = generate(
            server,
            {"contents": contents, "generationConfig": {"responseJsonSchema": speaker}},
            False,
        )
        plain = generate(server, {"contents": contents}, True)
    answer = json.loads(routed["candidates"][0]["content"]["parts"][0]["text"])
    assert answer["model_choice"] == "flash" and answer["reasoning"]
    assert (
        json.loads(spoken["candidates"][0]["content"]["parts"][0]["text"])["next_speaker"] == "user"
    )
    assert plain["candidates"][0]["content"]["parts"] == [{"text": "OK"}]


def test_gemini_error_injection_uses_gemini_shape() -> None:
    with ScriptedModelServer(PLAN, errors={0: {"status": 429, "message": "quota"}}) as server:
        url = f"{server.base_url}/v1beta/models/g:generateContent"
        body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": GEMINI_TOOLS}
        status, data = post(url, body)
        assert status == 429
        assert json.loads(data)["error"] == {
            "code": 429,
            "message": "quota",
            "status": "RESOURCE_EXHAUSTED",
        }
        status, data = post(url, body)
        assert status == 200


def test_key_in_query_or_header_is_never_logged(tmp_path: Any) -> None:
    secret = "AIzaPLANTED-SECRET-0123456789"
    log = tmp_path / "log.jsonl"
    with ScriptedModelServer(PLAN, log_path=log) as server:
        url = f"{server.base_url}/v1beta/models/g:generateContent?key={secret}"
        post(
            url,
            {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": GEMINI_TOOLS},
            {"x-goog-api-key": secret},
        )
    text = log.read_text()
    assert secret not in text
    record = json.loads(text)
    assert record["path"] == "/v1beta/models/g:generateContent"
    assert record["model"] == "g" and record["tools"][0] == "grep_search"
