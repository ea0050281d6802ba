"""The JUnit report agrees with the exit code: a CI job that reads both shows a failed test
exactly when the run's exit code is not 0."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from proctor.models.config import ABGate, Gate
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.junit import render_junit


def rec(
    status: str,
    repeat: int = 1,
    *,
    case: str = "c",
    condition: str = "default",
    gate_failed: bool = False,
) -> TrialRecord:
    record = TrialRecord(
        case=case,
        agent="a",
        condition=condition,
        repeat=repeat,
        status=status,  # type: ignore[arg-type]
        passed=status == "passed",
        score={"passed": 100.0, "failed": 0.0, "timeout": 0.0}.get(status),
        reason=f"{status} for a reason",
    )
    if gate_failed:
        record.evaluators = [EvaluatorResult(use="command", passed=False, score=0, gate=True)]
    return record


def render(records: list[TrialRecord], gate: Gate, **kw: object) -> tuple[int, ET.Element]:
    suite = aggregate(records, gate, run_id="r", **kw)  # type: ignore[arg-type]
    return suite.exit_code, ET.fromstring(render_junit(suite, records))


def red(root: ET.Element) -> bool:
    """What a CI test view shows: a failed or errored test anywhere in the file."""
    return any(
        case.find("failure") is not None or case.find("error") is not None
        for case in root.iter("testcase")
    )


def tallies_hold(root: ET.Element) -> None:
    """Every count of every element is what its testcases carry."""
    for element in [root, *root.iter("testsuite")]:
        cases = list(element.iter("testcase"))
        assert int(element.get("tests", "-1")) == len(cases)
        for tally, child in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            found = sum(case.find(child) is not None for case in cases)
            assert int(element.get(tally, "-1")) == found, (element.get("name"), tally)


def test_a_failure_the_gate_tolerates_fails_no_test() -> None:
    code, root = render([rec("passed"), rec("failed", 2)], Gate(min_pass_rate=0.5))
    assert code == 0 and not red(root)
    tallies_hold(root)
    (tolerated,) = [c for c in root.iter("testcase") if c.get("name") == "repeat 2"]
    out = tolerated.find("system-out")
    assert out is not None and out.text == (
        "failed, tolerated by its group's gate: failed for a reason"
    )


def test_a_gate_that_failed_in_an_error_trial_fails_a_gates_test() -> None:
    code, root = render([rec("eval-error", gate_failed=True)], Gate(min_pass_rate=1.0))
    assert code == 1
    tallies_hold(root)
    (gates,) = [s for s in root.iter("testsuite") if s.get("name") == "gates"]
    (case,) = gates
    failure = case.find("failure")
    assert case.get("name") == "c/a/default" and failure is not None
    assert failure.get("message") == (
        "a gate evaluator failed in a trial that then ended in an error status"
    )


def test_an_ab_gate_with_no_complete_pair_fails_its_test() -> None:
    records = [rec("agent-error", condition="base"), rec("agent-error", condition="treat")]
    gate = Gate(min_pass_rate=1.0, ab=ABGate(treatment="treat", baseline="base"))
    code, root = render(records, gate)
    assert code == 1
    (ab,) = [c for c in root.iter("testcase") if c.get("name") == "A/B treat vs base"]
    assert ab.find("failure") is not None
    tallies_hold(root)


def test_a_run_stopped_before_any_trial_ended_has_an_errored_test() -> None:
    code, root = render([], Gate(min_pass_rate=1.0), interrupted=True, planned=3)
    assert code == 130 and red(root)
    tallies_hold(root)
    (case,) = root.iter("testcase")
    error = case.find("error")
    assert case.get("name") == "run" and error is not None and error.get("type") == "run"
    assert error.get("message", "").startswith("exit 130: interrupted after 0 of 3 trials")


CASES = {
    "all pass": ([rec("passed"), rec("passed", 2)], Gate(min_pass_rate=1.0)),
    "a failure": ([rec("passed"), rec("failed", 2)], Gate(min_pass_rate=1.0)),
    "tolerated": ([rec("passed"), rec("timeout", 2)], Gate(min_pass_rate=0.5)),
    "min score": ([rec("passed").model_copy(update={"score": 80.0})], Gate(min_score=90)),
    "an error": ([rec("passed"), rec("agent-error", 2)], Gate(min_pass_rate=1.0)),
    "infra only": ([rec("infra-error")], Gate(min_pass_rate=1.0)),
    "skipped": ([rec("skipped")], Gate(min_pass_rate=1.0)),
    "gate in error": ([rec("passed"), rec("eval-error", 2, gate_failed=True)], Gate()),
    "another group": (
        [rec("failed", case="x"), rec("passed", case="y"), rec("failed", 2, case="y")],
        Gate(min_pass_rate=0.5),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_file_is_red_exactly_when_the_exit_code_is_not_0(name: str) -> None:
    records, gate = CASES[name]
    code, root = render(records, gate)
    assert red(root) == (code != 0), (name, code)
    tallies_hold(root)


def test_dots_in_a_name_do_not_split_the_classname() -> None:
    records = [rec("passed", case="api.v2", condition="treat.v1")]
    _, root = render(records, Gate(min_pass_rate=1.0))
    (case,) = root.iter("testcase")
    assert case.get("classname") == "api_v2.a.treat_v1" and case.get("name") == "repeat 1"
    (suite,) = root.iter("testsuite")
    assert suite.get("name") == "api.v2/a/treat.v1", "the suite keeps the names as they are"


def shown(root: ET.Element) -> list[tuple[str | None, str | None]]:
    return [(c.get("classname"), c.get("name")) for c in root.iter("testcase")]


def test_an_ordinary_suite_keeps_its_classnames() -> None:
    """A CI's history is keyed on them: a file where no two groups share one is unchanged."""
    records = [
        rec("passed", case="fix-a-bug"),
        rec("passed", 2, case="fix-a-bug"),
        rec("passed", case="api.v2", condition="treat.v1"),
        rec("passed", case="api.v2", condition="base_1"),
    ]
    _, root = render(records, Gate(min_pass_rate=1.0))
    assert shown(root) == [
        ("api_v2.a.base_1", "repeat 1"),
        ("api_v2.a.treat_v1", "repeat 1"),
        ("fix-a-bug.a.default", "repeat 1"),
        ("fix-a-bug.a.default", "repeat 2"),
    ]


