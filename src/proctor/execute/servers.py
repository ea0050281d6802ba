"""proctor's scripted model server in a trial: for the agent (``--model scripted``: the real CLI
plays the case's plan at zero tokens) and for proctor's own roles on the scripted model (the
plan's ``roles`` replies). The roles' server stops when the trial ends.

The server's modules (and ``http.server``) are imported by the trials that start one, not by
every run: a run of the scripted agent never needs them (``make bench``, one trial)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from proctor.agents.base import AgentAdapter
from proctor.execute.context import TrialContext
from proctor.llm.roles import RoleSet

if TYPE_CHECKING:
    from proctor.scripted.server import ScriptedModelServer


def start_harness_server(ctx: TrialContext, roles: RoleSet) -> None:
    """Answer proctor's roles that use the scripted model from the plan's ``roles``."""
    if not roles.uses_scripted():
        return
    from proctor.scripted.plan import plan_roles
    from proctor.scripted.server import ScriptedModelServer

    plan = ctx.spec.case.case.plan or {}
    server = ScriptedModelServer(
        {"roles": plan_roles(plan, ctx.spec.condition)}, log_path=ctx.paths.harness_requests
    )
    server.start()
    ctx.cleanups.callback(server.stop)
    roles.set_url("scripted", server.base_url)


def start_model_server(
    ctx: TrialContext, adapter: AgentAdapter[object]
) -> ScriptedModelServer | None:
    """The scripted model server for a real CLI, when the trial runs on it; the caller stops it
    when driving ends."""
    spec = ctx.spec
    if spec.backend != "scripted" or adapter.name == "scripted":
        return None
    from proctor.scripted.plan import plan_errors
    from proctor.scripted.server import ScriptedModelServer

    plan = spec.case.case.plan or {"turns": []}
    server = ScriptedModelServer(
        plan,
        errors=plan_errors(plan, spec.condition),
        log_path=ctx.paths.model_requests,
        repeat=spec.repeat,
        condition=spec.condition,
    )
    server.start()
    return server
