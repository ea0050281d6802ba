"""What the LLM judge sees, how it is cut to fit, and how its verdict is read.

The judge sees the rubric (verbatim), a distilled trajectory (the prompt, the agent's messages,
every tool call with a bounded excerpt of its arguments and of its result, each marked when cut,
every failure, the questions and answers), the produced artifacts matched by the evaluator's
globs (each size-capped) and the workspace diff. Every trajectory line is capped (a long message
keeps its head and tail). When the whole exceeds the budget, artifacts are dropped from the
last, then the diff is shortened, then the trajectory is cut in the middle: its first line
always stays, then its last line and its failing steps as far as they fit. What was cut is
recorded truthfully (including failing steps that did not fit). If the material still does not
fit, or the rubric alone does not, that is an error.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.models.trajectory import Event
from proctor.util.globbing import glob_workspace
from proctor.util.masking import mask

RESULT_EXCERPT = 400
LINE_CAP = 2_000
ARTIFACT_CAP = 8_000
DIFF_CAP = 20_000
KEEP_HEAD, KEEP_TAIL = 20, 20
MARKER_ROOM = 80
DIFF_MARK_ROOM = 60
"""Room for the mark a cut diff ends with (``[... 1,234 chars of the diff cut ...]``)."""

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


def _capped(text: str) -> str:
    """``text`` within :data:`LINE_CAP` characters: a long message keeps its head and its tail
    (where the task and the conclusion usually are) around a marker saying how much was cut."""
    if len(text) <= LINE_CAP:
        return text
    half = (LINE_CAP - 60) // 2  # 60 leaves room for the marker
    marker = f"\n[... {len(text) - 2 * half:,} chars cut from the middle ...]\n"
    return text[:half] + marker + text[len(text) - half :]


def _excerpt(text: str) -> str:
    """The first :data:`RESULT_EXCERPT` characters of a tool call's arguments or result, every
    registered secret masked before the cut (a key cut in two is no longer one the masker
    knows); a text cut says so, with its whole length once masked, so the judge does not take
    a result ending mid-sentence for all there was: ``… [cut: 1,234 characters in all]``."""
    masked = mask(text)
    if len(masked) <= RESULT_EXCERPT:
        return masked
    return f"{masked[:RESULT_EXCERPT]}… [cut: {len(masked):,} characters in all]"


def _size(lines: list[Line]) -> int:
    """Characters the lines take in the prompt, one newline each."""
    return sum(len(x.text) + 1 for x in lines)


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
            args = _excerpt(json.dumps(e.input or {}, ensure_ascii=False))
            failing = bool(result and result.is_error)
            out = _excerpt(result.output or "") if result else "(no result)"
            flag = " [FAILED]" if failing else " [DENIED]" if result and result.denied else ""
            lines.append(Line(f"TOOL #{step} {e.name} {args}{flag}\n  -> {out}", failing))
        elif e.type == "question":
            lines.append(Line(f"AGENT ASKED: {e.text} options={e.options or []}"))
        elif e.type == "answer":
            lines.append(Line(f"ANSWERED ({e.policy or 'user'}): {e.text}"))
        elif e.type == "api_error":
            lines.append(Line(f"API ERROR: {e.text}", True))
    # Masked before any cut: a key cut in two is no longer one the masker knows.
    return [Line(_capped(mask(x.text)), x.failing) for x in lines]


def collect_artifacts(workspace: Path, globs: list[str]) -> list[tuple[str, str]]:
    """The workspace files the globs match, each size-capped; never a file outside the
    workspace reached through a symlink (that could show the judge the harness's secrets)."""
    out = []
    for pattern in globs:
        for name in glob_workspace(workspace, pattern):
            path = workspace / name
            if path.is_file():
                text = mask(path.read_text(encoding="utf-8", errors="replace"))
                if len(text) > ARTIFACT_CAP:
                    text = (
                        text[:ARTIFACT_CAP]
                        + f"\n[... {len(text) - ARTIFACT_CAP:,} chars of the file cut ...]"
                    )
                out.append((path.relative_to(workspace).as_posix(), text))
    return out


def _drop_index(kept: list[Line]) -> int:
    """Which kept line goes next: a plain line nearest the middle, then a failing one, then the
    last line; never the first (it carries the task)."""
    inner = range(1, len(kept) - 1)
    pool = [i for i in inner if not kept[i].failing] or list(inner) or [len(kept) - 1]
    middle = (len(kept) - 1) / 2
    return min(pool, key=lambda i: abs(i - middle))


def _cut_lines(lines: list[Line], budget: int) -> tuple[list[Line], dict[str, Any]]:
    """Keep head, tail and failing lines, then drop lines (see :func:`_drop_index`) until they
    and the cut marker fit ``budget``. Returns the lines and the truncation record (empty when
    nothing was cut). The result may still be over budget when the first line alone is; the
    caller checks the final size."""
    if _size(lines) <= budget:
        return lines, {}
    keep = set(range(min(KEEP_HEAD, len(lines))))
    keep |= set(range(max(0, len(lines) - KEEP_TAIL), len(lines)))
    keep |= {i for i, line in enumerate(lines) if line.failing}
    kept = [lines[i] for i in sorted(keep)]
    size = _size(kept) + MARKER_ROOM
    while len(kept) > 1 and size > budget:
        size -= len(kept.pop(_drop_index(kept)).text) + 1
    dropped = len(lines) - len(kept)
    record: dict[str, Any] = {"trajectoryLinesCut": dropped, "strategy": _strategy(lines, kept)}
    failing_cut = sum(x.failing for x in lines) - sum(x.failing for x in kept)
    if failing_cut:
        record["failingStepsCut"] = failing_cut
    marker = Line(f"[... {dropped} trajectory lines cut to fit the judge's budget ...]")
    split = max(1, len(kept) // 2)
    return [*kept[:split], marker, *kept[split:]], record


def _strategy(lines: list[Line], kept: list[Line]) -> str:
    """One sentence saying what the cut kept, true to what it actually kept."""
    parts = ["the first line"]
    if len(kept) > 1 and kept[-1] is lines[-1]:
        parts.append("the last line")
    failing, failing_kept = sum(x.failing for x in lines), sum(x.failing for x in kept)
    if failing and failing_kept == failing:
        parts.append("every failing step")
    elif failing:
        parts.append(f"{failing_kept} of {failing} failing steps (the others did not fit)")
    head = ", ".join(parts[:-1])
    return f"cut the middle; kept {head + ' and ' if head else ''}{parts[-1]}"


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
    whole = mask(diff)
    # The diff's first ``keep`` characters, and room for the mark saying how many were cut.
    keep = min(len(whole), DIFF_CAP)
    lines = distil(events)
    mark = DIFF_MARK_ROOM if keep < len(whole) else 0
    arts_size = sum(len(n) + len(t) + 20 for n, t in artifacts)
    room = budget_chars - (len(header) + keep + mark + arts_size + 200)
    while room < 2_000 and artifacts:
        name, text = artifacts.pop()
        truncation.setdefault("artifactsDropped", []).append(name)
        room += len(name) + len(text) + 20
    if room < 2_000 and keep:
        shorter = max(0, keep - (2_000 - room) - (DIFF_MARK_ROOM - mark))
        room += keep + mark - shorter - DIFF_MARK_ROOM
        keep = shorter
    diff = whole[:keep]
    if keep < len(whole):
        truncation["diffCharsCut"] = len(whole) - keep
        diff += f"\n[... {len(whole) - keep:,} chars of the diff cut ...]\n"
    if room <= 0:
        raise ContextOverflow(f"the material cannot be cut below the budget of {budget_chars}")
    lines, cut = _cut_lines(lines, room)
    truncation.update(cut)
    body = "\n".join(x.text for x in lines)
    arts = "\n\n".join(f"## Artifact {name}\n\n{text}" for name, text in artifacts) or "(none)"
    prompt = (
        f"{header}\n# What the agent did\n\n{body or '(no events)'}\n\n# Artifacts\n\n{arts}\n\n"
        f"# Workspace diff\n\n{diff or '(no changes)'}\n"
    )
    if len(prompt) > budget_chars:
        raise ContextOverflow(
            f"the material is still {len(prompt)} characters after cutting, over the judge's "
            f"budget of {budget_chars}"
        )
    return Material(prompt, truncation)


def parse_verdict(text: str) -> dict[str, Any]:
    """The judge's JSON verdict; ValueError with a sentence when it is malformed (including
    numbers too large for a float, so the caller retries instead of crashing)."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise ValueError("the reply holds no JSON object")
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not valid JSON ({exc.msg})") from exc
    except ValueError as exc:  # e.g. an integer over Python's digit limit
        raise ValueError("the reply is not valid JSON (a number is too long)") from exc
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    for name in ("score", "confidenceLevel"):
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"'{name}' is missing or not a number")
        # Compared without converting: a huge int would overflow a float, and NaN fails both.
        if not 0 <= value <= 100:
            shown = str(value) if len(str(value)) <= 20 else f"{str(value)[:12]}… (too large)"
            raise ValueError(f"'{name}' must be from 0 to 100, got {shown}")
    if not isinstance(data.get("rationale"), str) or not data["rationale"].strip():
        raise ValueError("'rationale' is missing or empty")
    return data


def perplexity_level(logprobs: list[float] | None) -> float | None:
    """100 × (1 − the geometric-mean token probability) over the generated output: 0 when the
    judge was certain of every token, towards 100 as it guessed. None without log-probabilities.

    A log-probability is at most 0: a server's positive value (even ``inf``) is clamped to 0 and
    NaN is skipped, so the level stays within 0-100 and never overflows.
    """
    usable = [min(0.0, float(x)) for x in logprobs or [] if not math.isnan(x)]
    if not usable:
        return None
    mean = sum(usable) / len(usable)  # all ≤ 0: overflows only to -inf, never NaN
    return round(100.0 * (1.0 - math.exp(mean)), 3)
