"""Unit tests of the metric building blocks, above all their empty and degenerate inputs."""

from __future__ import annotations

from typing import Any

import pytest
from metrics_fixtures import call, result, shell

from proctor.metrics import (
    MetricsConfig,
    ProcessMetrics,
    compute_process_metrics,
    evaluate_rules,
)
from proctor.metrics.context import (
    context_basis,
    context_metrics,
    coverage_auc,
    redundancy,
    symbol_hit,
)
from proctor.metrics.effort import cost, effort, elapsed_seconds, tokens_by_model
from proctor.metrics.figures import step_figures
from proctor.metrics.loops import find_loops
from proctor.metrics.steps import count_steps, find_checks, orientation, rework, verified
from proctor.metrics.trace import (
    build_steps,
)
from proctor.models.config import ModelPrice
from proctor.models.pricing import PriceTable
from proctor.models.process import Effort
from proctor.models.trajectory import Event, ModelUsage, make_event


def test_step_metrics_empty() -> None:
    assert find_checks([], MetricsConfig()) == []
    counts = count_steps([], [])
    assert (counts.tool_calls, counts.by_kind, counts.reads, counts.edits, counts.checks) == (
        0,
        {},
        0,
        0,
        0,
    )
    empty = orientation([], None)
    assert empty.reads_before_first_edit is None
    assert empty.steps_before_first_edit is None
    assert empty.seconds_to_first_edit is None
    assert verified([], []) is None
    assert rework([]) == 0


def test_edit_first_then_no_check() -> None:
    steps = build_steps([call("a", "write", files=["x"])])
    got = orientation(steps, None)
    assert (got.reads_before_first_edit, got.steps_before_first_edit) == (0, 0)
    assert verified(steps, []) is False


def test_count_steps_kindless_call_is_other() -> None:
    assert count_steps(build_steps([call("a", None)]), []).by_kind == {"other": 1}


def test_find_loops_empty_and_ordering() -> None:
    assert find_loops([], 3) == []
    events = [
        call("e1", "edit", input={"p": 1}),
        result("e1"),
        shell("s1", "pytest"),
        result("s1", True),
        call("e2", "edit", input={"p": 1}),
        result("e2"),
        shell("s2", "pytest"),
        result("s2", True),
        shell("s3", "pytest"),
        result("s3", None),
    ]
    loops = find_loops(build_steps(events), 2)
    assert [(x.kind, x.key, x.count, x.steps) for x in loops] == [
        ("edit", "(no file)", 2, [0, 2]),
        ("command", "pytest", 2, [1, 3]),
    ]
    assert find_loops(build_steps(events), 3) == []


def test_context_empty() -> None:
    got = context_metrics([])
    assert got.basis == "none"
    assert got.expected_files == [] and got.files_read == []
    assert got.recall is None and got.precision is None and got.f1 is None
    assert got.auc_cov is None and got.redundancy is None
    assert got.first_relevant_step is None and got.first_relevant_seconds is None
    assert got.correct_file_hit is None and got.correct_symbol_hit is None
    assert got.irrelevant_file_opens is None and got.wrong_context_events is None


def test_context_expected_files_but_no_steps() -> None:
    got = context_metrics([], expected_files=["a.py"])
    assert got.basis == "expected"
    assert (got.recall, got.precision, got.f1, got.auc_cov) == (0.0, None, 0.0, None)
    assert got.correct_file_hit is False
    assert (got.irrelevant_file_opens, got.wrong_context_events) == (0, 0)
    assert got.first_relevant_step is None


def test_context_file_hit_by_an_edit_alone() -> None:
    # The expected file is edited without being read: a hit, and no file was read.
    steps = build_steps([call("a", "read", files=["other.py"]), call("b", "edit", files=["a.py"])])
    got = context_metrics(steps, expected_files=["a.py"])
    assert got.correct_file_hit is True
    assert (got.recall, got.files_read, got.first_relevant_step) == (0.0, ["other.py"], 1)
    assert (got.first_relevant_file, got.irrelevant_file_opens) == (None, 1)
    assert got.wrong_context_events == 0


def test_context_basis_ignores_blank_expected_files() -> None:
    steps = build_steps([call("a", "edit", files=["b.py"])])
    assert context_basis(steps, ["", " "], None) == ("edited-proxy", frozenset({"b.py"}))
    assert context_basis([], [], None) == ("none", frozenset())


