"""A value given by position to a function of the eval API that takes it by keyword only is
one sentence naming the keywords, whatever form Python's own message takes."""

from __future__ import annotations

import pytest

from proctor.evals import define_eval
from proctor.evals.arguments import argument_error
from proctor.evals.judges import Judge


def _error(call: object) -> TypeError:
    with pytest.raises(TypeError) as caught:
        call()  # type: ignore[operator]
    return caught.value


def test_a_keyword_only_function_given_a_keyword_too_names_its_keywords() -> None:
    # Python: "takes 0 positional arguments but 1 positional argument (and 1 keyword-only
    # argument) were given"
    error = _error(lambda: define_eval("x", description="y"))
    said = argument_error(error)
    assert said is not None and said.startswith("define_eval() takes keyword arguments only (")
    assert said.endswith("qna), and 1 was given by position"), said


def test_a_method_with_an_optional_positional_counts_without_self() -> None:
    # Python: "Judge.model() takes 2 positional arguments but 3 were given", self counted;
    # named as the line calls it
    judge = Judge.__new__(Judge)
    error = _error(lambda: judge.model("prompt", "m"))
    assert argument_error(error) == (
        "judge.model() takes prompt by position and the others by keyword only (model, "
        "system), and 2 were given by position"
    )


def test_a_function_of_the_file_s_own_or_without_keywords_keeps_python_s_sentence() -> None:
    def own(*, a: int = 1) -> None: ...

    assert argument_error(_error(lambda: own(1))) is None  # type: ignore[misc]
    python = TypeError("includes() takes 1 positional argument but 2 were given")
    assert argument_error(python) is None  # includes(expected) takes no keyword-only one


def test_every_form_of_python_s_sentence_is_read() -> None:
    for python in (
        "Judge.model() takes from 2 to 3 positional arguments but 3 were given",
        "Judge.model() takes 2 positional arguments but 3 positional arguments (and 1 "
        "keyword-only argument) were given",
    ):
        said = argument_error(TypeError(python))
        assert said == (
            "t.judge.model() takes prompt by position and the others by keyword only (model, "
            "system), and 2 were given by position"
        ), python
