"""Shapes of Codex rollout records: record-type sets, usage normalisation, output parsing."""

from __future__ import annotations

import json
import re
from typing import Any

from proctor.transcripts.builder import token_count


def _names(text: str) -> frozenset[str]:
    """A set of record type names written as whitespace-separated words."""
    return frozenset(text.split())


TEXT_CAP = 2000
HARNESS_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<user_shell_command>",
    "<INSTRUCTIONS>",
    "<skill>",
    "<subagent_notification>",
)
DENIAL_MARKERS = (
    "approval policy is never; reject command",
    "aborted by user",
    "rejected by user",
    "patch rejected:",  # a patch the sandbox or the approval settings refused (0.171)
)
EXIT_PATTERNS = (
    re.compile(r"^Process exited with code (-?\d+)", re.M),
    re.compile(r"^Exit code: (-?\d+)", re.M),
)
RESPONSE_TYPES = _names(
    """
    message reasoning function_call function_call_output custom_tool_call
    custom_tool_call_output local_shell_call web_search_call image_generation_call
    tool_search_call tool_search_output ghost_snapshot compaction compaction_summary
    context_compaction additional_tools
    """
)
QUIET_RECORDS = _names(
    """
    world_state security_risk_score retained_context realtime_item inter_agent_communication
    inter_agent_communication_metadata
    """
)
QUIET_EVENTS = _names(
    """
    task_started turn_started thread_settings_applied exec_command_begin
    exec_command_output_delta terminal_interaction patch_apply_begin mcp_tool_call_begin
    web_search_begin web_search_end agent_reasoning_section_break context_compacted
    thread_rolled_back entered_review_mode exited_review_mode thread_goal_updated
    thread_name_updated image_generation_begin image_generation_end sub_agent_activity
    turn_diff plan_update session_configured warning stream_error background_event
    hook_started hook_completed item_started item_updated view_image_tool_call
    exec_approval_request apply_patch_approval_request request_user_input
    elicitation_request shutdown_complete deprecation_notice undo_started undo_completed
    """
)
QUIET_EVENT_PREFIXES = ("collab_", "realtime_", "raw_")
QUIET_EVENT_SUFFIXES = ("_delta",)
QUIET_ITEMS = _names(
    """
    UserMessage AgentMessage Reasoning Plan Sleep WebSearch ImageGeneration
    ContextCompaction TodoList CollabAgentToolCall HookPrompt EnteredReviewMode
    ExitedReviewMode
    """
)


def quiet_event(etype: str) -> bool:
    """Whether an event message carries nothing the trajectory needs (or mirrors something it
    has)."""
    return (
        etype in QUIET_EVENTS
        or etype.startswith(QUIET_EVENT_PREFIXES)
        or etype.endswith(QUIET_EVENT_SUFFIXES)
    )


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def spawned_by(meta: dict[str, Any]) -> str | None:
    """The thread that spawned a subagent's thread, from its ``session_meta`` payload
    (``source.subagent.thread_spawn.parent_thread_id``); None for a thread a person started."""
    spawn = _dict(_dict(_dict(meta.get("source")).get("subagent")).get("thread_spawn"))
    parent = spawn.get("parent_thread_id")
    return parent if isinstance(parent, str) and parent else None


def normalise_usage(usage: dict[str, Any]) -> tuple[int, int, int, int]:
    """(input, output, cache read, cache write) of an OpenAI usage object, inputs disjoint."""
    details = usage.get("input_tokens_details")
    cached = token_count(usage.get("cached_input_tokens"))
    if not cached and isinstance(details, dict):
        cached = token_count(details.get("cached_tokens"))
    write = token_count(usage.get("cache_write_input_tokens"))
    total_input = token_count(usage.get("input_tokens"))
    return (
        max(total_input - cached - write, 0),
        token_count(usage.get("output_tokens")),
        cached,
        write,
    )


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            parts.append(item["text"])
    return "\n".join(parts)


def _exit_code(text: str) -> int | None:
    """An exit code stated in the header of a tool output (before ``Output:``)."""
    header = text.partition("Output:")[0] if "Output:" in text else text[:TEXT_CAP]
    for pattern in EXIT_PATTERNS:
        match = pattern.search(header)
        if match:
            return int(match.group(1))
    return None


def _is_denial(text: str) -> bool:
    """A refusal message, read in the output's header (a command's own output, after
    ``Output:``, may quote one)."""
    header = text.partition("Output:")[0] if "Output:" in text else text
    for line in header[:TEXT_CAP].lower().splitlines()[:12]:
        if line.strip().startswith(DENIAL_MARKERS):
            return True
    return False


def _unwrap_output(raw: Any) -> tuple[str, int | None]:
    """The text the model saw and an exit code carried as JSON metadata, if any."""
    text = _content_text(raw) if not isinstance(raw, str) else raw
    if text.startswith("{"):
        try:
            decoded = json.loads(text)
        except ValueError:
            return text, None
        if isinstance(decoded, dict):
            meta = decoded.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else decoded.get("exit_code")
            inner = decoded.get("output")
            exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
            return (inner if isinstance(inner, str) else text), exit_code
    return text, None
