"""Reading a case's ``qna.md``: prose for an answering model, and fenced blocks of rules::

    ```rules
    README => No, leave the README alone.
    (?i)overwrite .* => Yes
    ```

Each line is ``PATTERN => ANSWER``; the pattern is a regular expression searched in the question
text, and the first matching rule answers (:mod:`proctor.drive.answering`). Lines starting with
``#`` are comments.
"""

from __future__ import annotations

import re

from proctor.models.case import QnaRule
from proctor.util.json_shown import WHOLE, json_text

_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")
"""A Markdown code fence opening (up to three spaces in, backticks or tildes, an info word)."""


class QnaError(ValueError):
    """A rule line is malformed; the message names the line."""


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
        if info != "rules" and _meant_rules(info):
            raise QnaError(
                f"line {index}: a block tagged {fence}{info}: rules blocks are tagged "
                f"{fence}rules, in lower case; as tagged, its lines would be prose for the "
                "answering model and no rule of it would answer"
            )
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


def _meant_rules(info: str) -> bool:
    """Whether a fence's info word is ``rules`` in other capitals, in the singular, or with
    two letters swapped (``Rules``, ``rule``, ``rulse``); never another word (``roles``,
    ``ruler``)."""
    word = info.lower()
    return word in ("rules", "rule") or (sorted(word) == sorted("rules") and _one_swap(word))


def _one_swap(word: str) -> bool:
    """Whether ``word`` is ``rules`` with two neighbouring letters swapped."""
    return any(
        word == "rules"[:i] + "rules"[i + 1] + "rules"[i] + "rules"[i + 2 :] for i in range(4)
    )


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
                raise QnaError(
                    f"line {lineno}: expected 'PATTERN => ANSWER', got {json_text(line, WHOLE)}"
                )
            pattern, answer = (part.strip() for part in line.split("=>", 1))
            if not pattern or not answer:
                empty = "PATTERN" if not pattern else "ANSWER"
                raise QnaError(
                    f"line {lineno}: expected 'PATTERN => ANSWER' with a non-empty {empty}, "
                    f"got {json_text(line, WHOLE)}"
                )
            try:
                re.compile(pattern)
            except re.error as exc:
                raise QnaError(f"line {lineno}: invalid regular expression ({exc})") from exc
            rules.append(QnaRule(pattern=pattern, answer=answer, line=lineno))
    return rules
