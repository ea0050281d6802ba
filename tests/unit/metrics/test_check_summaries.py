"""A check whose line hides its status (``pytest | tail -3``) takes its outcome from its
runner's closing summary in the output (``proctor.metrics.summaries``)."""

from __future__ import annotations

from typing import Any

import pytest
from metrics_fixtures import call, result, shell

from proctor.metrics import summaries
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.summaries import summary_outcome
from proctor.models.trajectory import OUTPUT_CAP

SUMMARIES: list[tuple[str, str | None]] = [
    # pytest
    ("....\n3 passed in 0.12s", "pass"),
    ("...\n===== 3 passed, 1 warning in 1.02s =====", "pass"),
    ("..s\n\x1b[32m===== 2 passed, 1 skipped in 0.50s =====\x1b[0m", "pass"),
    ("3 passed in 0.12s", None),  # the count line alone (| tail -1): a floor above it is cut
    ("<untrusted_context>\nOutput: 3 passed in 0.1s\nProcess Group PGID: 9", None),  # Gemini's
    ("Exit code: 0\nWall time: 1 seconds\nOutput:\n3 passed in 0.1s\n", None),  # Codex's
    (
        "Chunk ID: c3\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n3 passed in 1s",
        None,
    ),
    ("..F\n===== 1 failed, 2 passed in 0.12s =====", "fail"),
    ("FAILED tests/test_a.py::test_x - assert 1 == 2\n1 failed, 2 passed in 0.1s", "fail"),
    ("==== 1 error in 0.20s ====", "fail"),
    ("==== 3 errors in 0.20s ====", "fail"),
    ("==== no tests ran in 0.01s ====", "fail"),
    ("!!!!!! KeyboardInterrupt !!!!!!\n==== 2 passed in 9.00s ====", "fail"),
    (
        "FAIL Required test coverage of 90% not reached. Total coverage: 80.00%\n3 passed in 1s",
        "fail",
    ),
    ("...\n==== 3 passed in 62.00s (0:01:02) ====", "pass"),
    ("==== 2 deselected in 0.01s ====", "fail"),  # ran nothing: pytest exits 5
    (
        "TOTAL 5 3 40%\nFAIL Required test coverage of 100% not reached.\n== 1 passed in 0.02s ==",
        "fail",
    ),
    # unittest, Django
    ("...\n----------\nRan 3 tests in 0.001s\n\nOK", "pass"),
    ("Ran 3 tests in 0.001s\n\nOK (skipped=1)", "pass"),
    ("Ran 3 tests in 0.001s\n\nFAILED (failures=1, errors=1)", "fail"),
    ("Ran 0 tests in 0.000s\n\nNO TESTS RAN", "fail"),
    ("OK", None),  # no "Ran N tests" before it: any program's OK
    ("<untrusted_context>\nOutput: Ran 1 test in 0.000s\n\nOK\nProcess Group PGID: 1", "pass"),
    # jest, vitest, mocha, node --test
    ("Test Suites: 1 passed, 1 total\nTests:       3 passed, 3 total", "pass"),
    ("Test Suites: 1 failed, 1 total\nTests:       1 failed, 2 passed, 3 total", "fail"),
    ("FAIL src/a.test.js\n  ● adds", "fail"),
    ("No tests found, exiting with code 1", "fail"),
    ("\x1b[31mNo test files found, exiting with code 1\x1b[39m\ninclude: **/*.test.ts", "fail"),
    ('Error: No test files found: "test"', "fail"),  # mocha
    ("  Test Files  2 passed (2)\n       Tests  5 passed (5)", "pass"),
    ("  Test Files  1 failed | 1 passed (2)\n       Tests  1 failed | 4 passed (5)", "fail"),
    ("  3 passing (12ms)", "pass"),
    ("  3 passing (12ms)\n  1 failing", "fail"),
    ("# tests 3\n# pass 3\n# fail 0", "pass"),
    ("# tests 3\n# pass 2\n# fail 1", "fail"),
    ("ℹ tests 2\nℹ pass 2\nℹ fail 0\nℹ cancelled 0", "pass"),  # node 24's spec reporter
    ("ℹ tests 2\nℹ pass 1\nℹ fail 1\n✖ failing tests:", "fail"),
    # cargo, go, rspec, phpunit, dotnet, Maven, Gradle
    ("test result: ok. 3 passed; 0 failed; 0 ignored", "pass"),
    ("test result: FAILED. 2 passed; 1 failed; 0 ignored", "fail"),
    ("test result: \x1b[32mok\x1b(B\x1b[m. 1 passed; 0 failed", "pass"),  # libtest's colours
    ("test result: \x1b[31mFAILED\x1b(B\x1b[m. 1 passed; 1 failed", "fail"),
    ("error: test failed, to rerun pass `--lib`", "fail"),
    # go's and dotnet's lines are each a package's or a project's: no run's summary to pass
    ("ok  \texample.com/app\t0.012s\nok  \texample.com/app/db\t(cached)", None),
    ("--- FAIL: TestAdd (0.00s)\nFAIL\texample.com/app\t0.01s\nFAIL", "fail"),
    ("3 examples, 0 failures", "pass"),
    ("3 examples, 1 failure", "fail"),
    ("0 examples, 0 failures, 1 error occurred outside of examples", "fail"),
    (
        'Tests:  3 passed, 3 total\nJest: "global" coverage threshold for lines (90%) not met: 50%',
        "fail",
    ),
    (" Test Files  1 passed (1)\n      Tests  3 passed (3)\n     Errors  1 error", "fail"),
    ("ERROR: Coverage for lines (50%) does not meet global threshold (90%)", "fail"),
    ("...\n3 passed in 0.1s\npy312: FAIL code 1 (2.00 seconds)", "fail"),  # tox
    ("error: doctest failed, to rerun pass `--doc`", "fail"),
    ("FAIL fast mode enabled\nTests:       3 passed, 3 total", "pass"),  # a test's own print
    ("OK (3 tests, 5 assertions)", "pass"),
    ("FAILURES!\nTests: 3, Assertions: 3, Failures: 1.", "fail"),
    ("Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3", None),
    ("Failed!  - Failed:     1, Passed:     2, Skipped:     0, Total:     3", "fail"),
    ("[INFO] BUILD SUCCESS", "pass"),
    ("[INFO] BUILD FAILURE", "fail"),
    ("BUILD SUCCESSFUL in 2s", "pass"),
    ("BUILD FAILED in 2s", "fail"),
    # type checkers, linters, make, npm
    ("Success: no issues found in 12 source files", "pass"),
    ("src/a.py:3: error: bad\nFound 1 error in 1 file (checked 12 source files)", "fail"),
    ("All checks passed!", "pass"),
    ("Found 3 errors.", "fail"),
    ("Found 1 error (1 fixed, 0 remaining).", "pass"),  # ruff --fix fixed every one
    ("Found 2 errors (1 fixed, 1 remaining).", "fail"),
    ("a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.", "fail"),
    ("1 file would be reformatted, 3 files already formatted", "fail"),
    ("4 files already formatted", "pass"),
    ("All done!\n1 file would be left unchanged.", "pass"),
    ("Found 0 errors. Watching for file changes.", None),
    ("All checks passed!\nmake: *** [Makefile:5: check] Error 1", "fail"),
    ("make: *** No rule to make target 'nope'.  Stop.", "fail"),
    ("npm ERR! Test failed.  See above for more details.", "fail"),
    ("npm error Lifecycle script `test` failed with error:", "fail"),
    # Nothing a runner closes with.
    ("", None),
    ("hello\nworld", None),
    ("ok to proceed", None),
    ("took 3 seconds in 3.0s", None),
    ("Tests: pending", None),
]


