"""``proctor eval`` end to end on the scripted agent: discovery and ids, --list, selection, the
--json shape, exit codes, iterations run one after another, skips, errors, timeouts, and every
case as a trial that ``proctor report`` reads."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from proctor.models.base import SCHEMA_VERSION
from proctor.models.io import read_record
from proctor.models.run import RunManifest
from proctor.models.trial import EvalResultRecord
from tests.conftest import CliResult, write_case

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "evals"
Run = Any

CONFIG = (
    "from proctor.evals import define_eval_config\nconfig = define_eval_config(max_concurrency=2)\n"
)


def project(tmp_path: Path, files: dict[str, str], config: str | None = CONFIG) -> Path:
    root = tmp_path / "proj"
    for rel, text in files.items():
        path = root / "evals" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if config is not None:
        (root / "evals" / "evals.config.py").write_text(config)
    return root


def run_json(
    proctor: Run, root: Path, tmp_path: Path, *args: str
) -> tuple[CliResult, dict[str, Any]]:
    result = proctor(
        "eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json", "--no-stream", *args
    )
    return result, json.loads(result.out) if result.out.strip().startswith("{") else {}


def test_the_example_project_runs_every_gate_family(proctor: Run, tmp_path: Path) -> None:
    root = tmp_path / "evals-example"
    shutil.copytree(EXAMPLE, root)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err  # one case fails on purpose
    by_id = {r["id"]: r for r in out["results"]}
    assert sorted(by_id) == [
        "asks/choice",
        "builds/endpoints",
        "builds/greeting",
        "builds/no-web",
        "failing/wrong-file/edits-the-test",
        "failing/wrong-file/not-ready",
        "judged/summary",
        "tools/order/1",
        "tools/order/2",
        "tools/order/3",
    ]
    assert (out["passed"], out["failed"], out["skipped"], out["ok"]) == (8, 1, 1, False)
    failing = by_id["failing/wrong-file/edits-the-test"]
    verdicts = {a["name"]: a["passed"] for a in failing["assertions"]}
    assert not failing["ok"] and list(verdicts.values()) == [False, False, True, True, False]
    assert "no_test_tampering" in list(verdicts)[1]
    # It reads the test before it edits it (Claude Code edits no file it has not read).
    assert [c["toolName"] for c in failing["toolCalls"]] == ["Read", "Edit"]
    assert by_id["failing/wrong-file/not-ready"]["skipped"] is True
    greeting = by_id["builds/greeting"]
    assert greeting["inputs"] == [
        "Write greet.py with a greet() function returning 'hello'.",
        "Change it to return 'hello, world'.",
    ]
    assert set(greeting) >= {
        "id",
        "ok",
        "skipped",
        "description",
        "assertions",
        "sessionId",
        "inputs",
        "toolCalls",
        "logs",
        "metrics",
        "durationMs",
        "finalText",
        "error",
    }
    assert {"toolName": "Edit", "isError": False, "kind": "edit", "turn": 2} in greeting[
        "toolCalls"
    ]
    assert set(greeting["assertions"][0]) == {"name", "passed", "soft", "score", "message", "at"}
    assert by_id["tools/order/2"]["logs"] == ["iteration 2 of 3"]
    judge = next(
        a
        for a in by_id["judged/summary"]["assertions"]
        if a["name"] == "judge.factuality('Notes are kept in SQLite and served over HTTP.')"
    )
    assert judge["score"] == 0.9 and judge["passed"]
    # Every case × iteration is a trial that report reads like any run.
    run_dir = Path(out["runDir"])
    trials = sorted(
        p.parent.parent.parent.parent.name for p in run_dir.glob("trials/*/*/*/*/trial.json")
    )
    assert len(trials) == 10 and trials.count("tools.order") == 3
    assert proctor("report", str(run_dir)).code == 1
    # Beside each trial.json, its eval.json: a record of its own, with its schema version.
    kept = read_record(next(run_dir.glob("trials/tools.order/*/*/2/eval.json")), EvalResultRecord)
    assert kept.schema_version == SCHEMA_VERSION and kept.id == "tools/order/2"
    assert kept.iteration == 2 and kept.logs == ["iteration 2 of 3"]


def test_list_needs_no_config_and_ids_select_by_prefix(proctor: Run, tmp_path: Path) -> None:
    body = """
        from proctor.evals import case, define_eval
        async def t1(t): ...
        eval = define_eval(tags=["a"], iterations=2, cases=[case(id="one", test=t1), case(id="two", tags=["b"], test=t1)])
    """
    root = project(
        tmp_path, {"x/index.eval.py": body, "y.eval.py": body.replace('"a"', '"c"')}, config=None
    )
    listed = proctor("eval", "--dir", str(root), "--list", "--json")
    assert listed.code == 0, listed.err
    ids = [r["id"] for r in json.loads(listed.out)]
    assert ids == [
        "x/one/1",
        "x/one/2",
        "x/two/1",
        "x/two/2",
        "y/one/1",
        "y/one/2",
        "y/two/1",
        "y/two/2",
    ]

    def listed_ids(*args: str) -> list[str]:
        out = proctor("eval", "--dir", str(root), "--list", "--json", *args).out
        return [r["id"] for r in json.loads(out)]

    assert listed_ids("x/one") == ["x/one/1", "x/one/2"]
    assert listed_ids("x/one/2", "y") == ["x/one/2", "y/one/1", "y/one/2", "y/two/1", "y/two/2"]
    assert listed_ids("--tag", "b") == ["x/two/1", "x/two/2", "y/two/1", "y/two/2"]
    assert listed_ids("--tag", "c", "x") == []  # ids and tags must both match
    # A prefix is whole path segments: `x/on` names no eval, and a typo is refused with the
    # near ids, not run as "nothing" (or as the other ids given) and passed.
    partial = proctor("eval", "--dir", str(root), "--list", "x/on")
    assert partial.code == 2 and "no eval has the id 'x/on'" in partial.err, partial.err
    typo = proctor("eval", "--dir", str(root), "--list", "x/onee", "y")
    assert typo.code == 2 and "did you mean 'x/one', 'x/one/2' or 'x/one/1'?" in typo.err, typo.err
    assert listed_ids("x/one/") == ["x/one/1", "x/one/2"]  # a trailing slash is the same id
    assert listed_ids("x/one/2/") == ["x/one/2"]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"a.eval.py": "import nope\n"}, "a.eval.py:1: cannot be imported (ModuleNotFoundError"),
        ({"a.eval.py": "x = 1\n"}, "a.eval.py: no define_eval(...) assigned at module level"),
        (
            {
                "a.eval.py": "from proctor.evals import define_eval\nasync def t(x): ...\n"
                "if True:\n    define_eval(test=t)\n"
            },
            "a.eval.py:4: define_eval(...) is called but its value is not assigned; write "
            "eval = define_eval(...)",
        ),
        (
            {"a.eval.py": "import sys\nsys.exit(0)\n"},
            "a.eval.py:2: exited while it was imported (SystemExit: 0)",
        ),
        (
            {
                "a.eval.py": "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval()\n"
            },
            "a.eval.py:3: define_eval: give either 'test' or 'cases', not both or neither",
        ),
        (
            {
                "a.eval.py": "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t, iterations=101)\n"
            },
            "a.eval.py:3: define_eval(): argument 'iterations': expected a whole number from 1 to "
            "100 or None, got 101",
        ),
        (
            {
                "a.eval.py": "from proctor.evals import case, define_eval\nasync def t(x): ...\ne = define_eval(cases=[case(id='a', test=t), case(id='a', test=t)])\n"
            },
            "case ids must be unique",
        ),
    ],
)
def test_a_bad_eval_file_is_one_sentence_and_exit_2(
    proctor: Run, tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    root = project(tmp_path, files)
    result = proctor("eval", "--dir", str(root), "--no-stream")
    assert result.code == 2
    assert expected in result.err and "Traceback" not in result.err
    assert not (tmp_path / "out").exists()


def test_a_config_called_but_not_assigned_names_its_line(proctor: Run, tmp_path: Path) -> None:
    files = {
        "a.eval.py": "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t)\n"
    }
    config = "import proctor.evals\nproctor.evals.define_eval_config(max_concurrency=2)\n"
    root = project(tmp_path, files, config=config)
    result = proctor("eval", "--dir", str(root), "--no-stream")
    assert result.code == 2, result.err
    assert (
        "evals.config.py:2: define_eval_config(...) is called but its value is not assigned; "
        "write config = define_eval_config(...)"
    ) in result.err, result.err


def test_a_config_file_that_exits_on_import_is_exit_2_not_its_own_code(
    proctor: Run, tmp_path: Path
) -> None:
    body = "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t)\n"
    root = project(tmp_path, {"a.eval.py": body}, config="raise SystemExit(0)\n")
    for args in (("--list",), ("--no-stream",)):
        result = proctor("eval", "--dir", str(root), *args)
        assert result.code == 2, result.err
        assert "evals.config.py:1: exited while it was imported (SystemExit: 0)" in result.err


def test_max_concurrency_is_required_to_run_and_nothing_to_run_is_2(
    proctor: Run, tmp_path: Path
) -> None:
    body = "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t)\n"
    root = project(tmp_path, {"a.eval.py": body}, config=None)
    result = proctor("eval", "--dir", str(root), "--no-stream", "--out", str(tmp_path / "o"))
    assert result.code == 2 and "max_concurrency" in result.err
    root2 = project(tmp_path / "2", {"a.eval.py": body})
    assert proctor("eval", "--dir", str(root2), "zzz", "--no-stream").code == 2


TURNS = '{"turns": [{"say": "one"}, {"endTurn": True}, {"say": "two"}]}'


def test_exit_codes_errors_skips_and_timeouts(proctor: Run, tmp_path: Path) -> None:
    files = {
        "ok.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
                t.message_includes("one")
            eval = define_eval(plan={TURNS}, test=test)
        """,
        "boom.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
                raise RuntimeError("the test broke")
            eval = define_eval(plan={TURNS}, test=test)
        """,
        "slow.eval.py": """
            import asyncio
            from proctor.evals import define_eval
            async def test(t):
                await asyncio.sleep(30)
            eval = define_eval(plan={"turns": [{"say": "x"}]}, timeout_ms=500, test=test)
        """,
        "skip.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                t.skip("not today")
            eval = define_eval(plan={"turns": [{"say": "x"}]}, test=test)
        """,
        "bare.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
            eval = define_eval(plan={TURNS}, test=test)
        """,
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    by_id = {r["id"]: r for r in out["results"]}
    assert result.code == 1, result.err  # a timeout is a failed case, as in suite.json
    assert by_id["ok"]["ok"] and by_id["bare"]["ok"]  # no explicit gate: a completed turn passes
    assert "RuntimeError: the test broke" in by_id["boom"]["error"]
    assert by_id["slow"]["status"] == "timeout" and by_id["slow"]["durationMs"] < 10_000
    assert by_id["skip"]["skipped"] and by_id["skip"]["ok"]
    assert (out["failed"], out["errored"]) == (1, 1)  # the timeout failed; the raise errored
    errors_only = run_json(proctor, root, tmp_path, "boom", "bare")
    assert errors_only[0].code == 3  # an error status and no failed case
    # A failed gate outranks the errors: exit 1.
    (root / "evals" / "ok.eval.py").write_text(
        (root / "evals" / "ok.eval.py").read_text().replace('includes("one")', 'includes("nine")')
    )
    assert run_json(proctor, root, tmp_path)[0].code == 1
    only_ok = run_json(proctor, root, tmp_path, "bare", "skip")
    assert only_ok[0].code == 0 and only_ok[1]["ok"] is True


def test_iterations_run_one_after_another_and_see_their_number(
    proctor: Run, tmp_path: Path
) -> None:
    files = {
        "it.eval.py": """
            import time
            from pathlib import Path
            from proctor.evals import define_eval
            async def test(t):
                log = Path(__file__).parent.parent / "order.log"
                with log.open("a") as fh:
                    fh.write(f"start {t.iteration}/{t.iterations} {time.time()}\\n")
                await t.send("hi")
                with log.open("a") as fh:
                    fh.write(f"end {t.iteration} {time.time()}\\n")
            eval = define_eval(plan={"turns": [{"sleep": 0.3}, {"say": "x"}]}, iterations=3, test=test)
        """
    }
    root = project(tmp_path, files, config=CONFIG.replace("2", "4"))
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    lines = (root / "order.log").read_text().split()
    events = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 3)]
    starts_ends = [kind for kind, _ in events]
    assert starts_ends == ["start", "end"] * 3  # never two at once, despite max_concurrency 4
    assert sorted(w for k, w in events if k == "start") == ["1/3", "2/3", "3/3"]


JUDGED = """
from proctor.evals import define_eval

