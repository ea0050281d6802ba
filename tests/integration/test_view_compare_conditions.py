"""The Compare page's "compare its conditions" form offers the chosen run's conditions as the
treatment and the baseline to choose (it asked for them as free text, "(chosen)"): the pair
``proctor compare RUN`` would compare is chosen, its ``baseline`` condition as the baseline, and
each run offered carries its own conditions for the form to offer when it is chosen."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app
from proctor.view.index import ResultsIndex
from proctor.view.synthetic import write_run


def _form(page: str) -> str:
    form = page[page.index('id="compare-conditions"') :]
    return form[: form.index("</form>")]


def _chosen(form: str, side: str) -> tuple[list[str], str | None]:
    """The conditions a select offers, and the one selected."""
    select = form[form.index(f'<select name="{side}">') :]
    select = select[: select.index("</select>")]
    offered = re.findall(r'<option value="([^"]*)"', select)
    selected = re.findall(r'<option value="([^"]*)" selected', select)
    return offered, (selected[0] if selected else None)


def test_the_conditions_of_a_run_are_offered_as_choices(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_run(
        results, "run-20261201T000000Z-ab", trials=6, cases=1, conditions=("a", "baseline", "z")
    )
    write_run(results, "run-20261202T000000Z-xy", trials=4, cases=1, conditions=("x", "y"))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get("/compare").text
        asked = client.get("/compare?run=run-20261201T000000Z-ab").text
        given = client.get("/compare?run=run-20261201T000000Z-ab&treatment=z&baseline=a").text
        refused = client.get("/compare?run=run-20261201T000000Z-ab&treatment=a&baseline=a").text
    form = _form(page)
    assert 'placeholder="(chosen)"' not in form and "<input" not in form
    # Opened with no run chosen: the newest run of two conditions, the pair compare chooses.
    assert _chosen(form, "treatment") == (["x", "y"], "y")
    assert _chosen(form, "baseline") == (["x", "y"], "x")
    # Each run offered carries its conditions and its pair, for the form to offer on a change.
    carried = re.search(r"<option value=\"run-20261201T000000Z-ab\" data-choices='([^']*)'", form)
    assert carried is not None, form
    assert json.loads(unescape(carried.group(1))) == {
        "conditions": [["a", "a"], ["baseline", "baseline"], ["z", "z"]],
        "treatment": "a",
        "baseline": "baseline",
    }
    # The run asked for: its condition named `baseline` is the baseline, as compared.
    form = _form(asked)
    assert _chosen(form, "treatment") == (["a", "baseline", "z"], "a")
    assert _chosen(form, "baseline") == (["a", "baseline", "z"], "baseline")
    assert "a against baseline" in asked
    # A pair given in the address stays chosen, compared or refused.
    assert _chosen(_form(given), "treatment")[1] == "z"
    assert _chosen(_form(given), "baseline")[1] == "a"
    assert 'id="compare-error"' in refused
    assert _chosen(_form(refused), "treatment")[1] == "a"
    assert _chosen(_form(refused), "baseline")[1] == "a"


def test_the_page_reads_the_trials_of_the_runs_it_offers_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    write_run(results, "run-20261201T000000Z-ab", trials=4, cases=1, conditions=("a", "b"))
    write_run(results, "run-20261202T000000Z-one", trials=30, cases=3, conditions=("only",))
    read: list[str] = []
    query = ResultsIndex.query

    def counted(self: ResultsIndex, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        rows = query(self, sql, params)
        if "FROM trials" in sql and rows and "run" in dict(rows[0]):
            read.extend(row["run"] for row in rows)
        return rows

    with TestClient(build_app(ViewSettings(results=results))) as client:
        monkeypatch.setattr(ResultsIndex, "query", counted)
        page = client.get("/compare").text
    assert 'value="run-20261201T000000Z-ab"' in _form(page)
    # The run of one condition is not offered: its trials are not read to offer it.
    assert "run-20261201T000000Z-ab" in read and "run-20261202T000000Z-one" not in read


def test_a_run_s_a_b_gate_names_the_pair_chosen_and_compared(tmp_path: Path) -> None:
    """Three conditions, the run's gate comparing `z` with `baseline`: the page chooses and
    compares those two, as `proctor compare RUN` and `proctor report RUN` do, not the pair of
    sorted order (`a`); a pair named in the address is compared all the same."""
    from proctor.models.config import ABGate, Gate
    from proctor.models.io import write_record
    from proctor.models.run import ResolvedRecord

    results = tmp_path / "results"
    name = "run-20261201T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
    gate = Gate(ab=ABGate(treatment="z", baseline="baseline"))
    write_record(paths.resolved_json, ResolvedRecord(gate=gate))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get("/compare").text
        asked = client.get(f"/compare?run={name}").text
        named = client.get(f"/compare?run={name}&treatment=a").text
    form = _form(page)
    assert _chosen(form, "treatment") == (["a", "baseline", "z"], "z")
    assert _chosen(form, "baseline") == (["a", "baseline", "z"], "baseline")
    form = _form(asked)
    assert _chosen(form, "treatment")[1] == "z" and _chosen(form, "baseline")[1] == "baseline"
    assert "z against baseline" in asked and "a against baseline" not in asked
    assert "those of the run&#39;s A/B gate (gate.ab)" in asked
    assert _chosen(_form(named), "treatment")[1] == "a"
    assert "a against baseline" in named and "those of the run&#39;s A/B gate" not in named
    # The treatment named, the baseline is the gate's, said so.
    assert "the baseline compared is of the run&#39;s A/B gate (gate.ab)" in named


def test_one_side_named_in_the_address_has_the_other_from_the_run_s_gate(tmp_path: Path) -> None:
    """``?run=R&baseline=a`` filled the treatment by sorted order (``baseline``), not from the
    run's A/B gate as ``proctor compare RUN --baseline a`` does: the gate's treatment ``z`` is
    compared; a side named that is one of the gate's two has the gate's other on the other side
    (``?treatment=baseline``: ``z`` the baseline, not ``a``)."""
    from proctor.models.config import ABGate, Gate
    from proctor.models.io import write_record
    from proctor.models.run import ResolvedRecord

    results = tmp_path / "results"
    name = "run-20261201T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
    gate = Gate(ab=ABGate(treatment="z", baseline="baseline"))
    write_record(paths.resolved_json, ResolvedRecord(gate=gate))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        baseline = client.get(f"/compare?run={name}&baseline=a").text
        swapped = client.get(f"/compare?run={name}&treatment=baseline").text
        treatment = client.get(f"/compare?run={name}&treatment=z").text
    assert 'id="compare-error"' not in baseline and "z against a" in baseline
    assert _chosen(_form(baseline), "treatment")[1] == "z"
    assert _chosen(_form(baseline), "baseline")[1] == "a"
    assert "the treatment compared is of the run&#39;s A/B gate (gate.ab)" in baseline
    assert "baseline against z" in swapped
    assert _chosen(_form(swapped), "baseline")[1] == "z"
    assert "z against baseline" in treatment


def test_a_reload_reads_only_the_gates_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each load of the page read every offered run's resolved.json for its gate's pair: a
    reload reads none again, and a run whose resolved.json changed is read again, its new
    gate's pair offered."""
    import proctor.models.io as io
    from proctor.models.config import ABGate, Gate
    from proctor.models.io import write_record
    from proctor.models.run import ResolvedRecord

    results = tmp_path / "results"
    names = [f"run-2026120{i}T000000Z-ab" for i in (1, 2, 3)]
    for name in names:
        paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
        gate = Gate(ab=ABGate(treatment="z", baseline="baseline"))
        write_record(paths.resolved_json, ResolvedRecord(gate=gate))
    read: list[str] = []
    read_record = io.read_record

    def counted(path: Path, model: Any) -> Any:
        if Path(path).name == "resolved.json":
            read.append(Path(path).parent.name)
        return read_record(path, model)

    monkeypatch.setattr(io, "read_record", counted)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        client.get("/compare")
        assert sorted(set(read)) == names  # each offered run's gate, read once
        read.clear()
        client.get("/compare")
        assert read == []  # a reload: nothing changed, nothing read again
        gate = Gate(ab=ABGate(treatment="a", baseline="baseline", max_pass_rate_drop=0.25))
        write_record(results / names[0] / "resolved.json", ResolvedRecord(gate=gate))
        page = client.get("/compare").text
    assert read == [names[0]], read
    carried = re.search(rf"<option value=\"{names[0]}\" data-choices='([^']*)'", page)
    assert carried is not None and json.loads(unescape(carried.group(1)))["treatment"] == "a"


