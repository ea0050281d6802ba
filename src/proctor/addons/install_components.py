"""Whether the components an expect file names are among what the audit found: each
expected skill, hook, MCP server and plugin must be loaded (not a decoy) by its agent."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

from proctor.addons.audit.hook_tables import unknown_event
from proctor.addons.audit.render import KIND_TITLES
from proctor.addons.install_expect import AgentExpectation, ExpectedHook
from proctor.addons.shown import command_masked
from proctor.models.audit import AgentAudit, AuditComponent
from proctor.models.install_check import InstallCheck

Placeholders = Callable[[str], str]

KIND_NAMES = {
    "mcp": "MCP server",
    "command": "slash command",
    "permission": "permission rule",
    "instructions": "instruction file",
    "settings": "other agent's settings file",
}
"""A kind of component as the audit and the docs name one (its plural: the audit's titles);
the other kinds are named by their id (``skill``, ``hook``, ``plugin``, ``subagent``)."""


def kind_name(kind: str, *, plural: bool = False) -> str:
    """``MCP server`` for ``mcp`` (``MCP servers``, plural), as ``proctor audit`` says it."""
    if plural:
        return KIND_TITLES.get(kind, kind + "s")
    return KIND_NAMES.get(kind, kind)


def component_checks(
    agent: str, expected: AgentExpectation, found: AgentAudit | None, expand: Placeholders
) -> list[InstallCheck]:
    """One ``present`` check per expected component."""
    components = found.components if found is not None else []
    checks = []
    named = (
        ("skill", expected.skills),
        ("mcp", expected.mcp),
        ("plugin", expected.plugins),
        ("command", expected.commands),
        ("subagent", expected.subagents),
    )
    for kind, names in named:
        for name in names:
            candidates = [c for c in components if c.kind == kind and c.name == name]
            what = f"{kind_name(kind)} '{name}'"
            checks.append(verdict(agent, what, candidates, components, kind))
    for hook in expected.hooks:
        candidates = [c for c in components if c.kind == "hook" and hook_matches(hook, c, expand)]
        check = verdict(agent, hook.describe(), candidates, components, "hook")
        never = unknown_event(agent, hook.event)
        if not check.passed and never is not None:  # the expect file's own event: said
            check.message += f"; the expect file's event {hook.event} {never}"
        checks.append(check)
    return checks


def hook_matches(hook: ExpectedHook, found: AuditComponent, expand: Placeholders) -> bool:
    event = found.event or found.name.split(":", 1)[0]
    if event != hook.event:
        return False
    if hook.matcher is not None and (found.matcher or "") != hook.matcher:
        return False
    if hook.command is None:
        return True
    wanted, actual = expand(hook.command).strip(), (found.command or "").strip()
    return actual == wanted or fnmatch.fnmatchcase(actual, wanted)


def verdict(
    agent: str,
    what: str,
    candidates: list[AuditComponent],
    components: list[AuditComponent],
    kind: str,
) -> InstallCheck:
    loaded = [c for c in candidates if c.decoy is None]
    if loaded:
        return InstallCheck(
            name="present", agent=agent, passed=True, message=f"{what} in {loaded[0].file}"
        )
    if candidates:
        decoy = candidates[0]
        message = f"{what} is in {decoy.file} but {agent} would not load it ({decoy.decoy})"
    else:
        same_kind = [describe(c) for c in components if c.kind == kind]
        seen = "; ".join(same_kind[:6]) if same_kind else "none"
        found = kind_name(kind, plural=True)
        message = f"{what} was not found where {agent} loads it (found {found}: {seen})"
    return InstallCheck(name="present", agent=agent, passed=False, message=message)


def named(component: AuditComponent) -> str:
    """The component with its kind: ``MCP server tidy in home/.codex/config.toml``."""
    return f"{kind_name(component.kind)} {describe(component)}"


def describe(component: AuditComponent) -> str:
    text = component.name
    if component.kind == "hook" and component.command:
        text += f" running {command_masked(component.command)!r}"
    text += f" in {component.file}"
    return text + (f" (decoy: {component.decoy})" if component.decoy else "")


def added_components(before: AgentAudit | None, after: AgentAudit | None) -> list[AuditComponent]:
    """Components in ``after`` that ``before`` did not have (by kind, name and file)."""
    if after is None:
        return []
    seen = {(c.kind, c.name, c.file) for c in (before.components if before else [])}
    return [c for c in after.components if (c.kind, c.name, c.file) not in seen]
