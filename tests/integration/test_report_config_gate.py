"""`proctor report RUN --config FILE`: a gate that is not the run's own is said to be so, in
every report that shows the gate and on stderr, and `--write` does not rewrite the run's own
files under it unless asked with --force."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run


def _run(proctor: Run, make_case: MakeCase, tmp_path: Path) -> tuple[Path, Path]:
    make_case("fix", plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "results"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    lenient = tmp_path / "g.json"
    lenient.write_text(json.dumps({"gate": {"minPassRate": 0.5}}))
    return run, lenient


def test_a_gate_given_with_config_is_said_to_be_so_with_the_runs_own(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, lenient = _run(proctor, make_case, tmp_path)
    said = f"from {lenient}, given with --config; the run's own gate is minPassRate 1.0"
    md = proctor("report", str(run), "--config", str(lenient))
    assert md.code == 0, md.err
    assert (
        f"- Gate: minPassRate 0.5 (from `{lenient}`, given with `--config`; the run's own gate "
        "is minPassRate 1.0)"
    ) in md.out
    assert f"proctor: note: the gate is minPassRate 0.5, {said}" in md.err
    data = proctor("report", str(run), "--config", str(lenient), "--json").json()
    assert data["gate"]["minPassRate"] == 0.5
    assert data["gateFrom"]["config"] == str(lenient)
    assert data["gateFrom"]["runGate"]["minPassRate"] == 1.0
    html = proctor("report", str(run), "--config", str(lenient), "--reporter", "html").out
    assert f"Gate: minPassRate 0.5 ({said})".replace("'", "&#39;") in html
    junit = proctor("report", str(run), "--config", str(lenient), "--reporter", "junit").out
    assert f'<property name="gate" value="minPassRate 0.5 ({said})" />' in junit
    # The run's own gate is a property too, as the Markdown's and the HTML's Gate line show it.
    own_junit = proctor("report", str(run), "--reporter", "junit").out
    assert '<property name="gate" value="minPassRate 1.0" />' in own_junit
    # No gate at all is said so.
    none = tmp_path / "none.json"
    none.write_text(json.dumps({"gate": {}}))
    ungated = proctor("report", str(run), "--config", str(none))
    assert "- Gate: none (always passes) (from " in ungated.out
    assert f"proctor: note: no gate applies, from {none}, given with --config" in ungated.err
    # The run's own gate, given with --config or not, is the run's own.
    same = tmp_path / "same.json"
    same.write_text(json.dumps({"gate": {"minPassRate": 1.0}}))
    for given in (("--config", str(same)), ()):
        own = proctor("report", str(run), "--json", *given)
        assert "gateFrom" not in own.json() and "given with --config" not in own.err
    assert proctor("report", str(run), "--config", str(same), "--write").code == 0


def test_write_under_another_gate_is_refused_unless_forced(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, lenient = _run(proctor, make_case, tmp_path)
    kept = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    refused = proctor("report", str(run), "--config", str(lenient), "--write")
    assert refused.code == 2 and refused.out == "", refused.err
    assert (
        f"--write {run}: the gate of {lenient} (minPassRate 0.5) is not the run's own "
        "(minPassRate 1.0), and the files --write rewrites would no longer show the gate it ran "
        "under: give --force to rewrite them under this gate, or --output FILE to write this "
        "report elsewhere"
    ) in refused.err
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == kept
    forced = proctor("report", str(run), "--config", str(lenient), "--write", "--force")
    assert forced.code == 0, forced.err
    assert (
        f"proctor: note: {run}'s suite.md, suite.json now hold the gate of {lenient} "
        "(minPassRate 0.5), not the run's own (minPassRate 1.0)"
    ) in forced.err
    assert "given with `--config`" in (run / "suite.md").read_text()
    assert json.loads((run / "suite.json").read_text())["gateFrom"]["config"] == str(lenient)
    # --force does both: the run's files, and an --output file that is not a report.
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n")
    both = ("--config", str(lenient), "--write", "--force", "--output", str(notes))
    assert proctor("report", str(run), *both).code == 0
    assert notes.read_text().startswith("# proctor run ")
    # Without --config, --write puts the run's own gate back.
    assert proctor("report", str(run), "--write").code == 0
    assert "gateFrom" not in json.loads((run / "suite.json").read_text())


def test_the_html_report_shows_the_gate_applied_as_the_markdown_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, _ = _run(proctor, make_case, tmp_path)
    html = proctor("report", str(run), "--reporter", "html").out
    assert '<p class="gate-line">Gate: minPassRate 1.0</p>' in html
    assert "- Gate: minPassRate 1.0\n" in proctor("report", str(run)).out
    none = tmp_path / "none.json"
    none.write_text(json.dumps({"gate": {}}))
    html = proctor("report", str(run), "--config", str(none), "--reporter", "html").out
    assert f"Gate: none (always passes) (from {none}, given with --config;" in html


def test_a_config_that_holds_no_gate_is_said_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, lenient = _run(proctor, make_case, tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    # The default gate is the run's own: nothing changes, and the note says why.
    same = proctor("report", str(run), "--config", str(empty), "--json")
    assert "gateFrom" not in same.json()
    assert (
        f"proctor: note: {empty}, given with --config, holds no gate: proctor's default gate "
        "(minPassRate 1.0) applies, which is the run's own"
    ) in same.err
    # A run under another gate: the default is named as such, never as the file's gate.
    out = tmp_path / "lenient-results"
    ran = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out), "--config", str(lenient)
    )
    assert ran.code == 0, ran.err
    (run,) = out.glob("run-*")
    other = proctor("report", str(run), "--config", str(empty))
    said = (
        f"proctor's default: {empty}, given with --config, holds no gate; the run's own gate "
        "is minPassRate 0.5"
    )
    assert f"proctor: note: the gate is minPassRate 1.0, {said}" in other.err
    assert (
        f"- Gate: minPassRate 1.0 (proctor's default: `{empty}`, given with `--config`, holds "
        "no gate; the run's own gate is minPassRate 0.5)"
    ) in other.out
    assert proctor("report", str(run), "--config", str(empty), "--json").json()["gateFrom"][
        "noGate"
    ]
    refused = proctor("report", str(run), "--config", str(empty), "--write")
    assert refused.code == 2
    assert (
        f"proctor's default gate (minPassRate 1.0; {empty} holds no gate) is not the run's own "
        "(minPassRate 0.5)"
    ) in refused.err


def test_output_into_the_run_folder_under_another_gate_needs_force(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, lenient = _run(proctor, make_case, tmp_path)
    own = (run / "suite.md").read_bytes()
    refused = proctor(
        "report", str(run), "--config", str(lenient), "--output", str(run / "suite.md")
    )
    assert refused.code == 2 and refused.out == "", refused.err
    assert "proctor: note:" not in refused.err  # none of a report it does not write
    assert (
        f"--output {run / 'suite.md'}: a file inside the run folder {run}, and the gate of {lenient} "
        "(minPassRate 0.5) is not the run's own (minPassRate 1.0)"
    ) in refused.err
    assert (run / "suite.md").read_bytes() == own
    # A folder of the run's (a trial's) is the run's too.
    trial = next(p for p in (run / "trials").iterdir() if p.is_dir())
    inside = proctor("report", str(run), "--config", str(lenient), "--output", str(trial / "x.md"))
    assert inside.code == 2 and not (trial / "x.md").exists(), inside.err
    assert f"--output {trial / 'x.md'}: a file inside the run folder {run}, and" in inside.err
    forced = ("--config", str(lenient), "--output", str(run / "suite.md"), "--force")
    assert proctor("report", str(run), *forced).code == 0
    assert "given with `--config`" in (run / "suite.md").read_text()
    # Elsewhere, or under the run's own gate, no --force is needed.
    assert (
        proctor(
            "report", str(run), "--config", str(lenient), "--output", str(tmp_path / "r.md")
        ).code
        == 0
    )
    assert proctor("report", str(run), "--output", str(run / "suite.md")).code == 0


def test_a_refused_report_prints_no_note_of_the_report_it_does_not_write(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Read together with another run (each with a note: stopped), or refused for its
    --goal-shape: the refusal alone, not the gate's note nor the runs' that come before it."""
    run, lenient = _run(proctor, make_case, tmp_path)
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(run.parent)).code == 0
    for each in run.parent.glob("run-*"):
        manifest = json.loads((each / "run.json").read_text())
        (each / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))
    other = next(each for each in run.parent.glob("run-*") if each != run)
    into = ("--config", str(lenient), "--output", str(run / "suite.md"))
    for refused in (
        proctor("report", str(run), str(other), *into),
        proctor("report", str(run), *into),
        proctor("report", str(run), str(other), "--goal-shape", "none"),
        proctor("report", str(run), "--goal-shape", "none"),
    ):
        assert refused.code == 2, refused.err
        assert refused.err.startswith("proctor: error: "), refused.err
    shown = proctor("report", str(run), str(other), *into[:2])
    assert shown.code == 130 and "proctor: note: " in shown.err  # the control


def test_report_says_a_config_not_there_as_run_says_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "one",
        config={"conditions": {"baseline": {}, "treatment": {}}},
        plan={"turns": [{"say": "hi"}]},
    )
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    missing = tmp_path / "nope.json"
    said = f"proctor: error: --config {missing}: no such file\n"
    ran = proctor("run", "--source", str(tmp_path / "cases"), "--config", str(missing))
    assert ran.code == 2 and ran.err == said, ran.err
    reported = proctor("report", str(run), "--config", str(missing))
    assert reported.code == 2 and reported.err == said, reported.err
