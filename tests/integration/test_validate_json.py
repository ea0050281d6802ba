"""`proctor validate --json`: one JSON object on stdout (cases, skipped, problems, warnings,
ok) and the exit codes of validate without it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run, write_case

CHECK = {"agents": ["scripted"], "evaluators": [{"use": "file-exists", "must": ["a"]}]}


def test_validate_json_lists_cases_skipped_ones_and_problems(proctor: Run, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "good", config={**CHECK, "repeats": 2}, plan={"turns": [{"say": "ok"}]})
    ok = proctor("validate", "--source", str(cases), "--json")
    assert ok.code == 0, ok.err
    found = json.loads(ok.out)  # stdout is the object alone
    assert found["ok"] is True and found["problems"] == [] and found["skipped"] == []
    (case,) = found["cases"]
    assert (case["name"], case["path"], case["agents"]) == (
        "good",
        str(cases / "good"),
        ["scripted"],
    )
    assert case["conditions"] == ["default"] and case["trials"] == 2
    assert case["planned"] == [
        {"agent": "scripted", "mode": case["planned"][0]["mode"], "conditions": ["default"]}
    ]
    (cases / "later").mkdir()
    (cases / "later" / "config.json").write_text("{}")  # no prompt.md: skipped
    write_case(cases, "broken", config='{"repeats": 2,}')
    bad = proctor("validate", "--source", str(cases), "--json")
    assert bad.code == 2
    found = json.loads(bad.out)
    assert found["ok"] is False and [c["name"] for c in found["cases"]] == ["good"]
    assert found["skipped"] == [
        {"name": "later", "path": str(cases / "later"), "reason": "missing required file prompt.md"}
    ]
    (problem,) = found["problems"]
    assert problem["file"] == str(cases / "broken" / "config.json")
    assert problem["message"].startswith(f"{problem['file']}: malformed JSON at line 1")
    assert bad.err.startswith(f"proctor: error: {problem['file']}: malformed JSON")
    text = proctor("validate", "--source", str(cases))  # control: the lines, the same code
    assert text.code == 2 and "skipped  later: missing required file prompt.md" in text.out


def test_validate_json_keeps_warnings_in_the_object(proctor: Run, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "gem", config={"agents": ["gemini-cli"], "mode": "headless"})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"codingagents": {"gemini-cli": {"permissionMode": "default"}}}))
    argv = ("validate", "--source", str(cases), "--config", str(config), "--model", "scripted")
    found = proctor(*argv, "--json")
    data = json.loads(found.out)
    (warning,) = data["warnings"]
    assert "permissionMode 'default' runs Gemini CLI headless" in warning
    assert "warning" not in found.err and data["cases"][0]["planned"][0]["mode"] == "headless"
    assert "proctor: warning: codingagents.gemini-cli" in proctor(*argv).err  # control
    (tmp_path / "empty").mkdir()
    nothing = proctor("validate", "--source", str(tmp_path / "empty"), "--json")
    data = json.loads(nothing.out)
    assert nothing.code == 2 and data["ok"] is False and data["cases"] == []
    assert "nothing runnable" in data["problems"][0]["message"]


def test_every_wrong_field_of_proctor_json_is_a_problem_of_its_own(
    proctor: Run, tmp_path: Path
) -> None:
    """As of a case's config.json, validate names every wrong field of proctor.json in one
    pass (it named the first and hid the rest); run stops at the first, saying more are there."""
    cases = tmp_path / "cases"
    write_case(cases, "good", config=CHECK, plan={"turns": [{"say": "ok"}]})
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"out": 5, "repeats": "x"}))
    args = ("--source", str(cases), "--config", str(top))
    checked = proctor("validate", *args, "--json")
    assert checked.code == 2
    assert [p["message"] for p in json.loads(checked.out)["problems"]] == [
        f"{top}: field 'out': expected a string, got 5",
        f"{top}: field 'repeats': expected an integer, got the string \"x\"",
    ]
    ran = proctor("run", *args, "--out", str(tmp_path / "out"))
    assert ran.code == 2
    assert ran.err.strip() == (
        f"proctor: error: {top}: field 'out': expected a string, got 5 (and 1 more in this "
        f"file: `proctor validate --config {top}` lists them all)"
    )
