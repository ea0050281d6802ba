"""Shell calls that only write files are edits of those files (``proctor.metrics.writes``)."""

from __future__ import annotations

from typing import Any

import pytest
from metrics_fixtures import call, result, shell

from proctor.metrics import writes
from proctor.metrics.figures import step_figures
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.trace import build_steps
from proctor.metrics.writes import written_files

HEREDOC = "cat > calc.py <<'EOF'\ndef add(a, b):\n    return a + b if a > b else b + a\nEOF"

CASES: list[tuple[Any, tuple[tuple[str, ...], bool] | None]] = [
    (HEREDOC, (("calc.py",), False)),
    ("cat <<EOF >a.py\nx\nEOF\n", (("a.py",), False)),
    ("cd app && cat >> src/x.py << 'PY'\nprint(1)\nPY", (("app/src/x.py",), True)),
    ("mkdir -p pkg && cat > pkg/__init__.py <<'EOF'\nEOF", (("pkg/__init__.py",), False)),
    ("cat > /abs/a.py <<'EOF'\nEOF", (("/abs/a.py",), False)),
    ("cat < in.txt > out.py", (("out.py",), False)),
    ("echo a > x.py && echo b >> x.py", (("x.py",), True)),
    ('echo "a > b" > x.py', (("x.py",), False)),
    ("echo x > a.py 2>&1", (("a.py",), False)),
    ("echo x &> a.log", (("a.log",), False)),
    ("tee a.py b.py <<'E'\nz\nE", (("a.py", "b.py"), False)),
    ("tee -a a.py <<< 'x'", (("a.py",), True)),
    ("sed -i 's/a/b/' x.py y.py", (("x.py", "y.py"), True)),
    ("sed -i.bak -e 's/a/b/' x.py", (("x.py",), True)),
    ("sed -Ei 's/a/b/' a.py", (("a.py",), True)),
    ("sed --in-place=.bak 's/a/b/' a.py", (("a.py",), True)),
    ("bash -lc \"cat > a.py <<'EOF'\nx\nEOF\"", (("a.py",), False)),
    (["bash", "-lc", "cat > a.py <<'EOF'\nx\nEOF"], (("a.py",), False)),
    # Not a line that only writes files: a shell command, as before.
    ("echo hi>a.txt", None),  # a redirection inside a word: not told from text
    ("sed -n '1,5p' x.py", None),
    ("tee a.py", None),  # fed by nothing
    ("printf '%s\\n' a > f.py; pytest", None),
    ("echo '>b'", None),
    ("echo '>b' > x.py", None),
    ("echo x >&2", None),
    ("echo x > /dev/null", None),
    ("cat a.py | tee b.py", None),
    ("python3 - <<'EOF'\nopen('a.py', 'w').write('x')\nEOF", None),
    ("pytest -q 2>&1 | tail -3", None),
    ("pytest > out.txt", None),
    ("git diff > p.diff", None),
    ('cat > "$HOME/x.py" <<EOF\nEOF', None),
    ("cd ~ && cat > x.py <<EOF\nEOF", None),
    ("cat src/a.py", None),
    (["cat", "a.py"], None),
    (None, None),
]


@pytest.mark.parametrize(("command", "want"), CASES)
def test_the_files_a_line_only_writes(command: Any, want: Any) -> None:
    assert written_files(command) == want


def _session(first: Any, *, write_fails: bool = False) -> list[Any]:
    """A read, the write ``first`` (a shell call), then a passing test run."""
    return [
        call("r", "read", files=["calc.py"]),
        result("r"),
        call("w", "shell", input={"cmd": first, "workdir": "/ws/app"}),
        result("w", is_error=write_fails),
        shell("t", "python3 -m unittest -q"),
        result("t"),
    ]


def test_a_code_file_written_through_the_shell_makes_a_verified_task() -> None:
    events = _session(HEREDOC)
    metrics = compute_process_metrics(events, workspace="/ws")
    assert metrics.steps.by_kind == {"read": 1, "write": 1, "shell": 1}
    assert metrics.is_task and metrics.verified
    assert metrics.orientation.reads_before_first_edit == 1
    assert metrics.steps.checks == 1
    figures = step_figures(build_steps(events, "/ws"), None)
    assert (figures.is_task, figures.verified, figures.edited_files) == (
        True,
        True,
        ["app/calc.py"],
    )


def test_a_write_through_the_shell_that_failed_or_wrote_notes_changed_no_code() -> None:
    failed = step_figures(build_steps(_session(HEREDOC, write_fails=True), "/ws"), None)
    assert (failed.is_task, failed.edits) == (False, 1)
    notes = step_figures(build_steps(_session("echo done > notes.md"), "/ws"), None)
    assert (notes.is_task, notes.edits, notes.edited_files) == (False, 1, ["app/notes.md"])


def test_a_check_that_writes_its_output_to_a_file_stays_a_check() -> None:
    events = [shell("t", "pytest -q > out.txt"), result("t", is_error=True)]
    metrics = compute_process_metrics(events)
    assert metrics.steps.by_kind == {"shell": 1} and metrics.steps.checks == 1


def test_three_identical_writes_through_the_shell_are_an_edit_loop() -> None:
    events: list[Any] = []
    for i in range(3):
        events += [shell(f"w{i}", HEREDOC), result(f"w{i}", is_error=True)]
    metrics = compute_process_metrics(events)
    assert [loop.kind for loop in metrics.loop_details] == ["edit"]
    assert step_figures(build_steps(events), None).loops == 1


def test_control_without_writes_the_session_is_no_task(monkeypatch: pytest.MonkeyPatch) -> None:
    import proctor.metrics.trace as trace

    monkeypatch.setattr(trace, "written_files", lambda command: None)
    figures = step_figures(build_steps(_session(HEREDOC), "/ws"), None)
    assert not figures.is_task
    assert writes.written_files(HEREDOC) is not None  # the rule itself untouched
