"""Unit tests of check outcomes whose status the tool result does not give: a detached
container command, a ``!``, a heredoc, and lines that end with a separator."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import pytest
from metrics_fixtures import result, shell

from proctor.metrics import MetricsConfig
from proctor.metrics.config import check_commands
from proctor.metrics.steps import find_checks
from proctor.metrics.trace import build_steps


def outcomes(command: str, is_error: bool) -> list[str]:
    steps = build_steps([shell("c", command), result("c", is_error)])
    return [check.outcome for check in find_checks(steps, MetricsConfig())]


@pytest.mark.parametrize(
    "command",
    [
        "docker exec -d app pytest",
        "docker exec --detach app pytest",
        "docker exec -dit app pytest",
        "docker compose run -d web pytest",
        "docker compose exec --detach web sh -c 'pytest -q'",
        "docker-compose run -d web make test",
        "docker --context ci exec -d app pytest",
        "sudo -b pytest",
    ],
)
@pytest.mark.parametrize("is_error", [False, True])
def test_a_detached_check_is_a_check_of_unknown_outcome(command: str, is_error: bool) -> None:
    assert outcomes(command, is_error) == ["unknown"]


@pytest.mark.parametrize(
    "command",
    ["docker exec -it app pytest", "docker --context ci exec app pytest", "env -S 'pytest -q'"],
)
def test_control_an_attached_check_keeps_its_outcome(command: str) -> None:
    assert outcomes(command, True) == ["fail"]
    assert outcomes(command, False) == ["pass"]


@pytest.mark.parametrize(
    "command",
    ["! pytest", "if ! pytest -q; then exit 1; fi", "! (cd app && make test)", "! cat x | pytest"],
)
@pytest.mark.parametrize("is_error", [False, True])
def test_a_check_a_bang_turns_round_has_an_unknown_outcome(command: str, is_error: bool) -> None:
    assert outcomes(command, is_error) == ["unknown"]


COMMIT = "git commit -m \"$(cat <<'EOF'\n{}\nEOF\n)\""
"""Claude Code's way of writing a commit message: a heredoc inside a substitution."""


