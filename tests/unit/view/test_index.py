"""The viewer's sqlite index: built from the records, re-read only where they changed."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from array import array
from pathlib import Path

import pytest

import proctor.view.index as index_module
from proctor.models.io import read_record, write_record, write_text_atomic
from proctor.models.run import AnnotationsRecord, JournalEntry, RunManifest
from proctor.models.trial import TrialAnnotation, TrialRecord
from proctor.view.index import ResultsIndex
from proctor.view.schema import INDEX_FILE, SCHEMA, SCHEMA_VERSION
from proctor.view.synthetic import trial_record, write_run

RUN = "run-20261201T000000Z-aaaaaa"


@pytest.fixture
def read_paths(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every trial.json the index reads, in order."""
    seen: list[Path] = []
    real = index_module.read_trial_rows

    def spy(run_dir: Path, paths: list[Path]):  # type: ignore[no-untyped-def]
        seen.extend(paths)
        return real(run_dir, paths)

    monkeypatch.setattr(index_module, "read_trial_rows", spy)
    return seen


def test_runs_and_trials_are_indexed_from_the_records(tmp_path: Path) -> None:
    write_run(tmp_path, RUN, trials=12, cases=3, conditions=("a", "b"))
    index = ResultsIndex(tmp_path)
    assert index.refresh(force=True) == 1
    run = index.run_row(RUN)
    assert run is not None
    assert run["trials"] == 12
    statuses = [r[0] for r in index.query("SELECT status FROM trials ORDER BY key")]
    assert run["passes"] == statuses.count("passed")
    assert run["scored"] == sum(s in ("passed", "failed", "timeout") for s in statuses)
    assert json.loads(run["conditions"]) == ["a", "b"]
    assert run["exit_code"] is not None and run["in_progress"] == 0
    assert (tmp_path / INDEX_FILE).is_file()


def test_only_changed_trials_are_read_again(tmp_path: Path, read_paths: list[Path]) -> None:
    paths = write_run(tmp_path, RUN, trials=6, cases=2)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    assert len(read_paths) == 6
    read_paths.clear()
    assert index.refresh(force=True) == 0 and read_paths == []

    changed = paths.trial("case-001", "scripted", "default", 2)
    write_record(
        changed.trial_json, trial_record("case-001", "scripted", "default", 2, status="failed")
    )
    added = paths.trial("case-001", "scripted", "default", 9)
    write_record(added.trial_json, trial_record("case-001", "scripted", "default", 9))
    _journal(paths.journal, "trial-finished")
    assert index.refresh(force=True) == 1
    assert sorted(read_paths) == sorted([changed.trial_json, added.trial_json])
    rows = dict(index.query("SELECT key, status FROM trials"))
    assert rows["case-001/scripted/default/2"] == "failed"
    assert len(rows) == 7


def test_a_removed_run_leaves_the_index(tmp_path: Path) -> None:
    write_run(tmp_path, RUN, trials=2, cases=1)
    write_run(tmp_path, "run-b", trials=2, cases=1)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    shutil.rmtree(tmp_path / "run-b")
    index.refresh(force=True)
    assert [r[0] for r in index.query("SELECT name FROM runs")] == [RUN]
    assert {r[0] for r in index.query("SELECT DISTINCT run FROM trials")} == {RUN}


