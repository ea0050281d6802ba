"""``proctor eval`` on what a selection runs (an iteration picked by its id plays its own
variant; folders are suggested for a mistyped id; progress names iterations), on the exit code
agreeing with the run's own ``suite.json``, and on mistakes named where they were written."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import CONFIG, project, run_json

Run = Any

VARIANTS = """
    from proctor.evals import define_eval
    async def test(t):
        await t.send("hi")
        t.message_includes(f"variant {t.iteration}")
    eval = define_eval(test=test, iterations=3, plan={"variants": [
        [{"say": "variant 1"}], [{"say": "variant 2"}], [{"say": "variant 3"}]]})
"""


def test_an_iteration_picked_by_its_id_plays_its_own_variant(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": VARIANTS})
    for picked in (["a/3"], ["a/2", "a/3"], ["a/3", "a/1"]):
        result, out = run_json(proctor, root, tmp_path, *picked)
        assert result.code == 0, out
        assert sorted(r["id"] for r in out["results"]) == sorted(picked)
    result, out = run_json(proctor, root, tmp_path)  # the control: all of them, as written
    assert result.code == 0 and len(out["results"]) == 3


def test_progress_names_the_iteration_that_ran(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": VARIANTS})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "a/3")
    assert result.code == 0, result.err
    assert "✓ a/3 (" in result.err and "#" not in result.err


def test_a_mistyped_id_is_told_the_folder_it_resembles(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"builds/api.eval.py": VARIANTS, "tools/x.eval.py": VARIANTS})
    for listed in (("--list",), ()):  # listed or run, named the same way
        result = proctor("eval", "--dir", str(root), *listed, "bui")
        assert result.code == 2
        said = f"{root / 'evals'}: no eval has the id 'bui' or one below it; did you mean 'builds'?"
        assert said in result.err, result.err


def test_an_id_like_no_other_names_the_evals_folder_and_the_ids_in_use(
    proctor: Run, tmp_path: Path
) -> None:
    """As a tag no eval has names the folder and the tags in use: a folder's id with ``/…``
    after it, an eval's as it is."""
    root = project(
        tmp_path,
        {"builds/api.eval.py": VARIANTS, "tools/x.eval.py": VARIANTS, "greet.eval.py": VARIANTS},
    )
    for listed in (("--list",), ()):
        result = proctor("eval", "--dir", str(root), *listed, "nope")
        assert result.code == 2
        assert result.err.strip() == (
            f"proctor: error: {root / 'evals'}: no eval has the id 'nope' or one below it; the "
            "ids in use: builds/…, greet, tools/…"
        ), result.err


def suite_exit(out: dict[str, Any]) -> int:
    return int(json.loads((Path(out["runDir"]) / "suite.json").read_text())["exitCode"])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        # A skip after a failed gate: skipped, and the exit code unchanged.
        ('await t.send("hi")\n    t.check(1, 2)\n    t.skip("not today")', 0),
        # Still running at its timeout: a failed case, as a case folder's timeout is.
        ('await t.send("hi")\n    t.check(1, 1)\n    time.sleep(30)', 1),
        ('await t.send("hi")\n    t.check(1, 2)', 1),  # the control: a failed gate
        ('await t.send("hi")\n    raise RuntimeError("broke")', 3),  # an error status
    ],
)
def test_the_exit_code_is_the_run_s_own(proctor: Run, tmp_path: Path, body: str, code: int) -> None:
    source = (
        "import time\nfrom proctor.evals import define_eval\nasync def test(t):\n    "
        + body
        + '\neval = define_eval(test=test, timeout_ms=1500, plan={"turns": [{"say": "x"}]})\n'
    )
    result, out = run_json(proctor, project(tmp_path, {"a.eval.py": source}), tmp_path)
    assert result.code == code, out
    assert suite_exit(out) == code
    assert out["ok"] is (code == 0)


