"""The gate vocabulary, shared by the test context ``t`` (the whole conversation so far) and a
turn's result (that turn only). Each gate records a named :class:`Assertion` and returns its
:class:`Handle`; ``require_*`` gates stop the test when they fail."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from proctor.agents.protocol import Question
from proctor.evaluators.gates.assertions import Assertion, Handle, RequireFailed
from proctor.evaluators.gates.event_arguments import EVENT_TYPES as EVENT_TYPES
from proctor.evaluators.gates.event_arguments import (
    ORDER_ENTRIES,
    EventMatcher,
    _as_pair,
    _known_type,
    _near,
)
from proctor.evaluators.gates.expect import as_expectation
from proctor.evaluators.gates.integrity import (
    Finding,
    ReadScope,
    hidden_reads,
    history_peeking,
    tampering_from_events,
    test_tampering,
)
from proctor.evaluators.gates.matching import (
    CallView,
    calls_of,
    describe,
    event_matches,
    kinds_of,
    name_matches,
    value_matches,
)
from proctor.models.trajectory import (
    Event,
    SkillEvent,
    SubagentEvent,
    is_harness_call,
)
from proctor.util import argtypes
from proctor.util.text import plural


class Gates:
    """Mixed into the test context and the turn result; they provide the events, the reply,
    the turns' outcomes and where assertions go. An argument of the wrong Python type is a
    TypeError naming the gate as the test called it (``t.called_tool(): argument 'name':
    expected a tool name (a string), got 5``), before it can be read some other way."""

    _caller = ""
    """How a test names the object the gates are on (``t.``, ``turn.``)."""

    def _at(self, method: str) -> str:
        """The gate ``method`` as the test called it, for a TypeError (``t.called_tool()``)."""
        return f"{self._caller}{method}()"

    def _events(self) -> list[Event]:
        raise NotImplementedError

    def _reply(self) -> str:
        raise NotImplementedError

    def _outcomes(self) -> list[tuple[bool, Question | None]]:
        """Per turn in scope: whether it completed, and the request it parked on."""
        raise NotImplementedError

    def _record(self, assertion: Assertion) -> Handle:
        raise NotImplementedError

    def _diff(self) -> str | None:
        """The workspace diff so far (unified, as ``workspace.diff``), or None when there is
        none to read: integrity gates then read the agent's edit calls instead."""
        return None

    def _read_scope(self) -> ReadScope:
        """Where the trial lives (workspace, case folder, other trials' folders), for
        :meth:`no_hidden_reads`."""
        return ReadScope()

    def _roots(self) -> tuple[str, ...]:
        """The workspace (as given and resolved): tool inputs are matched with paths relative
        to it."""
        return ()

    def _turn_of(self, view: CallView) -> int | None:
        """The turn (1-based) a call was made in, when the gates span several turns (those
        of ``t``); None on a turn's own gates, whose turn the report names."""
        return None

    def _views(self) -> list[CallView]:
        return calls_of(self._events(), self._roots())

    def _work(self) -> list[CallView]:
        """The calls of the agent's work: :meth:`_views` without its searches of its own tool
        list (:func:`~proctor.models.trajectory.is_harness_call`), which no count of tool
        calls takes in (a check naming such a tool still sees its calls)."""
        return [v for v in self._views() if not is_harness_call(v.call.name, v.call.kind)]

    def _gate(
        self, name: str, passed: bool, message: str = "", score: float | None = None
    ) -> Handle:
        return self._record(Assertion(name, passed, score=score, message="" if passed else message))

    # -- outcome ---------------------------------------------------------------------------

    def succeeded(self) -> Handle:
        outcomes = self._outcomes()
        bad = [i + 1 for i, (ok, _) in enumerate(outcomes) if not ok]
        message = (
            "no turn was sent"
            if not outcomes
            else f"{'turn' if len(bad) == 1 else 'turns'} {', '.join(map(str, bad))} did not "
            "complete"
        )
        # A turn that parked stays parked when a later send answers it: say so, or a test
        # that answered the question reads its failure as a mistake of proctor's.
        parked = [f"turn {i + 1} parked on {q.text!r}" for i, (_, q) in enumerate(outcomes) if q]
        if parked:
            message += (
                f" ({'; '.join(parked)}: a turn that parked did not complete, even once a "
                "later message answered it; gate the turns after it instead)"
            )
        return self._gate("succeeded()", bool(outcomes) and not bad, message)

    def parked(self) -> Handle:
        outcomes = self._outcomes()
        waiting = bool(outcomes) and outcomes[-1][1] is not None
        return self._gate("parked()", waiting, "the last turn is not waiting on a request")

    def message_includes(self, expected: str | re.Pattern[str]) -> Handle:
        reply = self._reply()
        if isinstance(expected, re.Pattern):
            ok, shown = expected.search(reply) is not None, f"/{expected.pattern}/"
        elif not isinstance(expected, str):
            raise argtypes.wrong_type(
                self._at("message_includes"),
                "expected",
                "a text or a compiled regex (re.compile(...))",
                expected,
            )
        elif expected == "":  # held by every reply: the gate could never fail
            raise argtypes.wrong_value(
                self._at("message_includes"),
                "expected",
                "a text that is not empty or a compiled regex (re.compile(...))",
                expected,
            )
        else:
            ok, shown = expected in reply, repr(expected)
        return self._gate(f"message_includes({shown})", ok, f"the reply does not include {shown}")

    # -- tools -----------------------------------------------------------------------------

    def _calls(
        self, name: str, input: Any = None, output: Any = None, status: str | None = None
    ) -> list[CallView]:
        found = []
        for view in self._views():
            if not name_matches(view.call, name) or not value_matches(view.input, input):
                continue
            if status is not None and view.status != status:
                continue
            if output is not None and not value_matches(view.output, output):
                continue
            found.append(view)
        return found

    def called_tool(
        self,
        name: str,
        input: Any = None,
        output: Any = None,
        count: int | None = None,
        status: str | None = None,
    ) -> Handle:
        """A call of ``name`` was requested (or ended with ``status``, e.g. ``completed``),
        ``count`` times exactly when given, with matching ``input`` / ``output``."""
        self._call_args("called_tool", name, status)
        argtypes.count(count, self._at("called_tool"), "count", optional=True)
        found = self._calls(name, input, output, status)
        ok = len(found) == count if count is not None else bool(found)
        parts = [repr(name)]
        parts += [f"input={describe(input)}"] if input is not None else []
        parts += [f"output={describe(output)}"] if output is not None else []
        parts += [f"count={count}"] if count is not None else []
        parts += [f"status={status!r}"] if status is not None else []
        message = f"{plural(len(found), 'matching call')}; calls seen: {_seen(self._views())}"
        if not found:
            message += self._misses(name, input, output, status)
        return self._gate(f"called_tool({', '.join(parts)})", ok, message)

    def _misses(self, name: str, input: Any, output: Any, status: str | None) -> str:
        """What the calls of ``name`` had where ``input``, ``output`` or ``status`` matched
        none of them (``; 1 call of 'write': Write (input {"file_path": "a.txt"})``): a key
        the agent's tool names otherwise, such as ``path`` for ``file_path``, shows there."""
        named = [v for v in self._views() if name_matches(v.call, name)]
        if not named or (input is None and output is None and status is None):
            return ""
        shown = []
        for view in named[:3]:
            bits = [f"input {_short(view.input)}"] if input is not None else []
            bits += [f"output {_short(view.output)}"] if output is not None else []
            bits += [f"status {view.status}"] if status is not None else []
            shown.append(f"{view.name} ({', '.join(bits)})")
        more = f"; and {len(named) - 3} more" if len(named) > 3 else ""
        return f"; {plural(len(named), 'call')} of {name!r}: {'; '.join(shown)}{more}"

    def _call_args(self, method: str, name: str, status: str | None) -> None:
        """The tool name and status of ``called_tool`` or ``require_tool_call``."""
        _named(name, self._at(method), "tool")
        argtypes.text(status, self._at(method), "status", optional=True)
        if status is not None and status not in CALL_STATUSES:
            # A misspelt status would match no call, so count=0 could never fail.
            raise ValueError(
                f"status={status!r}: expected one of {', '.join(CALL_STATUSES)}"
                + _near(status, CALL_STATUSES)
            )

    def not_called_tool(self, name: str) -> Handle:
        _named(name, self._at("not_called_tool"), "tool")
        found = self._calls(name)
        return self._gate(
            f"not_called_tool({name!r})", not found, f"{plural(len(found), 'call')} of {name!r}"
        )

    def tool_order(self, names: Sequence[str]) -> Handle:
        """The calls happened in this relative order (other calls in between are fine)."""
        # A string is refused: its letters would be taken as tool names.
        names = argtypes.names(names, self._at("tool_order"), "names", one=False, what="tool name")
        for index, each in enumerate(names):
            _named(each, self._at("tool_order"), "tool", f"names[{index}]")
        calls = self._views()
        at = 0
        for view in calls:
            if at < len(names) and name_matches(view.call, names[at]):
                at += 1
        ok = at == len(names)
        # Which name stopped the order, and what each call is (its kinds: Codex CLI's calls
        # are all exec_command), so a failure says why without the transcript.
        stop = f"no call matches {names[at]!r}" if not ok else ""
        stop += f" after the one that matched {names[at - 1]!r}" if not ok and at else ""
        shown = ", ".join(_called(v) for v in calls) or "none"
        message = f"matched {at} of {len(names)} in order ({stop}); calls: {shown}"
        return self._gate(f"tool_order({list(names)})", ok, message)

    def used_no_tools(self) -> Handle:
        calls = self._work()
        return self._gate("used_no_tools()", not calls, plural(len(calls), "tool call"))

    def max_tool_calls(self, n: int) -> Handle:
        argtypes.count(n, self._at("max_tool_calls"), "n")
        calls = self._work()
        return self._gate(f"max_tool_calls({n})", len(calls) <= n, f"{len(calls)} tool calls > {n}")

    def no_failed_actions(self) -> Handle:
        """No call of the agent's work ended in an error (a denied call is not a failure; a
        search of its own tool list is no action, as in the process metrics' failed calls)."""
        failed = [v for v in self._work() if v.status == "failed"]
        names = []
        for view in failed:  # the turn of each, as succeeded() names the turns
            turn = self._turn_of(view)
            names.append(f"{view.name!r}" + (f" (turn {turn})" if turn is not None else ""))
        return self._gate("no_failed_actions()", not failed, f"failed calls: {', '.join(names)}")

    def loaded_skill(self, name: str) -> Handle:
        """The skill ``name`` was loaded: its whole name, or the part after a plugin's
        ``plugin:`` prefix (``review`` is ``tools:review``, never ``review-strict``)."""
        _named(name, self._at("loaded_skill"), "skill")
        events = self._events()
        ok = any(isinstance(e, SkillEvent) and same_name(e.name, name) for e in events) or any(
            v.call.kind == "skill" and same_name(_named_in(v.input, SKILL_KEYS), name)
            for v in calls_of(events)
        )
        return self._gate(f"loaded_skill({name!r})", ok, f"skill {name!r} was not loaded")

    def called_subagent(self, name: str, input: Any = None) -> Handle:
        """A subagent ``name`` ran (its whole name, or after a ``plugin:`` prefix)."""
        _named(name, self._at("called_subagent"), "subagent")
        events = self._events()
        ok = any(isinstance(e, SubagentEvent) and same_name(e.name, name) for e in events) or any(
            v.call.kind == "subagent"
            and same_name(_named_in(v.input, SUBAGENT_KEYS), name)
            and value_matches(v.input, input)
            for v in calls_of(events)
        )
        return self._gate(f"called_subagent({name!r})", ok, f"no subagent {name!r} ran")

    # -- integrity -------------------------------------------------------------------------

    def no_test_tampering(
        self, globs: Sequence[str] | None = None, allow_edits: bool = False
    ) -> Handle:
        """No test file (``globs``, default common test layouts) was deleted, renamed or
        edited; with ``allow_edits``, edits are fine unless they remove a test, add a skip or
        xfail marker, replace an assertion by a constant or add a hard exit."""
        where = self._at("no_test_tampering")
        if globs is not None:
            globs = argtypes.names(globs, where, "globs", one=False, what="glob")
        argtypes.flag(allow_edits, where, "allow_edits")
        diff = self._diff()
        if diff is not None:
            found = test_tampering(diff, globs, allow_edits)
        else:
            found = tampering_from_events(
                self._events(), globs, allow_edits, self._read_scope().workspace
            )
        args = [f"{list(globs)!r}"] if globs else []
        args += ["allow_edits=True"] if allow_edits else []
        return self._gate(f"no_test_tampering({', '.join(args)})", not found, _listed(found))

    def no_hidden_reads(self, globs: Sequence[str] = ()) -> Handle:
        """The agent never read (or named in a command) a file matching ``globs`` (in the
        workspace or the case folder), nor anything in another trial's folder."""
        globs = argtypes.names(globs, self._at("no_hidden_reads"), "globs", one=False, what="glob")
        found = hidden_reads(self._events(), list(globs), self._read_scope())
        shown = repr(list(globs)) if globs else ""
        return self._gate(f"no_hidden_reads({shown})", not found, _listed(found))

    def no_history_peeking(self) -> Handle:
        """No ``git log --all``, ``git reflog``, ``git show`` of another ref, or reading of
        ``.git`` internals: the fix is not dug out of history."""
        found = history_peeking(self._events())
        return self._gate("no_history_peeking()", not found, _listed(found))

    # -- events ----------------------------------------------------------------------------

    def event(self, type: str, matcher: Any = None) -> Handle:
        _known_type(type, matcher, where=self._at("event"))
        ok = any(event_matches(e, type, matcher, self._roots()) for e in self._events())
        shown = f"{type!r}" + (f", {describe(matcher)}" if matcher is not None else "")
        return self._gate(f"event({shown})", ok, f"no {type} event matched")

    def not_event(self, type: str, matcher: Any = None) -> Handle:
        _known_type(type, matcher, where=self._at("not_event"))
        hits = sum(event_matches(e, type, matcher, self._roots()) for e in self._events())
        shown = f"{type!r}" + (f", {describe(matcher)}" if matcher is not None else "")
        return self._gate(
            f"not_event({shown})", hits == 0, f"{plural(hits, f'{type} event')} matched"
        )

    def event_order(self, matchers: Sequence[EventMatcher]) -> Handle:
        """Events matching each entry (a type, ``(type, matcher)`` or a dict with ``type``)
        happened in this relative order."""
        where = self._at("event_order")
        if isinstance(matchers, str | bytes | bytearray | Mapping) or not isinstance(
            matchers, Iterable
        ):
            raise argtypes.wrong_type(where, "matchers", f"a list of {ORDER_ENTRIES}", matchers)
        wanted = []
        for index, entry in enumerate(matchers):
            kind, matcher, args = _as_pair(entry, where, f"matchers[{index}]")
            _known_type(kind, matcher, where=where, args=args)
            wanted.append((kind, matcher))
        at = 0
        for event in self._events():
            if at < len(wanted) and event_matches(event, *wanted[at], self._roots()):
                at += 1
        shown = [w[0] for w in wanted]
        return self._gate(
            f"event_order({shown})", at == len(wanted), f"matched {at} of {len(wanted)} in order"
        )

    def events_satisfy(self, label: str, predicate: Callable[[list[Event]], Any]) -> Handle:
        argtypes.text(label, self._at("events_satisfy"), "label")
        if not callable(predicate):  # calling it would fail the gate, not name the slip
            raise argtypes.wrong_type(
                self._at("events_satisfy"), "predicate", "a callable taking the events", predicate
            )
        try:
            ok, message = bool(predicate(self._events())), f"the events do not satisfy {label}"
        except Exception as exc:
            ok, message = False, f"{label} raised {type(exc).__name__}: {exc}"
        return self._gate(f"events_satisfy({label!r})", ok, message)

    # -- values ----------------------------------------------------------------------------

    def check(self, value: Any, expectation: Any, *, name: str | None = None) -> Handle:
        """``value`` against ``expectation``; the gate is named by the expectation
        (``check(equals 'hello')``), or by ``name`` when given (``check('greeting')``): the
        name its finding keeps when the expected value changes from run to run."""
        argtypes.text(name, self._at("check"), "name", optional=True)
        exp = as_expectation(expectation)
        outcome = exp(value)
        shown = exp.label if name is None else repr(name)
        return self._gate(f"check({shown})", outcome.passed, outcome.message, outcome.score)

    def score(self, name: str, value: float) -> Handle:
        """A 0-1 measure, soft (recorded, never failing) until given a bar with ``.gate(x)``
        or ``.at_least(x)``. A value outside 0-1 is refused, never clamped: 40 meant as 40 of
        100 would be 1 and pass every bar. A rounding error past an end (1.0000000000000002)
        is that end."""
        argtypes.text(name, self._at("score"), "name")
        argtypes.real(value, self._at("score"), "value")  # float("0.7") would take a text
        number = _score_number(name, value)
        handle = self._gate(f"score({name!r})", True, score=number)
        handle.assertion.needs_bar = True
        return handle.soft()

    def require_tool_call(
        self, name: str, input: Any = None, output: Any = None, status: str | None = None
    ) -> CallView:
        """Gate on a matching call, then return the first one (its ``input`` and ``output``)."""
        self._call_args("require_tool_call", name, status)
        handle = self.called_tool(name, input=input, output=output, status=status)
        if not handle:
            raise RequireFailed(handle.assertion.message)
        return self._calls(name, input, output, status)[0]

    def require_input_request(self, filter: Any = None) -> Question:
        """Exactly one pending question or permission request (matching ``filter``: a text, a
        regex or a predicate on its text), returned so the next send can answer it."""
        if not (filter is None or isinstance(filter, str | re.Pattern) or callable(filter)):
            raise argtypes.wrong_type(
                self._at("require_input_request"),
                "filter",
                "a text, a compiled regex, a predicate or None",
                filter,
            )
        outcomes = self._outcomes()
        pending = outcomes[-1][1] if outcomes else None
        ok = pending is not None and (
            filter is None
            or value_matches(pending.text, filter)
            or (isinstance(filter, str) and filter in pending.text)
        )
        name = "require_input_request(" + (describe(filter) if filter is not None else "") + ")"
        message = (
            "no pending request" if pending is None else f"the pending request is {pending.text!r}"
        )
        handle = self._gate(name, ok, message)
        if not handle or pending is None:
            raise RequireFailed(message)
        return pending


