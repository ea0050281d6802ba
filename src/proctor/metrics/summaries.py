"""What a test runner's own closing summary says, for a check whose line hides its status.

``pytest -q 2>&1 | tail -3`` exits with ``tail``'s status, and ``pytest; echo done`` with
``echo``'s: the line's status is not the check's (it is *masked*, see
:mod:`proctor.metrics.shell`). The runner's summary in the call's output still says how the
check went: ``1 failed, 2 passed in 0.12s``. :func:`summary_outcome` reads it.

Only the closing lines of well-known runners count, each read whole (colour codes taken out):
pytest, unittest, jest, vitest, mocha, node's test runner, cargo, go, rspec, phpunit, dotnet,
Maven, Gradle, mypy, ruff, black, tsc, make and npm (docs/metrics.md, **Runner summaries**,
lists each line read). They were checked against the real tools' outputs, whole and cut by
``tail``.

A failure anywhere wins: a run of several parts failed when one did. A pass needs the end of
the output: where the line cuts it (``| head``, ``| grep``), or the trajectory kept only its
first part (:data:`~proctor.models.trajectory.OUTPUT_CAP`), the parts after what is shown
may have failed, so only a failure is read there.
"""

from __future__ import annotations

import re

from proctor.models.process import CheckOutcome

_COLOUR = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|\([A-Z0-9])")
"""A terminal's colour and character set codes (``ESC[32m``, ``ESC(B``)."""
_COUNT = re.compile(r"(\d+) (\w+)")

_PYTEST = re.compile(
    r"=*\s*((?:\d+ [a-z]+(?: [a-z]+)?, )*\d+ [a-z]+(?: [a-z]+)?) in [\d.]+s(?: \([^)]*\))?\s*=*"
)
"""pytest's closing line: ``== 1 failed, 2 passed in 0.12s ==`` (``-q``: without the ``=``)."""
_PYTEST_FAILED = frozenset({"failed", "error", "errors", "subtests failed"})
_PYTEST_RAN = frozenset({"passed", "skipped", "xfailed", "xpassed", "subtests passed"})
_PYTEST_WORDS = _PYTEST_FAILED | _PYTEST_RAN | {"deselected", "warning", "warnings", "rerun"}

_FAILS = re.compile(
    r"=*\s*no tests ran in [\d.]+s\s*=*"  # pytest (exits 5)
    r"|!+ (?:KeyboardInterrupt|Interrupted: .*) !+"  # pytest, stopped
    r"|(?:FAIL )?Required test coverage of .* not reached.*"  # pytest-cov's floor
    r"|No tests? (?:files )?found, exiting with code 1.*"  # jest, vitest
    r"|Error: No test files found.*"  # mocha
    r"|\s*\d+ failing"  # mocha
    r"|test result: FAILED\..*|error: (?:doc)?test failed, to rerun pass .*"  # cargo
    r"|error: \d+ targets? failed:?"  # cargo --no-fail-fast
    r"|FAIL(?:\s+\S*[./]\S*(?:\s.*)?)?|--- FAIL: .*"  # go test; jest's, vitest's failed files
    r"|FAILED \S+::.*"  # pytest's short summary
    r"|(?:FAILURES|ERRORS)!"  # phpunit
    r"|Failed!\s+- Failed:.*"  # dotnet test
    r"|(?:\[\w+\] )?BUILD (?:FAILURE|FAILED)\b.*"  # Maven, Gradle
    r"|Found [1-9]\d* errors?\b(?!.* 0 remaining\)).*"  # mypy, ruff (not all fixed), tsc
    r"|\S+\(\d+,\d+\): error TS\d+:.*"  # tsc without --pretty
    r"|\d+ files? would be reformatted.*"  # ruff format --check, black --check
    r"|make(?:\[\d+\])?: \*\*\* .*(?:Error \d+|Stop\.).*"  # make
    r"|npm (?:ERR!|error) .*"  # npm
    r"|Jest: .* coverage threshold .* not met.*"  # jest's coverage floor
    r"|ERROR: Coverage for .* does not meet .*threshold.*|Errors\s+\d+ errors?.*"  # vitest
    r"|\S+: FAIL code \d+.*|evaluation failed :\(.*"  # tox
)
"""Closing lines that say the run failed, whatever else the output says."""
_PASSES = re.compile(
    r"\s*\d+ passing \(.*\)"  # mocha
    r"|test result: ok\..*"  # cargo
    r"|OK \(\d+ tests?, \d+ assertions?\)"  # phpunit
    r"|(?:\[\w+\] )?BUILD SUCCESS(?:FUL)?\b.*"  # Maven, Gradle
    r"|Success: no issues found.*"  # mypy
    r"|All checks passed!"  # ruff
    r"|Found \d+ errors? \(\d+ fixed, 0 remaining\)\."  # ruff --fix, every one fixed
    r"|\d+ files? (?:already formatted|would be left unchanged)\.?"  # ruff format, black
)
"""Closing lines that say the run passed, when nothing says it failed."""
_TALLIES = re.compile(
    r"(?:Tests:|Test Suites:)\s+((?:\d+ [a-z]+, )*\d+ total)"  # jest: 1 failed, 2 passed, 3 total
    # vitest: 1 failed | 1 passed (2)
    r"|(?:Test Files|Tests)\s+((?:\d+ [a-z]+ \| )*\d+ [a-z]+) \(\d+\)"
    r"|[#ℹ] (pass|fail) (\d+)"  # node --test (its TAP and spec reporters)
    r"|\d+ examples?, (\d+) failures?(?!.* errors? occurred).*"  # rspec (not outside examples)
    r"|\d+ examples?, \d+ failures?, (\d+) errors? occurred outside of examples"
)
"""Tallies whose failed count says which: more than none failed, or none did."""
_GEMINI = "Output: "
"""How Gemini CLI's shell result begins: the output's first line follows it."""
_HEADER = re.compile(
    r"<untrusted_context>|Output:|Exit code: -?\d+|Process exited with code -?\d+"
    r"|(?:Wall time|Chunk ID|Original token count|Command|Directory|Total output lines): .*"
    r"|Warning: truncated output.*"
)
"""Lines a CLI writes before a command's output (Codex's, Gemini CLI's): not the output's."""
_UNITTEST_RAN = re.compile(r"Ran \d+ tests? in [\d.]+s")
_UNITTEST_ENDS = re.compile(r"(OK)(?: \(.*\))?|(FAILED) \(.*\)|(NO TESTS RAN)")