def test_a_gate_naming_a_condition_the_run_lacks_is_refused_as_compare_refuses_it(
    tmp_path: Path,
) -> None:
    """A gate naming a condition the run did not run (its resolved.json edited by hand): the
    page chose and compared the pair it would without a gate, where `proctor compare RUN` and
    `proctor report RUN` refuse it (exit 2); it now says their sentence, with the page's
    remedy, and its form offers the pair chosen as without a gate. A side named that leaves
    the gate's missing condition out is compared, as compare compares it."""
    from proctor.models.config import ABGate, Gate
    from proctor.models.io import write_record
    from proctor.models.run import ResolvedRecord

    results = tmp_path / "results"
    name = "run-20261201T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
    gate = Gate(ab=ABGate(treatment="q", baseline="baseline"))
    write_record(paths.resolved_json, ResolvedRecord(gate=gate))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        asked = client.get(f"/compare?run={name}")
        other = client.get(f"/compare?run={name}&baseline=z").text
        kept = client.get(f"/compare?run={name}&treatment=a").text
        both = client.get(f"/compare?run={name}&treatment=z&baseline=a").text
    assert asked.status_code == 200
    error = re.search(r'id="compare-error"[^>]*>(.*?)<', asked.text, re.S)
    assert error is not None, asked.text
    assert unescape(error.group(1)).strip() == (
        "the run's A/B gate (gate.ab) names the treatment 'q': not one of the run's conditions "
        "(a, baseline, z); choose the treatment and the baseline above"
    )
    assert " against " not in asked.text.split('id="compare-error"')[1]
    assert 'id="compare-note"' not in asked.text  # (no pair of the gate was compared)
    # The form still chooses a pair of the run's, as without a gate, to compare by hand.
    form = _form(asked.text)
    assert _chosen(form, "treatment") == (["a", "baseline", "z"], "a")
    assert _chosen(form, "baseline") == (["a", "baseline", "z"], "baseline")
    # The baseline named, the treatment would be the gate's `q`: refused too.
    assert 'id="compare-error"' in other and _chosen(_form(other), "baseline")[1] == "z"
    # The treatment named, the gate's baseline is the run's: compared, as compare does.
    assert 'id="compare-error"' not in kept and "a against baseline" in kept
    assert 'id="compare-error"' not in both and "z against a" in both