def test_context_helpers_degenerate() -> None:
    assert redundancy([]) is None
    assert redundancy(build_steps([call("a", "read")])) is None
    assert coverage_auc([], frozenset({"a"})) is None
    assert coverage_auc(build_steps([call("a", "shell")]), frozenset()) is None
    assert symbol_hit([], []) is None
    assert symbol_hit([], ["", ""]) is None
    assert symbol_hit([], ["foo"]) is False


def test_effort_degenerate() -> None:
    assert elapsed_seconds([]) is None
    assert elapsed_seconds([make_event("user_message", ts="2025-01-01T00:00:00Z")]) == 0.0
    assert tokens_by_model([]) == {}
    assert cost({}, None) == 0.0, "no model used costs nothing"
    assert cost({}, PriceTable()) == 0.0
    assert cost({"m": ModelUsage(input_tokens=1)}, PriceTable()) is None, "unpriced is unknown"
    assert cost({"m": ModelUsage(input_tokens=1)}, None) is None
    assert cost({"scripted": ModelUsage(input_tokens=9)}, None) == 0.0, "the scripted model is free"
    got = effort([], 0)
    assert (got.elapsed_seconds, got.tool_calls, got.tokens, got.cost) == (None, 0, {}, 0.0)


def test_tokens_by_model_sums_and_names_unknown() -> None:
    usage = tokens_by_model(
        [
            make_event("usage", model="m", input_tokens=10, output_tokens=1),
            make_event("usage", model="m", input_tokens=5, cache_read_tokens=2),
            make_event("usage", output_tokens=3),
        ]
    )
    assert usage["m"] == ModelUsage(
        input_tokens=15, output_tokens=1, cache_read_tokens=2, responses=2
    )
    assert usage["unknown"] == ModelUsage(output_tokens=3, responses=1)
    prices = {"m": ModelPrice(input_per1_m=1e6), "unknown": ModelPrice(output_per1_m=1e6)}
    assert cost(usage, PriceTable(prices=prices)) == 18.0


def test_compute_process_metrics_empty_is_the_default_result() -> None:
    empty = ProcessMetrics(effort=Effort(cost=0.0))
    assert compute_process_metrics([]) == empty
    assert compute_process_metrics(()) == empty


def test_compute_process_metrics_is_pure() -> None:
    events = [
        call("a", "read", files=["x.py"], input={"file_path": "x.py"}),
        result("a"),
        call("b", "edit", files=["x.py"], input={"file_path": "x.py"}),
        shell("c", "pytest"),
        result("c", False),
    ]
    before = [e.model_copy(deep=True) for e in events]
    first = compute_process_metrics(events, expected_files=["x.py"])
    assert compute_process_metrics(events, expected_files=["x.py"]) == first
    assert events == before
    assert first.verified is True


def test_to_dict_uses_camel_case() -> None:
    data = compute_process_metrics([]).to_dict()
    assert set(data) == {
        "isTask",
        "steps",
        "checks",
        "orientation",
        "verified",
        "rework",
        "loops",
        "loopDetails",
        "context",
        "effort",
        "traces",
    }
    assert "readsBeforeFirstEdit" in data["orientation"]
    assert "aucCov" in data["context"] and "elapsedSeconds" in data["effort"]
    assert ProcessMetrics.model_validate(data) == compute_process_metrics([])


def _checked(command: str, is_error: bool) -> str:
    steps = build_steps([shell("c", command), result("c", is_error)])
    (check,) = find_checks(steps, MetricsConfig())
    return check.outcome


@pytest.mark.parametrize(
    ("command", "is_error", "want"),
    [
        ("python3 -m unittest 2>&1 | tail -3", False, "unknown"),
        ("pytest -q | grep FAILED", True, "unknown"),
        ("pytest |& tee log", False, "unknown"),
        ("bash -lc 'pytest | tail'", False, "unknown"),
        ("set -o pipefail; pytest | tail -3", False, "pass"),
        ("set -euo pipefail\npytest | tail -3", True, "fail"),
        ("cat list | pytest", True, "fail"),
        ("pytest || echo failed", False, "unknown"),
        ("pytest || true", False, "unknown"),
        ("pytest; echo done", False, "unknown"),
        ("pytest\necho done", False, "unknown"),
        ("pytest &", False, "unknown"),
        ("bash -c 'pytest; true'", False, "unknown"),
        ("cd app && pytest -q", True, "fail"),
        ("pytest && echo ok", True, "fail"),
        ("cd app; pytest", True, "fail"),
        ("make build; pytest", True, "unknown"),  # the build's outcome is masked
        ("pytest 2>&1", False, "pass"),
    ],
)
def test_a_check_piped_into_another_command_has_no_outcome(
    command: str, is_error: bool, want: str
) -> None:
    assert _checked(command, is_error) == want