def summary_outcome(output: str | None, *, end_shown: bool = True) -> CheckOutcome | None:
    """How a check went as its runner's closing summary in ``output`` says (see the module's
    docstring): ``fail`` when a summary says a failure, ``pass`` when one says a pass, none
    says a failure and ``end_shown`` (the output's end is in it), else None."""
    if not output:
        return None
    passed = failed = False
    ran = False  # unittest's "Ran N tests" seen: its OK or FAILED is next
    first = True
    for raw in _COLOUR.sub("", output).splitlines():
        line = raw.strip().removeprefix(_GEMINI)
        if not line:
            continue
        if first and _HEADER.fullmatch(line):
            continue
        said = _said(line, ran)
        if said == "pass" and first and _PYTEST.fullmatch(line):
            # pytest's count line alone (``| tail -1``): a coverage floor's failure, which
            # pytest-cov writes just above it, is cut.
            said = None
        first = False
        ran = bool(_UNITTEST_RAN.fullmatch(line)) or (ran and said is None)
        if said == "fail":
            failed = True
        elif said == "pass":
            passed = True
    if failed:
        return "fail"
    return "pass" if passed and end_shown else None


def _said(line: str, ran: bool) -> CheckOutcome | None:
    """What one line of output says: a failure, a pass, or nothing."""
    if ran and (end := _UNITTEST_ENDS.fullmatch(line)):
        return "pass" if end[1] else "fail"
    if _FAILS.fullmatch(line):
        return "fail"
    if found := _PYTEST.fullmatch(line):
        return _pytest(found[1])
    if _PASSES.fullmatch(line):
        return "pass"
    if tally := _TALLIES.fullmatch(line):
        return _tally(tally)
    return None


def _pytest(counts: str) -> CheckOutcome | None:
    words = {word: int(n) for n, word in (part.split(" ", 1) for part in counts.split(", "))}
    if not words.keys() <= _PYTEST_WORDS:
        return None  # some other line ending in a time
    if any(words.get(word) for word in _PYTEST_FAILED):
        return "fail"
    if any(words.get(word) for word in _PYTEST_RAN):
        return "pass"
    return "fail" if words.get("deselected") else None  # all deselected: ran none (exits 5)


def _tally(found: re.Match[str]) -> CheckOutcome | None:
    jest, vitest, node, node_count, rspec, rspec_errors = found.groups()
    if rspec_errors is not None:
        return "fail" if int(rspec_errors) else None
    if node is not None:
        if node == "fail":
            return "fail" if int(node_count) else None
        return "pass" if int(node_count) else None
    if rspec is not None:
        return "fail" if int(rspec) else "pass"
    counts = {word: int(n) for n, word in _COUNT.findall(jest or vitest)}
    if counts.get("failed"):
        return "fail"
    return "pass" if counts.get("passed") else None
