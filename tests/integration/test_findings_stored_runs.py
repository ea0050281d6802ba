"""``proctor findings`` of runs whose records are not as a finished run leaves them: a
``trial.json`` that does not read is said (the file named), never blamed on the agent; an eval
run that was killed is said to count never, since no command finishes it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run
from tests.integration.test_evals_cli import project, run_json
from tests.integration.test_findings_cli import FAILING, ID, PASSING, run_with


def test_a_trial_record_that_does_not_read_is_named_and_blamed_on_nothing(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    first = run_with(proctor, make_case, tmp_path, FAILING)
    latest = run_with(proctor, make_case, tmp_path, PASSING)
    copied = tmp_path / "copied"  # the runs copied into a new results folder: no ledger yet
    for run in (first, latest):
        shutil.copytree(run, copied / run.name)
    trial = copied / latest.name / "trials/hello/scripted/default/1/trial.json"
    trial.write_bytes(trial.read_bytes()[:100])  # truncated
    listed = proctor("findings", str(copied))
    assert listed.code == 0, listed.err
    assert f"proctor: note: {trial}: not a readable JSON file" in listed.err
    assert f"1 open finding ({ID}) was left without a result by the latest run of its suite" in (
        listed.out
    )
    assert f"the record of a trial of its case does not read ({trial})" in listed.out
    assert "an error, a timeout, a skip" not in listed.out
    again = proctor("findings", str(copied))  # the run is applied once, and said once
    assert again.code == 0 and "not a readable JSON file" not in again.err
    # The control: a trial that errored is an error, and said so.
    record = json.loads((latest / "trials/hello/scripted/default/1/trial.json").read_text())
    trial.write_text(json.dumps({**record, "status": "infra-error"}))
    (copied / "findings.json").unlink()
    errored = proctor("findings", str(copied))
    assert errored.code == 0 and "not a readable JSON file" not in errored.err
    assert "(an error, a timeout, a skip)" in errored.out and "does not read" not in errored.out


FAILS = """
    from proctor.evals import define_eval
    async def test(t):
        await t.send("hi")
        t.message_includes("goodbye")
    eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""


def test_a_killed_eval_run_is_said_never_to_count(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"a.eval.py": FAILS})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 1, result.err
    run_dir = Path(out["runDir"])
    manifest = json.loads((run_dir / "run.json").read_text())
    del manifest["finishedAt"]  # killed before it could say it finished
    (run_dir / "run.json").write_text(json.dumps(manifest))
    (tmp_path / "out" / "findings.json").unlink()
    listed = proctor("findings", str(tmp_path / "out"))
    assert listed.code == 0, listed.err
    assert (
        f"proctor: note: {run_dir.name} has not finished, and no proctor is running it (it was "
        "killed): an eval run cannot be resumed, so its checks never count; `proctor eval` runs "
        "its cases anew in a new run, whose checks count"
    ) in listed.err
    assert "and its checks count then" not in listed.err


