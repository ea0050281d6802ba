"""``proctor findings --config FILE`` (and ``dismiss --config FILE``): the results directory is
the ``out`` of the configuration file given, as ``proctor run --config FILE`` writes there, not
that of ``./proctor.json``; a file that is missing or does not read is one sentence, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run
from tests.integration.test_findings_cli import CONFIG, FAILING, ID


@pytest.fixture
def project(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A project whose runs go where ``ci.json`` says (``ci-out``), beside a ``proctor.json``
    that names another results directory, which holds no run."""
    make_case("hello", config=CONFIG, plan=FAILING)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ci.json").write_text(json.dumps({"out": "ci-out"}))
    (tmp_path / "proctor.json").write_text(json.dumps({"out": "local-out"}))
    result = proctor("run", "--source", "cases", "--config", "ci.json")
    assert result.code == 1, result.err
    assert (tmp_path / "ci-out" / "findings.json").is_file()
    return tmp_path


def test_findings_and_dismiss_read_the_out_of_the_config_given(proctor: Run, project: Path) -> None:
    plain = proctor("findings")  # ./proctor.json's out, where no run went
    assert plain.code == 2 and "local-out: not a results directory" in plain.err
    listed = proctor("findings", "--config", "ci.json", "--json")
    assert listed.code == 0, listed.err
    assert [f["id"] for f in listed.json()["findings"]] == [ID]
    table = proctor("findings", "--json", "--config", "ci.json", "--all")
    assert table.code == 0 and [f["id"] for f in table.json()["findings"]] == [ID], table.err
    missing = proctor("findings", "--config", "ci.json", "dismiss", "ffff", "--reason", "x")
    assert missing.code == 2
    assert "ci-out/findings.json (the out of --config ci.json): no finding 'ffff'" in missing.err
    after = proctor("findings", "dismiss", ID[:6], "--reason", "known", "--config", "ci.json")
    assert after.code == 0 and after.out == f"dismissed {ID}: known\n", after.err
    before = proctor("findings", "--config", "ci.json", "dismiss", ID, "--reason", "again")
    assert before.code == 0 and "its reason is now: again" in before.out, before.err


def test_a_config_without_out_reads_the_default_and_says_so(proctor: Run, project: Path) -> None:
    (project / "bare.json").write_text("{}")
    result = proctor("findings", "--config", "bare.json")
    assert result.code == 2
    assert (
        "proctor-results: not a results directory (no such folder; the default results "
        "directory: --config bare.json sets no out)"
    ) in result.err


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "--config nowhere.json: no such file"),
        ('{"out": ', "nowhere.json: malformed JSON at line 1"),
        ('{"out": 3}', "nowhere.json: field 'out': expected a string, got 3"),
        ('{"ot": "x"}', "nowhere.json: unknown key 'ot' (did you mean 'out'?"),
    ],
)
@pytest.mark.parametrize("dismiss", [False, True])
def test_a_config_that_does_not_read_is_one_sentence(
    proctor: Run, project: Path, text: str | None, said: str, dismiss: bool
) -> None:
    if text is not None:
        (project / "nowhere.json").write_text(text)
    args = ["dismiss", ID, "--reason", "x"] if dismiss else []
    result = proctor("findings", "--config", "nowhere.json", *args)
    assert result.code == 2
    assert result.err.startswith(f"proctor: error: {said}"), result.err
    assert "Traceback" not in result.err and result.out == ""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["ci-out", "--config", "ci.json"], "the results directory is given twice"),
        (["--config", "ci.json", "ci-out"], "the results directory is given twice"),
        (
            ["dismiss", ID, "--reason", "x", "--dir", "ci-out", "--config", "ci.json"],
            "the results directory is given twice",
        ),
        (
            ["--config", "ci.json", "dismiss", ID, "--reason", "x", "--config", "ci.json"],
            "--config is given twice",
        ),
        (
            ["ci-out", "--config", "ci.json", "dismiss", ID, "--reason", "x"],
            "the results directory is given twice: ci-out by name, and by the out of --config "
            "ci.json",
        ),
        (
            ["ci-out", "--json", "--config=ci.json", "dismiss", ID, "--reason", "x"],
            "the results directory is given twice: ci-out by name, and by the out of --config "
            "ci.json",
        ),
    ],
)
def test_a_folder_named_beside_a_config_is_refused(
    proctor: Run, project: Path, args: list[str], said: str
) -> None:
    result = proctor("findings", *args)
    assert result.code == 2 and said in result.err, result.err
    ledger = json.loads((project / "ci-out" / "findings.json").read_text())
    assert ledger["findings"][0]["state"] == "open", "nothing dismissed"


