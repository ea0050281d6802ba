"""An index.eval.py names its folder: these cases are builds/endpoints and builds/no-web."""

from proctor.evals import case, define_eval, matches, satisfies
from proctor.evals.loaders import load_json

FIXTURE = load_json("fixtures/endpoints.json")  # resolved against the project root

ENDPOINTS = {
    "turns": [
        {"read": "app.py"},
        {
            "edit": {
                "path": "app.py",
                "old": "app = Flask(__name__)\n",
                "new": "app = Flask(__name__)\n\n@app.get('/health')\ndef health():\n    return {'ok': True}\n",
            }
        },
        {"say": '{"added": ["/health"], "status": "done"}'},
    ]
}


async def endpoints(t):
    turn = await t.send("Add a /health endpoint; answer with JSON.", workspace_files={"app.py": FIXTURE["app"]})
    turn.expect_ok()
    call = t.require_tool_call("edit")
    t.check(call.input, satisfies(lambda i: "health" in str(i), "the edit adds /health"))
    t.check(t.reply, matches(lambda text: __import__("json").loads(text)["added"]))
    t.metric("edits", len([c for c in turn.tool_calls if c.call.kind == "edit"]))


ASK_FIRST = {
    "turns": [
        {"say": "Which endpoint should I add: /health or /ready?"},
        {"endTurn": True},
        {"write": {"path": "ready.py", "content": "READY = True\n"}},
        {"say": "Added /ready."},
    ]
}


async def no_web(t):
    first = await t.send("Add one of the endpoints.")
    t.check(first.message, satisfies(lambda m: m.endswith("?"), "asks back"))
    second = await t.send("/ready, please.")
    second.called_tool("write", input={"file_path": "ready.py"})
    t.not_called_tool("web")
    t.used_no_tools().soft()  # recorded, not gating: this agent does use tools
    t.succeeded()


eval = define_eval(
    description="endpoint work",
    tags=["builds"],
    cases=[
        case(id="endpoints", description="adds /health and reports JSON", plan=ENDPOINTS, test=endpoints),
        case(id="no-web", description="asks, then adds /ready without the web", plan=ASK_FIRST, test=no_web),
    ],
)