@pytest.mark.parametrize(
    ("config", "eval_args", "where"),
    [
        ("agent='nope'", "", "evals.config.py:2: agent: unknown agent 'nope'"),
        ("judge='nojudge'", "", "evals.config.py:2: judge: expected 'provider/model'"),
        ("judge='nope/x'", "", "evals.config.py:2: judge: unknown provider 'nope'"),
        ("", "judge='bad', ", "a.eval.py:3: judge: expected 'provider/model'"),
        ("", "agent='nope', ", "a.eval.py:3: unknown agent 'nope'"),
    ],
)
def test_a_bad_agent_or_judge_names_the_file_it_came_from_and_leaves_nothing(
    proctor: Run, tmp_path: Path, config: str, eval_args: str, where: str
) -> None:
    source = (
        "from proctor.evals import define_eval\nasync def test(t): ...\n"
        f"eval = define_eval({eval_args}test=test)\n"
    )
    settings = CONFIG.replace("max_concurrency=2", f"max_concurrency=2, {config}".rstrip(", "))
    root = project(tmp_path, {"a.eval.py": source}, config=settings)
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 2 and where in result.err, result.err
    assert "Traceback" not in result.err
    assert not (tmp_path / "out" / "evals-src").exists()


def test_a_flag_s_judge_is_named_as_the_flag(proctor: Run, tmp_path: Path) -> None:
    source = "from proctor.evals import define_eval\nasync def test(t): ...\neval = define_eval(test=test)\n"
    root = project(tmp_path, {"a.eval.py": source})
    result, _ = run_json(proctor, root, tmp_path, "--judge-model", "nojudge")
    assert result.code == 2 and "--judge-model: expected 'provider/model'" in result.err


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (
            # As pytest.importorskip raises: a BaseException, not an Exception (pytest's own
            # would skip this test rather than fail it, so one of the same kind stands in).
            "class Skipped(BaseException): ...\nraise Skipped('no module yaml')\n",
            "a.eval.py:2: cannot be imported (Skipped: no module yaml)",
        ),
        (
            "from proctor.evals import define_eval\nasync def test():\n    pass\n"
            "eval = define_eval(test=test)\n",
            "a.eval.py:4: define_eval: 'test' is called with one argument, the test context: "
            "async def test(t), not async def test()",
        ),
    ],
)
def test_an_eval_file_that_cannot_define_an_eval_is_one_sentence(
    proctor: Run, tmp_path: Path, source: str, said: str
) -> None:
    root = project(tmp_path, {"a.eval.py": source})
    for args in (("--list",), ("--no-stream", "--out", str(tmp_path / "out"))):
        result = proctor("eval", "--dir", str(root), *args)
        assert result.code == 2 and said in result.err, result.err
        assert "Traceback" not in result.err
    assert not (tmp_path / "out").exists()  # nothing ran


def test_help_says_concurrency_is_capped_by_the_config(proctor: Run) -> None:
    result = proctor("eval", "--help")
    assert result.code == 0
    assert "at most the config's max_concurrency" in " ".join(result.out.split())


def test_help_names_the_ids_as_its_text_and_the_docs_do(proctor: Run) -> None:
    """The usage line names the argument its text explains (ID_OR_PREFIX), not click's IDS."""
    said = proctor("eval", "--help").out
    assert "Usage: proctor eval [OPTIONS] [ID_OR_PREFIX]..." in said, said
    assert "ID_OR_PREFIX selects an id" in " ".join(said.split())


def test_help_gives_each_flag_its_place_in_the_order_of_precedence(proctor: Run) -> None:
    """--timeout comes before the eval's own timeout_ms (as proctor run's before a case's
    timeoutSec), and the config's agent and model come after the flags, --agent-model before
    --model, as docs/evals.md orders them."""
    said = " ".join(proctor("eval", "--help").out.split())
    assert (
        "Each case's time limit in seconds, over its eval's timeout_ms (as proctor run's "
        "--timeout; default: the eval's, else evals.config.py's, else 180)."
    ) in said
    assert "(default: the case's or eval's, else evals.config.py's, else scripted)" in said
    assert (
        "The model of every case's agent (default: evals.config.py's; --agent-model, for its "
        "agent, comes first;"
    ) in said