@pytest.mark.parametrize("damage", ["other-schema", "not-sqlite"])
def test_an_index_of_another_schema_or_a_damaged_one_is_rebuilt(
    tmp_path: Path, damage: str
) -> None:
    write_run(tmp_path, RUN, trials=3, cases=1)
    ResultsIndex(tmp_path).refresh(force=True)
    db_path = tmp_path / INDEX_FILE
    if damage == "other-schema":
        with sqlite3.connect(db_path) as db:
            db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
            db.execute("DELETE FROM trials")
    else:
        for suffix in ("-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        db_path.write_bytes(b"this is not a database" * 100)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    assert index.query("SELECT count(*) FROM trials")[0][0] == 3


def test_annotations_are_applied_and_followed(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=2, cases=1)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    key = "case-000/scripted/default/1"
    assert dict(index.query("SELECT key, status FROM trials"))[key] == "passed"
    mark = TrialAnnotation(trial=key, verdict="excluded", note="flaky box", at="2026-12-01")
    write_record(paths.annotations, AnnotationsRecord(annotations=[mark]))
    index.refresh(force=True)
    row = index.query("SELECT status, reason FROM trials WHERE key = ?", (key,))[0]
    assert row["status"] == "skipped" and "flaky box" in row["reason"]


def test_a_run_whose_orchestrator_lives_is_in_progress(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=2, cases=1, finished=False)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    assert index.run_row(RUN)["in_progress"] == 1  # type: ignore[index]
    # control: the same run whose orchestrator has exited is not running
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    entry = JournalEntry(event="run-started", time="2026-12-01T00:00:00Z", pid=int(dead.stdout))
    write_text_atomic(paths.journal, entry.model_dump_json(by_alias=True) + "\n")
    index.refresh(force=True)
    assert index.run_row(RUN)["in_progress"] == 0  # type: ignore[index]
    assert read_record(paths.run_json, RunManifest).finished_at is None


def _journal(path: Path, event: str) -> None:
    entry = JournalEntry(event=event, time="2026-12-01T00:00:01Z")  # type: ignore[arg-type]
    with path.open("a", encoding="utf-8") as fh:
        fh.write(entry.model_dump_json(by_alias=True) + "\n")


def test_an_index_made_before_batches_had_owners_gains_the_column_and_keeps_its_rows(
    tmp_path: Path,
) -> None:
    db = sqlite3.connect(tmp_path / INDEX_FILE)
    db.executescript(SCHEMA.replace(", owner TEXT", ""))
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    db.execute(
        "INSERT INTO batches VALUES ('b1', 'then', 'finished', 'suite', '[]', NULL, 0, '', NULL)"
    )
    db.commit()
    db.close()
    index = ResultsIndex(tmp_path)
    try:
        (row,) = index.query("SELECT id, state, owner FROM batches")
        assert (row["id"], row["state"], row["owner"]) == ("b1", "finished", None)
    finally:
        index.close()


@pytest.mark.parametrize("journal", ["fifo", "not-utf8", "deep"])
def test_a_journal_that_cannot_be_read_never_blocks_or_breaks_the_index(
    tmp_path: Path, journal: str
) -> None:
    import os
    import threading

    paths = write_run(tmp_path, RUN, trials=2, cases=1, finished=False)
    paths.journal.unlink()
    if journal == "fifo":
        os.mkfifo(paths.journal)
    elif journal == "not-utf8":
        paths.journal.write_bytes(b'\xff\xfe{"event": "run-started"}\n')
    else:
        paths.journal.write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + ', "r": "run-"}\n')
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(_refreshed(tmp_path)), daemon=True)
    worker.start()
    worker.join(10)
    assert done == [0], "the index hung or failed on the journal"


def _refreshed(results: Path) -> int:
    index = ResultsIndex(results)
    index.refresh(force=True)
    return int(index.run_row(RUN)["in_progress"])  # type: ignore[index]


def test_a_count_sqlite_cannot_hold_is_kept_as_a_real(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=2, cases=1)
    manifest = json.loads(paths.run_json.read_text())
    manifest["trialsPlanned"] = 10**20
    paths.run_json.write_text(json.dumps(manifest))
    (trial,) = sorted(paths.root.glob("trials/*/*/*/1/trial.json"))[:1]
    record = json.loads(trial.read_text())
    record["usage"] = {"m": {"inputTokens": 10**20, "responses": 1}}
    trial.write_text(json.dumps(record))
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    assert index.run_row(RUN)["planned"] == 1e20  # type: ignore[index]