CALL_STATUSES = ("completed", "failed", "denied", "pending")
"""What a call's ``status`` can be (see :class:`~proctor.evaluators.gates.matching.CallView`)."""


SKILL_KEYS = ("skill", "name")
"""Where a skill tool's input names the skill (Claude Code ``Skill``, Gemini CLI
``activate_skill``)."""
SUBAGENT_KEYS = ("subagent_type", "agent_type", "name")
"""Where a subagent tool's input names the subagent (Claude Code, Codex CLI, others)."""


def same_name(actual: Any, name: str) -> bool:
    """``actual`` is ``name``, or ``plugin:name`` (a plugin's skill or subagent)."""
    if not isinstance(actual, str) or not actual:
        return False
    return actual == name or actual.endswith(":" + name)


SCORE_SLACK = 1e-9
"""How far past 0 or 1 a score may be and still be that end: a sum of float shares can land a
rounding error past it."""


def _score_number(name: str, value: float) -> float:
    """``value`` (a number) as a score from 0 to 1; a ValueError with a sentence when it is
    not one."""
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"score({name!r}, nan): a score is a number from 0 to 1, not NaN")
    if not -SCORE_SLACK <= number <= 1 + SCORE_SLACK:
        # 40 meant as 40 of 100 would be clamped to 1 and pass every bar.
        whole = number.is_integer() and 1 < number <= 100
        hint = f" ({number / 100:g}, not {number:g})" if whole else ""
        raise ValueError(
            f"score({name!r}, {value!r}): a score is a number from 0 to 1{hint}; a value "
            "outside it is refused, not clamped"
        )
    return min(max(number, 0.0), 1.0)


