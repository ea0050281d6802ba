"""Unit tests of splitting a shell line into the commands it runs."""

from __future__ import annotations

import pytest

from proctor.metrics.pipefail import sets_pipefail
from proctor.metrics.shell import split_commands


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
        ("bash -o pipefail -c 'pytest | tail'", False),  # the child's, not the line's
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


def masked_by_text(line: str) -> list[tuple[str, bool]]:
    return [(c.text, c.masked) for c in split_commands(line)]


@pytest.mark.parametrize(
    ("line", "want"),
    [
        # A heredoc's body is text; the commands after its closing line are read.
        ("cat > run.sh <<'EOF'\npytest -q\nEOF", [("cat > run.sh <<'EOF'", False)]),
        (
            "cat > run.sh <<'EOF'\npytest -q\nEOF\nbash run.sh && make test",
            [("cat > run.sh <<'EOF'", True), ("bash run.sh", False), ("make test", False)],
        ),
        ("cat <<EOF > x.txt\npytest\nEOF\n", [("cat <<EOF > x.txt", False)]),
        ('cat<<"EOF"\npytest\nEOF', [('cat<<"EOF"', False)]),
        ("cat <<\\EOF\npytest\nEOF", [("cat <<\\EOF", False)]),
        ("cat <<E'O'F\npytest\nEOF", [("cat <<E'O'F", False)]),
        ("python - <<EOF\nimport pytest\nEOF", [("python - <<EOF", False)]),
        # <<- strips the tabs before the closing delimiter; a space does not.
        ("cat <<-EOF\n\tpytest\n\tEOF\nmypy", [("cat <<-EOF", True), ("mypy", False)]),
        ("cat <<EOF\n\tEOF\npytest\nEOF\nmypy", [("cat <<EOF", True), ("mypy", False)]),
        ("cat <<-EOF\n pytest\n EOF\nmypy", [("cat <<-EOF", False)]),
        # A heredoc never closed runs to the end of the text.
        ("cat <<EOF\npytest\nmake test", [("cat <<EOF", False)]),
        # Two heredocs on a line: their bodies follow one another.
        (
            "diff - /dev/fd/3 <<A 3<<B\npytest\nA\nmypy\nB\nmake test",
            [("diff - /dev/fd/3 <<A 3<<B", True), ("make test", False)],
        ),
        # The rest of the heredoc's line is read before its body.
        (
            "cat <<EOF | grep -q x && pytest\nbody\nEOF",
            [("cat <<EOF", True), ("grep -q x", False), ("pytest", False)],
        ),
        # A here-string is a word, not a heredoc.
        ("cat <<< x\npytest", [("cat <<< x", True), ("pytest", False)]),
        # An expanded body's substitutions run; a quoted one's do not.
        (
            "cat <<EOF\n$(pytest) `mypy`\nEOF",
            [("cat <<EOF", False), ("pytest", True), ("mypy", True)],
        ),
        ("cat <<'EOF'\n$(pytest)\nEOF", [("cat <<'EOF'", False)]),
    ],
)
def test_a_heredoc_s_body_is_not_commands(line: str, want: list[tuple[str, bool]]) -> None:
    assert masked_by_text(line) == want


@pytest.mark.parametrize(
    ("line", "script"),
    [
        ("bash <<EOF\npytest -q\nEOF", "pytest -q"),
        ("sh <<'EOF'\ncd app && pytest\nEOF", "pytest"),
        ("bash -e <<-EOF\n\tpytest\n\tEOF", "\tpytest"),
        ("bash -s -- -x <<EOF\npytest\nEOF", "pytest"),
        ("bash -o pipefail > log 2>&1 <<EOF\npytest\nEOF", "pytest"),
        ("docker exec -i app bash <<EOF\npytest -q\nEOF", "pytest -q"),
        ("timeout 60 bash - <<EOF\npytest\nEOF", "pytest"),
    ],
)
def test_a_heredoc_fed_to_a_shell_is_its_script(line: str, script: str) -> None:
    commands = split_commands(line)
    assert script.strip() in [c.text for c in commands[1:]]
    assert not any(c.masked for c in commands)


@pytest.mark.parametrize(
    "line",
    [
        "bash run.sh <<EOF\npytest\nEOF",  # the script is the file; the heredoc is its input
        "bash -c 'cat' <<EOF\npytest\nEOF",
        "bash 3<<EOF\npytest\nEOF",  # not its standard input
        "python3 <<EOF\npytest\nEOF",
    ],
)
def test_a_heredoc_fed_to_anything_else_is_not_run(line: str) -> None:
    assert "pytest" not in [c.text for c in split_commands(line)]


def test_a_heredoc_fed_to_a_shell_keeps_the_shell_s_masking() -> None:
    line = "bash <<EOF | tail -3\npytest\nEOF"
    (check,) = [c for c in split_commands(line) if c.text == "pytest"]
    assert check.piped and check.masked


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("! pytest", True),
        ("if ! pytest -q; then exit 1; fi", True),
        ("! cat list | pytest", True),  # a ! turns its whole pipeline round
        ("set -o pipefail; ! pytest | tail", True),
        ("! (cd app && pytest)", True),
        ("pytest && ! grep -q FAILED log", False),  # the ! is another pipeline's
        ("! grep -q x log; pytest", False),
        ("echo ! && pytest", False),
    ],
)
def test_a_bang_masks_the_pipeline_it_turns_round(line: str, masked: bool) -> None:
    (check,) = [c for c in split_commands(line) if "pytest" in c.words]
    assert check.masked is masked


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("docker exec -d app pytest", True),
        ("docker exec -dit app sh -c 'pytest'", True),
        ("docker exec -it app pytest", False),
    ],
)
def test_a_detached_command_is_masked(line: str, masked: bool) -> None:
    assert all(c.masked is masked for c in split_commands(line))


@pytest.mark.parametrize(
    ("line", "masked"),
    [
        ("pytest -q\n", False),
        ("pytest;", False),
        ("pytest -q\n# done\n", False),
        ("pytest;\n", False),
        ("pytest; # done", False),
        ("pytest; echo done", True),
        ("pytest\necho done", True),
        ("pytest &", True),
    ],
)
def test_a_separator_with_no_command_after_it_masks_nothing(line: str, masked: bool) -> None:
    (check,) = [c for c in split_commands(line) if c.words[0] == "pytest"]
    assert check.masked is masked
