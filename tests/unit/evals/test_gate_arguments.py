"""Gate arguments that could never make a gate fail are refused, with the slip named."""

from __future__ import annotations

import pytest

from proctor.evaluators.gates.assertions import Assertion, Handle
from proctor.evaluators.gates.expect import matches
from proctor.evaluators.gates.vocabulary import _known_type


@pytest.mark.parametrize(
    ("matcher", "said"),
    [({"is_error": True}, "did you mean 'isError'"), ({"colour": 1}, "no key 'colour'")],
)
def test_a_matcher_key_no_event_has_is_refused(matcher: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        _known_type("tool_result", matcher)


def test_control_the_keys_events_have_pass() -> None:
    _known_type("tool_result", {"isError": True, "output": "x"})
    _known_type("tool_call", {"name": "Bash"})


def test_a_predicate_that_answers_false_is_no_match() -> None:
    assert not matches(lambda v: v == "yes")("no").passed
    assert matches(lambda v: v == "yes")("yes").passed
    assert matches(lambda v: None)("anything").passed  # raises nothing, returns nothing: accepts


@pytest.mark.parametrize("bar", [0, 70, -0.5])
def test_a_bar_out_of_range_is_refused(bar: object) -> None:
    handle = Handle(Assertion("x", False))
    with pytest.raises(ValueError, match="a bar is a score above 0 and at most 1"):
        handle.at_least(bar)  # type: ignore[arg-type]


@pytest.mark.parametrize(("bar", "got"), [(True, "True (a bool)"), ("0.7", "the string '0.7'")])
def test_a_bar_that_is_no_number_is_a_type_error(bar: object, got: str) -> None:
    handle = Handle(Assertion("x", False))
    with pytest.raises(TypeError) as raised:
        handle.at_least(bar)  # type: ignore[arg-type]
    assert str(raised.value) == f"x.at_least(): argument 'bar': expected a number, got {got}"


def test_a_bar_given_to_gate_is_refused_as_gate() -> None:
    handle = Handle(Assertion("x", False))
    with pytest.raises(ValueError, match=r"^gate\(70\): a bar is a score above 0 and at most 1"):
        handle.gate(70)
    with pytest.raises(ValueError, match=r"^at_least\(70\): "):
        handle.at_least(70)
