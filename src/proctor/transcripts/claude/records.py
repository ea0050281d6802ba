"""What the lines of a Claude Code session say beyond their shape: the record types that are
bookkeeping (no event, never unknown), and the texts the CLI writes itself (a refusal, an
interruption, a command it ran, its filler reply); a hook's event, and a response's digest."""

from __future__ import annotations

import zlib
from typing import Any

from proctor.models.list_prices import FAST, US_ONLY
from proctor.transcripts.builder import EventDict, ev, token_count

BOOKKEEPING = frozenset(
    {
        "summary",
        "queue-operation",
        "file-history-snapshot",
        "file-history-delta",
        "custom-title",
        "ai-title",
        "agent-name",
        "tag",
        "last-prompt",
        "mode",
        "permission-mode",
        "agent-setting",
        "pr-link",
        "worktree-state",
        "relocated",
        "bridge-session",
        "atis-latch",
        "progress",
    }
)
USAGE_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
"""A response's token counts, as its ``usage`` names them: input, output, cache read, write."""
HOUR_WRITES = "ephemeral_1h_input_tokens"
"""The part of a response's cache write kept for an hour, in its ``usage.cache_creation``."""


def usage_model(model: str, speed: Any, geo: Any) -> str:
    """The model a response's tokens count for: ``model``, with
    :data:`~proctor.models.list_prices.FAST` after it when the response's ``usage.speed`` is
    ``"fast"``, then :data:`~proctor.models.list_prices.US_ONLY` when its
    ``usage.inference_geo`` is ``"us"``. A response served in Anthropic's fast mode, or by
    inference kept in the US, costs its own rates, so its tokens are counted and priced apart
    (``claude-opus-4-8-fast`` as ccusage names it, ``claude-opus-4-8-us``, which ccusage
    counts and prices as the model itself)."""
    if speed == "fast":
        model += FAST
    return model + US_ONLY if geo == "us" else model


def hour_counts(creation: Any) -> tuple[dict[str, Any], tuple[str, ...]]:
    """What :meth:`~proctor.transcripts.builder.TrajectoryBuilder.check_counts` checks of a
    usage's ``cache_creation``: its hour's writes, or itself when it is not an object."""
    if type(creation) is dict:
        return creation, (HOUR_WRITES,)
    # Not an object, even a number: noted (as text, which is never a count).
    return {"cache_creation": repr(creation)[:100]}, ("cache_creation",)


def hour_writes(creation: Any, write: int) -> int:
    """The tokens of a cache write of ``write`` tokens kept for an hour, as a usage's
    ``cache_creation`` states them (at most ``write``; 0 when it states none)."""
    if type(creation) is not dict:
        return 0
    return min(token_count(creation.get(HOUR_WRITES)), write)


USER_REJECTED = "User rejected tool use"
"""The ``toolUseResult`` of a call the user refused in the TUI (2.1.197 writes no
``toolDenialKind`` then): a denial, not a failed call."""
NO_RESPONSE = "No response requested."
"""The ``<synthetic>`` reply Claude Code writes after a command that asks the model nothing
(``/compact``, a compaction that failed): not an API error."""
INTERRUPTED = "[Request interrupted by user"
LOCAL_COMMAND = (
    "<command-name>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
)
"""How a user line written for a command the CLI ran itself begins (``/exit``, ``/model``,
``/clear`` and their output): housekeeping, never sent to the model. A command that expands into
a prompt (a custom command, a skill) begins with ``<command-message>`` and stays a message."""


def hook_event(att: dict[str, Any], atype: str, ts: Any) -> EventDict:
    """The event of a hook's attachment ``att`` (of type ``atype``, ``hook_…``)."""
    return ev(
        type="hook",
        ts=ts,
        name=att.get("hookName"),
        hookEvent=att.get("hookEvent"),
        command=att.get("command"),
        exitCode=att.get("exitCode"),
        id=att.get("toolUseID"),
        isError=atype not in HOOK_FINE or None,
    )


HOOK_FINE = frozenset({"hook_success", "hook_additional_context", "hook_system_message"})
"""Hook attachments of a hook that ran without an error (it succeeded, added context, or
showed the user a message); the others (a non-blocking or blocking error, a cancelled hook)
are errors."""


def response_digest(message_id: str, request_id: Any) -> int:
    """A response's ids as a 64-bit number that is the same in every process (``hash`` is
    not): what a history compares across session files."""
    request = request_id.encode() if isinstance(request_id, str) else b""
    # Two CRC-32s: C-fast, and 64 bits in all (a response's ids are random).
    return zlib.crc32(message_id.encode()) << 32 | zlib.crc32(request)
