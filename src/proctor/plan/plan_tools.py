"""A plan's raw ``tool`` steps checked against the real CLI that plays them on the scripted
model: a step naming another CLI's own tool (``{"tool": "Read"}`` on Codex or Gemini CLI) is
sent unchanged, and that CLI refuses it as an unknown tool mid-trial. Said once per case, CLI,
condition and step, before any trial, as a warning (a plan may mean to make that call fail)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from proctor.agents.base import adapter_for
from proctor.errors import AgentError
from proctor.models.plan import TrialSpec
from proctor.scripted.plan import plan_for_condition
from proctor.transcripts.kinds import CLAUDE_KINDS, CODEX_KINDS, GEMINI_KINDS

NATIVE_TOOLS: dict[str, tuple[str, frozenset[str]]] = {
    "claude-code": ("Claude Code", frozenset(CLAUDE_KINDS)),
    "codex": ("Codex", frozenset(CODEX_KINDS)),
    "gemini-cli": ("Gemini CLI", frozenset(GEMINI_KINDS)),
}
"""The built-in tool names of each real CLI the scripted model drives."""

MAPPED = {
    "shell": "shell",
    "read": "read",
    "write": "write",
    "edit": "edit",
    "search": "search",
    "question": "ask",
}
"""A tool kind → the plan step that each CLI plays with its own tool of that kind."""


def _tool_steps(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(where, tool name)`` of each raw ``tool`` step of a condition's validated plan."""
    if isinstance(plan.get("turns"), list):
        lists = [("turns", plan["turns"])]
    else:
        lists = [(f"variants[{v}]", steps) for v, steps in enumerate(plan.get("variants") or [])]
    for name, steps in lists:
        for i, step in enumerate(steps):
            if isinstance(step, dict) and isinstance(step.get("tool"), str):
                yield f"{name}[{i}]", step["tool"]


def _kind(tool: str) -> str | None:
    for table in (CLAUDE_KINDS, CODEX_KINDS, GEMINI_KINDS):
        if tool in table:
            return MAPPED.get(table[tool])
    return None


def plan_tool_warnings(trials: Iterable[TrialSpec]) -> list[str]:
    """One sentence per raw ``tool`` step that names a built-in tool of another real CLI than
    the one a scripted-model trial runs, which that CLI does not have."""
    said: dict[str, None] = {}
    seen: set[tuple[str, str, str]] = set()
    for spec in trials:
        plan = spec.case.case.plan
        if spec.backend != "scripted" or not plan:
            continue
        try:
            cli = adapter_for(spec.agent, {spec.agent: spec.profile}).name
        except (KeyError, AgentError):
            continue
        key = (str(spec.case.case.path), spec.agent, spec.condition)
        if cli not in NATIVE_TOOLS or key in seen:
            continue
        seen.add(key)
        label, own = NATIVE_TOOLS[cli]
        selected = plan_for_condition(plan, spec.condition)
        prefix = f"conditions.{spec.condition}." if "conditions" in plan else ""
        for where, tool in _tool_steps(selected or {}):
            owners = [n for c, (n, names) in NATIVE_TOOLS.items() if c != cli and tool in names]
            if tool in own or not owners:
                continue
            step = _kind(tool)
            hint = (
                f'; a {{"{step}": …}} step is played with each CLI\'s own tool'
                if step is not None
                else ""
            )
            said[
                f"{spec.case.case.plan_field(f'{prefix}{where}.tool')}: '{tool}' is "
                f"{' and '.join(owners)}'s; {label} ({spec.agent}) has no such tool, so it "
                f"refuses the call on the scripted model{hint}"
            ] = None
    return list(said)
