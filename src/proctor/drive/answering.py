"""Answering the agent's questions by a written policy.

A case's ``qna.md`` is prose for a model (used by a later role) and may contain a fenced block
of deterministic rules::

    ```rules
    README => No, leave the README alone.
    (?i)overwrite .* => Yes
    ```

Each line is ``PATTERN => ANSWER``; the pattern is a regular expression searched in the
question text, and the first matching rule answers. Lines starting with ``#`` are comments. When
no rule matches and no answering model is configured, the trial ends ``failed`` with reason
``unanswered question: ...`` ("if unsure, abort").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")
"""A Markdown code fence opening (up to three spaces in, backticks or tildes, an info word)."""


class QnaError(ValueError):
    """A rule line is malformed; the message names the line."""


@dataclass(frozen=True)
class QnaRule:
    pattern: str
    answer: str
    line: int

    def matches(self, question: str) -> bool:
        return re.search(self.pattern, question) is not None


@dataclass(frozen=True)
class Answer:
    text: str | None
    policy: str  # "rule" | "model" | "abort"
    rule: str | None = None


def rule_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(first line number, lines) of every fenced ``rules`` block, as Markdown reads fences:
    backticks or tildes, up to three spaces in, closed by a run of the same character at least
    as long. Other fenced blocks are skipped whole; a ``rules`` block never closed is an error."""
    lines = text.removeprefix("\ufeff").splitlines()
    blocks: list[tuple[int, list[str]]] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        index += 1
        if opening is None:
            continue
        fence, info = opening.group(1), opening.group(2)
        start, body = index, []
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        while index < len(lines) and not closing.match(lines[index]):
            body.append(lines[index])
            index += 1
        if index == len(lines) and info == "rules":
            raise QnaError(f"line {start}: the {fence}rules block opened here is never closed")
        index += 1
        if info == "rules":
            blocks.append((start + 1, body))
    return blocks


def parse_qna_rules(text: str) -> list[QnaRule]:
    """The rules of every fenced ``rules`` block, in order."""
    rules: list[QnaRule] = []
    for first_line, body in rule_blocks(text):
        for offset, raw in enumerate(body):
            line = raw.strip()
            lineno = first_line + offset
            if not line or line.startswith("#"):
                continue
            if "=>" not in line:
                raise QnaError(f"line {lineno}: expected 'PATTERN => ANSWER', got {line!r}")
            pattern, answer = (part.strip() for part in line.split("=>", 1))
            if not pattern or not answer:
                raise QnaError(f"line {lineno}: both PATTERN and ANSWER must be non-empty")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise QnaError(f"line {lineno}: invalid regular expression ({exc})") from exc
            rules.append(QnaRule(pattern, answer, lineno))
    return rules


def answer_question(question: str, rules: list[QnaRule]) -> Answer:
    """Apply the policy: the first matching rule, else abort."""
    for rule in rules:
        if rule.matches(question):
            return Answer(rule.answer, "rule", f"{rule.pattern} => {rule.answer}")
    return Answer(None, "abort")
