"""What the add-on suites print from the add-on under test (a hook's output, the name of an MCP
server an installer configured) holds a terminal's escape sequence: the text report shows it
escaped, never obeyed."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult

Run = Callable[..., CliResult]
TITLE = "\x1b]0;owned\x07"
"""An escape sequence that sets the terminal's title."""


def test_hooks_test_shows_an_escape_a_hook_printed_escaped(proctor: Run, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    command = {"type": "command", "command": r"printf 'no\033]0;owned\007' >&2; exit 2"}
    table = {"PreToolUse": [{"matcher": "Read", "hooks": [command]}]}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({"hooks": table}))
    case = {"id": "c1", "event": "PreToolUse", "tool": "Read", "input": {"file_path": "a"}}
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{**case, "expect": {"decision": "block"}}]))
    result = proctor("hooks", "test", str(plugin), "--cases", str(cases))
    assert result.code == 0, result.out + result.err
    assert TITLE not in result.out
    assert "PASS  c1  [claude-code PreToolUse Read] block: no\\x1b]0;owned\\x07\n" in result.out


def test_check_install_shows_an_escape_in_what_the_installer_added_escaped(
    proctor: Run, tmp_path: Path
) -> None:
    script = tmp_path / "install.py"
    server = {"type": "stdio", "command": "notes-mcp"}
    script.write_text(
        "import json, os, pathlib\n"
        "path = pathlib.Path(os.environ['HOME']) / '.claude.json'\n"
        "data = json.loads(path.read_text()) if path.exists() else {}\n"
        f"data.setdefault('mcpServers', {{}})[{('ev' + TITLE + 'il')!r}] = {server!r}\n"
        "path.write_text(json.dumps(data))\n"
    )
    line = shlex.join([sys.executable, str(script)])
    result = proctor("addon", "check-install", "--install", line, "--agent", "claude-code")
    assert TITLE not in result.out
    assert "installed MCP server ev\\x1b]0;owned\\x07il in home/.claude.json" in result.out


def test_memory_eval_shows_escapes_in_ids_escaped_and_keeps_other_text() -> None:
    from proctor.addons.memory.report import (
        Failure,
        MemoryEvalRecord,
        QueryResult,
        Scores,
        Thresholds,
        render_text,
    )

    query = QueryResult(
        id="q\nFAKE", project="café", labels=["extraction"], relevant={"n1": 1},
        returned=["n1", "über" + TITLE], unknown=["über" + TITLE], recall=1.0,
    )  # fmt: skip
    failure = Failure(kind="duplicate", query="q", message=f"query 東京{TITLE} returned 🧠 twice")
    record = MemoryEvalRecord(
        server="srv" + TITLE, dataset="d", adapter="a", k=5, thresholds=Thresholds(),
        overall=Scores(queries=1), by_label={}, queries=[query], failures=[failure],
        passed=False, exit_code=1,
    )  # fmt: skip
    text = render_text(record)
    assert TITLE not in text and "\x1b" not in text and "\x07" not in text
    lines = text.splitlines()
    assert lines[0] == "memory-eval of srv\\x1b]0;owned\\x07 (k=5)"
    assert not any(line.startswith("FAKE") for line in lines)
    assert "query q\\nFAKE: never-seeded results scored irrelevant: über\\x1b]0;owned\\x07" in lines
    assert "FAIL query 東京\\x1b]0;owned\\x07 returned 🧠 twice" in lines


def test_grounding_shows_escapes_in_ids_and_advice_escaped_and_keeps_other_text() -> None:
    from proctor.addons.grounding.report import render_text
    from proctor.addons.grounding.runner import (
        CheckpointResult,
        GroundingReport,
        UngroundedFigure,
    )

    figure = UngroundedFigure(figure="42", value=42.0, text=f"read 42 files{TITLE} — ça va 🙂")
    results = [
        CheckpointResult(
            id="cp\nPASS", waste=True, ok=False, ungrounded=[figure], ungrounded_count=1,
            advice="x",
        ),
        CheckpointResult(id="é" + TITLE, waste=False, ok=False, error=f"exited 1: bad{TITLE}"),
    ]  # fmt: skip
    report = GroundingReport(
        ok=False, checked=2, failed=1, errors=1, results=results, not_judged=[],
        notes=[f"trial 名前{TITLE}"],
    )  # fmt: skip
    text = render_text(report)
    assert TITLE not in text and "\x1b" not in text and "\x07" not in text
    lines = text.splitlines()
    assert "  FAIL  cp\\nPASS (waste): 1 ungrounded figure" in lines
    assert "        42 in: read 42 files\\x1b]0;owned\\x07 — ça va 🙂" in lines
    assert "  ERROR é\\x1b]0;owned\\x07 (no waste): exited 1: bad\\x1b]0;owned\\x07" in lines
    assert "  note: trial 名前\\x1b]0;owned\\x07" in lines


def test_memory_eval_quotes_the_servers_stderr_escaped() -> None:
    from proctor.cli.memory_eval import _quoted

    assert _quoted(f"Traceback{TITLE}\n  naïve ✓") == (
        "  | Traceback\\x1b]0;owned\\x07\n  |   naïve ✓\n"
    )
