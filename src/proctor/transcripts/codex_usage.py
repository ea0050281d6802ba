"""Which usage lines of a Codex rollout count, once per model response.

Codex 0.171 writes a ``token_usage_record`` per response (by ``response_id``) and then an
``event_msg/token_count``; older CLIs write only the ``token_count``. Records win where they
exist. A ``token_count`` with no record since the previous ``token_count`` is a response of an
older CLI (a resumed rollout) and counts from its own numbers. A ``token_count`` whose
``total_token_usage`` equals the previous one is a repeat; when only the total is given, the
delta from the previous total is the response's usage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from proctor.models.trajectory import Event
from proctor.transcripts.codex_shapes import _int, normalise_usage

UsageEvent = Callable[[dict[str, Any], Any], Event | None]
"""Makes (and places in the trajectory) the usage event of a raw usage dict and model."""


class CodexUsage:
    """The usage lines of one rollout as they are read, and the ones that count."""

    def __init__(self, usage_event: UsageEvent) -> None:
        self.usage_event = usage_event
        self.from_records: list[Event] = []
        self.from_counts: list[Event] = []
        self.uncovered_counts: list[Event] = []
        """token_count usage with no token_usage_record since the previous token_count."""
        self.record_since_count = False
        self.responses: set[str] = set()
        self.previous_total: dict[str, Any] | None = None
        self.previous_fingerprint: Any = None
        self.repeats = 0

    def record(self, payload: dict[str, Any]) -> None:
        """A ``token_usage_record`` line."""
        response = payload.get("response_id")
        if isinstance(response, str):
            if response in self.responses:
                return
            self.responses.add(response)
        usage = payload.get("usage")
        if isinstance(usage, dict):
            event = self.usage_event(usage, payload.get("model"))
            if event is not None:
                self.from_records.append(event)
                self.record_since_count = True

    def token_count(self, payload: dict[str, Any], ts: str | None) -> None:
        """An ``event_msg/token_count`` line."""
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total = info.get("total_token_usage")
        last = info.get("last_token_usage")
        total = total if isinstance(total, dict) else None
        last = last if isinstance(last, dict) else None
        if total is not None:
            fingerprint: Any = json.dumps(total, sort_keys=True)
        else:
            fingerprint = (ts, json.dumps(last, sort_keys=True))
        if fingerprint == self.previous_fingerprint:
            self.repeats += 1
            return
        self.previous_fingerprint = fingerprint
        delta = last
        if delta is None and total is not None:
            before = self.previous_total or {}
            delta = {k: _int(v) - _int(before.get(k)) for k, v in total.items()}
        if total is not None:
            self.previous_total = total
        if delta is not None:
            event = self.usage_event(delta, None)
            if event is not None:
                self.from_counts.append(event)
                if not self.record_since_count:
                    self.uncovered_counts.append(event)
        self.record_since_count = False

    def chosen(self, events: Sequence[Event]) -> tuple[str | None, list[Event]]:
        """(source, the usage events that count), in trajectory order."""
        if self.from_records and self.uncovered_counts:
            # Records for the responses that have them, token_count for the older ones.
            wanted = {id(e) for e in self.uncovered_counts} | {id(e) for e in self.from_records}
            return "token_usage_record+token_count", [e for e in events if id(e) in wanted]
        if self.from_records:
            return "token_usage_record", self.from_records
        if self.from_counts:
            return "token_count", self.from_counts
        return None, []

    def superseded(self) -> set[int]:
        """Ids of token_count usage events that a record counts instead (to leave out)."""
        if not self.from_records:
            return set()
        kept = {id(e) for e in self.uncovered_counts}
        return {id(e) for e in self.from_counts if id(e) not in kept}

    def check(self, events: Sequence[Event]) -> dict[str, Any]:
        """The counted sum against the last ``total_token_usage`` (see ``codex_usage_check``)."""
        source, chosen = self.chosen(events)
        computed = {
            "inputTokens": sum(e.input_tokens or 0 for e in chosen),
            "outputTokens": sum(e.output_tokens or 0 for e in chosen),
            "cacheReadTokens": sum(e.cache_read_tokens or 0 for e in chosen),
            "cacheWriteTokens": sum(e.cache_write_tokens or 0 for e in chosen),
        }
        reported: dict[str, int] | None = None
        difference: dict[str, int] | None = None
        if self.previous_total is not None:
            inp, out, read, write = normalise_usage(self.previous_total)
            reported = {
                "inputTokens": inp,
                "outputTokens": out,
                "cacheReadTokens": read,
                "cacheWriteTokens": write,
            }
            difference = {k: reported[k] - computed[k] for k in computed}
        return {
            "source": source,
            "responses": len(chosen),
            "repeatsSkipped": self.repeats,
            "computed": computed,
            "reported": reported,
            "difference": difference,
            "ok": None if difference is None else not any(difference.values()),
        }
