"""Two turns in one session: turn 2 asks for a change to what turn 1 wrote."""

import re

from proctor.evals import define_eval, includes

PLAN = {
    "turns": [
        {"read": "README.md"},
        {"write": {"path": "greet.py", "content": "def greet():\n    return 'hello'\n"}},
        {"shell": "python3 -c 'import greet; print(greet.greet())'"},
        {"say": "I wrote greet.py; greet() returns 'hello'."},
        {"endTurn": True},
        {"edit": {"path": "greet.py", "old": "'hello'", "new": "'hello, world'"}},
        {"shell": "python3 -c 'import greet; print(greet.greet())'"},
        {"say": "greet() now returns 'hello, world'."},
    ]
}


async def test(t):
    first = await t.send(
        "Write greet.py with a greet() function returning 'hello'.",
        workspace_files={"README.md": "# Greeter\nA tiny project.\n"},
    )
    first.expect_ok()
    first.called_tool("write")
    first.tool_order(["read", "write", "shell"])
    first.message_includes("hello")

    second = await t.send("Change it to return 'hello, world'.")
    second.expect_ok()
    second.called_tool("edit", input={"file_path": re.compile(r"greet\.py$")})
    second.not_called_tool("write")
    t.no_failed_actions()
    t.max_tool_calls(6)
    t.check((t.workspace / "greet.py").read_text(), includes("hello, world"))
    t.message_includes(re.compile(r"hello, world"))


eval = define_eval(
    description="writes a function, then changes it on request",
    tags=["multi-turn"],
    plan=PLAN,
    test=test,
)