def test_a_viewer_of_one_run_leaves_the_folder_index_alone(tmp_path: Path) -> None:
    other = "run-20261201T000001Z-bbbbbb"
    write_run(tmp_path, RUN, trials=2, cases=1)
    write_run(tmp_path, other, trials=2, cases=1)
    whole = ResultsIndex(tmp_path)
    whole.refresh(force=True)
    single = ResultsIndex(tmp_path, only=RUN)
    single.refresh(force=True)
    whole.refresh(force=True)
    assert whole.run_row(other) is not None and single.run_row(other) is None
    assert single.db_path != whole.db_path and single.db_path.parent == tmp_path


def test_two_indexes_of_one_folder_refresh_at_once_without_a_lock_error(tmp_path: Path) -> None:
    import threading

    for n in range(6):
        write_run(tmp_path, f"run-20261201T00000{n}Z-cccccc", trials=4, cases=2)
    errors: list[BaseException] = []
    ready = threading.Barrier(3)

    def churn() -> None:
        ready.wait()  # opened together: the index is made by one of them, whole
        index = ResultsIndex(tmp_path)
        try:
            for _ in range(30):
                index.refresh(force=True)
                (tmp_path / "run-20261201T000000Z-cccccc" / "journal.jsonl").touch()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=churn) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []


def test_records_linked_in_from_elsewhere_are_not_the_runs_own(tmp_path: Path) -> None:
    paths = write_run(tmp_path / "results", RUN, trials=2, cases=1)
    outside = tmp_path / "outside.json"
    manifest = json.loads(paths.run_json.read_text())
    manifest["source"] = "FROM-OUTSIDE"
    outside.write_text(json.dumps(manifest))
    paths.run_json.unlink()
    paths.run_json.symlink_to(outside)
    index = ResultsIndex(tmp_path / "results")
    index.refresh(force=True)
    row = index.run_row(RUN)
    assert row is not None and row["source"] != "FROM-OUTSIDE"


def test_a_batch_claims_only_the_run_its_own_process_started(tmp_path: Path) -> None:
    from proctor.view.playground import _started_by

    paths = write_run(tmp_path, RUN, trials=1, cases=1)
    entry = JournalEntry(event="run-started", time="2026-12-01T00:00:00Z", pid=4242)
    write_text_atomic(paths.journal, entry.model_dump_json(by_alias=True) + "\n")
    assert _started_by(paths.root, 4242)
    assert not _started_by(paths.root, 4243)  # another run, started meanwhile
    paths.journal.unlink()
    assert not _started_by(paths.root, 4242)  # not written yet: looked at again later


def test_a_viewer_of_a_run_with_a_long_name_keeps_its_index_beside_it(tmp_path: Path) -> None:
    long_run = "run-" + "L" * 240
    write_run(tmp_path, long_run, trials=1, cases=1)
    single = ResultsIndex(tmp_path, only=long_run)
    single.refresh(force=True)
    assert single.run_row(long_run) is not None
    assert len(single.db_path.name.encode()) <= 255


def test_a_trajectory_rewritten_in_place_is_scanned_again_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.jsonl"
    path.write_bytes(b'{"type": "user_message", "text": "old"}\n' * 4)
    first = ResultsIndex(tmp_path)
    try:
        assert first.trajectory_offsets(RUN, "k", path).lines == 4
        with path.open("wb") as fh:  # the same inode, longer
            fh.write(b'{"type": "tool_call", "id": "t"}\n' * 6)
        rewritten = first.trajectory_offsets(RUN, "k", path)
        assert rewritten.lines == 6 and list(rewritten.tool_calls) == list(range(6))
        with path.open("wb") as fh:  # again, the same size: only the fingerprint tells
            fh.write(b'{"type": "tool_call", "id": "u"}\n' * 6)
        rewritten = first.trajectory_offsets(RUN, "k", path)
    finally:
        first.close()
    later = ResultsIndex(tmp_path)  # another viewer reads the offsets the first one kept
    try:
        (row,) = later.query("SELECT fingerprint, scanned_to FROM trajectories")
        assert (row["fingerprint"], row["scanned_to"]) == (rewritten.fingerprint, 6 * 33)
        assert later.trajectory_offsets(RUN, "k", path).lines == 6
    finally:
        later.close()


