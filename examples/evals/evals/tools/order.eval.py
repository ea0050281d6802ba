"""Iterations, event gates, scores, metrics and logs."""

from proctor.evals import define_eval

PLAN = {
    "turns": [
        {"search": "def add", "path": "."},
        {"read": "calc.py"},
        {"edit": {"path": "calc.py", "old": "a - b", "new": "a + b"}},
        {"shell": "python3 -c 'import calc; assert calc.add(2, 2) == 4'"},
        {"say": "Fixed add(): it subtracted."},
    ]
}


async def test(t):
    await t.send("add() is wrong; fix it.", workspace_files={"calc.py": "def add(a, b):\n    return a - b\n"})
    t.log(f"iteration {t.iteration} of {t.iterations}")
    t.tool_order(["search", "read", "edit", "shell"])
    t.event("tool_call", {"kind": "edit", "input": {"file_path": "calc.py"}})
    t.not_event("tool_result", {"isError": True})
    t.event_order(["user_message", ("tool_call", {"kind": "edit"}), "assistant_text"])
    t.events_satisfy("verified after the last edit", verified_after_edit)
    t.score("brevity", 1.0 if len(t.reply) < 80 else 0.5).at_least(0.5)  # a bar: now a gate
    t.metric("events", len(t.events))


def verified_after_edit(events):
    kinds = [e.kind for e in events if e.type == "tool_call"]
    return "edit" in kinds and "shell" in kinds[kinds.index("edit") :]


eval = define_eval(description="search, read, edit, verify", tags=["tools"], iterations=3, plan=PLAN, test=test)