def test_a_run_whose_resolved_json_is_of_a_newer_schema_chooses_as_without_a_gate(
    tmp_path: Path,
) -> None:
    """One run's resolved.json of a schema this proctor does not know: the page still opens,
    that run offered the pair it would have without a gate."""
    results = tmp_path / "results"
    name = "run-20261201T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        # (indexed first: a newer proctor wrote it over since)
        paths.resolved_json.write_text('{"schemaVersion": 99}')
        page = client.get("/compare")
        asked = client.get(f"/compare?run={name}")
    assert (page.status_code, asked.status_code) == (200, 200)
    assert _chosen(_form(asked.text), "treatment")[1] == "a"


def test_a_gate_whose_two_sides_are_one_condition_is_refused_as_compare_refuses_it(
    tmp_path: Path,
) -> None:
    """A hand-edited gate.ab whose treatment and baseline are one condition: the page chose
    and compared another pair, said nothing; it now says the sentence `proctor compare RUN`
    refuses it with, and compares the pair both sides named, as compare does. The page
    without a run still opens, offering that run the pair chosen as without a gate."""
    from proctor.models.config import ABGate, Gate
    from proctor.models.io import write_record
    from proctor.models.run import ResolvedRecord

    results = tmp_path / "results"
    name = "run-20261201T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
    gate = Gate(ab=ABGate(treatment="z", baseline="baseline"))
    write_record(paths.resolved_json, ResolvedRecord(gate=gate))
    data = json.loads(paths.resolved_json.read_text())
    data["gate"]["ab"] = {"treatment": "baseline", "baseline": "baseline"}
    paths.resolved_json.write_text(json.dumps(data))
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get("/compare")
        asked = client.get(f"/compare?run={name}")
        one = client.get(f"/compare?run={name}&treatment=z").text
        both = client.get(f"/compare?run={name}&treatment=z&baseline=baseline").text
    assert (page.status_code, asked.status_code) == (200, 200)
    assert _chosen(_form(page.text), "treatment")[1] == "a"
    error = re.search(r'id="compare-error"[^>]*>(.*?)<', asked.text, re.S)
    assert error is not None, asked.text
    assert unescape(error.group(1)).strip() == (
        f"{paths.resolved_json}: field 'gate.ab': treatment and baseline are both 'baseline'; "
        "name two different conditions; it holds the run's gate: restore it, or choose the "
        "treatment and the baseline above"
    )
    assert " against " not in asked.text.split('id="compare-error"')[1]
    assert 'id="compare-error"' in one
    assert 'id="compare-error"' not in both and "z against baseline" in both