def test_a_batch_takes_a_run_once_its_records_are_written(tmp_path: Path) -> None:
    """A run names its process in the journal just before its run.json: the playground ties
    a batch to the run only once both are there."""
    from proctor.session.journal import append
    from proctor.view.playground import _started_by

    run = tmp_path / "run-20261205T000000Z-abcdef"
    run.mkdir()
    append(run / "journal.jsonl", JournalEntry(event="run-started", time="t", pid=4242))
    assert not _started_by(run, 4242)  # the journal alone: the run is still starting
    (run / "run.json").write_text("{}")
    assert _started_by(run, 4242) and not _started_by(run, 4343)


@pytest.mark.parametrize(
    ("costs", "total"),
    [
        ([1.25, 1.25, "setup-failed"], 2.5),  # a trial that never reached its agent adds 0
        (["setup-failed"] * 3, 0.0),
        ([1.25, "unpriced", "setup-failed"], None),  # a model without a price: unknown
        (["not-collected"] * 3, None),  # --no-collect-cost: unknown
    ],
)
def test_a_run_s_cost_is_summed_as_report_sums_it(
    tmp_path: Path, costs: list[float | str], total: float | None
) -> None:
    from proctor.models.pricing import CostInfo
    from proctor.report.effort import cost_rollup
    from proctor.report.stored import load_run

    paths = write_run(tmp_path, RUN, trials=3, cases=1)
    for repeat, cost in enumerate(costs, start=1):
        trial = paths.trial("case-000", "scripted", "default", repeat).trial_json
        record = read_record(trial, type(trial_record("c", "a", "d", 1)))
        if cost == "unpriced":
            info = CostInfo(by_model={"mystery-1": None}, unpriced=["mystery-1"])
        elif cost == "not-collected":
            info = CostInfo(collected=False)
        elif cost == "setup-failed":
            info = CostInfo()  # no model named: nothing was spent
        else:
            info = CostInfo(total_usd=cost, by_model={"claude-sonnet-4": cost})
        write_record(trial, record.model_copy(update={"cost": info}))
    report_total, _ = cost_rollup(load_run(paths.root, need_gate=False).records)
    assert report_total == total  # the report's rule, which the index must follow
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        row = index.run_row(RUN)
        assert row is not None and row["cost_usd"] == total
    finally:
        index.close()


def test_an_index_made_before_trials_had_a_share_of_cost_reads_them_again(
    tmp_path: Path,
) -> None:
    write_run(tmp_path, RUN, trials=3, cases=1)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    index.close()
    db = sqlite3.connect(tmp_path / INDEX_FILE)  # as an older viewer left it
    db.execute("ALTER TABLE trials DROP COLUMN spent_usd")
    db.execute("UPDATE runs SET cost_usd = NULL")
    db.commit()
    db.close()
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        row = index.run_row(RUN)
        assert row is not None and row["cost_usd"] == 0.0
    finally:
        index.close()


def test_an_index_made_before_trials_kept_their_warnings_reads_them_again(
    tmp_path: Path,
) -> None:
    paths = write_run(tmp_path, RUN, trials=1, cases=1)
    trial = paths.trial("case-000", "scripted", "default", 1).trial_json
    record = read_record(trial, TrialRecord)
    write_record(trial, record.model_copy(update={"warnings": ["steps never played"]}))
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    index.close()
    db = sqlite3.connect(tmp_path / INDEX_FILE)  # as an older viewer left it
    db.execute("ALTER TABLE trials DROP COLUMN warnings")
    db.commit()
    db.close()
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        (row,) = index.query("SELECT warnings FROM trials WHERE run = ?", (RUN,))
        assert json.loads(row["warnings"]) == ["steps never played"]
    finally:
        index.close()