PLAN = {
    "turns": [{"say": "SELECT name FROM users WHERE id = 1"}],
    "roles": {"judge": [
        {"json": {"score": 80, "confidenceLevel": 90, "rationale": "same query"}},
        {"json": {"score": 30, "confidenceLevel": 90, "rationale": "misses the point"}},
        {"text": "not json at all"},
        {"text": "still not json"},
    ]},
}


async def test(t):
    await t.send("Write the query.")
    sql = await t.judge.sql("SELECT name FROM users WHERE id=1")
    t.check(sql.assertion.score, 0.8)
    (await t.judge.closed_qa("mentions the users table")).gate(0.5)  # 0.3: a failed hard gate
    await t.judge.summarizes("anything")  # unusable replies: an error, never a low score


eval = define_eval(judge="scripted/judge", plan=PLAN, test=test)
"""


def test_judges_grade_and_an_unusable_judge_is_an_error(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"judged.eval.py": JUDGED})
    result, out = run_json(proctor, root, tmp_path)
    (case,) = out["results"]
    names = [(a["name"], a["passed"], a["score"]) for a in case["assertions"]]
    assert names[:3] == [
        ("judge.sql('SELECT name FROM users WHERE id=1')", True, 0.8),
        ("check(equals 0.8)", True, 1.0),
        ("judge.closed_qa('mentions the users table')", False, 0.3),
    ]
    assert case["status"] == "eval-error" and "unusable reply" in case["error"]
    assert result.code == 1  # the failed hard gate (closed_qa 0.3 < 0.5) decides, not the error


def test_a_plan_file_next_to_the_eval_and_fixtures_from_the_root(
    proctor: Run, tmp_path: Path
) -> None:
    files = {
        "sub/planned.eval.py": """
            from proctor.evals import define_eval
            from proctor.evals.loaders import load_jsonl, resolve_fixture_path
            ROWS = load_jsonl("data/rows.jsonl")
            async def test(t):
                await t.send("go", workspace_dir=resolve_fixture_path("data/ws"))
                t.called_tool("read", input={"file_path": "seed.txt"}, status="completed")
                t.check(ROWS, [{"n": 1}, {"n": 2}])
                t.message_includes("seeded")
            eval = define_eval(plan="plan.json", test=test)
        """
    }
    root = project(tmp_path, files)
    (root / "evals" / "sub" / "plan.json").write_text(
        json.dumps({"turns": [{"read": "seed.txt"}, {"say": "seeded"}]})
    )
    (root / "data" / "ws").mkdir(parents=True)
    (root / "data" / "ws" / "seed.txt").write_text("seed\n")
    (root / "data" / "rows.jsonl").write_text('{"n": 1}\n{"n": 2}\n')
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, (out, result.err)
    assert (
        root / "data" / "ws" / "seed.txt"
    ).read_text() == "seed\n"  # the source is never written
    (root / "evals" / "sub" / "plan.json").write_bytes(b"\xff\xfe{}")  # not UTF-8
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"))
    assert result.code == 2 and "Traceback" not in result.err, result.err
    assert "plan 'plan.json' cannot be read as JSON" in result.err


@pytest.mark.parametrize(
    ("cases", "expected"),
    [
        # The file's plan, played by a case: the line of define_eval(...).
        ("[case(id='c', test=t)], plan={'turns': [{'bogus': 1}]}", "a.eval.py:3: plan of a/c"),
        # A case's own plan: the line of its case(...).
        (
            "[case(id='ok', test=t),\n    case(id='c', test=t, plan={'turns': [{'bogus': 1}]})]",
            "a.eval.py:4: plan of a/c",
        ),
        (
            "[case(id='c', test=t, plan='missing.json')]",
            "a.eval.py:3: plan 'missing.json': no such file",
        ),
    ],
)
def test_a_bad_plan_names_the_file_and_the_line_that_gave_it(
    proctor: Run, tmp_path: Path, cases: str, expected: str
) -> None:
    head = "from proctor.evals import case, define_eval\nasync def t(x): ...\n"
    body = f"{head}e = define_eval(cases={cases})\n"
    root = project(tmp_path, {"a.eval.py": body})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--no-stream")
    assert result.code == 2, result.err
    assert expected in result.err and "Traceback" not in result.err, result.err


def test_a_link_in_workspace_dir_never_lets_the_agent_write_the_source(
    proctor: Run, tmp_path: Path
) -> None:
    files = {
        "w.eval.py": """
            from proctor.evals import define_eval
            PLAN = {"turns": [{"write": {"path": "link.txt", "content": "PWNED"}}, {"say": "ok"}]}
            async def test(t):
                await t.send("go", workspace_dir="fixtures/app")  # relative to the project root
                t.succeeded()
            eval = define_eval(plan=PLAN, test=test)
        """
    }
    root = project(tmp_path, files)
    app = root / "fixtures" / "app"
    app.mkdir(parents=True)
    (app / "main.py").write_text("print('hi')\n")
    (app / "link.txt").symlink_to(app / "main.py")
    result, _ = run_json(proctor, root, tmp_path)  # run from another folder than the project
    assert result.code == 0, result.err
    assert (app / "main.py").read_text() == "print('hi')\n"


def test_a_symlink_loop_in_workspace_dir_is_named_once(proctor: Run, tmp_path: Path) -> None:
    """Links are copied as what they point to, so a link to a folder holding it would be
    copied inside itself until ELOOP: the error names that link once and says it is a loop,
    where it used to quote a path of forty `loop/` in a row. Nothing is copied first."""
    files = {
        "w.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                await t.send("go", workspace_dir="fixtures/app")
            eval = define_eval(plan={"turns": [{"say": "ok"}]}, test=test)
        """
    }
    root = project(tmp_path, files)
    app = root / "fixtures" / "app"
    (app / "pkg").mkdir(parents=True)
    (app / "main.py").write_text("print('hi')\n")
    (app / "pkg" / "loop").symlink_to("..")
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    (record,) = out["results"]
    assert record["status"] == "eval-error"
    assert record["error"].startswith(
        f"RuntimeError: workspace_dir {app}: {app / 'pkg' / 'loop'} is a symlink loop "
        "(it points to '..', and following it leads back into a folder that holds it)"
    ), record["error"]
    assert record["error"].count(str(app / "pkg" / "loop")) == 1
    assert "loop/" not in record["error"] and "Errno" not in record["error"]
    assert "w.eval.py:4)" in record["error"]