def test_an_evals_folder_without_an_eval_file_says_so(proctor: Run, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "evals.config.py").write_text(CONFIG)
    told = f"{root / 'evals'}: holds no *.eval.py file"
    for args in ((), ("--tag", "x"), ("some-id",), ("--list", "--tag", "x"), ("--list", "x")):
        result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *args)
        assert result.code == 2, (args, result.err)
        assert told in result.err and "ids and tags" not in result.err, args
    # Listing it with no filter is no mistake: an empty list, and why on stderr.
    listed = proctor("eval", "--dir", str(root), "--list")
    assert listed.code == 0 and listed.out == "" and told in listed.err
    listed = proctor("eval", "--dir", str(root), "--list", "--json")
    assert listed.code == 0 and json.loads(listed.out) == [] and told in listed.err


def test_a_list_that_matches_nothing_is_refused_as_its_run_is(proctor: Run, tmp_path: Path) -> None:
    tagged = VARIANTS.replace("iterations=3,", "iterations=3, tags=['slow'],")
    root = project(tmp_path, {"a.eval.py": tagged, "b.eval.py": VARIANTS})
    told = f"{root / 'evals'}: no eval has the tag 'nosuch'; the tags in use: slow"
    ran = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--tag", "nosuch")
    assert ran.code == 2 and told in ran.err
    listed = proctor("eval", "--dir", str(root), "--list", "--tag", "nosuch")
    assert listed.code == 2 and listed.out == "" and told in listed.err
    listed = proctor("eval", "--dir", str(root), "--list", "--json", "--tag", "nosuch")
    assert listed.code == 2 and json.loads(listed.out) == [] and told in listed.err
    listed = proctor("eval", "--dir", str(root), "--list", "b", "--tag", "slow")
    # The tags of the evals below the ids are named, not a tag only the others have.
    said = "no eval below the ids given has the tag 'slow'; no eval there has a tag"
    assert listed.code == 2 and said in listed.err, listed.err
    listed = proctor("eval", "--dir", str(root), "--list", "a", "--tag", "fast")
    said = "no eval below the ids given has the tag 'fast'; the tags in use there: slow"
    assert listed.code == 2 and said in listed.err, listed.err
    listed = proctor("eval", "--dir", str(root), "--list", "--json", "--tag", "slow")  # control
    assert listed.code == 0 and [r["id"] for r in json.loads(listed.out)] == ["a/1", "a/2", "a/3"]
    assert listed.err == ""


def test_a_json_list_of_an_id_that_names_no_eval_is_an_empty_list(
    proctor: Run, tmp_path: Path
) -> None:
    """As for a tag no eval has: stdout is still the one JSON document, `[]`, with exit 2 and
    the reason on stderr. Before, an id that named no eval printed nothing on stdout."""
    root = project(tmp_path, {"a.eval.py": VARIANTS})
    listed = proctor("eval", "--dir", str(root), "--list", "--json", "nosuch")
    assert listed.code == 2 and json.loads(listed.out) == []
    assert "no eval has the id 'nosuch'" in listed.err
    listed = proctor("eval", "--dir", str(root), "--list", "nosuch")
    assert listed.code == 2 and listed.out == ""
    empty = tmp_path / "empty"
    (empty / "evals").mkdir(parents=True)
    listed = proctor("eval", "--dir", str(empty), "--list", "--json", "some-id")
    assert listed.code == 2 and json.loads(listed.out) == [] and "holds no *.eval.py" in listed.err


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_once_the_run_is_written_leaves_the_exit_code(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    """A Ctrl-C landing as the summary is printed (or as the process exits) changes nothing:
    `proctor eval` exits as its run's files say. Before, it exited 130 ("proctor: error:
    interrupted"), or died of the signal, with suite.json saying 0."""
    from proctor.cli import eval as cli_eval

    real = cli_eval._print_summary

    def then_stopped(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        os.kill(os.getpid(), number)
        time.sleep(0.2)  # a handler that raises does so here

    monkeypatch.setattr(cli_eval, "_print_summary", then_stopped)
    root = project(tmp_path, {"a.eval.py": VARIANTS})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "a/1")
    assert result.code == 0, result.err
    assert "interrupted" not in result.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    assert json.loads((run_dir / "suite.json").read_text())["exitCode"] == 0


def test_a_list_shows_each_eval_on_one_line_its_controls_shown(
    proctor: Run, tmp_path: Path
) -> None:
    """A description written on two lines, or with a terminal's escape sequence in it or in a
    tag, was listed as written: its second line read as another eval's, the escape obeyed."""
    odd = VARIANTS.replace(
        "iterations=3,",
        "iterations=1, description='first\\nsecond \\x1b[2J', tags=['t\\x1b'],",
    )
    root = project(tmp_path, {"a.eval.py": odd})
    listed = proctor("eval", "--dir", str(root), "--list")
    assert listed.code == 0 and listed.out == "a [t\\x1b]  first second \\x1b[2J\n", listed.out
    data = proctor("eval", "--dir", str(root), "--list", "--json")  # JSON keeps them as written
    assert json.loads(data.out)[0]["description"] == "first\nsecond \x1b[2J"


def test_a_dir_that_names_the_evals_folder_itself_is_told_the_folder_to_give(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"a.eval.py": VARIANTS})
    listed = proctor("eval", "--dir", str(root / "evals"), "--list")
    assert listed.code == 2 and listed.out == ""
    assert f"--dir names the folder that holds evals/: --dir {root}" in listed.err, listed.err
    elsewhere = tmp_path / "other"  # the control: a folder of no evals is told no more
    elsewhere.mkdir()
    listed = proctor("eval", "--dir", str(elsewhere), "--list")
    assert listed.code == 2 and "no evals folder" in listed.err and "--dir names" not in listed.err


