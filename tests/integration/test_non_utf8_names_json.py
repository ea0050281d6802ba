"""A file or folder name that is not UTF-8 (the byte 0xff, which Python reads as the lone
surrogate ``\\udcff``) comes out of every ``--json`` as its records write it: the byte as the
text ``\\xff`` (JSON ``"\\\\xff"``), so the output is strict UTF-8 JSON, never a lone
surrogate escape (``"\\udcff"``) a strict parser refuses. And ``annotate`` takes a trial as
the reports show it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeCase, Run, run_cases, single_run_dir

EXAMPLES = Path(__file__).parents[2] / "examples"
FF = os.fsdecode(b"\xff")  # the byte 0xff of a name, as Python reads it
SHOWN = "\\xff"  # the same byte as proctor's records and messages show it


def strict(text: str) -> Any:
    """``text`` parsed as a strict parser would: UTF-8 with no lone surrogate in any string
    (Python's own ``json`` would accept ``"\\udcff"``; Rust's serde_json, Go and others do not)."""
    data = json.loads(text.encode("utf-8").decode("utf-8"))

    def walk(value: Any) -> None:
        if isinstance(value, str):
            value.encode("utf-8")  # raises on a lone surrogate
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return data


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "scratch").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))


def test_hooks_test_json_shows_the_plugin_folder_as_records_do(
    proctor: Run, tmp_path: Path
) -> None:
    hook = tmp_path / f"hook{FF}"
    shutil.copytree(EXAMPLES / "addons" / "hook", hook)
    result = proctor(
        "hooks", "test", str(hook / "guard-plugin"), "--cases", str(hook / "cases.json"), "--json"
    )
    assert result.code == 0, result.err
    assert strict(result.out)["source"] == f"{tmp_path}/hook{SHOWN}/guard-plugin"


def test_audit_json_shows_the_folders_as_records_do(proctor: Run, tmp_path: Path) -> None:
    audit = tmp_path / f"audit{FF}"
    (audit / "home").mkdir(parents=True)
    (audit / "project").mkdir()
    (audit / "project" / "CLAUDE.md").write_text("Be brief.\n")
    result = proctor(
        "audit", "--home", str(audit / "home"), "--project", str(audit / "project"), "--json"
    )
    assert result.code == 0, result.err
    report = strict(result.out)
    assert report["project"] == f"{tmp_path}/audit{SHOWN}/project"
    files = [c["file"] for a in report["agents"] for c in a["components"]]
    assert f"{tmp_path}/audit{SHOWN}/project/CLAUDE.md" in files


def test_an_eval_file_named_with_a_byte_not_utf8_is_listed_and_run(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    shutil.copytree(EXAMPLES / "evals", root)
    builds = root / "evals" / "builds"
    (builds / f"greet{FF}.eval.py").write_bytes((builds / "greeting.eval.py").read_bytes())
    listed = proctor("eval", "--dir", str(root), "--list", "--json")
    assert listed.code == 0, listed.err  # was: a traceback naming its digest
    assert f"builds/greet{SHOWN}" in [row["id"] for row in strict(listed.out)]
    monkeypatch.chdir(tmp_path)
    ran = proctor("eval", "--dir", str(root), "--json", f"builds/greet{FF}")
    assert ran.code == 0, ran.err  # was: its generated config.json refused
    assert [r["id"] for r in strict(ran.out)["results"]] == [f"builds/greet{SHOWN}"]


WRITES = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}
CHECK = {"evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}


def test_grounding_reads_a_run_whose_case_is_named_with_a_byte_not_utf8(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(f"plug{FF}", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    advisor = tmp_path / "advisor.py"
    advisor.write_text("print('Keep going.')\n")
    result = proctor(
        "grounding",
        "--advisor",
        f"{shlex.quote(sys.executable)} {advisor}",
        "--checkpoints",
        str(single_run_dir(out)),
        "--json",
    )
    assert result.code == 0, result.err  # was: a traceback from the checkpoint's id
    ids = [r["id"] for r in strict(result.out)["results"]]
    assert ids == [f"plug{SHOWN}/scripted/default/1"]


def test_annotate_takes_the_trial_as_reports_show_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(f"plug{FF}", config=CHECK, plan=WRITES)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    shown = f"plug{SHOWN}/scripted/default/1"
    suite = strict(proctor("report", str(run_dir), "--reporter", "json").out)
    assert [g["case"] for g in suite["groups"]] == [f"plug{SHOWN}"]
    marked = proctor("annotate", str(run_dir), shown, "--verdict", "failed", "--note", "drifted")
    assert marked.code == 0, marked.err
    # The raw bytes name the same trial: its mark replaces the first, never a second mark.
    raw = f"plug{FF}/scripted/default/1"
    again = proctor("annotate", str(run_dir), raw, "--verdict", "excluded", "--note", "wrong")
    assert again.code == 0, again.err
    assert "this replaces its mark" in again.err
    marks = strict((run_dir / "annotations.json").read_text())["annotations"]
    assert [(m["trial"], m["verdict"]) for m in marks] == [(shown, "excluded")]
    report = proctor("report", str(run_dir))
    assert f"Annotated by hand: 1 trial: {shown} excluded" in report.out
    wrong = proctor("annotate", str(run_dir), f"plug{FF}/x", "--verdict", "failed", "--note", "n")
    assert wrong.code == 2 and f'TRIAL "plug{SHOWN}/x": expected' in wrong.err


def test_case_and_eval_filters_take_a_name_as_it_is_shown(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(f"plug{FF}", config=CHECK, plan=WRITES)
    make_case("plain", config=CHECK, plan=WRITES)
    cases = str(tmp_path / "cases")
    for glob in (f"plug{SHOWN}", f"plug{FF}"):  # as the error and every report list it, or raw
        dry = proctor("run", "--source", cases, "--case", glob, "--dry-run")
        assert dry.code == 0 and "1 trial in 1 case" in dry.out, dry.err
        row = f"plug{SHOWN}".ljust(30) + " scripted "  # the columns line up as printed
        assert any(line.startswith(row) for line in dry.out.splitlines()), dry.out
    root = tmp_path / "proj"
    shutil.copytree(EXAMPLES / "evals", root)
    builds = root / "evals" / "builds"
    (builds / f"greet{FF}.eval.py").write_bytes((builds / "greeting.eval.py").read_bytes())
    for wanted in (f"builds/greet{SHOWN}", f"builds/greet{FF}"):
        listed = proctor("eval", "--dir", str(root), "--list", "--json", wanted)
        assert listed.code == 0, listed.err
        assert [row["id"] for row in strict(listed.out)] == [f"builds/greet{SHOWN}"]
