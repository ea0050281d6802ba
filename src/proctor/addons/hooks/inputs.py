"""What a hook receives, as each CLI sends it: which hooks match, the stdin JSON, the
environment and the command after the CLI's own substitutions.

Fields sent on stdin (every value planted, nothing from the real machine):

- **Claude Code 2.1.197**: ``session_id``, ``prompt_id``, ``transcript_path``, ``cwd``,
  ``permission_mode``, ``effort {level}``, ``hook_event_name``; tool events add ``tool_name``,
  ``tool_input`` (relative ``file_path``/``path``/``notebook_path`` made absolute, as the CLI
  always sends them) and ``tool_use_id``, ``PostToolUse`` adds ``tool_response``;
  ``UserPromptSubmit`` ``prompt``; ``SessionStart`` ``source``; ``Stop`` ``stop_hook_active``
  and ``last_assistant_message``.
- **Codex 0.171.0**: the same shape plus ``model`` and ``turn_id``.
- **Gemini CLI 0.61.0**: ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
  ``timestamp``; ``BeforeTool`` adds ``tool_name`` and ``tool_input`` (as given),
  ``AfterTool`` also ``tool_response {llmContent, returnDisplay}``; ``BeforeAgent``
  ``prompt``; ``AfterAgent`` ``prompt``, ``prompt_response``, ``stop_hook_active``;
  ``SessionStart`` ``source``; ``SessionEnd`` ``reason``; ``PreCompress`` ``trigger``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor.addons.hooks.cases import TOOL_EVENTS, HookCase
from proctor.addons.hooks.conditions import rule_matches
from proctor.addons.hooks.sources import HookSpec
from proctor.agents.hook_matchers import LIST_MATCHER, SIMPLE_MATCHER, names_tool, regex_search
from proctor.transcripts.detect import CLI_NAMES

PATH_KEYS = ("file_path", "path", "notebook_path")
GEMINI_TRIGGER_EVENTS = frozenset({"SessionStart", "SessionEnd", "PreCompress"})
"""Tools Claude Code 2.1.197 renamed: an earlier name → the tool's name now. A matcher that
names a tool by its earlier name (``"Task"``) matches the tool (``Agent``), and a regular
expression matches a tool when it matches one of the tool's earlier names (``"^Bash"``
matches ``TaskOutput``, once ``BashOutput``)."""


@dataclass(frozen=True)
class Session:
    """The planted session a case runs in."""

    session_id: str
    project: Path
    home: Path
    transcript: Path
    temp: Path | None = None
    """The hook's ``TMPDIR``, inside the case's scratch (removed with it)."""


def hook_matches(agent: str, hook: HookSpec, case: HookCase, project: Path | None = None) -> bool:
    """Whether ``agent`` would run ``hook`` for ``case``: event and matcher by the CLI's rules,
    and for Claude Code the handler's ``if`` (``project``: the folder the case's relative file
    paths are in)."""
    if hook.event != case.event or not _matcher_matches(agent, hook, case):
        return False
    if agent != "claude-code" or hook.condition is None:
        return True
    if case.event not in TOOL_EVENTS:
        return False  # Claude Code never runs a handler with ``if`` on other events
    folder = str(project) if project is not None else "/project"
    return rule_matches(hook.condition, case.tool or "", case.input, folder)


def _matcher_matches(agent: str, hook: HookSpec, case: HookCase) -> bool:
    matcher = hook.matcher.strip() if agent == "gemini-cli" else hook.matcher
    if not matcher or matcher == "*":
        return True
    if case.event in TOOL_EVENTS:
        subject = case.tool or ""
    elif case.event == "SessionStart" or (
        agent == "gemini-cli" and case.event in GEMINI_TRIGGER_EVENTS
    ):
        subject = case.source
    else:
        return True  # events without a matcher ignore it
    if agent == "gemini-cli":
        return regex_search(matcher, subject) if case.event in TOOL_EVENTS else matcher == subject
    tool_event = case.event in TOOL_EVENTS
    return names_tool(
        matcher, case.event, subject, legacy=agent == "claude-code", tool_event=tool_event
    )


def matcher_notes(agent: str, hooks: Sequence[HookSpec], case: HookCase) -> list[str]:
    """Why hooks of the case's event that did not match it may have been meant to: a matcher
    that is not a valid regular expression (``Bash(``) matches a tool of that very name only,
    as the CLI reads it. Said beside "no hook matched"."""
    from proctor.addons.audit.hook_tables import unknown_event

    notes = []
    for hook in hooks:
        unknown = unknown_event(agent, hook.event) if hook.event != case.event else None
        if unknown and f"'{case.event}'" in unknown:  # the case's event, misspelt
            notes.append(f"the hook {hook.command!r} is under '{hook.event}', which {unknown}")
        matcher = hook.matcher.strip()
        if hook.event != case.event or not matcher or matcher == "*":
            continue
        if SIMPLE_MATCHER.fullmatch(matcher) or LIST_MATCHER.fullmatch(matcher):
            names = {n.strip() for n in re.split(r"[|,]", matcher)}
            tool = case.tool or ""
            spelt = [n for n in sorted(names) if n != tool and n.lower() == tool.lower()]
            if spelt and tool not in names:
                notes.append(
                    f"the matcher {matcher!r} of {hook.command!r} writes {tool!r} as "
                    f"{spelt[0]!r}: {CLI_NAMES.get(agent, agent)} matches tool names "
                    "case-sensitively"
                )
            continue  # names, never read as a regular expression
        try:
            re.compile(matcher)
        except re.error as exc:
            notes.append(
                f"the matcher {matcher!r} of {hook.command!r} is not a valid regular expression "
                f"({exc}): {CLI_NAMES.get(agent, agent)} takes it as a name, which matches a "
                "tool of that very name only"
            )
    return notes


def _absolute_paths(tool_input: dict[str, Any], project: Path) -> dict[str, Any]:
    out = dict(tool_input)
    for key in PATH_KEYS:
        value = out.get(key)
        if isinstance(value, str) and value and not Path(value).is_absolute():
            out[key] = str(project / value)
    return out


def hook_input(agent: str, case: HookCase, session: Session) -> dict[str, Any]:
    """The JSON document ``agent`` writes to the hook's stdin for ``case``."""
    base: dict[str, Any] = {
        "session_id": session.session_id,
        "transcript_path": str(session.transcript),
        "cwd": str(session.project),
        "hook_event_name": case.event,
    }
    if agent == "gemini-cli":
        return {**base, "timestamp": datetime.now(UTC).isoformat(), **_gemini_fields(case)}
    base["permission_mode"] = case.permission_mode
    if agent == "claude-code":
        base["prompt_id"] = f"prompt-{session.session_id[:8]}"
        base["effort"] = {"level": "medium"}
    else:
        base["model"] = "gpt-5.2-codex"
        base["turn_id"] = f"turn-{session.session_id[:8]}"
    if case.event in TOOL_EVENTS:
        base["tool_name"] = case.tool
        base["tool_input"] = _absolute_paths(case.input, session.project)
        base["tool_use_id"] = f"toolu_case_{session.session_id[:8]}"
        if case.event in ("PostToolUse", "PostToolUseFailure"):
            base["tool_response"] = case.response if case.response is not None else {}
    elif case.event == "UserPromptSubmit":
        base["prompt"] = case.prompt
    elif case.event == "SessionStart":
        base["source"] = case.source
    elif case.event in ("Stop", "SubagentStop"):
        base["stop_hook_active"] = False
        base["last_assistant_message"] = case.prompt
    return base


def _gemini_fields(case: HookCase) -> dict[str, Any]:
    if case.event in ("BeforeTool", "AfterTool"):
        fields: dict[str, Any] = {"tool_name": case.tool, "tool_input": dict(case.input)}
        if case.event == "AfterTool":
            default = {"llmContent": "", "returnDisplay": ""}
            fields["tool_response"] = case.response if case.response is not None else default
        return fields
    if case.event == "BeforeAgent":
        return {"prompt": case.prompt}
    if case.event == "AfterAgent":
        return {"prompt": case.prompt, "prompt_response": "", "stop_hook_active": False}
    if case.event == "SessionStart":
        return {"source": case.source}
    if case.event == "SessionEnd":
        return {"reason": case.source}
    if case.event == "PreCompress":
        return {"trigger": case.source}
    return {}


def hook_environment(agent: str, hook: HookSpec, session: Session) -> dict[str, str]:
    """The variables ``agent`` adds to a hook's environment."""
    project = str(session.project)
    if agent == "gemini-cli":
        return {
            "GEMINI_PROJECT_DIR": project,
            "GEMINI_CWD": project,
            "GEMINI_SESSION_ID": session.session_id,
            "GEMINI_PLANS_DIR": str(session.home / ".gemini" / "plans"),
            "CLAUDE_PROJECT_DIR": project,
        }
    env = {"CLAUDE_PROJECT_DIR": project}
    if agent == "claude-code" and hook.kind == "claude-plugin" and hook.root is not None:
        env["CLAUDE_PLUGIN_ROOT"] = str(hook.root)
        env["CLAUDE_PLUGIN_DATA"] = str(_plugin_data(session, hook.root))
    return env


def _plugin_data(session: Session, root: Path) -> Path:
    return session.home / ".claude" / "plugins" / "data" / re.sub(r"[^A-Za-z0-9_-]", "-", root.name)


def expand_command(agent: str, hook: HookSpec, session: Session) -> str:
    """The command after the CLI's own substitutions (before the shell sees it)."""
    command = hook.command
    project = str(session.project)
    if agent == "gemini-cli":
        if hook.kind == "gemini-extension":
            command = command.replace("${workspacePath}", project)
        quoted = shlex.quote(project)
        for name in ("$GEMINI_PROJECT_DIR", "$GEMINI_CWD", "$CLAUDE_PROJECT_DIR"):
            command = command.replace(name, quoted)
        command = command.replace("$GEMINI_SESSION_ID", shlex.quote(session.session_id))
        return command.replace(
            "$GEMINI_PLANS_DIR", shlex.quote(str(session.home / ".gemini" / "plans"))
        )
    if hook.kind == "claude-plugin" and hook.root is not None:
        command = command.replace("${CLAUDE_PLUGIN_ROOT}", str(hook.root))
        command = command.replace("${CLAUDE_PROJECT_DIR}", project)
        command = command.replace("${CLAUDE_PLUGIN_DATA}", str(_plugin_data(session, hook.root)))
    return command


__all__ = [
    "Session",
    "expand_command",
    "hook_environment",
    "hook_input",
    "hook_matches",
]