def test_a_dir_of_case_folders_is_told_that_proctor_run_runs_them(
    proctor: Run, tmp_path: Path
) -> None:
    """A folder of case folders (as ``proctor run --source`` finds them), or a case folder,
    given as --dir is told the command that runs it, listed or run; a folder of other
    subfolders is told no more."""
    cases = tmp_path / "my cases"
    for name in ("fix-a-bug", "add-route"):
        (cases / name).mkdir(parents=True)
        (cases / name / "prompt.md").write_text("Fix it.\n")
        (cases / name / "config.json").write_text('{"agents": ["scripted"]}\n')
    (cases / "notes").mkdir()  # no case folder: not named
    for listed in (("--list",), ()):
        result = proctor("eval", "--dir", str(cases), *listed)
        assert result.code == 2 and result.out == ""
        said = (
            f"{cases}/evals: no evals folder (evals live in DIR/evals/**/*.eval.py; {cases} "
            f"holds case folders (add-route, fix-a-bug): proctor run --source '{cases}' runs "
            "them)"
        )
        assert said in result.err, result.err
    one = cases / "fix-a-bug"
    result = proctor("eval", "--dir", str(one))
    assert f"; {one} is a case folder: proctor run --source '{one}' runs it)" in result.err
    result = proctor("eval", "--dir", str(cases / "notes"))  # the control
    assert result.code == 2 and "no evals folder" in result.err
    assert "proctor run" not in result.err, result.err


def test_a_tag_no_eval_has_is_refused_beside_tags_that_choose(proctor: Run, tmp_path: Path) -> None:
    """``--tag slow --tag slwo`` listed and ran the ``slow`` evals and passed, the typo taken
    silently, where ``proctor run`` refuses a tag no case carries even beside others."""
    tagged = VARIANTS.replace("iterations=3,", "iterations=3, tags=['slow'],")
    root = project(tmp_path, {"a.eval.py": tagged, "b.eval.py": VARIANTS})
    for listing in (("--list",), ()):
        result = proctor(
            "eval", "--dir", str(root), "--out", str(tmp_path / "out"), *listing,
            "--tag", "slow", "--tag", "slwo",
        )  # fmt: skip
        assert result.code == 2, result.err
        said = "--tag slwo: no eval has it (did you mean 'slow'? the tags in use: slow)"
        assert said in result.err, result.err
    assert proctor("eval", "--dir", str(root), "--list", "--tag", "slow").code == 0
    # Below ids, the evals there: another eval's tag is not said to be no eval's.
    below = proctor("eval", "--dir", str(root), "--list", "b", "a", "--tag", "slow", "--tag", "x")
    said = "--tag x: no eval below the ids given has it (the tags in use there: slow)"
    assert below.code == 2 and said in below.err, below.err
