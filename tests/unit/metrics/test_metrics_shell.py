"""Unit tests of splitting a shell line into the commands it runs."""

from __future__ import annotations

import pytest

from proctor.metrics.shell import sets_pipefail, split_commands


def texts(line: str) -> list[tuple[str, bool]]:
    return [(c.text, c.piped) for c in split_commands(line)]


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("", []),
        ("pytest -q", [("pytest -q", False)]),
        (
            "cd app && pytest; make lint",
            [("cd app", False), ("pytest", False), ("make lint", False)],
        ),
        ("a || b\nc", [("a", False), ("b", False), ("c", False)]),
        ("pytest 2>&1 | tail -3", [("pytest 2>&1", True), ("tail -3", False)]),
        ("pytest |& tee log", [("pytest", True), ("tee log", False)]),
        ("pytest &> log & wait", [("pytest &> log", False), ("wait", False)]),
        ('echo "done && make test"', [('echo "done && make test"', False)]),
        ("git commit -m 'a; pytest\npytest'", [("git commit -m 'a; pytest\npytest'", False)]),
        ("echo 'unbalanced && pytest", [("echo 'unbalanced && pytest", False)]),
        ("echo a\\;b", [("echo a\\;b", False)]),
        ("echo x # ; pytest\nmypy", [("echo x # ; pytest", False), ("mypy", False)]),
        ("(cd app && pytest)", [("cd app", False), ("pytest", False)]),
        # A substitution is part of its word; its commands come after the line's.
        (
            "echo $(pytest) `mypy`",
            [("echo $(pytest) `mypy`", False), ("pytest", False), ("mypy", False)],
        ),
        ("make -j$(nproc) test", [("make -j$(nproc) test", False), ("nproc", False)]),
        ("x $(a ')' b) y", [("x $(a ')' b) y", False), ("a ')' b", False)]),
        ("x $(unclosed", [("x $(unclosed", False), ("unclosed", False)]),
        # An escaped quote inside a substitution's double quotes ends nothing.
        (
            'N=$(grep -c "\\"t\\"" p.json) && npm test',
            [
                ('N=$(grep -c "\\"t\\"" p.json)', False),
                ("npm test", False),
                ('grep -c "\\"t\\"" p.json', False),
            ],
        ),
        # A substitution never closed ends with its line (a heredoc's text).
        ("echo `x\nmake test", [("echo `x", False), ("make test", False), ("x", False)]),
        ('echo "$(pytest -q)"', [('echo "$(pytest -q)"', False), ("pytest -q", False)]),
    ],
)
def test_split_commands(line: str, want: list[tuple[str, bool]]) -> None:
    assert texts(line) == want


def test_split_commands_removes_quotes_from_words() -> None:
    (command,) = split_commands("""git commit -m "say \\"hi\\"" 'a b'c""")
    assert command.words == ("git", "commit", "-m", 'say "hi"', "a bc")


def test_split_commands_enters_sh_c_scripts() -> None:
    assert texts("bash -lc 'cd /ws && npm test'")[1:] == [("cd /ws", False), ("npm test", False)]
    assert texts("/bin/bash -lc pytest -q")[1:] == [("pytest", False)]
    assert texts("bash -o pipefail -c 'pytest | tail'")[1:] == [("pytest", True), ("tail", False)]
    assert texts("sh -c 'pytest' | tail") == [
        ("sh -c 'pytest'", True),
        ("pytest", True),
        ("tail", False),
    ]
    assert texts("bash script.sh -c x") == [("bash script.sh -c x", False)]


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("pytest | tail", False),
        ("set -o pipefail; pytest | tail", True),
        ("set -euo pipefail\npytest | tail", True),
        ("bash -o pipefail -c 'pytest | tail'", True),
        ("set +o pipefail; pytest | tail", False),
        ("echo 'set -o pipefail'; pytest | tail", False),
    ],
)
def test_sets_pipefail(line: str, want: bool) -> None:
    assert sets_pipefail(split_commands(line)) is want


def test_a_substitution_s_commands_are_masked_and_its_line_s_are_not() -> None:
    outer, inner = split_commands("pytest $(git ls-files tests)")
    assert (outer.words, outer.masked) == (("pytest", "$(git ls-files tests)"), False)
    assert (inner.text, inner.masked) == ("git ls-files tests", True)


def test_nesting_is_followed_to_a_depth_and_no_further() -> None:
    deep = "$(" * 50 + "pytest" + ")" * 50
    assert len(split_commands(deep)) == 9  # the line, then eight substitutions deep
    assert [c.text for c in split_commands("timeout 60 bash -c 'pytest -q'")][1:] == ["pytest -q"]


@pytest.mark.parametrize(
    "line",
    [
        "timeout 60 bash -o pipefail -c 'pytest | tail -3'",
        "bash -c 'set -o pipefail; pytest | tail -3'",
        'set -o pipefail; N=$(grep -c "\\"t\\"" p.json) && pytest | tail -3',
    ],
)
def test_pipefail_is_read_behind_runners_and_in_scripts(line: str) -> None:
    (pytest_command,) = [c for c in split_commands(line) if c.words[0] == "pytest"]
    assert not pytest_command.masked


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("(cd app && pytest)", False),  # a subshell's status is its last command's
        ("((pytest))", False),
        ("(cd a && pytest) && echo ok", False),
        ("(pytest) || true", True),  # what follows the subshell follows its last command
        ("(pytest); echo done", True),
        ("(pytest) | tail", True),
        ("set -o pipefail; (pytest) | tail", False),
        ("if pytest -q; then echo ok; fi", True),
    ],
)
def test_a_subshell_keeps_its_last_command_s_status(line: str, masked: bool) -> None:
    (check,) = [c for c in split_commands(line) if "pytest" in c.words]
    assert check.masked is masked