def test_a_test_that_blocks_past_its_timeout_is_a_timeout(proctor: Run, tmp_path: Path) -> None:
    files = {
        "block.eval.py": """
            import time
            from proctor.evals import define_eval
            async def test(t):
                await t.send("go")
                time.sleep(30)  # blocks the event loop: no await can be cancelled
            eval = define_eval(plan={"turns": [{"say": "x"}]}, timeout_ms=1500, test=test)
        """
    }
    result, out = run_json(proctor, project(tmp_path, files), tmp_path)
    (case,) = out["results"]
    assert case["status"] == "timeout" and case["durationMs"] < 15_000
    assert result.code == 1  # a timeout is a failed case


@pytest.mark.parametrize(
    ("source", "config", "expected"),
    [
        (
            "e = define_eval(description=5, test=t)",
            CONFIG,
            "define_eval(): argument 'description': expected a string or None, got 5",
        ),
        (
            "def t(x): ...\ne = define_eval(test=t)",
            CONFIG,
            "argument 'test': expected an async function",
        ),
        ("e = define_eval(agent='nope-agent', test=t)", CONFIG, "unknown agent 'nope-agent'"),
        (
            "e = define_eval(test=t)\nf = define_eval(test=t)",
            CONFIG,
            "a.eval.py: 2 define_eval(...) found (e at line 3, f at line 4)",
        ),
        # An alias of another command (claude) is no agent id here, as for proctor run: named
        # at the eval file's line, not as the generated case's config.json.
        ("e = define_eval(agent='claude', test=t)", CONFIG, "a.eval.py:3: unknown agent 'claude'"),
        (
            "e = define_eval(plan={'turns': [{'dance': 1}]}, test=t)",
            CONFIG,
            "a.eval.py:3: plan of a",
        ),
        (
            "e = define_eval(test=t)",
            CONFIG.replace(")", ", reporters='junit')"),
            "argument 'reporters': expected a list of names, got the string 'junit'",
        ),
        (
            "e = define_eval(test=t)",
            CONFIG.replace(")", ", reporters=['nope'])"),
            "unknown reporter nope",
        ),
    ],
)
def test_mistakes_in_eval_and_config_files_name_the_file_before_anything_runs(
    proctor: Run, tmp_path: Path, source: str, config: str, expected: str
) -> None:
    body = f"from proctor.evals import define_eval\nasync def t(x): ...\n{source}\n"
    root = project(tmp_path, {"a.eval.py": body}, config=config)
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--no-stream")
    assert result.code == 2, result.err
    assert expected in result.err and "Traceback" not in result.err
    assert not list((tmp_path / "out").glob("run-*"))


