"""A judge's assertion is named by its kind and what it judges against (its criteria, its
expected text, or ``name=``), so two judges of one kind in a test are two assertions, and two
findings; two of the same name are told apart by the order the test called them, not by the
order their grades came back."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from types import SimpleNamespace
from typing import Any

from proctor.evals.judges import Judge
from proctor.evaluators.gates.assertions import Assertion, Handle


class _Roles:
    """A judge role whose reply to the criteria ``first`` waits until another was given."""

    def __init__(self) -> None:
        self.other_done = threading.Event()

    def has(self, role: str) -> bool:
        return role == "judge"

    def client(self, role: str, ref: Any) -> Any:
        return SimpleNamespace(ref="scripted/judge", complete=self._complete)

    def _complete(self, system: str, prompt: str, max_tokens: int) -> Any:
        if "first" in prompt:
            assert self.other_done.wait(10)
            score = 90
        else:
            score = 20
            self.other_done.set()
        reply = {"score": score, "confidenceLevel": 80, "rationale": "r"}
        return SimpleNamespace(text=json.dumps(reply))


def _judged(calls: Any) -> list[Assertion]:
    recorded: list[Assertion] = []

    def record(a: Assertion) -> Handle:
        recorded.append(a)
        return Handle(a)

    roles = _Roles()
    judge = Judge(lambda: roles, lambda: "the reply", record)  # type: ignore[arg-type,return-value]

    async def main() -> None:
        await asyncio.gather(*calls(judge))

    asyncio.run(main())
    return recorded


def test_two_judges_of_a_kind_are_named_by_their_criteria() -> None:
    recorded = _judged(
        lambda j: [j.closed_qa("the first criteria"), j.closed_qa("Says the tests ran?")]
    )
    # The second one's grade came back first (which is recorded first is the threads' race):
    # each is under its own name, with its own grade.
    assert {a.name: a.score for a in recorded} == {
        "judge.closed_qa('Says the tests ran?')": 0.2,
        "judge.closed_qa('the first criteria')": 0.9,
    }
    assert len(recorded) == 2
    assert {a.judge for a in recorded} == {"closed_qa"}


def test_judges_of_one_name_are_numbered_in_the_order_they_were_called() -> None:
    recorded = _judged(
        lambda j: [
            j.factuality("same", on="x", name="first"),
            j.factuality("same", on="y", name="first"),
        ]
    )
    # (name= names it: "first" is in no prompt, so neither grade waits for the other.)
    assert sorted(a.name for a in recorded) == [
        "judge.factuality('first')",
        "judge.factuality('first')#2",
    ]


def test_identical_judges_gathered_keep_the_order_of_their_calls() -> None:
    recorded = _judged(
        lambda j: [
            j.closed_qa("same criteria", on="the first output"),
            j.closed_qa("same criteria", on="the second output"),
        ]
    )
    by_name = {a.name: a.score for a in recorded}
    assert by_name == {
        "judge.closed_qa('same criteria')": 0.9,  # called first, graded last
        "judge.closed_qa('same criteria')#2": 0.2,
    }


def test_long_criteria_are_cut_to_a_line_and_told_apart_by_a_digest_of_the_whole() -> None:
    (a,) = _judged(lambda j: [j.summarizes("word " * 40 + "\nend")])
    whole = " ".join(("word " * 40 + "\nend").split())
    digest = hashlib.sha256(whole.encode()).hexdigest()[:8]
    assert a.name == "judge.summarizes('" + ("word " * 12)[:59] + f"…' {digest})", a.name


def test_criteria_that_differ_after_the_cut_are_two_names() -> None:
    template = "The final answer explains the change made to the file named {}"
    recorded = _judged(
        lambda j: [j.closed_qa(template.format(f), on="x") for f in ("a.py", "b.py")]
    )
    names = {a.name for a in recorded}
    assert len(names) == 2, names  # two judges, two assertions: neither is #2
    assert all(name.startswith(f"judge.closed_qa('{template[:59]}…' ") for name in names)
    assert not any("#" in name for name in names)


def test_short_criteria_are_named_as_written() -> None:
    (a,) = _judged(lambda j: [j.closed_qa("x" * 60, on="y")])
    assert a.name == f"judge.closed_qa('{'x' * 60}')"
