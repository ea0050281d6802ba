"""What the playground cannot list is said on its page, not left out in silence."""

from __future__ import annotations

import json
from pathlib import Path

from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app


def _page(results: Path, source: Path) -> str:
    with TestClient(build_app(ViewSettings(results=results, source=source))) as client:
        page = client.get("/playground")
    assert page.status_code == 200
    return page.text


def test_eval_files_that_do_not_import_are_named_with_their_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "broken.eval.py").write_text("def test(t)\n    pass\n")
    results = tmp_path / "results"
    results.mkdir()
    text = _page(results, project)
    assert "Not listed" in text
    assert "broken.eval.py:1: cannot be imported (SyntaxError" in text


def test_a_case_whose_configuration_does_not_read_is_named(tmp_path: Path) -> None:
    suite = tmp_path / "project" / "suite"
    for name in ("good", "bad<b>"):
        (suite / name).mkdir(parents=True)
        (suite / name / "prompt.md").write_text("do it\n")
    (suite / "good" / "config.json").write_text(json.dumps({"agents": ["scripted"]}))
    (suite / "bad<b>" / "config.json").write_text("{not json")
    results = tmp_path / "results"
    results.mkdir()
    text = _page(results, tmp_path / "project")
    assert 'value="good"' in text
    assert "Not listed" in text and "bad&lt;b&gt;" in text and "bad<b>" not in text


def test_a_case_folder_proctor_run_skips_is_named_with_its_reason(tmp_path: Path) -> None:
    """A folder with a config.json but no prompt.md is a case `proctor run` skips and names:
    the playground names it too, once (it left it out in silence)."""
    suite = tmp_path / "project" / "suite"
    for name in ("good", "no-prompt"):
        (suite / name).mkdir(parents=True)
        (suite / name / "config.json").write_text(json.dumps({"agents": ["scripted"]}))
    (suite / "good" / "prompt.md").write_text("do it\n")
    results = tmp_path / "results"
    results.mkdir()
    text = _page(results, tmp_path / "project")
    assert 'value="good"' in text and 'value="no-prompt"' not in text
    assert "Not listed" in text
    assert text.count("suite/no-prompt: missing required file prompt.md") == 1


def test_an_eval_whose_id_starts_with_a_dash_runs_as_that_id(tmp_path: Path) -> None:
    import time

    from proctor.view.index import ResultsIndex
    from proctor.view.playground import Playground

    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "evals.config.py").write_text(
        "from proctor.evals import define_eval_config\nconfig = define_eval_config(max_concurrency=1)\n"
    )
    body = (
        "from proctor.evals import define_eval\n"
        "async def test(t):\n    await t.send('hello')\n"
        "eval = define_eval(plan={'turns': [{'say': 'hi'}]}, test=test)\n"
    )
    for name in ("-x", "--verbose", "b"):
        (project / "evals" / f"{name}.eval.py").write_text(body)
    results = tmp_path / "results"
    results.mkdir()
    index = ResultsIndex(results)
    playground = Playground(ViewSettings(results=results, source=project), index)
    try:
        batch = playground.start("evals", ["-x"])
        deadline = time.monotonic() + 60
        while (batch := playground.batch(batch["id"]) or {})["state"] in ("queued", "running"):
            assert time.monotonic() < deadline, batch
            time.sleep(0.2)
        assert batch["state"] == "finished", batch
        assert batch["exitCode"] == 0
        assert [t["key"] for t in batch["finishedTrials"]] == ["-x/scripted/default/1"]
    finally:
        playground.close()
        index.close()


def test_a_suite_of_one_case_is_counted_in_the_singular(tmp_path: Path) -> None:
    """The suite chooser said "suite (1 cases)"."""
    case = tmp_path / "project" / "suite" / "only"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("do it\n")
    (case / "config.json").write_text(json.dumps({"agents": ["scripted"]}))
    results = tmp_path / "results"
    results.mkdir()
    text = _page(results, tmp_path / "project")
    assert '<option value="suite">suite (1 case)</option>' in text