def _called(view: CallView) -> str:
    """A call as a failure message shows it: its own name and the kinds a gate matches it by
    (``exec_command (shell, search)``, ``Edit (edit)``), the kind the agent gave it first."""
    kinds = kinds_of(view.call)
    first = [view.call.kind] if view.call.kind in kinds else []
    return f"{view.name} ({', '.join(first + sorted(kinds - set(first))) or 'no kind'})"


def _seen(views: Sequence[CallView]) -> str:
    """The calls of a trajectory, each name once (sorted) with every kind its calls had:
    ``Bash (shell, search), Edit (edit)``; ``none`` for no call."""
    kinds: dict[str, set[str]] = {}
    first: dict[str, str] = {}
    for view in views:
        kinds.setdefault(view.name, set()).update(kinds_of(view.call))
        first.setdefault(view.name, view.call.kind or "")
    shown = []
    for name in sorted(kinds):
        lead = [first[name]] if first[name] in kinds[name] else []
        listed = lead + sorted(kinds[name] - set(lead))
        shown.append(f"{name} ({', '.join(listed) or 'no kind'})")
    return ", ".join(shown) or "none"


def _named(value: Any, where: str, what: str, arg: str = "name") -> None:
    """Argument ``arg`` of ``where``: the name of a ``what`` (``tool``), a string with a name
    in it: an empty one is no name and matches no call, so ``not_called_tool("")`` could
    never fail and ``called_tool("")`` never pass."""
    if not isinstance(value, str):
        raise argtypes.wrong_type(where, arg, f"a {what} name (a string)", value)
    if not value.strip():
        raise argtypes.wrong_value(where, arg, f"a {what} name (a string that is not empty)", value)


def _named_in(data: dict[str, Any], keys: Sequence[str]) -> Any:
    return next((data[k] for k in keys if data.get(k)), None)


def _listed(found: Sequence[Finding], limit: int = 5) -> str:
    shown = "; ".join(str(f) for f in found[:limit])
    more = f"; and {len(found) - limit} more" if len(found) > limit else ""
    return shown + more


def _short(value: Any, most: int = 120) -> str:
    """A call's input or output in a gate's message: its JSON, cut to ``most`` characters."""
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= most else text[: most - 1] + "…"
