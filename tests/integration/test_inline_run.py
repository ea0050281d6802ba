"""`proctor run --prompt`: one case from command-line options, run like any other, evaluated
only when asked."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import Run, single_run_dir


def inline_folder(out: Path) -> Path:
    (folder,) = (out / "inline").glob("*/inline")
    return folder


def test_a_prompt_alone_runs_and_is_recorded_not_evaluated(proctor: Run, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = proctor("run", "--prompt", "Describe this folder.", "--out", str(out))
    assert result.code == 0, result.err
    case = inline_folder(out)
    assert (case / "prompt.md").read_text() == "Describe this folder.\n"
    trial = json.loads(
        (single_run_dir(out) / "trials/inline/scripted/default/1/trial.json").read_text()
    )
    assert trial["status"] == "skipped" and trial["reason"].startswith("not evaluated")
    # The one cause that applied, not every switch that could have.
    assert trial["reason"].endswith("this case (--prompt without --evaluate)")
    assert (
        "- Not evaluated: 1 trial ran and was recorded without evaluation (--prompt without "
        "--evaluate); it is not scored\n" in result.out
    )


def test_evaluate_with_evaluators_and_a_starting_folder(proctor: Run, tmp_path: Path) -> None:
    src = tmp_path / "project"
    src.mkdir()
    (src / "a.txt").write_text("a\n")
    prompt = tmp_path / "task.md"
    prompt.write_text("Check that a.txt is there.\n")
    checks = tmp_path / "checks.json"
    checks.write_text(json.dumps([{"use": "file-exists", "must": ["a.txt"], "gate": True}]))
    out = tmp_path / "out"
    args = ["--prompt", str(prompt), "--src", str(src), "--eval", str(checks), "--evaluate"]
    result = proctor("run", *args, "--out", str(out))
    assert result.code == 0, result.err
    trial_dir = single_run_dir(out) / "trials/inline/scripted/default/1"
    trial = json.loads((trial_dir / "trial.json").read_text())
    assert trial["status"] == "passed" and [e["use"] for e in trial["evaluators"]] == [
        "file-exists"
    ]
    assert (inline_folder(out) / "prompt.md").read_text() == "Check that a.txt is there.\n"
    assert (src / "a.txt").read_text() == "a\n"  # the starting folder is only read
    # Control: the same without --evaluate runs nothing of the evaluators.
    plain = proctor("run", *args[:-1], "--out", str(tmp_path / "plain"))
    assert plain.code == 0 and "Not evaluated: 1 trial" in plain.out
    # Said on stderr, as a CI job would otherwise pass green unscored; not with --no-evaluate.
    assert (
        f"note: --eval {checks} is not run: an inline case is evaluated only with --evaluate"
        in (plain.err)
    )
    asked = proctor("run", *args[:-1], "--no-evaluate", "--out", str(tmp_path / "asked"))
    assert asked.code == 0 and "is not run" not in asked.err


def test_a_markdown_rubric_becomes_the_judge(proctor: Run, tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.md"
    rubric.write_text("Score the notes.\n")
    out = tmp_path / "out"
    result = proctor("run", "--prompt", "Write notes.", "--eval", str(rubric), "--out", str(out))
    assert result.code == 0, result.err
    config = json.loads((inline_folder(out) / "config.json").read_text())
    assert config["evaluators"] == [{"use": "llm-judge", "rubric": "evaluation.md"}]
    assert (inline_folder(out) / "evaluation.md").read_text() == "Score the notes.\n"


def test_inline_mistakes_are_sentences(proctor: Run, tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    no_eval = proctor("run", "--prompt", "x", "--evaluate", "--out", out)
    assert no_eval.code == 2 and "needs --eval FILE" in no_eval.err
    stray = proctor("run", "--qna", str(tmp_path / "q.md"), "--out", out)
    assert stray.code == 2 and "give --prompt too" in stray.err
    both = proctor("run", "--prompt", "x", "--source", str(tmp_path), "--out", out)
    assert both.code == 2 and "drop --source" in both.err
    empty = proctor("run", "--prompt", "  ", "--out", out)
    assert empty.code == 2 and "the prompt is empty" in empty.err
    bad = tmp_path / "bad.json"
    bad.write_text('{"evaluators": 3}')
    wrong = proctor("run", "--prompt", "x", "--eval", str(bad), "--out", out)
    assert wrong.code == 2 and "expected a list of evaluators" in wrong.err
    typo = tmp_path / "typo.json"
    typo.write_text('[{"use": "fle-exists"}]')
    named = proctor("run", "--prompt", "x", "--eval", str(typo), "--out", out)
    assert named.code == 2 and f"--eval {typo}: field 'evaluators[0].use'" in named.err
    rules = tmp_path / "q.md"
    rules.write_text("```rules\n/(/ -> x\n```\n")
    qna = proctor("run", "--prompt", "x", "--qna", str(rules), "--out", out)
    assert qna.code == 2 and f"--qna {rules}: rules block" in qna.err
    assert "inline/" not in named.err + qna.err  # never the file proctor wrote
    binary = tmp_path / "binary.md"
    binary.write_bytes(b"\xff\xfe rules")
    for option in ("--qna", "--eval"):
        unread = proctor("run", "--prompt", "x", option, str(binary), "--out", out)
        assert unread.code == 2 and f"{option} {binary}: not UTF-8 text" in unread.err
        assert "Traceback" not in unread.err
    for name in ("./nonexist.md", "notes.txt", str(tmp_path / "gone")):
        missing = proctor("run", "--prompt", name, "--out", out)
        assert missing.code == 2 and f"--prompt {name}: no such file" in missing.err
    sentence = proctor("run", "--prompt", "fix notes.txt", "--dry-run", "--out", out)
    assert sentence.code == 0, sentence.err  # a sentence naming a file is a prompt
    command = proctor("run", "--prompt", "/init", "--dry-run", "--out", out)
    assert command.code == 0, command.err  # a slash command is a prompt
    # Refused runs, and a dry run, leave no case behind, nor the results folder they made.
    assert not (tmp_path / "out").exists()
    made = tmp_path / "made" / "deep"
    assert proctor("run", "--prompt", "/init", "--dry-run", "--out", str(made)).code == 0
    assert not (tmp_path / "made").exists()
    kept = tmp_path / "kept"  # a results folder that was there: kept, even empty
    kept.mkdir()
    assert proctor("run", "--prompt", "/init", "--dry-run", "--out", str(kept)).code == 0
    assert kept.is_dir() and not any(kept.iterdir())


def test_a_failure_of_one_inline_run_is_resolved_by_the_next(proctor: Run, tmp_path: Path) -> None:
    src = tmp_path / "project"
    src.mkdir()
    checks = tmp_path / "checks.json"
    checks.write_text(json.dumps([{"use": "file-exists", "must": ["a.txt"], "gate": True}]))
    out = tmp_path / "out"
    args = ["--prompt", "Check a.txt.", "--src", str(src), "--eval", str(checks), "--evaluate"]
    assert proctor("run", *args, "--out", str(out)).code == 1  # no a.txt yet
    (src / "a.txt").write_text("a\n")
    assert proctor("run", *args, "--out", str(out)).code == 0
    listed = proctor("findings", str(out), "--json", "--all").json()["findings"]
    ((suite, state),) = [(f["suite"], f["state"]) for f in listed]
    assert re.fullmatch(r"inline/[0-9a-f]{10}", suite) and state == "resolved"
    # Another prompt is another inline suite: its pass resolves nothing of the first one's,
    # and its failure of a check of the same name is a finding of its own.
    (src / "a.txt").unlink()
    assert proctor("run", *args, "--out", str(out)).code == 1  # the first reopened
    other = ["--prompt", "Something else.", *args[2:]]
    (src / "a.txt").write_text("a\n")
    assert proctor("run", *other, "--out", str(out)).code == 0
    listed = proctor("findings", str(out), "--json", "--all").json()["findings"]
    assert [(f["suite"], f["state"]) for f in listed] == [(suite, "open")]
    (src / "a.txt").unlink()
    assert proctor("run", *other, "--out", str(out)).code == 1
    listed = proctor("findings", str(out), "--json", "--all").json()["findings"]
    assert len({f["suite"] for f in listed}) == 2 and all(f["state"] == "open" for f in listed)


def _reasons(run_dir: Path) -> list[str]:
    trials = sorted((run_dir / "trials/inline/scripted/default").glob("*/trial.json"))
    return [json.loads(t.read_text())["reason"] for t in trials]


def test_an_inline_run_names_the_switch_typed_also_when_resumed(
    proctor: Run, tmp_path: Path
) -> None:
    """``--prompt … --no-evaluate`` was said '(--prompt without --evaluate)', which the user
    did not type; a resume names each cause as the run did, also of a run an older proctor
    started (its config.json without promptWithoutEvaluate)."""
    said = "not evaluated: the run was told not to evaluate this case ({})"
    for typed, cause in (((), "--prompt without --evaluate"), (("--no-evaluate",), "--no-evaluate")):  # fmt: skip
        out = tmp_path / cause.replace(" ", "-")
        argv = ["run", "--prompt", "Describe.", "--repeats", "2", *typed, "--out", str(out)]
        result = proctor(*argv)
        assert result.code == 0, result.err
        run_dir = single_run_dir(out)
        assert _reasons(run_dir) == [said.format(cause)] * 2
        config = json.loads((run_dir / "config.json").read_text())
        for older in (False, True):
            if older:  # as an older proctor wrote it, its command line in run.json
                config["cli"].pop("promptWithoutEvaluate", None)
                (run_dir / "config.json").write_text(json.dumps(config))
                manifest = json.loads((run_dir / "run.json").read_text())
                manifest["argv"] = ["proctor", *argv]  # (in-process, sys.argv is pytest's)
                (run_dir / "run.json").write_text(json.dumps(manifest))
            (run_dir / "trials/inline/scripted/default/2/trial.json").unlink()
            resumed = proctor("run", "--resume", str(run_dir))
            assert resumed.code == 0, resumed.err
            assert _reasons(run_dir) == [said.format(cause)] * 2, older