def test_a_piped_check_does_not_verify_an_edit() -> None:
    events = [
        call("e", "edit", files=["calc.py"]),
        result("e"),
        shell("t", "python3 -m unittest 2>&1 | tail -3"),
        result("t", False, output="FAILED (failures=2)"),
    ]
    metrics = compute_process_metrics(events)
    assert metrics.verified is False
    assert next(r for r in evaluate_rules(metrics, MetricsConfig()) if r.rule == "unverified").fired


def _write(path: str) -> list[Event]:
    return [call(path, "write", files=[path], input={"file_path": path}), result(path)]


def test_documentation_edits_after_a_passing_check_need_no_new_check() -> None:
    events = [*_write("calc.py"), shell("t", "pytest"), result("t"), *_write("CHANGELOG.md")]
    metrics = compute_process_metrics(events)
    assert metrics.verified is True
    assert not any(r.fired for r in evaluate_rules(metrics, MetricsConfig()))


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("CHANGELOG.md", False),
        ("docs/notes.txt", False),
        ("LICENSE", False),
        ("pkg/AUTHORS", False),
        ("CMakeLists.txt", True),
        ("requirements.txt", True),
        ("requirements-dev.txt", True),
        ("deps/dev-requirements.txt", True),
        ("constraints.txt", True),
        ("Makefile", True),
        ("Dockerfile", True),
        ("src/license.py", True),
    ],
)
def test_an_edit_after_the_check_needs_a_new_one_unless_it_is_documentation(
    path: str, code: bool
) -> None:
    """A build's or an environment's text input (``CMakeLists.txt``, ``requirements.txt``) is
    code; documentation without a suffix (``LICENSE``) is not."""
    events = [*_write("calc.py"), shell("t", "pytest"), result("t"), *_write(path)]
    assert compute_process_metrics(events).verified is (not code)
    only = compute_process_metrics(_write(path))
    assert only.is_task is code


def test_a_code_edit_after_the_check_still_needs_one() -> None:
    events = [*_write("calc.py"), shell("t", "pytest"), result("t"), *_write("util.py")]
    assert compute_process_metrics(events).verified is False


def test_orientation_runs_until_the_first_code_edit() -> None:
    events = [
        *_write("NOTES.md"),
        call("r1", "read", files=["calc.py"]),
        call("s1", "search", files=["src"]),
        *_write("calc.py"),
    ]
    got = compute_process_metrics(events).orientation
    assert (got.reads_before_first_edit, got.steps_before_first_edit) == (2, 3)


def test_documentation_only_trial_has_no_orientation_or_verification() -> None:
    metrics = compute_process_metrics(_write("README.md"))
    assert metrics.verified is None
    assert metrics.orientation.steps_before_first_edit is None


def _rejected(path: str) -> list[Event]:
    """An edit of ``path`` the user rejected: the tool never ran."""
    return [call(path, "edit", files=[path]), result(path, False, denied=True)]


def _failed(path: str) -> list[Event]:
    """An edit of ``path`` that failed (its old text was not found): the file is unchanged."""
    return [call(path, "edit", files=[path]), result(path, True, output="not found")]


@pytest.mark.parametrize("attempt", [_rejected, _failed], ids=["rejected", "failed"])
def test_a_trial_whose_only_code_edit_was_rejected_or_failed_is_no_task(attempt: Any) -> None:
    events = [call("r1", "read", files=["calc.py"]), *attempt("calc.py")]
    metrics = compute_process_metrics(events)
    assert (metrics.is_task, metrics.verified) == (False, None)
    assert metrics.orientation.steps_before_first_edit is None
    assert not any(r.applicable for r in evaluate_rules(metrics, MetricsConfig()))
    figures = step_figures(build_steps(events), None)
    assert (figures.is_task, figures.verified, figures.rules_fired) == (False, None, [])
    assert figures.steps_before_first_edit is None


@pytest.mark.parametrize("attempt", [_rejected, _failed], ids=["rejected", "failed"])
def test_a_file_whose_edit_was_rejected_or_failed_is_not_an_edited_file(attempt: Any) -> None:
    events = [call("r1", "read", files=["calc.py"]), *_write("calc.py"), *attempt("util.py")]
    context = compute_process_metrics(events).context
    assert (context.basis, context.edited_files) == ("edited-proxy", ["calc.py"])
    assert context.auc_cov == 1.0  # the one file it changed was read first
    assert context_basis(build_steps(events), [], None) == (
        "edited-proxy",
        frozenset({"calc.py"}),
    )
    figures = step_figures(build_steps(events), None)
    assert (figures.edited_files, figures.auc_cov) == (["calc.py"], 1.0)


