"""An llm-judge's calls are bounded in all by its ``timeoutSec``, unless the client already
holds an earlier deadline (the trial's own), which it keeps; either is put back after."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from proctor.llm.refs import parse_ref
from proctor.llm.roles import RoleSet
from tests.unit.evaluators.helpers import context, evaluate


@dataclass
class _Reply:
    text: str
    logprobs: list[float] | None = None


@dataclass
class _Judge:
    """A judge model that passes, noting the deadline and wording it was called with."""

    deadline: float | None = None
    out_of_time: str = "the trial's time ran out"
    seen: list[tuple[float | None, str]] = field(default_factory=list)
    ref: ClassVar[Any] = parse_ref("scripted/judge", "judge")

    def complete(self, system: str, user: str, **kwargs: Any) -> _Reply:
        self.seen.append((self.deadline, self.out_of_time))
        return _Reply('{"score": 90, "confidenceLevel": 80, "rationale": "Fine."}')


def _judged(tmp_path: Path, judge: _Judge, trial: float | None = None, **params: Any) -> None:
    ctx = context(tmp_path)
    (ctx.case_dir / "evaluation.md").write_text("Score the notes.\n")
    roles = RoleSet(refs={"judge": judge.ref})
    roles.deadline = trial  # the trial's own, handed to each client it gives
    roles._clients["judge:scripted/judge"] = judge  # type: ignore[assignment]
    ctx.roles = roles
    r = evaluate({"use": "llm-judge", **params}, ctx)
    assert not r.error, r.message


def test_the_judges_own_timeout_bounds_its_calls_and_is_put_back(tmp_path: Path) -> None:
    judge = _Judge()
    before = time.monotonic()
    _judged(tmp_path, judge, timeoutSec=30)
    ((deadline, said),) = judge.seen
    assert deadline is not None and before + 29 < deadline <= time.monotonic() + 30
    assert said == "no verdict within the judge's timeoutSec (30 s)"
    assert judge.deadline is None and judge.out_of_time == "the trial's time ran out"


def test_an_earlier_deadline_of_the_trial_is_kept(tmp_path: Path) -> None:
    soon = time.monotonic() + 5
    judge = _Judge()
    _judged(tmp_path, judge, trial=soon, timeoutSec=300)
    assert judge.seen == [(soon, "the trial's time ran out")]
    assert judge.deadline == soon
