"""What a failed hook case says its hook said: of a Python traceback, the exception."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from proctor.addons.hooks.cases import Expect, HookCase
from proctor.addons.hooks.results import HookRunResult
from proctor.addons.hooks.suite import _gist, judge


def test_a_traceback_is_said_by_its_exception_line_whatever_the_hook_printed_after_it(
    tmp_path: Path,
) -> None:
    """A hook that printed after its traceback, or whose exception was raised while handling
    another (two tracebacks), is said by the line that ends the last traceback: the exception
    that stopped it (it was the last line printed: "cleaning up", or an indented frame)."""
    script = tmp_path / "h.py"
    script.write_text(
        "import atexit, sys\n"
        "atexit.register(lambda: print('cleaning up', file=sys.stderr))\n"
        "try:\n    {}['x']\nexcept KeyError:\n    raise ValueError('bad input\\nsee the log')\n",
        encoding="utf-8",
    )
    stderr = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    ).stderr
    assert stderr.count("Traceback (most recent call last):") == 2
    assert stderr.rstrip().endswith("cleaning up")
    case = HookCase(id="c", agent="claude-code", event="Stop", expect=Expect(decision="silent"))
    crashed = HookRunResult(
        command="./h.py", exit_code=1, decision="error", message=stderr, stdout="",
        stderr=stderr, duration_ms=1,
    )  # fmt: skip
    assert judge(case, [crashed]).message == (
        "expected decision silent, got error (the hook said: ValueError: bad input)"
    )
    cut = 'Traceback (most recent call last):\n  File "h.py", line 3, in <module>\n    f()\n'
    assert judge(case, [crashed.model_copy(update={"message": cut})]).message.endswith(
        "(the hook said: f())"
    )


def _said(tmp_path: Path, source: str) -> str:
    """What a failed case says its hook said, the hook a Python script that printed to stderr."""
    script = tmp_path / "h.py"
    script.write_text(source, encoding="utf-8")
    stderr = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    ).stderr
    case = HookCase(id="c", agent="claude-code", event="Stop", expect=Expect(decision="silent"))
    crashed = HookRunResult(
        command="./h.py", exit_code=1, decision="error", message=stderr, stdout="",
        stderr=stderr, duration_ms=1,
    )  # fmt: skip
    return judge(case, [crashed]).message


def test_an_exception_group_is_said_by_its_own_line_and_its_first_sub_exception(
    tmp_path: Path,
) -> None:
    """Python 3.11+ frames an exception group's traceback in ``+`` and ``|``: the hook is said
    by the group's line and its first sub-exception's (it was all the lines of the output)."""
    said = _said(
        tmp_path,
        "def check(v):\n    raise KeyError(v)\n"
        "errors = []\nfor v in ('a', 'b'):\n"
        "    try:\n        check(v)\n    except KeyError as e:\n        errors.append(e)\n"
        "raise ExceptionGroup('checks failed', errors)\n",
    )
    assert said == (
        "expected decision silent, got error (the hook said: ExceptionGroup: checks failed"
        " (2 sub-exceptions), the first KeyError: 'a')"
    )


def test_a_traceback_after_a_prefix_on_its_line_is_said_by_its_exception(tmp_path: Path) -> None:
    """A hook that logs its traceback after a tag (``[hook] Traceback (most recent call
    last):``) is said by the exception line (it was all the lines of the output)."""
    said = _said(
        tmp_path,
        "import sys, traceback\ntry:\n    {}['file_path']\n"
        "except KeyError:\n    print('[hook]', traceback.format_exc(), file=sys.stderr)\n"
        "    sys.exit(1)\n",
    )
    assert said.endswith("(the hook said: KeyError: 'file_path')")


def test_a_traceback_whose_lines_carry_changing_prefixes_is_said_by_its_last_line() -> None:
    """A hook that stamps each line with its time: the frame under the header is no exception
    line, so the gist is the last line printed, never a frame."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/hook/g.py", line 4, in <module>',
        "    tb()",
        "KeyError: 'a'",
    ]
    stamped = "\n".join(f"2024-01-01 12:00:0{n} {line}" for n, line in enumerate(lines))
    said = _gist(stamped)
    assert "File " not in said and said.endswith("KeyError: 'a'"), said


def test_a_prefixed_exception_group_is_never_said_by_a_frame() -> None:
    group = [
        "  + Exception Group Traceback (most recent call last):",
        '  |   File "/hook/g.py", line 4, in <module>',
        "  |     raise ExceptionGroup('checks failed', [KeyError('a')])",
        "  | ExceptionGroup: checks failed (1 sub-exception)",
        "  +-+---------------- 1 ----------------",
        "    | KeyError: 'a'",
        "    +------------------------------------",
    ]
    said = _gist("\n".join(f"[hook] {line}" for line in group))
    assert "File " not in said, said