def test_a_copy_of_a_run_in_its_results_folder_is_applied_once_and_said_once(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run folder copied beside itself (results merged from two machines, a pair's results
    # copied in twice): the same run id, whose failures would otherwise count twice.
    first = run_with(proctor, make_case, tmp_path, FAILING)
    results = first.parent
    copy = results / f"{first.name}-copy"
    shutil.copytree(first, copy)
    listed = proctor("findings", str(results), "--json")
    assert listed.code == 0, listed.err
    (finding,) = listed.json()["findings"]
    assert finding["id"] == ID and finding["failures"] == 1, finding
    assert listed.json()["runs"] == [first.name]
    assert (
        f"proctor: note: {copy}: a copy of the run {first.name} (its run.json gives that run "
        "id), which the findings ledger took in already; not applied again, or its failures "
        "would count twice"
    ) in listed.err, listed.err
    assert listed.json()["copies"] == {copy.name: first.name}
    # Recorded as a copy: said once, and neither it nor the runs taken in are read again.
    from proctor.report import findings
    from proctor.report.findings import update_ledger

    read: list[Path] = []
    reader = findings.read_record

    def read_record(path: Path, model: type[object]) -> object:
        if path.name == "run.json":
            read.append(path)
        return reader(path, model)  # type: ignore[type-var]

    monkeypatch.setattr(findings, "read_record", read_record)
    again = proctor("findings", str(results))
    assert again.code == 0 and "a copy of the run" not in again.err, again.err
    assert update_ledger(results).notes == [] and read == []
    # The ledger rebuilt from both folders: the one the run's id names is applied.
    (results / "findings.json").unlink()
    rebuilt = proctor("findings", str(results), "--json")
    assert rebuilt.code == 0, rebuilt.err
    assert [f["failures"] for f in rebuilt.json()["findings"]] == [1]
    assert rebuilt.json()["runs"] == [first.name]
    assert f"which the findings ledger takes in from {first.name}; not applied" in rebuilt.err


def test_a_copy_of_a_run_that_does_not_read_is_recorded_only_once_the_run_is_applied(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    first = run_with(proctor, make_case, tmp_path, FAILING)
    results = first.parent
    (results / "findings.json").unlink()
    copy = results / f"{first.name}-copy"
    shutil.copytree(first, copy)
    (first / "trials/hello/scripted/default/1/trial.json").write_text('{"schemaVersion": 99}')
    listed = proctor("findings", str(results), "--json")
    assert listed.code == 0, listed.err
    assert listed.json()["runs"] == [] and listed.json()["copies"] == {}, listed.out
    assert "the run is not applied to the findings ledger" in listed.err, listed.err
    assert "which the findings ledger takes in from" not in listed.err, listed.err
    # The copy held back with it is named, not left out unsaid (it was: only the run was).
    assert (
        f"proctor: note: {copy}: a copy of the run {first.name} (its run.json gives that run "
        f"id), held back with {first.name}, whose records do not read: applied neither as the "
        "run nor as its copy until that run is applied (then recorded as its copy) or its "
        "folder is removed (then applied in its stead)\n"
    ) in listed.err, listed.err
    assert listed.err.index("the run is not applied") < listed.err.index(f"{copy}: a copy")
    # The unreadable run removed: its copy is the run's one folder, and applied.
    shutil.rmtree(first)
    applied = proctor("findings", str(results), "--json")
    assert applied.code == 0, applied.err
    assert applied.json()["runs"] == [copy.name] and applied.json()["copies"] == {}
    assert [f["failures"] for f in applied.json()["findings"]] == [1]


def test_a_run_whose_copy_was_applied_in_its_stead_is_not_applied_again_once_it_reads(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The run's run.json did not read, so its copy was the run's one folder, and applied; the
    run.json mended, the run is that copy's run, taken in already (it was applied a second
    time: its failure counted twice)."""
    first = run_with(proctor, make_case, tmp_path, FAILING)
    results = first.parent
    (results / "findings.json").unlink()
    copy = results / f"{first.name}-copy"
    shutil.copytree(first, copy)
    manifest = (first / "run.json").read_text()
    (first / "run.json").write_text("{")
    applied = proctor("findings", str(results), "--json")
    assert applied.code == 0 and applied.json()["runs"] == [copy.name], applied.err
    (first / "run.json").write_text(manifest)
    mended = proctor("findings", str(results), "--json")
    assert mended.code == 0, mended.err
    assert [f["failures"] for f in mended.json()["findings"]] == [1]
    assert mended.json()["copies"] == {first.name: first.name}
    assert (
        f"proctor: note: {first}: a copy of the run {first.name} (its run.json gives that run "
        f"id), which the findings ledger took in already from {copy.name}; not applied again"
    ) in mended.err, mended.err


def test_a_run_whose_copy_was_applied_and_removed_is_not_applied_again_once_it_reads(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As above, but the copy's folder is removed before the run.json is mended: the ledger
    recorded the copy's run id when it applied it, so the run is still known as taken in (it
    was applied a second time: no folder was left to say which run the copy was)."""
    first = run_with(proctor, make_case, tmp_path, FAILING)
    results = first.parent
    (results / "findings.json").unlink()
    copy = results / f"{first.name}-copy"
    shutil.copytree(first, copy)
    manifest = (first / "run.json").read_text()
    (first / "run.json").write_text("{")
    applied = proctor("findings", str(results), "--json")
    assert applied.code == 0 and applied.json()["runs"] == [copy.name], applied.err
    shutil.rmtree(copy)
    (first / "run.json").write_text(manifest)
    mended = proctor("findings", str(results), "--json")
    assert mended.code == 0, mended.err
    assert [f["failures"] for f in mended.json()["findings"]] == [1]
    assert mended.json()["copies"] == {first.name: first.name}
    ledger = json.loads((results / "findings.json").read_text())
    assert ledger["runIds"] == {copy.name: first.name}


def test_a_ledger_of_schema_5_learns_its_runs_ids_from_their_folders(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A ledger written before proctor kept ``runIds`` has each run's filled in from its
    folder's run.json while that folder reads, so a copy is known later without it."""
    first = run_with(proctor, make_case, tmp_path, FAILING)
    results = first.parent
    ledger = json.loads((results / "findings.json").read_text())
    assert ledger["schemaVersion"] == 6 and ledger["runIds"] == {first.name: first.name}
    del ledger["runIds"]
    (results / "findings.json").write_text(json.dumps({**ledger, "schemaVersion": 5}))
    assert proctor("findings", str(results)).code == 0
    ledger = json.loads((results / "findings.json").read_text())
    assert ledger["schemaVersion"] == 6 and ledger["runIds"] == {first.name: first.name}


def test_a_copy_in_a_folder_named_like_another_run_id_is_known_as_its_run_s(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As above, the copy's folder named as ``proctor run`` names one (run-<stamp>-<6 hex>),
    but not by its own run id: the run is known as taken in (its folder's name was taken for
    its run id, the run applied a second time)."""
    first = run_with(proctor, make_case, tmp_path, FAILING)
    results = first.parent
    (results / "findings.json").unlink()
    copy = results / "run-20200101T000000Z-abcdef"
    shutil.copytree(first, copy)
    manifest = (first / "run.json").read_text()
    (first / "run.json").write_text("{")
    applied = proctor("findings", str(results), "--json")
    assert applied.code == 0 and applied.json()["runs"] == [copy.name], applied.err
    (first / "run.json").write_text(manifest)
    mended = proctor("findings", str(results), "--json")
    assert mended.code == 0, mended.err
    assert [f["failures"] for f in mended.json()["findings"]] == [1]
    assert mended.json()["copies"] == {first.name: first.name}
