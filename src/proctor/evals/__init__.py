"""Evals written as code: ``evals/**/*.eval.py`` files, each defining one eval with
``define_eval(...)``; an ``async def test(t)`` sends turns to the agent and gates on the
decisions it made. See docs/evals.md.

    from proctor.evals import define_eval, includes

    async def test(t):
        turn = await t.send("Add a health check endpoint.", workspace_files={"app.py": "..."})
        turn.expect_ok()
        t.called_tool("edit")
        t.not_called_tool("web")
        t.check(t.reply, includes("health"))

    eval = define_eval(description="adds an endpoint", test=test)
"""

from proctor.evals.define import case, define_eval, define_eval_config
from proctor.evaluators.gates.expect import (
    equals,
    includes,
    matches,
    normalized_similarity,
    satisfies,
    similarity,
)

__all__ = [
    "case",
    "define_eval",
    "define_eval_config",
    "equals",
    "includes",
    "matches",
    "normalized_similarity",
    "satisfies",
    "similarity",
]
