"""Which tools a hook's matcher names, by Claude Code's and Codex's rules: one reading for
``proctor hooks test`` (which hooks a case runs) and ``hook-transcript-check`` (which tool
calls a hook's evidence may come from).

    names_tool("Bash, Write", "PreToolUse", "Write", legacy=True)   # True
"""

from __future__ import annotations

import re

SIMPLE_MATCHER = re.compile(r"[A-Za-z0-9_|]+")
LIST_MATCHER = re.compile(r"[a-zA-Z0-9_|, -]+")
"""On :data:`LIST_EVENTS`, Claude Code 2.1.197 reads such a matcher as a list of names split on
``|`` or ``,`` (``"Bash, Write"``), not as a regular expression."""
LIST_EVENTS = frozenset(
    {
        *("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"),
        *("PermissionDenied", "UserPromptExpansion", "SessionStart", "SessionEnd", "Setup"),
        *("PreCompact", "PostCompact", "Notification", "SubagentStart", "SubagentStop"),
        *("Elicitation", "ElicitationResult", "ConfigChange", "InstructionsLoaded"),
    }
)
LEGACY_TOOLS = {
    "Task": "Agent",
    "KillShell": "TaskStop",
    "KillBash": "TaskStop",
    "AgentOutputTool": "TaskOutput",
    "BashOutputTool": "TaskOutput",
    "AgentOutput": "TaskOutput",
    "BashOutput": "TaskOutput",
    "ListPeers": "ListAgents",
    "Brief": "SendUserMessage",
    "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool",
    "ReadMcpResourceDir": "ReadMcpResourceDirTool",
}
"""Claude Code's older tool names → today's: a matcher naming one names the tool."""


def regex_search(pattern: str, text: str) -> bool:
    """``pattern`` searched in ``text``; a pattern that is no regular expression matches
    itself only."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return pattern == text


def names_tool(
    matcher: str, event: str, subject: str, *, legacy: bool, tool_event: bool = True
) -> bool:
    """Whether a (non-empty, not ``*``) ``matcher`` of ``event`` names ``subject`` (a tool, or a
    session source): a list of names on :data:`LIST_EVENTS`, plain ``A|B`` names exactly,
    anything else a regular expression searched in it. With ``legacy`` (Claude Code), a tool's
    older names count as it."""
    names: list[str] | None = None
    if event in LIST_EVENTS and LIST_MATCHER.fullmatch(matcher):
        names = [part.strip() for part in re.split(r"[|,]", matcher) if part.strip()]
    elif SIMPLE_MATCHER.fullmatch(matcher):
        names = [part.strip() for part in matcher.split("|") if part.strip()]
    if names is not None:
        if legacy:  # a tool named as it was once named is the tool
            names = [LEGACY_TOOLS.get(name, name) for name in names]
        return subject in names
    if regex_search(matcher, subject):
        return True
    if legacy and tool_event:
        earlier = [old for old, now in LEGACY_TOOLS.items() if now == subject]
        return any(regex_search(matcher, name) for name in earlier)
    return False