def test_a_configuration_named_as_the_results_directory_is_told_of_config(
    proctor: Run, project: Path
) -> None:
    result = proctor("findings", "ci.json")
    assert result.code == 2
    assert (
        "ci.json: not a results directory (a file); to read the out of a configuration file, "
        "give --config ci.json"
    ) in result.err


def test_a_default_folder_that_is_not_there_is_told_how_each_command_names_one(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no proctor.json, no proctor-results
    said = (
        "proctor-results: not a results directory (no such folder; the default results directory)"
    )
    listed = proctor("findings")
    assert listed.code == 2
    assert f"{said}; name the one your runs are in: `proctor findings RESULTS_DIR`" in listed.err
    dismissed = proctor("findings", "dismiss", ID, "--reason", "x")
    assert dismissed.code == 2
    assert (
        f"{said}; name the one your runs are in: "
        "`proctor findings dismiss ID --reason TEXT --dir RESULTS_DIR`"
    ) in dismissed.err


def test_a_folder_of_results_directories_names_them(proctor: Run, project: Path) -> None:
    """``proctor run --manifest``'s ``--out`` holds one results directory per pair, each with
    its own ledger: a folder of them is named as such, with the command that reads one."""
    (project / "many").mkdir()
    (project / "ci-out").rename(project / "many" / "pair-1")
    listed = proctor("findings", "many")
    assert listed.code == 2 and "Traceback" not in listed.err
    assert (
        "many: a folder of results directories (pair-1), not a results directory: each keeps "
        "the findings of its own runs; name one: `proctor findings many/pair-1`"
    ) in listed.err
    dismiss = proctor("findings", "dismiss", ID, "--reason", "x", "--dir", "many")
    assert dismiss.code == 2
    assert "name one: `proctor findings dismiss ID --reason TEXT --dir many/pair-1`" in dismiss.err
    (project / "proctor.json").unlink()
    (project / "many").rename(project / "proctor-results")
    default = proctor("findings")
    assert default.code == 2
    assert (
        "proctor-results (the default results directory): a folder of results directories (pair-1)"
    ) in default.err


def test_a_results_directory_of_empty_run_folders_is_said_so_as_report_says_it(
    proctor: Run, tmp_path: Path
) -> None:
    """Run folders with no run.json (runs stopped before their first trial): no run to apply and
    no ledger to list; said as `proctor report` says it, exit 2, not "no open findings"."""
    (tmp_path / "r2" / "run-20991207T000000Z-bbbbbb").mkdir(parents=True)
    said = (
        f"{tmp_path / 'r2'}: a results directory whose run folders (run-20991207T000000Z-bbbbbb) "
        "hold no run"
    )
    for args in (["findings", str(tmp_path / "r2")], ["report", str(tmp_path / "r2")]):
        result = proctor(*args)
        assert result.code == 2, (args, result.out, result.err)
        assert f"proctor: error: {said}" in result.err, result.err
        assert not (tmp_path / "r2" / "findings.json").exists()
    # The control: a run folder that holds a trial record (its run.json lost) is not said to
    # hold none.
    trial = tmp_path / "r8" / "run-20991207T000000Z-eeeeee" / "trials" / "c" / "a" / "x" / "1"
    trial.mkdir(parents=True)
    (trial / "trial.json").write_text("{}")
    for args in (["findings", str(tmp_path / "r8")], ["report", str(tmp_path / "r8")]):
        result = proctor(*args)
        assert "no trial record" not in result.err, (args, result.err)
    # … and findings says it applies no run whose run.json is gone, not only "no findings".
    said = proctor("findings", str(tmp_path / "r8")).err
    assert "holds trial records but no run.json; the run is not applied" in said, said


def test_the_default_results_directory_of_empty_run_folders_says_it_was_the_default(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "proctor-results" / "run-20991207T000000Z-bbbbbb").mkdir(parents=True)
    result = proctor("findings")
    assert result.code == 2, result.err
    assert result.err.startswith(
        "proctor: error: proctor-results (the default results directory): a results directory "
        "whose run folders (run-20991207T000000Z-bbbbbb) hold no run"
    ), result.err