def test_a_gate_rewritten_with_its_size_and_modification_time_kept_is_read_again(
    tmp_path: Path,
) -> None:
    """The gate kept by the file's modification time and size: a rewrite keeping both (`cp
    -p`, `rsync -t`) was served the old gate's pair; the file's change time (in place) and
    inode (renamed over it) tell it too now. A run removed has its kept gate dropped as the page loads."""
    import os
    import shutil

    from proctor.models.config import ABGate, Gate
    from proctor.models.io import write_record
    from proctor.models.run import ResolvedRecord
    from proctor.view.routes import compare as route

    results = tmp_path / "results"
    name = "run-20261201T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "baseline", "z"))
    write_record(
        paths.resolved_json, ResolvedRecord(gate=Gate(ab=ABGate(treatment="z", baseline="a")))
    )
    resolved = paths.resolved_json

    def kept(text: str, in_place: bool) -> os.stat_result:
        """``text`` written over the file, its size and modification time kept: in place (as
        `cp -p` does), or into another file renamed over it (as `rsync -t` does)."""
        before = resolved.stat()
        if in_place:
            resolved.write_text(text)
        else:
            other = resolved.with_name(".resolved.json.tmp")
            other.write_text(text)
            os.replace(other, resolved)
        os.utime(resolved, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = resolved.stat()
        assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        return after

    with TestClient(build_app(ViewSettings(results=results))) as client:
        assert "z against a" in client.get(f"/compare?run={name}").text
        text = resolved.read_text()
        swapped = text.replace('"treatment": "z"', '"treatment": "@"')
        swapped = swapped.replace('"baseline": "a"', '"baseline": "z"').replace('"@"', '"a"')
        assert swapped != text and len(swapped) == len(text)
        first = resolved.stat()
        # In place, the inode is the file's: its change time tells, once the clock (as coarse
        # as the kernel keeps it) has moved on since the file was read.
        while (after := kept(swapped, in_place=True)).st_ctime_ns == first.st_ctime_ns:
            pass
        assert after.st_ino == first.st_ino
        assert "a against z" in client.get(f"/compare?run={name}").text
        kept(text, in_place=False)
        assert "z against a" in client.get(f"/compare?run={name}").text
        assert str(paths.resolved_json) in route._gates
        shutil.rmtree(results / name)  # (no longer offered: its gate is not asked for)
        assert client.get("/compare").status_code == 200
    assert str(paths.resolved_json) not in route._gates


@pytest.mark.parametrize("text", ['{"schemaVersion": 99}', "not json"])
def test_a_plan_that_does_not_read_is_noted_as_compare_notes_it(tmp_path: Path, text: str) -> None:
    """Both conditions named in the address over a resolved.json that does not read: the page
    refused one of a newer schema, and compared without a word over one that is not JSON (its
    trials planned and never run left out); it compares, noting the plan as `proctor compare
    RUN --treatment T --baseline B` notes it. So do two runs compared, one of them such a run
    (the viewer opened over it: one of a newer schema stopped it starting)."""
    results = tmp_path / "results"
    name, other = "run-20261201T000000Z-ab", "run-20261202T000000Z-ab"
    paths = write_run(results, name, trials=6, cases=1, conditions=("a", "b"))
    write_run(results, other, trials=6, cases=1, conditions=("a", "b"))
    paths.resolved_json.write_text(text)
    said = f"{paths.resolved_json}: "
    plan = (
        "it holds the run's plan: the trials the run planned that have no record (not run, "
        "or their trial.json removed) are left out, not listed as incomplete pairs nor "
        "counted as infra-errors"
    )
    with TestClient(build_app(ViewSettings(results=results))) as client:
        both = client.get(f"/compare?run={name}&treatment=b&baseline=a")
        runs = client.get(f"/compare?a={other}&b={name}")
        again = client.get(f"/compare?a={other}&b={name}")  # its records kept: said again
    for page in (both, runs, again):
        assert page.status_code == 200
        assert 'id="compare-error"' not in page.text, page.text
        note = re.search(r'id="compare-note">([^<]*)</p>', page.text)
        assert note is not None and said in unescape(note.group(1)), page.text
        assert unescape(note.group(1)).count(plan) == 1
    assert "b against a" in both.text
    assert 'id="compare-table"' in runs.text