@pytest.mark.parametrize(("output", "want"), SUMMARIES)
def test_what_a_runners_closing_summary_says(output: str, want: str | None) -> None:
    assert summary_outcome(output) == want


def test_without_the_outputs_end_only_a_failure_is_read() -> None:
    assert summary_outcome("3 passed in 0.1s", end_shown=False) is None
    assert summary_outcome("1 failed in 0.1s", end_shown=False) == "fail"


def _checked(line: str, output: str, *, is_error: bool | None = False, **input: Any) -> Any:
    """The check of a session that edits a file, then runs ``line``."""
    events = [
        call("e", "edit", files=["app.py"]),
        result("e"),
        call("t", "shell", input={"command": line, **input}),
        result("t", is_error=is_error, output=output),
    ]
    metrics = compute_process_metrics(events)
    (check,) = metrics.checks
    return check.outcome, metrics.verified


PASSED = "...\n3 passed in 0.12s"
FAILED = "..F\n1 failed, 2 passed in 0.12s"


@pytest.mark.parametrize(
    ("line", "output", "want"),
    [
        ("pytest -q 2>&1 | tail -3", PASSED, "pass"),
        ("pytest -q 2>&1 | tail -3", FAILED, "fail"),
        ("python3 -m unittest 2>&1 | tail -3", "Ran 3 tests in 0.001s\n\nOK", "pass"),
        ("pytest -q | tee log.txt | tail -n 5", PASSED, "pass"),
        ("pytest -q; echo done", PASSED + "\ndone", "pass"),
        ("pytest -q || true", FAILED, "fail"),
        ("cd app && npm test 2>&1 | tail -20", "Tests:  1 failed, 1 passed, 2 total", "fail"),
        # The end may be cut: only a failure is read.
        ("pytest -q 2>&1 | head -20", PASSED, "unknown"),
        ("pytest -q 2>&1 | head -20", FAILED, "fail"),
        ("pytest -q 2>&1 | grep passed", PASSED, "unknown"),
        ("{ pytest -q; } | head -3", PASSED, "unknown"),  # the check inside what is piped
        ("(pytest -q; echo done) | head -3", PASSED, "unknown"),
        ("for d in a b; do pytest -q $d; done | head -3", PASSED, "unknown"),
        ("if true; then pytest -q; fi | head -3", PASSED, "unknown"),
        ("bash -lc 'pytest -q' | head -5", PASSED, "unknown"),  # a check in an inner shell
        ('echo "$(pytest -q)" | head -3', PASSED, "unknown"),
        ("head -40 <(pytest -q 2>&1)", PASSED, "unknown"),
        ("pytest -q > log 2>&1; head -40 log", PASSED, "unknown"),  # the output in a file
        ("for t in a b; do pytest -q $t; done | tail -3", PASSED, "unknown"),  # the last run's
        ("ls tests | xargs -n1 pytest -q | tail -2", PASSED, "unknown"),
        ("for t in a b; do pytest -q $t; done | tail -3", FAILED, "fail"),
        ("time pytest -q 2>&1 | tail -3", PASSED, "pass"),
        ("pytest -q |& tee log | tail -3", PASSED, "pass"),
        # No summary, or two checks whose statuses are both hidden: unknown as before.
        ("pytest -q 2>&1 | tail -3", "collecting ...", "unknown"),
        ("make build; pytest -q | tail -1", PASSED, "unknown"),
    ],
)
def test_a_masked_check_takes_its_runners_summary(line: str, output: str, want: str) -> None:
    outcome, verified = _checked(line, output)
    assert outcome == want
    assert verified is (want == "pass")


