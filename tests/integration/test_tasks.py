"""Task files run like case folders; the source root is only ever read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import load_trial, single_run_dir
from tests.integration.test_safety import tree_hash

VANDAL = (
    "find . -type f -exec sh -c 'echo vandal >> \"$1\"' _ {} \\; ; "
    "mkdir -p new/dir && echo x > new/dir/f; rm -f README.md; chmod -R a-w . || true"
)


def test_task_file_run_leaves_the_source_root_byte_identical(proctor: Any, tmp_path: Path) -> None:
    root = tmp_path / "repos"
    (root / "lib" / "pkg").mkdir(parents=True)
    (root / "lib" / "pkg" / "core.py").write_text("def answer():\n    return 41\n")
    (root / "lib" / "README.md").write_text("# lib\n")
    tasks = tmp_path / "tasks.json"
    tasks.write_text(
        json.dumps(
            [
                {
                    "id": "answer",
                    "repository": "lib",
                    "prompt": "Make answer() return 42.",
                    "expectedFiles": ["pkg/core.py"],
                    "expectedSymbols": ["answer"],
                    "category": "bugfix",
                    "goalShape": "single_goal",
                    "repeats": 2,
                    "successCriteria": [
                        {"use": "command", "run": "grep -q 42 pkg/core.py", "gate": True}
                    ],
                    "plan": {
                        "turns": [
                            {"read": "pkg/core.py"},
                            {"edit": {"path": "pkg/core.py", "old": "41", "new": "42"}},
                            {"shell": VANDAL},
                        ]
                    },
                }
            ]
        )
    )
    before = tree_hash(root)
    result = proctor(
        "run",
        "--source",
        str(tasks),
        "--source-root",
        str(root),
        "--out",
        str(tmp_path / "out"),
        "--keep-workspace",
    )
    assert result.code == 0, result.out + result.err
    assert tree_hash(root) == before
    trial = load_trial(single_run_dir(tmp_path / "out"), "answer")
    assert trial["labels"]["category"] == "bugfix" and trial["labels"]["goalShape"] == "single_goal"
    context = trial["process"]["context"]
    assert context["basis"] == "expected" and context["recall"] == 1.0
    assert context["correctSymbolHit"] is True


def test_a_failing_gate_under_evaluators_fails_the_task(proctor: Any, tmp_path: Path) -> None:
    """``evaluators`` keeps its case meaning in a task; its gate is not dropped."""
    tasks = tmp_path / "tasks.json"
    tasks.write_text(
        json.dumps(
            {
                "id": "gated",
                "prompt": "Do nothing.",
                "evaluators": [{"use": "command", "run": "false", "gate": True}],
                "successCriteria": [{"use": "command", "run": "true"}],
                "plan": {"turns": [{"say": "done"}]},
            }
        )
    )
    result = proctor("run", "--source", str(tasks), "--out", str(tmp_path / "out"))
    assert result.code != 0, result.out + result.err
    trial = load_trial(single_run_dir(tmp_path / "out"), "gated")
    assert trial["status"] == "failed" and trial["passed"] is False
    assert [e["use"] for e in trial["evaluators"]] == ["command", "command"]


def test_a_task_file_that_is_not_utf8_is_one_sentence(proctor: Any, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "tasks.json").write_bytes(b'{"tasks": "\xff"}')
    result = proctor("run", "--source", str(cases), "--dry-run")
    assert result.code == 2, result.err
    assert "tasks.json: not UTF-8 text" in result.err


def test_a_task_s_hidden_files_are_the_ones_its_command_copies_in(
    proctor: Any, tmp_path: Path
) -> None:
    """``noHiddenReads: true`` stands for what the task's ``command`` evaluators copy in: a
    task has no config.json, from which they were read, so a task that read its hidden tests
    passed the check."""
    root = tmp_path / "repos"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "core.py").write_text("ANSWER = 41\n")
    suite = tmp_path / "suite"
    (suite / "hidden").mkdir(parents=True)
    (suite / "hidden" / "check.sh").write_text("grep -q 42 core.py\n")
    task = {
        "id": "peek",
        "repository": "lib",
        "prompt": "Make ANSWER 42.",
        "successCriteria": [
            {"use": "command", "run": "sh hidden/check.sh", "copyIn": ["hidden/"]},
            {"use": "expect", "gate": True, "checks": [{"noHiddenReads": True}]},
        ],
        "plan": {"turns": [{"shell": f"cat {suite / 'hidden' / 'check.sh'}"}, {"say": "Read."}]},
    }
    (suite / "tasks.json").write_text(json.dumps([task]))
    out = tmp_path / "out"
    result = proctor(
        "run", "--source", str(suite / "tasks.json"), "--source-root", str(root), "--out", str(out)
    )
    assert result.code == 1, result.err
    trial = load_trial(single_run_dir(out), "peek")
    (expect,) = [r for r in trial["evaluators"] if r["use"] == "expect"]
    assert not expect["passed"], expect
    assert "read a hidden file" in expect["message"], expect["message"]