def _group_stderr(tmp_path: Path) -> str:
    """The stderr of a Python script raising an exception group of two checks."""
    script = tmp_path / "g.py"
    script.write_text(
        "def check(v):\n    raise KeyError(v)\n"
        "errors = []\nfor v in ('a', 'b'):\n"
        "    try:\n        check(v)\n    except KeyError as e:\n        errors.append(e)\n"
        "raise ExceptionGroup('checks failed', errors)\n",
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    ).stderr


def test_an_exception_group_under_a_per_line_prefix_is_said_by_its_exception_line(
    tmp_path: Path,
) -> None:
    """Each line of the group's traceback under ``  | `` (as Python frames a group inside a
    group), a tag or a time of the hook's logger: said by the group's line and its first
    sub-exception's (it was the last sub-exception, ``KeyError: 'b'``, or the closing rule
    ``+------``)."""
    stderr = _group_stderr(tmp_path)
    expected = "ExceptionGroup: checks failed (2 sub-exceptions), the first KeyError: 'a'"
    assert _gist(stderr) == expected
    lines = stderr.splitlines()
    for prefixed in (
        [f"  | {line}" for line in lines],
        [f"[hook] {line}" for line in lines],
        [f"2024-01-01 12:00:{n:02} ERROR {line}" for n, line in enumerate(lines)],
    ):
        assert _gist("\n".join(prefixed)) == expected, prefixed


def test_an_exception_group_of_exceptions_never_raised_names_its_first(tmp_path: Path) -> None:
    """``raise ExceptionGroup("…", [ValueError("…"), …])``: its sub-exceptions have no
    traceback, each a line under its rule; the first is named still (it was left out)."""
    said = _said(
        tmp_path,
        "raise ExceptionGroup('validation failed', [ValueError('bad path'), KeyError('k')])\n",
    )
    assert said.endswith(
        "(the hook said: ExceptionGroup: validation failed (2 sub-exceptions), the first "
        "ValueError: bad path)"
    )


def test_a_per_line_prefix_whose_length_changes_is_still_read_past() -> None:
    """A time or a counter before each line whose digits grow (``12:00:9 `` then ``12:00:10 ``,
    ``[9] `` then ``[10] ``): every line is read past it (those past the change kept it: the
    gist was the last line printed, prefix and all, or left the sub-exception out)."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/hook/g.py", line 4, in <module>',
        "    tb()",
        "KeyError: 'a'",
    ]
    for stamp in (lambda n: f"12:00:{n + 8} ", lambda n: f"[{n + 8}] "):
        said = _gist("\n".join(stamp(n) + line for n, line in enumerate(lines)))
        assert said == "KeyError: 'a'", said
    group = _group_stderr_lines()
    said = _gist("\n".join(f"[{n + 5}] {line}" for n, line in enumerate(group)))
    assert said == "ExceptionGroup: checks failed (2 sub-exceptions), the first KeyError: 'a'"


def test_a_per_line_prefix_padded_to_its_width_is_still_read_past() -> None:
    """A counter padded by spaces (``[ 9] `` then ``[10] ``, ``[9 ] `` then ``[10] ``): its
    length is the same, its spaces change, and every line is read past it."""
    lines = [
        "Traceback (most recent call last):",
        '  File "/hook/g.py", line 4, in <module>',
        "    tb()",
        "KeyError: 'a'",
    ]
    for stamp in (lambda n: f"[{n + 8:>2}] ", lambda n: f"[{n + 8:<2}] "):
        said = _gist("\n".join(stamp(n) + line for n, line in enumerate(lines)))
        assert said == "KeyError: 'a'", said
    group = _group_stderr_lines()
    said = _gist("\n".join(f"{n + 95:>3}: {line}" for n, line in enumerate(group)))
    assert said == "ExceptionGroup: checks failed (2 sub-exceptions), the first KeyError: 'a'"


def _group_stderr_lines() -> list[str]:
    code = (
        "def check(v):\n    raise KeyError(v)\n"
        "errors = []\nfor v in ('a', 'b'):\n"
        "    try:\n        check(v)\n    except KeyError as e:\n        errors.append(e)\n"
        "raise ExceptionGroup('checks failed', errors)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    ).stderr.splitlines()


def test_a_first_sub_exception_raised_from_another_is_named_not_its_cause() -> None:
    """The first sub-exception raised ``from`` a cause (or while handling another): its
    traceback follows the cause's, and it is the one named (the cause's line was)."""
    code = (
        "def check(v):\n    try:\n        {}[v]\n    except KeyError as e:\n"
        "        raise ValueError(f'bad {v}') from e\n"
        "errors = []\nfor v in ('a', 'b'):\n"
        "    try:\n        check(v)\n    except ValueError as e:\n        errors.append(e)\n"
        "raise ExceptionGroup('checks failed', errors)\n"
    )
    stderr = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    ).stderr
    assert "The above exception was the direct cause" in stderr
    expected = "ExceptionGroup: checks failed (2 sub-exceptions), the first ValueError: bad a"
    assert _gist(stderr) == expected
    stamped = "\n".join(f"12:00:{n} {line}" for n, line in enumerate(stderr.splitlines()))
    assert _gist(stamped) == expected