def test_a_check_whose_status_is_its_own_keeps_it() -> None:
    """The summary is read only where the status is hidden: a failed status wins."""
    assert _checked("pytest -q", PASSED, is_error=True) == ("fail", False)
    assert _checked("pytest -q", "", is_error=False) == ("pass", True)


def test_a_result_that_does_not_say_its_status_takes_the_summary() -> None:
    """A result without a status (``isError`` null: an older Codex output without its exit
    code) is read as a masked check's is; a denied call never ran."""
    assert _checked("pytest -q", PASSED, is_error=None) == ("pass", True)
    assert _checked("pytest -q", FAILED, is_error=None) == ("fail", False)
    assert _checked("pytest -q", "Wall time: 1s", is_error=None)[0] == "unknown"


def test_a_summary_past_what_the_trajectory_kept_is_not_a_pass() -> None:
    cut = "." * (OUTPUT_CAP - len(PASSED)) + PASSED
    assert len(cut) == OUTPUT_CAP
    assert _checked("pytest | tail -3", cut)[0] == "unknown"
    assert _checked("pytest | tail -3", cut[: -len(PASSED)] + FAILED)[0] == "fail"
    assert _checked("pytest | tail -3", cut[1:])[0] == "pass"  # one short: whole


def test_a_check_in_the_background_or_denied_stays_unknown() -> None:
    events = [
        call("t", "shell", input={"command": "pytest | tail", "run_in_background": True}),
        result("t", output="Command running in background with ID: b1. 3 passed in 0.1s"),
        shell("d", "pytest | tail"),
        result("d", is_error=True, denied=True, output="3 passed in 0.1s"),
    ]
    outcomes = [check.outcome for check in compute_process_metrics(events).checks]
    assert outcomes == ["unknown", "unknown"]


def test_control_without_summaries_a_piped_check_verifies_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import proctor.metrics.steps as steps

    monkeypatch.setattr(steps, "summary_outcome", lambda output, end_shown=True: None)
    assert _checked("pytest -q 2>&1 | tail -3", PASSED) == ("unknown", False)
    assert summaries.summary_outcome(PASSED) == "pass"  # the reader itself untouched
