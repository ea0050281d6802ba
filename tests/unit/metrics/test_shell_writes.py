"""Shell calls that only write files are edits of those files (``proctor.metrics.writes``)."""

from __future__ import annotations

from typing import Any

import pytest
from metrics_fixtures import call, result, shell
from test_script_writes import REPLACE

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
    ("cd script && cat > f.py <<'EOF'\nEOF", (("script/f.py",), False)),
    ("mkdir -p pkg && cat > pkg/__init__.py <<'EOF'\nEOF", (("pkg/__init__.py",), False)),
    ("cat > /abs/a.py <<'EOF'\nEOF", (("/abs/a.py",), False)),
    ("cat < in.txt > out.py", (("out.py",), False)),
    ("echo a > x.py && echo b >> x.py", (("x.py",), False)),  # written whole, then added to
    ("echo b >> x.py", (("x.py",), True)),
    ("echo hi>a.txt", (("a.txt",), False)),
    ("echo '>b' > x.py", (("x.py",), False)),
    # A ">" in quotes is text (the review's cases).
    ("echo '> if x > 0' > notes.md", (("notes.md",), False)),
    ("printf '> Note: a > b\\n' >> README.md", (("README.md",), True)),
    ("echo '>>> 2 > 1' > doc.py", (("doc.py",), False)),
    ("sed -i 's/-> int/-> str/' f.py", (("f.py",), True)),
    ("sed -i 's|old|new|' f.py", (("f.py",), True)),
    ("sed -i 's/a/b/' f.py 2>/dev/null", (("f.py",), True)),
    ("sed -i '' 's/foo/bar/' src/app.py", (("src/app.py",), True)),  # macOS: '' a suffix
    ("sed -i -e's/a/b/' f.py", (("f.py",), True)),
    ("tee -- f.py <<'E'\nx\nE", (("f.py",), False)),
    ("tee f.py >& /dev/null <<'E'\nx\nE", (("f.py",), False)),
    ("cat > run.sh <<'EOF'\nx\nEOF\nchmod +x run.sh", (("run.sh",), False)),
    ("cat > f.py <<'EOF'\nx\nEOF\necho done", (("f.py",), False)),
    ("/bin/echo x > f.py", (("f.py",), False)),
    (["/bin/bash", "-lc", "cat > a.py <<'EOF'\nx\nEOF"], (("a.py",), False)),
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
    ("sed -n '1,5p' x.py", None),
    ("tee a.py", None),  # fed by nothing
    ("printf '%s\\n' a > f.py; pytest", None),
    ("echo '>b'", None),
    ('echo "a >" ">" b.py', None),  # prints: writes no file
    ("sed -e's/a/i/' f.py g.py", None),  # prints: -e's/a/i/' is its script
    ("sed -i '' a.py", None),  # a.py is the script: no file
    ("echo 0 > z.py && (cd sub && echo 1 > x.py) && echo 2 > y.py", None),  # a subshell
    ("bash -c 'cd sub' && echo x > f.py", None),
    ("echo x > conf.py && bash scripts/test.sh -c ci", None),  # a script run: maybe a check
    ("echo x > f{1,2}.py", None),
    ("echo $(pytest) > out.txt", None),
    ("cat > f.py <<'EOF'\nx\nEOF\npython f.py", None),
    ("cat > f.py << EOF\n$(date)\nEOF", None),
    ("bash -c " + " " * 8000 + ">", None),  # read in linear time
    ("echo x >&2", None),
    ("echo x > /dev/null", None),
    ("cat a.py | tee b.py", None),
    ("python3 - <<'EOF'\nimport os\nos.remove('a.py')\nEOF", None),  # (see test_script_writes)
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


@pytest.mark.parametrize(
    ("line", "kind", "edited"),
    [
        (HEREDOC, "write", "app/calc.py"),
        (REPLACE, "edit", "app/src/app.py"),  # a python3 script (test_script_writes)
    ],
)
def test_a_code_file_written_through_the_shell_makes_a_verified_task(
    line: str, kind: str, edited: str
) -> None:
    events = _session(line)
    metrics = compute_process_metrics(events, workspace="/ws")
    assert metrics.steps.by_kind == {"read": 1, kind: 1, "shell": 1}
    assert metrics.is_task and metrics.verified
    assert metrics.orientation.reads_before_first_edit == 1
    assert metrics.steps.checks == 1
    figures = step_figures(build_steps(events, "/ws"), None)
    assert (figures.is_task, figures.verified, figures.edited_files) == (True, True, [edited])


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


def test_only_files_in_the_workspace_count() -> None:
    """A scratch file in /tmp is no edit of the project: the call stays a shell step."""
    for line in ("cat > /tmp/repro.py <<'EOF'\nx\nEOF", "echo x > ../other/a.py"):
        (step,) = build_steps([shell("w", line), result("w")], "/ws")
        assert (step.kind, step.files) == ("shell", ())
    mixed = "cat > /tmp/repro.py <<'EOF'\nx\nEOF\ncat > /ws/a.py <<'EOF'\ny\nEOF"
    (step,) = build_steps([shell("w", mixed), result("w")], "/ws")
    assert (step.kind, step.files) == ("write", ("a.py",))


def test_control_without_writes_the_session_is_no_task(monkeypatch: pytest.MonkeyPatch) -> None:
    import proctor.metrics.trace as trace

    monkeypatch.setattr(trace, "written_files", lambda command: None)
    figures = step_figures(build_steps(_session(HEREDOC), "/ws"), None)
    assert not figures.is_task
    assert writes.written_files(HEREDOC) is not None  # the rule itself untouched
