"""The agent stops on a question nobody answered: the turn parks, the test reads the pending
request and answers it with the next send."""

from proctor.evals import define_eval

PLAN = {
    "turns": [
        {"ask": "Which database should I use?", "options": ["SQLite", "Postgres"]},
        {"write": {"path": "db.txt", "content": "sqlite\n"}},
        {"say": "Using SQLite."},
    ]
}


async def test(t):
    first = await t.send("Set up storage.")
    first.parked()
    request = t.require_input_request("database")
    t.check(request.options, ["SQLite", "Postgres"])
    second = await t.send("SQLite")
    second.expect_ok()
    second.called_tool("write", input={"file_path": "db.txt"})
    t.message_includes("SQLite")


eval = define_eval(description="a question parks the turn; the test answers it", tags=["asks"], plan=PLAN, test=test)
