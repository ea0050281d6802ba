"""What an evaluator keeps of a program's or a model's output (the last line in its reason,
the tail of the output, a malformed judge reply) is masked whole before it is cut: a key the
cut would split shows no part of it."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proctor.llm.refs import parse_ref
from proctor.llm.roles import RoleSet
from proctor.util import masking
from proctor.util.masking import register_secret
from tests.unit.evaluators.helpers import context, evaluate

KEY = "sk-ant-api03-CUTTESTKEY0123456789abcdefABCDEF"


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    register_secret(KEY)


def shows_part_of_the_key(text: str) -> bool:
    """Whether ``text`` holds 8 or more characters of the key, from its start or its end."""
    return any(KEY[:n] in text or KEY[-n:] in text for n in range(8, len(KEY) + 1))


def _script(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "case" / "score.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text("import sys\n" + body)
    return [sys.executable, "score.py"]


@pytest.mark.parametrize("before", [170, 185, 199])
def test_an_external_programs_last_line_in_the_reason_shows_no_part_of_a_key(
    tmp_path: Path, before: int
) -> None:
    command, *args = _script(
        tmp_path, f"sys.stderr.write('E' * {before} + {KEY!r} + ' tail')\nsys.exit(4)\n"
    )
    r = evaluate({"use": "external", "command": command, "args": args}, context(tmp_path))
    assert r.error and "exited 4: " in r.message
    assert not shows_part_of_the_key(r.message), r.message
    assert r.message.endswith(": " + ("E" * before + "*** tail")[:200])


@pytest.mark.parametrize("after", [1960, 1990, 1999])
def test_an_external_programs_output_tail_shows_no_part_of_a_key(
    tmp_path: Path, after: int
) -> None:
    command, *args = _script(tmp_path, f"sys.stderr.write({KEY!r} + 'F' * {after})\nsys.exit(4)\n")
    r = evaluate({"use": "external", "command": command, "args": args}, context(tmp_path))
    tail = r.details["outputTail"]
    assert tail.endswith("F" * after)
    assert not shows_part_of_the_key(tail), tail[:80]


def test_a_command_evaluators_output_tail_shows_no_part_of_a_key(tmp_path: Path) -> None:
    run = f"printf '%s' '{KEY}'; printf 'F%.0s' $(seq 1990)"
    r = evaluate({"use": "command", "run": run}, context(tmp_path))
    tail = r.details["outputTail"]
    assert tail.endswith("F" * 1990) and not shows_part_of_the_key(tail), tail[:80]


@dataclass
class _Reply:
    text: str
    logprobs: list[float] | None = None


class _Judge:
    """A judge model that replies with text that is no verdict, a key at its 500th character."""

    ref = parse_ref("scripted/judge", "judge")
    deadline: float | None = None
    out_of_time = ""

    def complete(self, system: str, user: str, **kwargs: Any) -> _Reply:
        return _Reply("x" * 490 + KEY)


def test_a_malformed_judge_reply_kept_in_the_details_shows_no_part_of_a_key(
    tmp_path: Path,
) -> None:
    ctx = context(tmp_path)
    (ctx.case_dir / "evaluation.md").write_text("Score the notes.\n")
    roles = RoleSet(refs={"judge": _Judge.ref})
    roles._clients["judge:scripted/judge"] = _Judge()  # type: ignore[assignment]
    ctx.roles = roles
    r = evaluate({"use": "llm-judge"}, ctx)
    assert r.error
    for attempt in (1, 2):
        kept = r.details[f"malformedReply{attempt}"]
        assert kept.startswith("x" * 490) and not shows_part_of_the_key(kept), kept[480:]