LINES: dict[str, list[tuple[str, list[str]]]] = {
    "heredocs_and_separators_at_the_end": [
        ("cat > run.sh <<'EOF'\npytest -q\nEOF", []),
        ("cat > run.sh <<'EOF'\npytest -q\nEOF\nbash run.sh && make test", ["fail"]),
        ("bash <<EOF\npytest -q\nEOF", ["fail"]),
        ("python - <<EOF\nimport subprocess; subprocess.run(['pytest'])\nEOF", []),
        ("pytest -q\n", ["fail"]),
        ("pytest;", ["fail"]),
        ("pytest\necho done", ["unknown"]),
    ],
    "a_script_piped_or_given_to_a_shell_is_read": [
        ("cat <<EOF | bash\npytest -q\nEOF", ["fail"]),
        ("echo 'pytest -q' | bash", ["fail"]),
        ("echo -e 'make test' | sh", ["fail"]),
        ("echo 'pytest -q' | bash -s -- x", ["fail"]),
        ("bash <<< 'pytest -q'", ["fail"]),
        ("echo 'pytest -q; echo done' | bash", ["unknown"]),
        # Not a shell reading its script from what is piped in.
        ("cat <<EOF | python\npytest\nEOF", []),
        ("echo pytest | xargs", []),
        ("cat f | bash", []),
        ("echo 'pytest -q' | bash script.sh", []),
    ],
    "shifts_and_groups": [
        ("(( i << 2 ))\npytest -q", ["fail"]),  # a shift, not a heredoc
        ("if (( 1 << 2 > 3 )); then echo; fi\npytest -q", ["fail"]),
        ("cat <<EOF > t.sh; echo $((1+2))\npytest -q\nEOF", []),  # a heredoc all the same
        ("(cat <<EOF\npytest\nEOF\n)", []),  # in a subshell too
        ("x=$((1 << 2))\npytest -q", ["fail"]),
        ("{ pytest; }", ["fail"]),  # a group's status is its last command's
        ("{ cd app; pytest; }", ["fail"]),
        ("{ pytest; } || true", ["unknown"]),
        ("{ pytest; echo; }", ["unknown"]),
    ],
    "a_shell_has_the_pipefail_it_is_started_with": [
        ("bash -o pipefail -c 'pytest | tail'", ["fail"]),
        ("timeout 60 bash -o pipefail -c 'pytest | tail'", ["fail"]),
        ("bash -o pipefail -c 'make build' && pytest | tail", ["unknown"]),  # its own only
        ("set -o pipefail; bash -c 'pytest | tail'", ["unknown"]),  # not its parent's
        ("set -o pipefail; x=$(pytest | tail); echo", ["unknown"]),
    ],
    "a_process_substitution_runs_beside_the_line": [
        ("tee log < <(pytest)", ["unknown"]),  # its status is tee's
        ("diff <(pytest -q) expected.txt", ["unknown"]),
        ("pytest > >(tee out.log) 2>&1", ["fail"]),
        ("cat <(echo hi) && pytest", ["fail"]),
        ("echo '<(pytest)'", []),
    ],
    # A function's body runs when it is called, if ever: its checks have no outcome.
    "a_function_s_body_is_not_the_line_s": [
        ("run() {\n  cd app\n  pytest -q\n}", ["unknown"]),  # defined, never called
        ("f() { pytest; }; f", ["unknown"]),
        ("f()\n{\n pytest\n}", ["unknown"]),
        ("f() { pytest || exit 1; }; echo defined", ["unknown"]),
        ("f() { echo; }; pytest", ["fail"]),
        ("function t\n{\n echo\n}\npytest -q", ["fail"]),
        ("f() { { echo; }; }; pytest -x", ["fail"]),
    ],
    "pipefail_is_on_where_a_set_that_ran_turned_it_on": [
        ("set -o pipefail; pytest -q | tail -3", ["fail"]),
        ("set -o pipefail && pytest | tail", ["fail"]),
        # pipefail is on only after a set that surely ran in the line's own shell.
        ("pytest -q | tail -3 || exit 1; set -o pipefail; echo done", ["unknown"]),
        ("set -o pipefail; set +o pipefail; pytest -q | tail -3", ["unknown"]),
        ("false && set -o pipefail; pytest -q | tail -3", ["unknown"]),
        ("(set -o pipefail); pytest | tail", ["unknown"]),
        ("set -o pipefail | cat; pytest | tail", ["unknown"]),
    ],
    "arithmetic_is_told_from_nested_subshells": [
        ("( (cat > run.sh <<'EOF'\npytest -q\nEOF\n) )", []),  # subshells, not (( ))
        ("(cd app && (cd . && cat > run.sh <<'EOF'\npytest -q\nEOF\n)) && make test", ["fail"]),
        ('x="$(cd . && (cat <<\'EOF\'\n"\nEOF\n))"; pytest -q', ["fail"]),
        ("echo $[1 << 2]\npytest -q", ["fail"]),
        ("for ((i=0;i<2;i++)); do cat <<EOF\npytest\nEOF\ndone", []),
    ],
    # Its body's quotes and parentheses are text: they neither close the substitution nor
    # open a quote that hides the rest of the line.
    "a_heredoc_inside_a_substitution_is_text": [
        (COMMIT.format('Add CI step\n\nIt\'s now "npm ci && npm test"'), []),
        (COMMIT.format('Fix parser\n\n1) Run "cd app && make test" before pushing'), []),
        (COMMIT.format("Don't break `npm test`"), []),
        (
            "pytest -q && git add -A && " + COMMIT.format("- Don't crash\n- Ran `pytest -q`"),
            ["fail"],
        ),
        ("MSG=$(cat <<'EOF'\nDon't panic\nEOF\n)\ngit commit -m \"$MSG\" && pytest -q", ["fail"]),
        ("BODY=$(cat <<'EOF'\nIt's fixed :)\nEOF\n)\npytest -q", ["fail"]),
        ("x=$(cat <<EOF\n$(pytest -q)\nEOF\n)", ["unknown"]),  # an unquoted body's substitution
        ("cat > f <<'EOF'\r\nx\r\nEOF\r\npytest -q\r\n", ["fail"]),  # CRLF lines
    ],
}
"""Lines and the outcomes of the checks each runs when its step fails, by what they show."""


@pytest.mark.parametrize(
    ("command", "want"),
    [
        pytest.param(c, w, id=f"{group}-{n}")
        for group, cases in LINES.items()
        for n, (c, w) in enumerate(cases)
    ],
)
def test_a_line_s_checks_have_their_outcomes(command: str, want: list[str]) -> None:
    assert outcomes(command, True) == want


