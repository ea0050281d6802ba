"""The scripted model server: real agent CLIs run a plan against it with zero tokens.

See ``docs/scripted-model.md``. Start one per trial::

    with ScriptedModelServer(plan, log_path=trial_dir / "model-requests.jsonl") as server:
        env["ANTHROPIC_BASE_URL"] = server.base_url
"""

from __future__ import annotations

from proctor.scripted.server.app import ScriptedModelServer, default_roles
from proctor.scripted.server.exchange import ModelRequest, Reply, Role, ToolCall
from proctor.scripted.server.player import PlanRole
from proctor.scripted.server.side import SideRole

__all__ = [
    "ModelRequest",
    "PlanRole",
    "Reply",
    "Role",
    "ScriptedModelServer",
    "SideRole",
    "ToolCall",
    "default_roles",
]
