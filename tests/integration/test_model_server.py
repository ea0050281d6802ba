"""The scripted model server driven by the official Anthropic SDK, as Claude Code would."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import pytest

from proctor.scripted.plan import PlanError
from proctor.scripted.server import ScriptedModelServer, player

SYSTEM = [
    {"type": "text", "text": "You are Claude Code."},
    {"type": "text", "text": "<env>\nWorking directory: /ws/project\nPlatform: linux\n</env>"},
]
PLAN = {
    "turns": [
        {"say": "I'll create the file."},
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "ls"},
        {"say": "Created hello.txt."},
        {"endTurn": True},
        {"edit": {"path": "hello.txt", "old": "hello", "new": "bye"}},
        {"say": "Edited."},
    ]
}


def _tool(name: str, *params: str) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in params}
    return {
        "name": name,
        "description": name,
        "input_schema": {"type": "object", "properties": props},
    }


CLAUDE_TOOLS = [
    _tool("Bash", "command", "description", "timeout"),
    _tool("Write", "file_path", "content"),
    _tool("Edit", "file_path", "old_string", "new_string", "replace_all"),
    _tool("Read", "file_path"),
    _tool("Grep", "pattern", "path"),
]


def _block(block: Any) -> dict[str, Any]:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}


class ClaudeLike:
    """Plays the client side of Claude Code's loop with the SDK: call, run tools, call again."""

    def __init__(self, client: anthropic.Anthropic, tools: list[dict[str, Any]], stream: bool):
        self.client, self.tools, self.stream = client, tools, stream
        self.messages: list[dict[str, Any]] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _call(self) -> Any:
        kwargs: dict[str, Any] = {
            "model": "claude-opus-4-8",
            "max_tokens": 1024,
            "system": SYSTEM,
            "messages": self.messages,
            "tools": self.tools,
        }
        if not self.stream:
            return self.client.messages.create(**kwargs)
        with self.client.messages.stream(**kwargs) as stream:
            return stream.get_final_message()

    def prompt(self, text: str, limit: int = 10) -> list[str]:
        """Send a prompt and loop until the turn ends; return the final response's texts."""
        reminder = {"type": "text", "text": "<system-reminder>context</system-reminder>"}
        self.messages.append(
            {"role": "user", "content": [reminder, {"type": "text", "text": text}]}
        )
        for _ in range(limit):
            message = self._call()
            self.messages.append(
                {"role": "assistant", "content": [_block(b) for b in message.content]}
            )
            uses = [b for b in message.content if b.type == "tool_use"]
            if message.stop_reason != "tool_use":
                assert not uses
                return [b.text for b in message.content if b.type == "text"]
            assert len(uses) == 1
            self.calls.append((uses[0].name, uses[0].input))
            result = {"type": "tool_result", "tool_use_id": uses[0].id, "content": "ok"}
            self.messages.append({"role": "user", "content": [result]})
        raise AssertionError("the turn did not end")


@pytest.fixture
def client_for() -> Any:
    clients: list[anthropic.Anthropic] = []

    def make(server: ScriptedModelServer, api_key: str = "dummy") -> anthropic.Anthropic:
        client = anthropic.Anthropic(base_url=server.base_url, api_key=api_key, max_retries=0)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.mark.parametrize("stream", [True, False])
def test_claude_loop_plays_the_plan_in_order(client_for: Any, stream: bool) -> None:
    with ScriptedModelServer(PLAN) as server:
        claude = ClaudeLike(client_for(server), CLAUDE_TOOLS, stream)
        assert claude.prompt("Create hello.txt") == ["Created hello.txt."]
        assert claude.calls == [
            ("Write", {"file_path": "/ws/project/hello.txt", "content": "hello\n"}),
            ("Bash", {"command": "ls", "description": "ls"}),
        ]
        assert claude.prompt("Now change it") == ["Edited."]
    assert claude.calls[2] == (
        "Edit",
        {
            "file_path": "/ws/project/hello.txt",
            "old_string": "hello",
            "new_string": "bye",
            "replace_all": False,
        },
    )