@pytest.mark.parametrize(
    ("suffixed", "kept", "expected"),
    [
        # a.b/a/default: SHA-256 9529425e...
        ({"case": "a.b"}, {"case": "a_b"}, ["a_b.a.default~9529425e", "a_b.a.default"]),
        # c/a/x.y: SHA-256 632aee93...
        ({"condition": "x.y"}, {"condition": "x_y"}, ["c.a.x_y~632aee93", "c.a.x_y"]),
        # written alike: XML cannot hold the escape character, written as its code
        ({"case": "c\x1b"}, {"case": "c\\x1b"}, ["c\\x1b.a.default~47ac3f23", "c\\x1b.a.default"]),
    ],
    ids=["cases", "conditions", "escaped"],
)
def test_groups_whose_classnames_would_be_one_get_distinct_ones(
    suffixed: dict[str, str], kept: dict[str, str], expected: list[str]
) -> None:
    """Cases a.b and a_b (or conditions x.y and x_y): the one whose names are as they are keeps
    the classname, the other gets its names' stable suffix; no testcase is there twice."""
    records = [rec("passed", **suffixed), rec("passed", **kept)]  # type: ignore[arg-type]
    _, root = render(records, Gate(min_pass_rate=1.0))
    found = shown(root)
    assert [name for name, _ in found] == expected
    assert len(set(found)) == len(found) == 2
    again = render(list(reversed(records)), Gate(min_pass_rate=1.0))[1]
    assert shown(again) == found, "the same in every run"


def test_a_pooled_file_has_distinct_classnames_across_its_runs() -> None:
    """`run --manifest`'s junit.xml: the runs' trials read as one, a.b from one run and a_b
    from the other."""
    from proctor.report.pooled_runs import pooled

    records = pooled([[rec("passed", case="a.b")], [rec("passed", case="a_b")]])
    _, root = render(records, Gate(min_pass_rate=1.0))
    assert shown(root) == [
        ("a_b.a.default~9529425e", "repeat 1"),
        ("a_b.a.default", "repeat 2"),
    ]


def test_classnames_stay_distinct_when_the_suffix_is_taken() -> None:
    """a.b/x/y: SHA-256 558cfa32..., its suffixed classname a condition's own name here."""
    from proctor.report.junit import classnames

    dotted, plain, taken = ("a.b", "x", "y"), ("a_b", "x", "y"), ("a_b", "x", "y~558cfa32")
    assert classnames([dotted, plain, taken]) == {
        dotted: "a_b.x.y~558cfa32~2",
        plain: "a_b.x.y",
        taken: "a_b.x.y~558cfa32",
    }


