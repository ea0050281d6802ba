"""``t.judge``: graders that ask the judge role to score a value (``t.reply`` unless ``on=`` is
given) against an expectation or criteria. Soft by default; a provider failure is an error of
the case, never a low score."""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import Callable
from typing import Any

from proctor.evals.awaited import Tracked
from proctor.evaluators.gates.assertions import Assertion, Handle
from proctor.llm.failures import ProviderError
from proctor.llm.judge import parse_verdict
from proctor.llm.refs import parse_ref
from proctor.llm.roles import RoleSet
from proctor.util import argtypes

SYSTEM = (
    "You grade the output of a coding agent. Reply with one JSON object only: "
    '{"score": <0-100>, "confidenceLevel": <0-100>, "rationale": "<one or two sentences>"}.'
)
TASKS = {
    "factuality": "Is the output factually consistent with the expected answer? Score 100 when "
    "it states the same facts (extra detail that does not contradict is fine), 0 when it "
    "contradicts them.",
    "summarizes": "Is the output a faithful summary of the expected text: its main points, "
    "nothing it does not say?",
    "closed_qa": "Does the output satisfy the criteria?",
    "sql": "Is the output SQL equivalent to the expected SQL (same result on any database)?",
}


class JudgeError(Exception):
    """The judge could not be asked (no model, a provider failure, an unusable reply)."""


class Judge:
    def __init__(
        self,
        roles: Callable[[], RoleSet | None],
        reply: Callable[[], str],
        record: Callable[[Assertion], Handle],
        model: str | None = None,
        made: list[Tracked[Any]] | None = None,
    ) -> None:
        self._roles = roles
        self._reply = reply
        self._record = record
        self._model = model
        self._made: list[Tracked[Any]] = [] if made is None else made
        """Where each call's awaitable is kept, to find one the test never awaited."""
        self._called: Counter[str] = Counter()
        """How many judges of each name the test called so far: the second of a name is
        ``#2``, in the order of the calls, whichever grade comes back first."""

    def _client(self, model: str | None) -> Any:
        roles = self._roles()
        name = model or self._model
        ref = parse_ref(name, "judge model") if name else None
        if roles is None or (ref is None and not roles.has("judge")):
            raise JudgeError(
                "no judge model: give judge= (call, case, file or evals.config.py) or --judge-model"
            )
        return roles.client("judge", ref)

    def model(self, prompt: str, *, model: str | None = None, system: str = "") -> Tracked[str]:
        """The judge model's raw reply to ``prompt`` (when awaited)."""
        return Tracked(self._ask(prompt, model, system), "t.judge.model(...)", self._made)

    async def _ask(self, prompt: str, model: str | None, system: str) -> str:
        argtypes.text(prompt, "t.judge.model()", "prompt")
        argtypes.text(model, "t.judge.model()", "model", optional=True)
        argtypes.text(system, "t.judge.model()", "system")
        client = self._client(model)
        try:
            reply = await asyncio.to_thread(client.complete, system, prompt, max_tokens=1024)
        except ProviderError as exc:
            raise JudgeError(f"judge {client.ref} failed: {exc}") from exc
        return str(reply.text)

    def _track(
        self,
        kind: str,
        reference: str,
        label: str,
        on: Any,
        model: str | None,
        name: str | None,
    ) -> Tracked[Handle]:
        # Named when called, not when graded: two judges gathered keep the order of their calls.
        base = f"judge.{kind}({_shown(name if name is not None else reference)})"
        self._called[base] += 1
        count = self._called[base]
        named = base if count == 1 else f"{base}#{count}"
        grade = self._grade(kind, reference, label, on, model, name, named)
        return Tracked(grade, f"t.judge.{kind}(...)", self._made)

    async def _grade(
        self,
        kind: str,
        reference: str,
        label: str,
        on: Any,
        model: str | None,
        name: str | None,
        named: str,
    ) -> Handle:
        where = f"t.judge.{kind}()"
        argtypes.text(reference, where, "criteria" if kind == "closed_qa" else "expected")
        argtypes.text(model, where, "model", optional=True)
        argtypes.text(name, where, "name", optional=True)
        value = self._reply() if on is None else on
        prompt = (
            f"{TASKS[kind]}\n\n<{label}>\n{reference}\n</{label}>\n\n<output>\n{value}\n</output>\n"
        )
        client = self._client(model)
        try:
            reply = await asyncio.to_thread(client.complete, SYSTEM, prompt, max_tokens=512)
            verdict = parse_verdict(reply.text)
        except ProviderError as exc:
            raise JudgeError(f"judge {client.ref} failed: {exc}") from exc
        except ValueError as exc:
            raise JudgeError(f"judge {client.ref} gave an unusable reply: {exc}") from exc
        score = float(verdict["score"]) / 100
        handle = self._record(
            Assertion(
                named,
                True,
                soft=True,
                score=score,
                message=str(verdict["rationale"]),
                needs_bar=True,
                judge=kind,
            )
        )
        return handle

    def factuality(
        self, expected: str, *, on: Any = None, model: str | None = None, name: str | None = None
    ) -> Tracked[Handle]:
        return self._track("factuality", expected, "expected", on, model, name)

    def summarizes(
        self, expected: str, *, on: Any = None, model: str | None = None, name: str | None = None
    ) -> Tracked[Handle]:
        return self._track("summarizes", expected, "text", on, model, name)

    def closed_qa(
        self, criteria: str, *, on: Any = None, model: str | None = None, name: str | None = None
    ) -> Tracked[Handle]:
        return self._track("closed_qa", criteria, "criteria", on, model, name)

    def sql(
        self, expected: str, *, on: Any = None, model: str | None = None, name: str | None = None
    ) -> Tracked[Handle]:
        return self._track("sql", expected, "expected", on, model, name)


SHOWN_CHARS = 60
"""How much of a judge's criteria (or expected text) its name shows."""

DIGEST_CHARS = 8
"""How many hex digits of the SHA-256 of a cut criteria's line its name adds."""


def _shown(text: Any) -> str:
    """A judge's criteria, expected text or ``name=`` as its assertion's name shows it: one
    line, quoted as a gate quotes what it checks; a longer line is cut to :data:`SHOWN_CHARS`
    and followed by the first :data:`DIGEST_CHARS` hex digits of the SHA-256 of the whole
    line (``'The final answer explains the change made to the file named…' 0049fff5``), so
    two criteria that differ only after the cut (``…the file named {f}``) have two names.
    ``…`` for a value that is no text (refused when graded)."""
    if not isinstance(text, str):
        return "…"
    line = " ".join(text.split())
    if len(line) <= SHOWN_CHARS:
        return repr(line)
    digest = hashlib.sha256(line.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]
    return f"{line[: SHOWN_CHARS - 1] + '…'!r} {digest}"