def test_offsets_of_an_index_that_counted_tool_list_searches_as_steps_are_scanned_again(
    tmp_path: Path,
) -> None:
    trajectory = tmp_path / "trajectory.jsonl"
    lines = [
        {"type": "tool_call", "id": "s", "name": "ToolSearch", "kind": "other"},
        {"type": "tool_call", "id": "a", "name": "Read", "kind": "read"},
    ]
    trajectory.write_text("".join(json.dumps(line) + "\n" for line in lines))
    index = ResultsIndex(tmp_path)
    try:
        assert list(index.trajectory_offsets("r", "k", trajectory).tool_calls) == [1]
    finally:
        index.close()
    db = sqlite3.connect(tmp_path / INDEX_FILE)  # as an index made before: both lines steps
    db.execute("UPDATE trajectories SET tool_calls = ?", (array("q", [0, 1]).tobytes(),))
    db.execute("DELETE FROM meta WHERE key = 'steps'")
    db.commit()
    db.close()
    index = ResultsIndex(tmp_path)
    try:
        assert list(index.trajectory_offsets("r", "k", trajectory).tool_calls) == [1]
        index.close()
        index = ResultsIndex(tmp_path)  # opened again: the offsets kept
        assert index.query("SELECT count(*) AS n FROM trajectories")[0]["n"] == 1
    finally:
        index.close()


def test_an_index_made_before_runs_kept_their_problem_reads_the_runs_again(
    tmp_path: Path,
) -> None:
    write_run(tmp_path, RUN, trials=1, cases=1)
    (tmp_path / RUN / "run.json").write_text("{not json")
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    index.close()
    db = sqlite3.connect(tmp_path / INDEX_FILE)  # as an older viewer left it
    db.execute("ALTER TABLE runs DROP COLUMN problem")
    db.commit()
    db.close()
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        row = index.run_row(RUN)
        assert row is not None and row["problem"].startswith("run.json: not a readable JSON")
    finally:
        index.close()


def _made_by_eval(run_dir: Path, command: str = "eval") -> None:
    """The run's ``run.json`` as ``proctor eval`` (or ``command``) writes it (its argv names
    the command)."""
    manifest = read_record(run_dir / "run.json", RunManifest)
    write_record(run_dir / "run.json", manifest.model_copy(update={"argv": ["proctor", command]}))


def test_a_run_of_proctor_eval_is_indexed_as_one(tmp_path: Path) -> None:
    write_run(tmp_path, RUN, trials=1, cases=1)
    write_run(tmp_path, "run-20261202T000000Z-bbbbbb", trials=1, cases=1)
    _made_by_eval(tmp_path / "run-20261202T000000Z-bbbbbb")
    write_run(tmp_path, "run-20261203T000000Z-cccccc", trials=1, cases=1)
    _made_by_eval(tmp_path / "run-20261203T000000Z-cccccc", "record")
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        commands = dict(index.query("SELECT name, command FROM runs"))
        assert commands == {
            RUN: "run",
            "run-20261202T000000Z-bbbbbb": "eval",
            "run-20261203T000000Z-cccccc": "record",
        }
    finally:
        index.close()


def test_an_index_made_before_runs_kept_their_command_reads_the_runs_again(
    tmp_path: Path,
) -> None:
    write_run(tmp_path, RUN, trials=1, cases=1)
    _made_by_eval(tmp_path / RUN)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    index.close()
    db = sqlite3.connect(tmp_path / INDEX_FILE)  # as an older viewer left it
    db.execute("ALTER TABLE runs DROP COLUMN command")
    db.commit()
    db.close()
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        row = index.run_row(RUN)
        assert row is not None and row["command"] == "eval"
    finally:
        index.close()


def test_an_eval_run_left_unfinished_is_indexed_with_the_hint_to_run_it_again(
    tmp_path: Path,
) -> None:
    """The stored reason of a run left unfinished said `proctor run --resume DIR` finishes
    it, also of a run of `proctor eval`, which cannot be resumed."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1, finished=False)
    paths.journal.unlink()  # nothing runs it any more
    _made_by_eval(tmp_path / RUN)
    index = ResultsIndex(tmp_path)
    try:
        index.refresh(force=True)
        row = index.run_row(RUN)
        assert row is not None and row["exit_reason"] == (
            "this run did not finish (the process that ran it is gone), so it has no exit code: "
            "`proctor eval` again runs its cases anew (an eval run cannot be resumed)"
        )
    finally:
        index.close()