@pytest.mark.parametrize(
    ("command", "known"),
    [
        ("pytest -q || exit 1; echo done", True),
        ("pytest -q || exit; echo done", True),
        ("pytest || exit $?; echo", True),
        ("set -o pipefail; pytest | tail -3 || exit 1; echo", True),
        ("pytest -q || exit 0", False),
        ("pytest -q || { echo 'Tests failed'; exit 1; }; echo done", True),
        ("pytest -q || { echo failed; }; echo done", False),
        ("pytest -q || { echo x; exit 1; } | cat", False),
        # Piped or sent to the background, the exit runs in a subshell and ends nothing.
        ("pytest -q || exit 1 | tee -a log.txt", False),
        ("pytest -q || exit 1 2>&1 | tail -5", False),
        ("pytest -q || exit 1 & wait; echo done", False),
        ("pytest -q || exit 1 |& cat", False),
        ("! pytest || exit 1; echo", False),
        ("pytest | tail -3 || exit 1; echo", False),  # no pipefail: the tail's status
        # A subshell ends with its last command's status; an exit in one ends it only.
        ("(cd app && pytest) || exit 1; echo done", True),
        ("(pytest) || exit 1\necho done", True),
        ("(cd app; pytest -q) || exit 1; echo", True),
        # A failed build skips the tests, to the exit: each check's failure ends the line.
        ("(cd app; make build) && (cd app && pytest -q) || exit 1; echo", True),
        ("(cd app; make build); (cd app && pytest -q) || exit 1; echo", False),  # the build
        ("set -o pipefail; (cd app && pytest | tail -3) || exit 1; echo", True),
        ("(cd app && pytest) || { echo 'Tests failed'; exit 1; }; echo done", True),
        ("(pytest; echo x) || exit 1; echo", False),
        ("(pytest || exit 1); echo", False),
        ("pytest || (exit 1); echo", False),
        ("(pytest || exit 1) | tee log", False),
        ("pytest || { echo x; (exit 1); }; echo", False),
        ("(pytest || { echo x; exit 1; }); echo", False),
        ("{ pytest || exit 1; echo x; } 2>&1 | tail -5", False),
        ("for d in a b; do pytest || exit 1; done | tee log", False),
        ("f() { pytest || exit 1; }; echo defined", False),
        # set -e is not read: Claude Code runs the line in an eval where bash ignores it.
        ("set -euo pipefail\ncd app\npytest -q\necho 'All tests passed'", False),
        ("bash -e -c 'pytest; echo done'", False),
    ],
)
def test_a_check_whose_failure_ends_the_line_keeps_its_outcome(command: str, known: bool) -> None:
    """Followed by ``|| exit 1``, a failing check ends the line with its failure: the ``;``
    after it hides nothing."""
    want = (["fail"], ["pass"]) if known else (["unknown"], ["unknown"])
    assert (outcomes(command, True), outcomes(command, False)) == want


@pytest.mark.parametrize(
    "command",
    ["true | xargs -r pytest", "find tests -name '*.py' | xargs pytest", "xargs -I{} pytest {}"],
)
def test_a_check_xargs_runs_is_masked(command: str) -> None:
    """Given no input, xargs may run nothing and succeed."""
    assert outcomes(command, True) == ["unknown"]


ADVERSARIAL: list[Callable[[int], str]] = [
    lambda n: "cat <<EOF\n" * n + "pytest",
    lambda n: "cat <<A <<B <<C " * (n // 3) + "\nx" * n,
    lambda n: "cat <<EOF\n" + "$(x) " * n + "\nEOF",
    lambda n: "env " + "-S x " * n + "pytest",
    lambda n: "env -S '" + "env -S " * (n // 2) + "pytest'",
    lambda n: "docker " + "--context x " * (n // 2) + "exec app pytest",
    lambda n: "docker exec " + "-dit " * n + "app pytest",
    lambda n: "! pytest | " * (n // 2),
    lambda n: "bash " + "-e " * n + "<<EOF\npytest\nEOF",
    lambda n: "make " + "V=1 " * n + "test",
    lambda n: "make " + "-C a " * (n // 2) + "-n test",
    lambda n: "$(\n" * n + "pytest",  # each substitution unclosed: it looked to the text's end
    lambda n: "`\n" * n + "pytest",
    lambda n: "pytest $(" * n,
    lambda n: functools.reduce(lambda line, _: f'sh -c "$({line})"', range(6), "x" * (6 * n)),
    lambda n: "$(<<E<<E<<E " * (n // 2),  # heredocs opened in substitutions, none closed
    lambda n: '$(<<"" ' * (n * 4 // 5),
    lambda n: "mvn " + "-x " * n + "y",
    lambda n: "yarn " * n + "jest",
    lambda n: "xargs " * n + "pytest",
]


def _seconds(line: str) -> float:
    started = time.perf_counter()
    check_commands(MetricsConfig(), line)
    return time.perf_counter() - started


@pytest.mark.parametrize("build", ADVERSARIAL, ids=lambda build: build(4)[:12])
def test_adversarial_10_000_word_lines_are_read_in_linear_time(
    build: Callable[[int], str],
) -> None:
    # About 0.3 s at 10,000 words; a quadratic reading takes tens of seconds. On a loaded
    # machine the time alone says little: four times the words then take about four times as
    # long when the reading is linear, sixteen times when it is quadratic.
    big = _seconds(build(10_000))
    if big < 3:
        return
    small = min(_seconds(build(2_500)) for _ in range(2))
    assert big < 8 * small + 0.5, (big, small)


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        (["git", "commit", "-m", "x; make test"], []),  # the message is one word
        (["bash", "-lc", "cd app && pytest -q"], [("bash -lc 'cd app && pytest -q'", "fail")]),
        (["bash", "-lc", "pytest | tail -3"], [("bash -lc 'pytest | tail -3'", "unknown")]),
        (["pytest", "-q"], [("pytest -q", "fail")]),
    ],
)
def test_an_argv_is_read_word_by_word(argv: list[str], want: list[tuple[str, str]]) -> None:
    """Codex's older ``shell`` tool takes an argv: its words are not split again."""
    steps = build_steps([shell("c", argv), result("c", True)])
    assert [(c.command, c.outcome) for c in find_checks(steps, MetricsConfig())] == want
