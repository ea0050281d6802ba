"""The corpus of real transcripts (``tests/corpus``), recorded from the pinned CLIs by
``make corpus``: parsed offline, each gives the trajectory it gave when it was recorded, and
token totals equal to the CLI's own report of the same session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.claude_code.adapter import reported_usage as claude_reported
from proctor.agents.codex.adapter import reported_usage as codex_reported
from proctor.agents.gemini_cli.adapter import reported_usage as gemini_reported
from proctor.agents.spec import npm_specs
from proctor.execute.collect import usage_check
from proctor.transcripts.detect import detect_format, parse_any
from tests.contract.goldens import recorded_projection

CORPUS = Path(__file__).parents[2] / "corpus"
STEMS = sorted(p.name.removesuffix(".expected.json") for p in CORPUS.glob("*.expected.json"))


def add(total: dict[str, dict[str, int]], more: dict[str, dict[str, int]] | None) -> None:
    for model, counts in (more or {}).items():
        row = total.setdefault(model, {})
        for key, value in counts.items():
            row[key] = row.get(key, 0) + value


def cli_report(cli: str, events: list[dict[str, Any]], model: str) -> dict[str, dict[str, int]]:
    """What the CLI itself reported on stdout over every turn of the session."""
    total: dict[str, dict[str, int]] = {}
    for event in events:
        if cli == "claude-code" and event.get("type") == "result":
            add(total, claude_reported([event]))
        elif cli == "codex" and event.get("type") == "turn.completed":
            total = codex_reported([event], model) or {}  # the thread's totals so far
        elif cli == "gemini-cli" and event.get("type") == "result":
            add(total, gemini_reported(event.get("stats")))
    return total


def test_the_corpus_covers_every_pinned_cli() -> None:
    for spec in npm_specs():
        assert any(s.startswith(f"{spec.id}-{spec.version}-") for s in STEMS), (spec.id, STEMS)


@pytest.mark.parametrize("stem", STEMS)
def test_a_recorded_transcript_parses_as_recorded(stem: str) -> None:
    expected = json.loads((CORPUS / f"{stem}.expected.json").read_text())
    transcript = CORPUS / f"{stem}.transcript.jsonl"
    assert detect_format(transcript) == expected["format"]
    trajectory = parse_any(transcript, expected["format"])
    recorded = recorded_projection(trajectory)
    assert recorded["events"] == expected["events"]
    assert recorded["usage"] == expected["usage"]
    assert trajectory.coverage.unknown_record_types == {}, "every record type is known"


@pytest.mark.parametrize("stem", STEMS)
def test_token_totals_equal_the_cli_own_report(stem: str) -> None:
    expected = json.loads((CORPUS / f"{stem}.expected.json").read_text())
    report = [
        json.loads(line)
        for line in (CORPUS / f"{stem}.report.jsonl").read_text().splitlines()
        if line.startswith("{")
    ]
    trajectory = parse_any(CORPUS / f"{stem}.transcript.jsonl", expected["format"])
    (model,) = trajectory.usage
    reported = cli_report(expected["cli"], report, model)
    assert reported, "the CLI reported its tokens"
    check = usage_check(trajectory.usage, reported)
    assert not check.differences.get(model), "the transcript's model: equal to the token"
    unrecorded = set(check.differences) - set(trajectory.usage)
    if expected["cli"] == "gemini-cli":
        # Gemini CLI's router asks a small model which model to use; the chat file never
        # records that call, its stats count it (docs/transcripts.md).
        assert unrecorded <= {"gemini-3.5-flash-lite"}
    else:
        assert check.ok, check.differences