def test_json_stays_json_with_verbose_and_logs(proctor: Run, tmp_path: Path) -> None:
    files = {
        "l.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                t.log("a line for people")
                await t.send("go")
            eval = define_eval(plan={"turns": [{"say": "x"}]}, test=test)
        """
    }
    root = project(tmp_path, files)
    result = proctor(
        "eval", "--dir", str(root), "--out", str(tmp_path / "o"), "--json", "--verbose"
    )
    out = json.loads(result.out)
    assert out["results"][0]["logs"] == ["a line for people"]


def test_a_key_in_a_streamed_log_line_is_masked(tmp_path: Path) -> None:
    """--verbose prints each t.log line on stderr as the worker logs it: a key in it is masked
    there as in eval.json and the summary (it used to be printed in the clear)."""
    key = "sk-ant-test-abcdef1234567890"
    files = {
        "l.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("go")
                t.log("log has {key}")
            eval = define_eval(plan={{"turns": [{{"say": "x"}}]}}, test=test)
        """
    }
    root = project(tmp_path, files)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "ANTHROPIC_API_KEY": key, "HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "eval", "--dir", str(root), "--verbose"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "] log has ***" in done.stderr  # the streamed line, masked
    assert key not in done.stderr + done.stdout


def test_no_stream_keeps_the_findings_note_off_stderr_too(
    proctor: Run, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """--no-stream keeps stderr quiet: it printed `proctor: findings: 1 new (…)` all the same."""
    files = {
        "f.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                await t.send("go")
                t.message_includes("one")
            eval = define_eval(plan={"turns": [{"say": "two"}]}, test=test)
        """
    }
    root = project(tmp_path, files)
    with caplog.at_level(logging.WARNING, logger="proctor"):
        quiet = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "q"), "--no-stream")
        assert quiet.code == 1 and "findings" not in quiet.err + caplog.text
        told = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "t"))
        assert told.code == 1 and "proctor: findings: 1 new" in caplog.text  # control
    assert json.loads((tmp_path / "q" / "findings.json").read_text())["findings"]  # kept


def test_runnable_ids_stay_unique_across_iterations(proctor: Run, tmp_path: Path) -> None:
    body = "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t{})\n"
    root = project(
        tmp_path, {"a/index.eval.py": body.format(", iterations=2"), "a/1.eval.py": body.format("")}
    )
    listed = proctor("eval", "--dir", str(root), "--list")
    evals = root / "evals"
    assert listed.code == 2, listed.err
    assert (
        f"two evals have the same id 'a/1': {evals / 'a' / '1.eval.py'}:3 and "
        f"{evals / 'a' / 'index.eval.py'}:3 (iteration 1 of 'a')"
    ) in listed.err


def test_an_id_defined_twice_names_both_files_and_lines(proctor: Run, tmp_path: Path) -> None:
    """`grp.eval.py` and `grp/index.eval.py` are both `grp`; a case `c` of `x/index.eval.py`
    is `x/c`, as `x/c.eval.py` is: the error names each file and the line defining the id."""
    one = "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t)\n"
    cases = (
        "from proctor.evals import define_eval, case\n"
        "async def t(x): ...\n"
        "e = define_eval(\n"
        "    cases=[\n"
        "        case(id='b', test=t),\n"
        "        case(id='c', test=t),\n"
        "    ]\n"
        ")\n"
    )
    files = {
        "grp.eval.py": one,
        "grp/index.eval.py": "\n\n" + one,
        "x/index.eval.py": cases,
        "x/c.eval.py": one,
    }
    root = project(tmp_path, files)
    evals = root / "evals"
    for args in (["--list"], ["--no-stream", "--out", str(tmp_path / "o")]):
        result = proctor("eval", "--dir", str(root), *args)
        assert result.code == 2, result.err
        assert (
            f"two evals have the same id 'grp': {evals / 'grp' / 'index.eval.py'}:5 and "
            f"{evals / 'grp.eval.py'}:3"
        ) in result.err
        assert (
            f"two evals have the same id 'x/c': {evals / 'x' / 'c.eval.py'}:3 and "
            f"{evals / 'x' / 'index.eval.py'}:6"
        ) in result.err
        assert "rename all but one" in result.err


def test_a_turn_s_tampering_gate_sees_that_turn_s_writes(proctor: Run, tmp_path: Path) -> None:
    files = {
        "tamper.eval.py": """
            from proctor.evals import define_eval
            PLAN = {"turns": [
                {"write": {"path": "tests/test_calc.py", "content": "def test_add():\\n    pass\\n"}},
                {"say": "done"},
            ]}
            async def test(t):
                turn = await t.send(
                    "fix", workspace_files={"tests/test_calc.py": "def test_add():\\n    assert 1 == 2\\n"}
                )
                turn.no_test_tampering()
            eval = define_eval(plan=PLAN, test=test)
        """
    }
    result, out = run_json(proctor, project(tmp_path, files), tmp_path)
    (case,) = out["results"]
    assert result.code == 1 and not case["assertions"][0]["passed"]
    # The trial's diff is the agent's change, not the files the test seeded.
    run_dir = Path(out["runDir"])
    diff = next(run_dir.glob("trials/*/*/*/*/workspace.diff")).read_text()
    assert "-    assert 1 == 2" in diff and "new file" not in diff


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_eval_run_exits_130(tmp_path: Path, signum: int) -> None:
    """Ctrl-C or a CI cancel (SIGTERM) during `proctor eval` is exit 130, as for `run`."""
    files = {
        "slow.eval.py": """
            import asyncio
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
                await asyncio.sleep(60)
            eval = define_eval(plan={"turns": [{"say": "x"}]}, test=test)
        """
    }
    files["later.eval.py"] = files["slow.eval.py"]  # never started: one case at a time
    root = project(tmp_path, files)
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "proctor", "eval", "--dir", str(root), "--out", str(out)]
    argv += ["--concurrency", "1", *(["--json"] if signum == signal.SIGTERM else [])]
    started = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(out.glob("run-*/trials/*/*/*/*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the eval is in its sleep
    started.send_signal(signum)
    stdout, err = started.communicate(timeout=60)
    assert started.returncode == 130, err.decode()
    # It says it was stopped, and that a case never started (it has no line of its own).
    said = "interrupted after 0 of 2 trials finished (1 cut short, recorded as interrupted; 1 not started)"
    assert f"proctor: exit 130: {said}" in err.decode()
    # suite.md, the report for people, says so too (with the case that never started).
    (suite_md,) = out.glob("run-*/suite.md")
    assert f"**Exit code 130** (interrupted): {said}" in suite_md.read_text()
    # The case cut short is shown as interrupted, counted apart from the errors (as the
    # reason counts it), not as an infra-error among "errored".
    if signum == signal.SIGTERM:
        summary = json.loads(stdout)
        assert summary["interrupted"] is True and summary["ok"] is False
        assert summary["reason"] == said and len(summary["results"]) == 1
        (case,) = summary["results"]
        assert case["status"] == "interrupted" and case["error"] is None, case
        assert summary["errored"] == 0 and summary["cutShort"] == 1, summary
    else:
        text = stdout.decode()
        assert re.search(r"^✗ (slow|later)  interrupted  ", text, re.M), text
        assert "0 errored, 1 interrupted  (" in text, text
        progress = "  interrupted: the run was stopped before this trial ended"
        assert progress in err.decode() and "infra-error" not in err.decode(), err.decode()


def test_a_later_run_in_the_same_process_drives_its_own_case_of_the_same_name(
    proctor: Run, tmp_path: Path
) -> None:
    """An eval's conversation belongs to its own generated case folder: a case named like it
    in a later `proctor run` (the API, a test process) is driven as written."""
    files = {
        "same.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
                t.message_includes("never said")
            eval = define_eval(plan={"turns": [{"say": "done"}]}, test=test)
        """
    }
    result, _ = run_json(proctor, project(tmp_path, files), tmp_path)
    assert result.code == 1  # the eval's gate failed
    cases = tmp_path / "cases"
    write_case(cases, "same", plan={"turns": [{"say": "done"}]}, config={"agents": ["scripted"]})
    again = proctor("run", "--source", str(cases), "--out", str(tmp_path / "runs"))
    assert again.code == 0, again.err


def test_a_mistake_found_in_a_generated_case_names_the_eval_file(
    proctor: Run, tmp_path: Path
) -> None:
    files = {
        "a.eval.py": """
            from proctor.evals import define_eval
            async def t(x):
                await x.send("hi")
            e = define_eval(test=t, qna="```rules\\nnonsense\\n```", plan={"turns": [{"say": "x"}]})
        """
    }
    root = project(tmp_path, files)
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o"), "--no-stream")
    assert result.code == 2
    assert f"{root / 'evals' / 'a.eval.py'} (its generated qna.md): rules block, line 2" in (
        result.err
    )
    assert "evals-src" not in result.err
    assert not (tmp_path / "o").exists()  # nothing ran: no generated cases, nor their folder


def test_mistakes_inside_a_test_are_errors_at_their_line_not_timeouts(
    proctor: Run, tmp_path: Path
) -> None:
    plan = '{"turns": [{"say": "done"}]}'
    files = {
        f"{name}.eval.py": f"""
            import asyncio
            from proctor.evals import define_eval
            async def test(t):
                await t.send("go")
                {body}
            eval = define_eval(plan={plan}, timeout_ms=20_000, test=test)
        """
        for name, body in {
            "nan": 't.score("s", float("nan"))',
            "inf": 't.metric("ratio", float("inf"))',
            "empty": 'await t.send("   ")',
            "own-timeout": "await asyncio.wait_for(asyncio.sleep(5), 0.1)",
            "status": 't.called_tool("shell", status="failure", count=0)',
            "order": 't.tool_order("write")',
            "key": 't.not_event("tool_result", {"is_error": True})',
            "range": 't.score("quality", 40).gate(0.8)',
            "bar": "t.succeeded().gate(70)",
            "number": "await t.send(123)",
            "includes": "t.message_includes(5)",
            "count": 't.called_tool("shell", count=-1)',
        }.items()
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, said in {
        "nan": "ValueError: score('s', nan): a score is a number from 0 to 1, not NaN",
        "inf": "ValueError: metric('ratio', inf): a metric is a finite number",
        "empty": "ValueError: t.send('   '): the message is empty",
        "own-timeout": "TimeoutError",
        "status": "status='failure': expected one of completed, failed, denied, pending",
        "order": "TypeError: t.tool_order(): argument 'names': expected a list of tool names, "
        "got the string 'write'",
        "key": "tool_result events have no key 'is_error'",
        # Clamped to 1, a score of 40 (of 100) passed its bar, and eval.json kept 1.0.
        "range": "ValueError: score('quality', 40): a score is a number from 0 to 1 (0.4, not 40)",
        "bar": "ValueError: gate(70): a bar is a score above 0 and at most 1",
        "number": "TypeError: t.send(): argument 'message': expected a string, got 123",
        "includes": "TypeError: t.message_includes(): argument 'expected': expected a text or a "
        "compiled regex",
        "count": "ValueError: t.called_tool(): argument 'count': expected a count (a whole number "
        "of 0 or more), got -1",
    }.items():
        record = by_id[name]
        assert record["status"] == "eval-error", record
        assert said in record["error"] and f"{name}.eval.py:6)" in record["error"], record
        assert record["durationMs"] < 15_000
    assert not re.search(r":\s*(NaN|-?Infinity)\b", result.out)  # strict JSON values


def test_an_out_folder_that_cannot_be_made_is_one_sentence(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
        eval = define_eval(plan={TURNS}, test=test)
    """})  # fmt: skip
    (tmp_path / "plainfile").write_text("x")
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "plainfile" / "out"))
    assert result.code == 2 and result.err == (
        f"proctor: error: --out {tmp_path / 'plainfile' / 'out'}: {tmp_path / 'plainfile'} is a "
        "file, not a folder; the results folder cannot be made inside it\n"
    )


def test_what_an_eval_prints_goes_to_stderr_and_json_stays_json(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"p.eval.py": f"""
        from proctor.evals import define_eval
        print("importing p")
        async def test(t):
            turn = await t.send("go")
            print("debug", t.reply)
            turn.expect_ok()
        eval = define_eval(plan={TURNS}, test=test)
    """})  # fmt: skip
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0 and out["ok"] is True, result.out
    assert "importing p" in result.err and "debug" not in result.out
    listed = proctor("eval", "--dir", str(root), "--list", "--json")
    assert listed.code == 0 and json.loads(listed.out)


def test_a_failed_gate_decides_the_exit_even_when_the_test_then_raises(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"f.eval.py": """
        from proctor.evals import define_eval
        async def test(t):
            r = await t.send("go")
            r.called_tool("write")
            t.workspace.joinpath("out.txt").read_text()
        eval = define_eval(plan={"turns": [{"say": "done"}]}, test=test)
    """})  # fmt: skip
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    (record,) = out["results"]
    assert record["status"] == "eval-error" and "f.eval.py:6)" in record["error"], record
    # The run's own records say the same exit code as the command.
    suite = json.loads((Path(out["runDir"]) / "suite.json").read_text())
    assert suite["exitCode"] == 1, suite["exitReason"]
    assert proctor("report", out["runDir"]).code == 1


def test_a_case_that_never_sends_says_so(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"n.eval.py": """
        from proctor.evals import define_eval
        async def test(t):
            t.log("no send")
        eval = define_eval(plan={"turns": [{"say": "x"}]}, test=test)
    """})  # fmt: skip
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--no-stream")
    assert result.code == 1
    assert "why: no explicit gate, and no turn completed" in result.out, result.out
    assert "asked to quit" not in result.out


def test_ids_outside_ascii_run_apart_and_a_real_clash_names_both_files(
    proctor: Run, tmp_path: Path
) -> None:
    body = f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
        eval = define_eval(plan={TURNS}, test=test)
    """
    root = project(tmp_path, {"日本.eval.py": body, "中国.eval.py": body, "café.eval.py": body})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    assert sorted(r["id"] for r in out["results"]) == sorted(["日本", "中国", "café"])
    clash = project(tmp_path / "clash", {"a.b/c.eval.py": body, "a/b.c.eval.py": body})
    listed = proctor("eval", "--dir", str(clash), "--list")
    assert listed.code == 2 and "would share the results folder 'a.b.c'" in listed.err
    assert "a.b/c.eval.py" in listed.err and "a/b.c.eval.py" in listed.err


def test_the_conversation_s_gates_read_every_text_block_and_reply_is_the_last_turn(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"r.eval.py": """
        from proctor.evals import define_eval
        async def test(t):
            r = await t.send("go")
            r.message_includes("first part")
            t.message_includes("first part")
            t.message_includes("done")
            t.check(t.reply, "first part\\ndone")
        eval = define_eval(plan={"turns": [{"say": "first part"}, {"say": "done"}]}, test=test)
    """})  # fmt: skip
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, [a for a in out["results"][0]["assertions"] if not a["passed"]]


def test_one_definition_under_two_names_is_one_and_two_are_refused(
    proctor: Run, tmp_path: Path
) -> None:
    body = f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
        my_eval = define_eval(plan={TURNS}, test=test)
        eval = my_eval
    """
    root = project(tmp_path, {"alias.eval.py": body})
    assert proctor("eval", "--dir", str(root), "--list").code == 0
    two = project(tmp_path / "two", {"two.eval.py": body + "    other = define_eval(test=test)\n"})
    listed = proctor("eval", "--dir", str(two), "--list")
    assert (
        listed.code == 2
        and "2 define_eval(...) found (my_eval = eval at line 5, other at line 7)" in (listed.err)
    )


def test_a_bad_flag_or_config_value_names_its_own_source(proctor: Run, tmp_path: Path) -> None:
    body = f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
        eval = define_eval(plan={TURNS}, test=test)
    """
    root = project(tmp_path, {"s.eval.py": body})
    out = str(tmp_path / "out")
    judged = proctor("eval", "--dir", str(root), "--out", out, "--judge-model", "nosuch/x")
    assert judged.code == 2 and judged.err.startswith("proctor: error: --judge-model: unknown")
    config = CONFIG.replace("max_concurrency=2", 'max_concurrency=2, reporters=["nope"]')
    other = project(tmp_path / "other", {"s.eval.py": body}, config=config)
    reported = proctor("eval", "--dir", str(other), "--out", out)
    assert (
        reported.code == 2 and "evals.config.py:2: reporters: unknown reporter nope" in reported.err
    )


def test_a_subprocess_an_eval_starts_writes_to_stderr_and_json_stays_json(tmp_path: Path) -> None:
    files = {
        "sub.eval.py": """
            import subprocess, sys
            from proctor.evals import define_eval
            subprocess.run(["echo", "FROM-IMPORT"])
            async def test(t):
                turn = await t.send("go")
                subprocess.run([sys.executable, "-c", "print('FROM-TEST')"])
                turn.expect_ok()
            eval = define_eval(plan={"turns": [{"say": "done"}]}, test=test)
        """
    }
    root = project(tmp_path, files)
    base = [sys.executable, "-m", "proctor", "eval", "--dir", str(root)]
    for extra in (["--out", str(tmp_path / "out"), "--no-stream"], ["--list"]):
        done = subprocess.run([*base, *extra, "--json"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        json.loads(done.stdout)  # nothing else on stdout
        assert "FROM-IMPORT" in done.stderr and "FROM-IMPORT" not in done.stdout
        if "--list" not in extra:
            assert "FROM-TEST" in done.stderr and "FROM-TEST" not in done.stdout


def test_eval_files_whose_names_differ_only_in_punctuation_stay_apart(
    proctor: Run, tmp_path: Path
) -> None:
    body = """
        import sys
        from proctor.evals import define_eval
        WHO = "{who}"
        async def test(t):
            await t.send("go")
            assert sys.modules[__name__].WHO == "{who}", sys.modules[__name__].WHO
            import helper  # a project module, imported when the test runs
            assert helper.NAME == "helper"
        eval = define_eval(plan={{"turns": [{{"say": "done"}}]}}, test=test)
    """
    files = {name: body.format(who=name) for name in ("a-b.eval.py", "a_b.eval.py")}
    root = project(tmp_path, files)
    (root / "helper.py").write_text('NAME = "helper"\n')
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, [r.get("error") for r in out.get("results", [])] or result.err


CRASH_PLAN = '{"turns": [{"say": "one"}, {"exit": 3}, {"endTurn": True}, {"say": "two"}]}'


def test_an_agent_that_exits_in_a_turn_is_an_agent_error(proctor: Run, tmp_path: Path) -> None:
    """An agent that exits non-zero mid-conversation crashed, whatever the gates said after:
    `agent-error` (exit 3), as the README's statuses say; unless the test declared the exit
    expected with `turn.expect_exit()`, when its gates decide."""
    root = project(tmp_path, {
        "mid.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
                await t.send("again")
                t.message_includes("one")
            eval = define_eval(plan={CRASH_PLAN}, test=test)
        """,
        "last.eval.py": """
            from proctor.evals import define_eval
            PLAN = {"turns": [{"say": "one"}, {"endTurn": True}, {"say": "two"}, {"exit": 4}]}
            async def test(t):
                await t.send("hi")
                await t.send("again")
                t.message_includes("two")
            eval = define_eval(plan=PLAN, test=test)
        """,
        "bare.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                await t.send("hi")
            eval = define_eval(plan={CRASH_PLAN}, test=test)
        """,
        # Its assertions fail by the crash itself: they decide nothing (exit 3, not 1).
        "gated.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                (await t.send("hi")).expect_ok()
                t.message_includes("nothing of the kind")
            eval = define_eval(plan={CRASH_PLAN}, test=test)
        """,
        "expected.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                turn = await t.send("hi")
                turn.expect_exit()
                t.message_includes("one")
            eval = define_eval(plan={CRASH_PLAN}, test=test)
        """,
        "not-exited.eval.py": """
            from proctor.evals import define_eval
            async def test(t):
                (await t.send("hi")).expect_exit()
            eval = define_eval(plan={"turns": [{"say": "one"}]}, test=test)
        """,
    })  # fmt: skip
    result, out = run_json(proctor, root, tmp_path, "mid", "last", "bare", "gated")
    assert result.code == 3, result.err  # errors, and no failed gate
    by_id = {r["id"]: r for r in out["results"]}
    assert {i: r["status"] for i, r in by_id.items()} == dict.fromkeys(
        ["bare", "gated", "last", "mid"], "agent-error"
    )
    assert [a["passed"] for a in by_id["gated"]["assertions"]] == [False, False]
    # A terminal session's exit code is known when it ends; the reason names it and the turn.
    # The session ended with it, so the test's next send is refused, never sent.
    assert by_id["mid"]["reason"] == "agent exited with code 3 before its turn ended (turn 1 of 1)"
    assert "the agent exited in turn 1; there is no session to send to" in by_id["mid"]["error"]
    assert by_id["last"]["reason"] == (
        "agent exited with code 4 before its turn ended (turn 2 of 2)"
    )
    trial = json.loads(
        (Path(out["runDir"]) / "trials/mid/scripted/default/1/trial.json").read_text()
    )
    assert trial["status"] == "agent-error" and trial["exitCode"] == 3
    suite = json.loads((Path(out["runDir"]) / "suite.json").read_text())
    assert suite["exitCode"] == 3 and suite["totals"]["statusCounts"] == {"agent-error": 4}

    result, out = run_json(proctor, root, tmp_path, "expected", "not-exited")
    assert result.code == 1, result.err
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["expected"]["status"] == "passed", by_id["expected"]
    names = [a["name"] for a in by_id["expected"]["assertions"]]
    assert names == ["turn 1: expect_exit()", "message_includes('one')"]
    failed = by_id["not-exited"]
    assert failed["status"] == "failed" and failed["assertions"][0]["passed"] is False
    assert failed["assertions"][0]["message"] == "the turn ended: turn-end"


@pytest.mark.parametrize("given", ["eval", "config", "flag"])
def test_a_judge_without_a_key_names_where_it_was_given(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    for name in ("ANTHROPIC_API_KEY", "PROCTOR_ANTHROPIC_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    chosen = 'judge="anthropic/claude-x", ' if given == "eval" else ""
    body = f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
            await t.judge.closed_qa("says hello")
        eval = define_eval({chosen}plan={TURNS}, test=test)
    """
    config = CONFIG
    if given == "config":
        config = CONFIG.replace(
            "max_concurrency=2", 'max_concurrency=2, judge="anthropic/claude-x"'
        )
    root = project(tmp_path, {"s.eval.py": body}, config=config)
    flag = ["--judge-model", "anthropic/claude-x"] if given == "flag" else []
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *flag)
    says = "the judge role (anthropic/claude-x) needs a key: set PROCTOR_ANTHROPIC_KEY"
    where = {
        "eval": f"{root / 'evals' / 's.eval.py'}:6",  # the line of define_eval
        "config": f"{root / 'evals' / 'evals.config.py'}:2",  # the line of define_eval_config
        "flag": "--judge-model",
    }[given]
    assert result.code == 2, result.err
    named = f"{where}: judge: {says}" if given != "flag" else f"{where}: {says}"
    assert named in result.err
    assert "its generated" not in result.err
    assert not (tmp_path / "out").exists()  # refused: no results folder left behind


def test_a_finding_of_one_eval_run_is_resolved_by_the_next(proctor: Run, tmp_path: Path) -> None:
    def run(said: str, first: str = "") -> dict[str, Any]:
        plan = {"turns": [{"say": said}]}
        files = {
            "ok.eval.py": f"""
                from proctor.evals import define_eval
                async def test(t):
                    await t.send("hi")
                    {first or "pass"}
                    t.message_includes("one")
                eval = define_eval(plan={plan!r}, test=test)
            """
        }
        result, _ = run_json(proctor, project(tmp_path, files), tmp_path)
        assert result.code == (0 if said == "one" else 1), result.err
        listed = proctor("findings", str(tmp_path / "out"), "--json", "--all")
        (finding,) = listed.json()["findings"]
        return dict(finding)

    failed = run("zero")
    assert failed["check"] == "eval: message_includes('one')", failed["check"]
    assert failed["suite"] == "proj/evals"  # the project's evals folder, by the results' folder
    # An assertion added before it: the same check, still failing, not a new finding.
    again = run("zero", first='t.message_includes("ze")')
    assert (again["id"], again["state"], again["failures"]) == (failed["id"], "open", 2)
    # Each eval run writes its cases to a folder of its own: still one suite.
    fixed = run("one")
    assert (fixed["id"], fixed["state"]) == (failed["id"], "resolved")
    # Another project run into the same results directory is another suite: its failure of
    # a check of the same name is a finding of its own, and resolves nothing of this one's.
    other = tmp_path / "other"
    shutil.copytree(tmp_path / "proj", other)

    def run_other(said: str) -> list[tuple[str, str]]:
        """The other project run with its agent saying ``said``; every finding's state."""
        test = other / "evals" / "ok.eval.py"
        test.write_text(re.sub(r"'say': '\w+'", f"'say': '{said}'", test.read_text()))
        result = proctor(
            "eval", "--dir", str(other), "--out", str(tmp_path / "out"), "--json", "--no-stream"
        )
        assert result.code == (0 if said == "one" else 1), result.err
        listed = proctor("findings", str(tmp_path / "out"), "--json", "--all").json()
        return sorted((f["suite"], f["state"]) for f in listed["findings"])

    assert run_other("one") == [("proj/evals", "resolved")]
    states = run_other("zero")
    assert states == [("other/evals", "open"), ("proj/evals", "resolved")]


def test_an_eval_run_is_not_resumed_as_a_folder_of_cases(proctor: Run, tmp_path: Path) -> None:
    """`run --resume` would replay the generated cases without their test code (every
    assertion gone, a failing eval passed): refused, and no advice points there."""
    root = project(tmp_path, {"a.eval.py": f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
            t.check(1, 2)
        eval = define_eval(plan={TURNS}, test=test)
    """})  # fmt: skip
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    run_dir = Path(out["runDir"])
    manifest = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))  # killed
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2 and "a run of `proctor eval`" in resumed.err, resumed.err
    stored = read_record(run_dir / "run.json", RunManifest)
    assert stored.by_eval and "`proctor eval` again" in stored.finish_hint(run_dir)


def test_plan_steps_no_message_reached_are_a_warning(proctor: Run, tmp_path: Path) -> None:
    """A plan with more turns (split by endTurn) than the test sent messages ran less than
    written: the case still passes, and its result names the steps that never played."""
    files = {
        "short.eval.py": """
            from proctor.evals import case, define_eval
            PLAN = {"turns": [
                {"say": "one"}, {"endTurn": True},
                {"write": {"path": "f.txt", "content": "x\\n"}}, {"say": "two"}, {"endTurn": True},
            ]}
            async def once(t):
                await t.send("go")
            async def twice(t):
                await t.send("go")
                await t.send("again")
            eval = define_eval(plan=PLAN, cases=[case(id="once", test=once), case(id="twice", test=twice)])
        """
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    by_id = {r["id"]: r for r in out["results"]}
    said = (
        "the plan has 2 turns (split by endTurn) and the test sent 1 message, so these "
        "steps never played: turns[2] (write), turns[3] (say)"
    )
    assert by_id["short/once"]["warnings"] == [said]
    assert by_id["short/twice"]["warnings"] == []  # a trailing endTurn opens no turn
    record = read_record(
        next(Path(out["runDir"]).glob("trials/short.once/*/*/1/eval.json")), EvalResultRecord
    )
    assert record.warnings == [said]
    # The trial's record and suite.md list it as they list a case folder's.
    trial = next(Path(out["runDir"]).glob("trials/short.once/*/*/1/trial.json"))
    assert json.loads(trial.read_text())["warnings"] == [said]
    twice = next(Path(out["runDir"]).glob("trials/short.twice/*/*/1/trial.json"))
    assert json.loads(twice.read_text())["warnings"] == []
    suite_md = (Path(out["runDir"]) / "suite.md").read_text()
    assert "## Warnings\n\n- `trials/short.once/" in suite_md and f": {said}\n" in suite_md
    text = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "short/once")
    assert f"    warning: {said}" in text.out


def test_an_eval_run_s_reports_are_titled_proctor_eval(proctor: Run, tmp_path: Path) -> None:
    """suite.md read `# proctor run run-…` for a run of `proctor eval`, which `proctor run`
    cannot even resume: each report is titled for the command that ran, and stays so when
    `proctor report` renders it again."""
    root = project(tmp_path, {"a.eval.py": f"""
        from proctor.evals import define_eval
        async def test(t):
            await t.send("hi")
        eval = define_eval(plan={TURNS}, test=test)
    """})  # fmt: skip
    result, out = run_json(proctor, root, tmp_path, "--reporter", "junit,html")
    assert result.code == 0, result.err
    run_dir = Path(out["runDir"])
    title = f"proctor eval {run_dir.name}"
    assert (run_dir / "suite.md").read_text().startswith(f"# {title}\n")
    html = (run_dir / "report.html").read_text()
    assert f"<h1>{title}</h1>" in html and "<title>proctor eval report:" in html
    assert f'<testsuites name="{title}"' in (run_dir / "junit.xml").read_text()
    again = proctor("report", str(run_dir), "--reporter", "markdown")
    assert again.out.startswith(f"# {title}\n"), again.err
