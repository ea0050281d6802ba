"""Counting Claude Code's token usage once per model response, and doing only that fast.

Assistant lines carry one content block each and repeat ``message.id``/``requestId``/``usage``;
:class:`UsageDedup` keeps one usage per response across every file of a session (ccusage's
rules), which both the full parser and :func:`claude_usage_totals` use.
:func:`claude_usage_totals` computes the full parse's token totals without building events, for
large stores: it decodes only lines that can carry usage. :class:`UsageCounting` is the session
parser's part that counts a line's usage.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

from proctor.models.trajectory import ModelUsage, usage_by_model
from proctor.transcripts.builder import TrajectoryBuilder, UsageRow, token_count
from proctor.transcripts.claude.records import (
    USAGE_COUNTS,
    hour_counts,
    hour_writes,
    response_digest,
    usage_model,
)
from proctor.transcripts.lines import SYNTHETIC_MODEL, decode_line

UsageKey = int
"""A response remembered by the 64-bit hash of its ids (see :class:`UsageDedup`)."""


def _usage_total(usage: dict[str, Any]) -> int:
    return sum(map(token_count, map(usage.get, USAGE_COUNTS)))


class UsageDedup:
    """One usage per model response across every file of a session (ccusage's rules).

    ``offer`` answers whether a line's usage should be kept, given what was kept before for the
    same response; it stores the state, callers store the numbers. Responses are remembered by
    the 64-bit hashes of their ids, not the ids, so a long session costs a few dozen bytes per
    response (two of a million responses collide with a chance of about 3 in 100 million).
    """

    def __init__(self) -> None:
        self.state: dict[UsageKey, tuple[bool, int, bool, bool]] = {}
        self.first_key: dict[int, UsageKey] = {}
        self.alias: dict[UsageKey, UsageKey] = {}

    def offer(
        self,
        message_id: str,
        request_id: str | None,
        final: bool,
        total: int,
        side: bool,
        speed: bool = False,
    ) -> tuple[UsageKey, bool, bool]:
        """(key, keep, is_new) for a line of a response: has it a ``stop_reason``, its total,
        is it a sidechain, has its usage a ``speed``. ``key`` names the response the line
        belongs to. Of two lines alike but for ``speed``, the one with it counts (ccusage's
        rule: the response's model is then named as its speed says)."""
        state = self.state
        exact = hash((message_id, request_id))
        key = self.alias.get(exact, exact) if self.alias else exact
        existing = state.get(key)
        if existing is None:
            message = hash(message_id)
            other = self.first_key.get(message)
            if other is None:  # a new response: the common case
                state[exact] = (final, total, side, speed)
                self.first_key[message] = exact
                return exact, True, True
            if side or state[other][2]:
                # The same response under another request id (a sidechain replay, or the main
                # copy of one a subagent file showed first): its later lines go there too.
                key, existing = other, state[other]
                self.alias[exact] = other
        if existing is not None:
            was_final, was_total, was_side, had_speed = existing
            if side and not was_side:
                return key, False, False
            better = (
                (was_side and not side)
                or (not was_final and final)
                or (final == was_final and total > was_total)
                or (final == was_final and total == was_total and speed and not had_speed)
            )
            if not better:
                return key, False, False
        state[key] = (final, total, side, speed)
        self.first_key.setdefault(hash(message_id), key)
        return key, True, existing is None


class UsageCounting:
    """The session parser's count of an assistant line's usage (a part of
    :class:`~proctor.transcripts.claude.parser._Parser`, which sets the state below): its
    numbers checked, offered to the count, and kept as its response's row when they count."""

    builder: TrajectoryBuilder
    dedup: UsageDedup
    ids: dict[Hashable, int] | None
    """Each counted response's ids as their digest (:func:`response_digest`), when asked for
    (history replay)."""

    def count_usage(
        self, record: dict[str, Any], message: dict[str, Any], usage: dict[str, Any], ts: Any
    ) -> None:
        inp, out, read, write = map(token_count, map(usage.get, USAGE_COUNTS))
        hour = hour_writes(usage.get("cache_creation"), write)
        speed, geo = usage.get("speed"), usage.get("inference_geo")
        model = usage_model(str(message.get("model")), speed, geo)
        row = (sys.intern(model), inp, out, read, write, hour)
        self.builder.check_counts(usage, USAGE_COUNTS, ts, str(message.get("id")))
        if (creation := usage.get("cache_creation")) is not None:  # the hour's writes too
            self.builder.check_counts(*hour_counts(creation), ts, str(message.get("id")))
        final = message.get("stop_reason") is not None
        side = bool(record.get("isSidechain"))
        ids = (str(message.get("id")), record.get("requestId"))
        key = self.counted(*ids, final, side, row, speed is not None)
        if key is not None:
            # A better line for a response already counted takes its row; its event keeps its
            # first place (and, once a streaming parse has handed it on, its first numbers).
            self.builder.usage(row, ts, key)

    def counted(
        self, message_id: str, request_id: Any, final: bool, side: bool, row: UsageRow, speed: bool
    ) -> Hashable | None:
        """One line of a model response offered to the count (ccusage's rules, across every
        file of the session): the key of the response whose usage row it sets, or None when
        another line of the response counts instead. ``side``: the line says it is a
        sidechain's (a subagent file's lines are)."""
        _, inp, out, read, write, _ = row
        side = side or self.builder.sidechain
        total = inp + out + read + write
        key, keep, new = self.dedup.offer(message_id, request_id, final, total, side, speed)
        if new and self.ids is not None:
            self.ids[key] = response_digest(message_id, request_id)
        return key if keep else None


def _lines_with_usage(path: Path) -> Iterable[bytes]:
    with open(path, "rb") as fh:
        for line in fh:
            if b'"usage"' in line and b'"assistant"' in line:
                yield line


def claude_usage_totals(*paths: Path) -> dict[str, ModelUsage]:
    """Token totals per model of one or more Claude Code files, without building events.

    Gives the same numbers as the ``usage`` of :func:`parse_claude_session` over the same files
    (the first path is the main file; the others are treated as sidechains), streaming each file
    and decoding only lines that contain both ``"usage"`` and ``"assistant"``. Memory grows with
    the number of distinct model responses, not with file size.
    """
    dedup = UsageDedup()
    kept: dict[UsageKey, UsageRow] = {}
    for index, path in enumerate(paths):
        for line in _lines_with_usage(path):
            record = decode_line(line)
            if not isinstance(record, dict) or record.get("type") != "assistant":
                continue
            message = record.get("message")
            if not isinstance(message, dict):
                continue
            usage = message.get("usage")
            model = message.get("model")
            if not isinstance(usage, dict) or not model:
                continue
            if model == SYNTHETIC_MODEL or record.get("isApiErrorMessage"):
                continue
            side = index > 0 or bool(record.get("isSidechain"))
            final = message.get("stop_reason") is not None
            ids = (str(message.get("id")), record.get("requestId"))
            speed = usage.get("speed") is not None
            key, keep, _ = dedup.offer(*ids, final, _usage_total(usage), side, speed)
            if keep:  # counted as the parsers count them (token_count)
                inp, out, read, write = map(token_count, map(usage.get, USAGE_COUNTS))
                hour = hour_writes(usage.get("cache_creation"), write)
                name = usage_model(str(model), usage.get("speed"), usage.get("inference_geo"))
                kept[key] = (sys.intern(name), inp, out, read, write, hour)
    return usage_by_model(kept.values())