def test_a_trial_s_warnings_are_lines_of_its_system_out_never_a_failure() -> None:
    warned = rec("passed")
    warned.warnings = ["the plan has 2 turns (split by endTurn) and the test sent 1 message"]
    code, root = render([warned, rec("passed", 2)], Gate())
    assert code == 0 and not red(root)
    first, second = root.iter("testcase")
    out = first.find("system-out")
    assert out is not None and out.text == f"warning: {warned.warnings[0]}"
    assert second.find("system-out") is None


def test_boolean_properties_are_written_true_and_false() -> None:
    """``gatePassed`` was written as Python writes a boolean, ``True``, which no XML or JSON
    reader takes for one."""
    _, root = render([rec("passed"), rec("failed", case="x")], Gate(min_pass_rate=1.0))
    values = {
        (s.get("name"), p.get("name")): p.get("value")
        for s in root.iter("testsuite")
        for p in s.iter("property")
    }
    assert values[("c/a/default", "gatePassed")] == "true"
    assert values[("x/a/default", "gatePassed")] == "false"
    assert not {v for v in values.values() if v in ("True", "False")}


def cut_short(repeat: int, case: str = "c") -> TrialRecord:
    return rec("infra-error", repeat, case=case).model_copy(
        update={"reason": "interrupted: the run was stopped before this trial ended"}
    )


def test_a_trial_a_stop_cut_short_is_skipped_and_the_stop_is_the_error() -> None:
    """A trial the stop cut short was an ``error`` of type ``infra-error``, as if the
    infrastructure had broken; it is skipped, saying so, and the run's stop is the one error."""
    records = [rec("passed"), cut_short(2), cut_short(1, case="d")]
    code, root = render(records, Gate(min_pass_rate=1.0), interrupted=True, planned=6)
    assert code == 130 and red(root)
    tallies_hold(root)
    assert root.get("errors") == "1" and root.get("skipped") == "2"
    said = "cut short by the stop (interrupted): the run was stopped before this trial ended"
    for case in root.iter("testcase"):
        if case.get("classname") == "gates":
            continue
        skipped = case.find("skipped")
        if case.get("name") == "repeat 2" or case.get("classname") == "d.a.default":
            assert skipped is not None and skipped.get("message") == said == skipped.text
            assert case.find("error") is None
    (run,) = [c for c in root.iter("testcase") if c.get("classname") == "gates"]
    error = run.find("error")
    assert run.get("name") == "run" and error is not None
    assert error.get("message", "").startswith("exit 130: interrupted after 1 of 6 trials")


def test_a_stopped_run_whose_other_trials_failed_still_says_it_was_stopped() -> None:
    records = [rec("failed"), cut_short(2)]
    code, root = render(records, Gate(min_pass_rate=1.0), interrupted=True, planned=3)
    assert code == 130
    tallies_hold(root)
    names = [c.get("name") for c in root.iter("testcase") if c.get("classname") == "gates"]
    assert "run" in names


def test_a_failure_s_text_names_each_check_that_failed_with_what_its_program_printed() -> None:
    """The reason names the first check that failed and its exit code; the test output a CI
    user needs (which unit test failed) is the command's output, kept in ``outputTail``."""
    failed = rec("failed")
    failed.evaluators = [
        EvaluatorResult(
            use="command",
            passed=False,
            score=0,
            gate=True,
            message="`python3 -m unittest` exited 1 (expected 0)",
            details={"exitCode": 1, "outputTail": "FAIL: test_add\n\x1b[31mAssertionError\x1b[0m"},
        ),
        EvaluatorResult(use="file-exists", passed=True, score=100, message="all present"),
        EvaluatorResult(use="external", passed=False, score=0, counted=False, message="metrics"),
        EvaluatorResult(use="trajectory-check", label="ran tests", passed=False, score=0),
    ]
    _, root = render([failed], Gate(min_pass_rate=1.0))
    failure = next(root.iter("failure"))
    assert failure.get("message") == failed.reason
    assert failure.text == "\n".join(
        [
            failed.reason,
            "",
            "command: `python3 -m unittest` exited 1 (expected 0)",
            "  FAIL: test_add",
            "  \\x1b[31mAssertionError\\x1b[0m",
            "ran tests: failed",
        ]
    )


def test_an_evaluator_error_s_text_names_the_evaluator_that_erred() -> None:
    erred = rec("eval-error")
    erred.evaluators = [
        EvaluatorResult(
            use="external",
            passed=False,
            score=0,
            error=True,
            message="no JSON on stdout",
            details={"outputTail": "Traceback: boom"},
        )
    ]
    _, root = render([erred], Gate())
    error = next(root.iter("error"))
    assert error.text == "\n".join(
        [erred.reason, "", "external: no JSON on stdout", "  Traceback: boom"]
    )