def test_say_and_tool_share_one_response_and_usage_is_deterministic(client_for: Any) -> None:
    with ScriptedModelServer(PLAN) as server:
        client = client_for(server)
        messages = [{"role": "user", "content": "Create hello.txt"}]
        first = client.messages.create(
            model="m", max_tokens=10, messages=messages, tools=CLAUDE_TOOLS
        )
        again = client.messages.create(
            model="m", max_tokens=10, messages=messages, tools=CLAUDE_TOOLS
        )
    assert [b.type for b in first.content] == ["text", "tool_use"]
    assert first.stop_reason == "tool_use"
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 1
    assert first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation_input_tokens == 0
    assert (again.usage.input_tokens, again.usage.output_tokens) == (
        first.usage.input_tokens,
        first.usage.output_tokens,
    )
    assert again.id != first.id


def plays_segment_two(server: ScriptedModelServer, client: anthropic.Anthropic) -> bool:
    """True when a second prompt in the conversation plays the plan's second segment."""
    claude = ClaudeLike(client, CLAUDE_TOOLS, stream=True)
    claude.prompt("first")
    claude.prompt("second")
    return [name for name, _ in claude.calls] == ["Write", "Bash", "Edit"]


def test_second_prompt_plays_second_segment(client_for: Any) -> None:
    with ScriptedModelServer(PLAN) as server:
        assert plays_segment_two(server, client_for(server))