def test_control_an_edit_whose_result_is_missing_changed_code() -> None:
    events = [call("r1", "read", files=["calc.py"]), call("e1", "edit", files=["calc.py"])]
    metrics = compute_process_metrics(events)  # a transcript cut short lost the result
    assert (metrics.is_task, metrics.verified) == (True, False)
    assert step_figures(build_steps(events), None).is_task is True


@pytest.mark.parametrize("attempt", [_rejected, _failed], ids=["rejected", "failed"])
def test_a_failed_last_edit_needs_no_check_after_it(attempt: Any) -> None:
    events = [*_write("calc.py"), shell("t", "pytest"), result("t"), *attempt("util.py")]
    metrics = compute_process_metrics(events)
    assert (metrics.is_task, metrics.verified) == (True, True)
    assert step_figures(build_steps(events), None).verified is True


def test_orientation_ends_at_the_first_code_edit_attempted_even_a_failed_one() -> None:
    events = [
        call("r1", "read", files=["calc.py"]),
        *_failed("calc.py"),
        call("r2", "read", files=["calc.py"]),
        *_write("calc.py"),
    ]
    got = compute_process_metrics(events).orientation
    assert (got.reads_before_first_edit, got.steps_before_first_edit) == (1, 1)
    figures = step_figures(build_steps(events), None)
    assert (figures.reads_before_first_edit, figures.steps_before_first_edit) == (1, 1)


def test_blank_expected_symbols_are_ignored() -> None:
    steps = build_steps([call("r", "read", input={"file_path": "a b.py"}), result("r", output=" ")])
    assert symbol_hit(steps, [" ", ""]) is None
    assert symbol_hit(steps, ["\t", "zzz"]) is False
    assert (
        compute_process_metrics(
            [call("r", "read", input={"q": "x y"})], expected_symbols=[" "]
        ).context.correct_symbol_hit
        is None
    )


def test_the_first_relevant_file_is_the_first_one_read() -> None:
    """Read ``src/b.py`` first, then ``src/a.py``: the first relevant file is ``src/b.py``
    (it was once the smallest expected path read, whatever the order)."""
    events = [
        call("1", "read", files=["src/b.py"], input={"file_path": "src/b.py"}),
        result("1"),
        call("2", "read", files=["src/a.py"], input={"file_path": "src/a.py"}),
        result("2"),
    ]
    context = compute_process_metrics(events, expected_files=["src/a.py", "src/b.py"]).context
    assert context.first_relevant_file == "src/b.py"
    assert context.files_read == ["src/a.py", "src/b.py"], "stored sorted: not the reading order"
    unexpected = compute_process_metrics(events, expected_files=["src/c.py"]).context
    assert unexpected.first_relevant_file is None


def test_process_metrics_without_effort_leave_only_effort_out() -> None:
    from proctor.metrics.process import compute_process_metrics

    events = [
        make_event("user_message", ts="2025-01-01T00:00:00Z", text="Fix it."),
        shell("c1", "pytest -q"),
        result("c1"),
        make_event("usage", model="m", input_tokens=10, output_tokens=1),
    ]
    full = compute_process_metrics(events)
    bare = compute_process_metrics(events, with_effort=False)
    assert full.effort.tokens["m"].input_tokens == 10 and full.effort.tool_calls == 1
    assert bare.effort == Effort()
    assert bare.model_dump(exclude={"effort"}) == full.model_dump(exclude={"effort"})


@pytest.mark.parametrize(
    ("flags", "want"),
    [
        ({}, "pass"),
        ({"run_in_background": True}, "unknown"),  # Claude Code
        ({"is_background": True}, "unknown"),  # Gemini CLI (read over ACP too)
        ({"is_background": "true"}, "pass"),  # not the tool's flag: a string
    ],
)
def test_a_check_started_in_the_background_and_never_settled_is_unknown(
    flags: dict[str, Any], want: str
) -> None:
    """The first result of a command started in the background says it started; an agent
    whose reader leaves that result a success (ACP) still gives the check no outcome."""
    events = [
        *_write("calc.py"),
        call("t", "shell", input={"command": "pytest", **flags}),
        result("t", False),
    ]
    assert [c.outcome for c in compute_process_metrics(events).checks] == [want]
