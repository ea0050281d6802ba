"""What the LLM judge sees, how it is cut to fit, and how its verdict is read.

The judge sees the rubric (verbatim), a distilled trajectory (the prompt, the agent's messages,
every tool call with a bounded excerpt of its result, every failure, the questions and answers),
the produced artifacts matched by the evaluator's globs (each size-capped) and the workspace
diff. When that exceeds the budget, the trajectory is cut in the middle while its beginning, its
end and every failing step are kept; then artifacts are dropped from the last; then the diff is
shortened. What was cut is recorded. If the rubric alone does not fit, that is an error.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.models.trajectory import Event

RESULT_EXCERPT = 400
ARTIFACT_CAP = 8_000
DIFF_CAP = 20_000
KEEP_HEAD, KEEP_TAIL = 20, 20

SYSTEM = (
    "You are a strict, fair evaluator of a coding agent's work. Score it against the rubric. "
    'Reply with one JSON object and nothing else: {"score": <0-100>, "confidenceLevel": '
    '<0-100, how sure you are>, "rationale": "<two to five sentences>"}.'
)


class ContextOverflow(ValueError):
    """The material cannot be cut to fit the budget."""


@dataclass
class Line:
    text: str
    failing: bool = False


@dataclass
class Material:
    prompt: str
    truncation: dict[str, Any] = field(default_factory=dict)


def distil(events: list[Event]) -> list[Line]:
    """One line per meaningful event; failing steps are flagged so they survive cutting."""
    lines: list[Line] = []
    results = {e.id: e for e in events if e.type == "tool_result" and e.id}
    step = 0
    for e in events:
        if e.type == "user_message":
            lines.append(Line(f"USER: {e.text}"))
        elif e.type == "assistant_text" and e.text:
            lines.append(Line(f"AGENT: {e.text}"))
        elif e.type == "tool_call":
            step += 1
            result = results.get(e.id) if e.id else None
            args = json.dumps(e.input or {}, ensure_ascii=False)[:RESULT_EXCERPT]
            failing = bool(result and result.is_error)
            out = (result.output or "")[:RESULT_EXCERPT] if result else "(no result)"
            flag = " [FAILED]" if failing else " [DENIED]" if result and result.denied else ""
            lines.append(Line(f"TOOL #{step} {e.name} {args}{flag}\n  -> {out}", failing))
        elif e.type == "question":
            lines.append(Line(f"AGENT ASKED: {e.text} options={e.options or []}"))
        elif e.type == "answer":
            lines.append(Line(f"ANSWERED ({e.policy or 'user'}): {e.text}"))
        elif e.type == "api_error":
            lines.append(Line(f"API ERROR: {e.text}", True))
    return lines


def collect_artifacts(workspace: Path, globs: list[str]) -> list[tuple[str, str]]:
    """The workspace files the globs match, each size-capped; never a file outside the
    workspace reached through a symlink (that could show the judge the harness's secrets)."""
    from proctor.evaluators.file_exists import glob_workspace

    out = []
    for pattern in globs:
        for name in glob_workspace(workspace, pattern):
            path = workspace / name
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace")
                if len(text) > ARTIFACT_CAP:
                    text = text[:ARTIFACT_CAP] + f"\n[... {len(text) - ARTIFACT_CAP} chars cut]"
                out.append((path.relative_to(workspace).as_posix(), text))
    return out


def _cut_lines(lines: list[Line], budget: int) -> tuple[list[Line], int]:
    """Keep head, tail and failing lines, then drop the middle until it fits."""
    if sum(len(x.text) + 1 for x in lines) <= budget:
        return lines, 0
    keep = {i for i in range(min(KEEP_HEAD, len(lines)))}
    keep |= {i for i in range(max(0, len(lines) - KEEP_TAIL), len(lines))}
    keep |= {i for i, line in enumerate(lines) if line.failing}
    kept = [lines[i] for i in sorted(keep)]
    dropped = len(lines) - len(kept)
    while sum(len(x.text) + 1 for x in kept) > budget and len(kept) > 2:
        middle = len(kept) // 2
        if kept[middle].failing and any(not x.failing for x in kept[1:-1]):
            middle = next(i for i in range(1, len(kept) - 1) if not kept[i].failing)
        kept.pop(middle)
        dropped += 1
    marker = Line(f"[... {dropped} trajectory lines cut to fit the judge's budget ...]")
    return [*kept[: len(kept) // 2], marker, *kept[len(kept) // 2 :]], dropped


def build_material(
    rubric: str,
    events: list[Event],
    artifacts: list[tuple[str, str]],
    diff: str,
    budget_chars: int,
) -> Material:
    header = f"# Rubric\n\n{rubric}\n"
    if len(header) > budget_chars:
        raise ContextOverflow(
            f"the rubric alone is {len(header)} characters, over the judge's budget of "
            f"{budget_chars}"
        )
    truncation: dict[str, Any] = {}
    if len(diff) > DIFF_CAP:
        truncation["diffCharsCut"] = len(diff) - DIFF_CAP
        diff = diff[:DIFF_CAP] + "\n[... diff cut ...]\n"
    lines = distil(events)
    fixed = len(header) + len(diff) + sum(len(n) + len(t) + 20 for n, t in artifacts) + 200
    room = budget_chars - fixed
    while room < 2_000 and artifacts:
        name, text = artifacts.pop()
        truncation.setdefault("artifactsDropped", []).append(name)
        room += len(name) + len(text) + 20
    if room < 2_000 and diff:
        keep = max(0, len(diff) - (2_000 - room))
        truncation["diffCharsCut"] = truncation.get("diffCharsCut", 0) + len(diff) - keep
        room += len(diff) - keep
        diff = diff[:keep]
    if room <= 0:
        raise ContextOverflow(f"the material cannot be cut below the budget of {budget_chars}")
    lines, dropped = _cut_lines(lines, room)
    if dropped:
        truncation["trajectoryLinesCut"] = dropped
        truncation["strategy"] = "kept the first and last steps and every failing step"
    body = "\n".join(x.text for x in lines)
    arts = "\n\n".join(f"## Artifact {name}\n\n{text}" for name, text in artifacts) or "(none)"
    prompt = (
        f"{header}\n# What the agent did\n\n{body or '(no events)'}\n\n# Artifacts\n\n{arts}\n\n"
        f"# Workspace diff\n\n{diff or '(no changes)'}\n"
    )
    return Material(prompt, truncation)


def parse_verdict(text: str) -> dict[str, Any]:
    """The judge's JSON verdict; ValueError with a sentence when it is malformed."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise ValueError("the reply holds no JSON object")
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not valid JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    for name in ("score", "confidenceLevel"):
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"'{name}' is missing or not a number")
        if not math.isfinite(value) or not 0 <= value <= 100:
            raise ValueError(f"'{name}' must be from 0 to 100, got {value}")
    if not isinstance(data.get("rationale"), str) or not data["rationale"].strip():
        raise ValueError("'rationale' is missing or empty")
    return data


def perplexity_level(logprobs: list[float] | None) -> float | None:
    """100 × (1 − the geometric-mean token probability) over the generated output: 0 when the
    judge was certain of every token, towards 100 as it guessed. None without log-probabilities."""
    if not logprobs:
        return None
    mean = sum(logprobs) / len(logprobs)
    return round(100.0 * (1.0 - math.exp(mean)), 3)