def test_control_broken_step_derivation_is_caught(
    client_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ignore_prompts(turns: Any) -> tuple[int, int]:
        return 1, sum(1 for t in turns if t.role == "assistant" and t.calls)

    monkeypatch.setattr(player, "position", ignore_prompts)
    with ScriptedModelServer(PLAN) as server:
        assert not plays_segment_two(server, client_for(server))


def test_title_side_request_answers_json_and_consumes_nothing(client_for: Any) -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    with ScriptedModelServer(PLAN) as server:
        client = client_for(server)
        claude = ClaudeLike(client, CLAUDE_TOOLS, stream=True)
        for _ in range(2):
            title = client.messages.create(
                model="claude-haiku",
                max_tokens=100,
                system="Generate a concise title for this session.",
                messages=[{"role": "user", "content": "Create hello.txt"}],
                extra_body={"output_config": {"format": {"type": "json_schema", "schema": schema}}},
            )
            assert json.loads(title.content[0].text) == {"title": "Scripted session"}
        assert claude.prompt("Create hello.txt") == ["Created hello.txt."]
        titled = client.messages.create(
            model="m",
            max_tokens=10,
            system="Write a title for the conversation.",
            messages=claude.messages,
            tools=CLAUDE_TOOLS,
        )
    assert titled.stop_reason == "end_turn"
    assert [n for n, _ in claude.calls] == ["Write", "Bash"]


def test_ask_uses_ask_user_question_when_offered_else_text(client_for: Any) -> None:
    plan = {"turns": [{"ask": "Which color?", "options": ["Red", "Blue"]}, {"shell": "echo done"}]}
    ask_tool = _tool("AskUserQuestion", "questions")
    with ScriptedModelServer(plan) as server:
        tui = ClaudeLike(client_for(server), [*CLAUDE_TOOLS, ask_tool], stream=True)
        tui.prompt("go")
        headless = ClaudeLike(client_for(server), CLAUDE_TOOLS, stream=False)
        assert headless.prompt("go") == ["Which color?\n1. Red\n2. Blue"]
        headless.prompt("Blue")
    question = tui.calls[0][1]["questions"][0]
    assert tui.calls[0][0] == "AskUserQuestion"
    assert question["options"] == [
        {"label": "Red", "description": "Red"},
        {"label": "Blue", "description": "Blue"},
    ]
    assert question["multiSelect"] is False
    assert [n for n, _ in tui.calls] == ["AskUserQuestion", "Bash"]
    assert headless.calls == [("Bash", {"command": "echo done", "description": "echo done"})]


def test_variants_and_conditions_select_the_plan(client_for: Any) -> None:
    plan = {
        "conditions": {
            "baseline": {"variants": [[{"say": "one"}], [{"say": "two"}]]},
            "with-plugin": {"turns": [{"say": "plugin"}]},
        }
    }
    seen = {}
    for condition, repeat in [
        ("baseline", 1),
        ("baseline", 2),
        ("baseline", 3),
        ("with-plugin", 1),
    ]:
        with ScriptedModelServer(plan, condition=condition, repeat=repeat) as server:
            claude = ClaudeLike(client_for(server), CLAUDE_TOOLS, stream=True)
            seen[(condition, repeat)] = claude.prompt("hi")
    assert seen == {
        ("baseline", 1): ["one"],
        ("baseline", 2): ["two"],
        ("baseline", 3): ["one"],
        ("with-plugin", 1): ["plugin"],
    }
    with pytest.raises(PlanError, match="condition 'other'"):
        ScriptedModelServer(plan, condition="other")


def test_concurrent_conversations_on_one_server(client_for: Any) -> None:
    with ScriptedModelServer(PLAN) as server:
        results: dict[int, list[str]] = {}

        def run(i: int) -> None:
            claude = ClaudeLike(client_for(server), CLAUDE_TOOLS, stream=i % 2 == 0)
            claude.prompt(f"first {i}")
            claude.prompt(f"second {i}")
            results[i] = [name for name, _ in claude.calls]

        threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert results == {i: ["Write", "Bash", "Edit"] for i in range(8)}


def test_sleep_delays_without_blocking_other_requests(client_for: Any) -> None:
    plan = {"turns": [{"sleep": 0.4}, {"say": "late"}]}
    with ScriptedModelServer(plan) as server:
        client = client_for(server)
        out: list[str] = []

        def run() -> None:
            message = client.messages.create(
                model="m",
                max_tokens=5,
                messages=[{"role": "user", "content": "hi"}],
                tools=CLAUDE_TOOLS,
            )
            out.append(message.content[0].text)

        started = time.monotonic()
        threads = [threading.Thread(target=run) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        elapsed = time.monotonic() - started
    assert out == ["late"] * 5
    assert 0.4 <= elapsed < 1.5


def test_injected_errors_fail_requests_without_consuming_steps(
    client_for: Any, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    errors = {0: {"status": 429, "message": "slow down"}, 1: {"status": 500}}
    with ScriptedModelServer(PLAN, errors=errors, log_path=log) as server:
        claude = ClaudeLike(client_for(server), CLAUDE_TOOLS, stream=True)
        with pytest.raises(anthropic.RateLimitError, match="slow down"):
            claude.prompt("go")
        claude.messages.clear()
        with pytest.raises(anthropic.InternalServerError):
            claude.prompt("go")
        claude.messages.clear()
        assert claude.prompt("go") == ["Created hello.txt."]
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["index"], r["status"], r["played"]) for r in records[:3]] == [
        (0, 429, "error"),
        (1, 500, "error"),
        (2, 200, records[2]["played"]),
    ]
    assert records[2]["played"]["steps"] == [0, 1]
    with pytest.raises(ValueError, match="HTTP error code"):
        ScriptedModelServer(PLAN, errors={0: {"status": 200}})


def test_log_records_requests_and_never_keys(client_for: Any, tmp_path: Path) -> None:
    secret = "sk-ant-PLANTED-0123456789abcdef"
    log = tmp_path / "requests.jsonl"
    with ScriptedModelServer(PLAN, log_path=log) as server:
        claude = ClaudeLike(client_for(server, api_key=secret), CLAUDE_TOOLS, stream=True)
        claude.prompt("Create hello.txt")
        request = urllib.request.Request(
            f"{server.base_url}/v1/messages?beta=true&key={secret}",
            data=json.dumps(
                {"model": "m", "messages": [{"role": "user", "content": "x"}]}
            ).encode(),
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            assert response.status == 200
    text = log.read_text()
    assert secret not in text
    # The side request comes on its own connection and may be logged before the agent's last.
    logged = [json.loads(line) for line in text.splitlines()]
    records = [r for r in logged if r["played"] != "side request"]
    assert len(records) == len(logged) - 1
    first = records[0]
    assert first["path"] == "/v1/messages" and first["dialect"] == "anthropic"
    assert first["stream"] is True and first["status"] == 200
    assert first["tools"] == sorted(t["name"] for t in CLAUDE_TOOLS)
    assert first["messages"] == 1 and first["requestBytes"] > 0 and first["responseBytes"] > 0
    assert first["played"] == {
        "segment": 1,
        "response": 1,
        "steps": [0, 1],
        "tool": "Write",
        "endTurn": False,
    }
    assert records[2]["played"]["endTurn"] is True
