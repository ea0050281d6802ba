"""`proctor run --manifest`: a key the manifest does not know is refused with a sentence, not
lost; a manifest as proctor writes it (and wrote it) still loads."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}

WRITTEN_BEFORE = {  # a manifest as `proctor plan-repeats` has written it since it was added
    "schemaVersion": 2,
    "goalShape": None,
    "conditions": ["baseline", "treatment"],
    "tasks": ["t1"],
    "pairs": 2,
    "runs": [
        {"pair": 1, "order": ["baseline", "treatment"], "results": "pair-1", "session": "p-1"},
        {"pair": 2, "order": ["treatment", "baseline"], "results": "pair-2", "session": "p-2"},
    ],
}


def _run(proctor: Run, tmp_path: Path, data: dict[str, object]) -> tuple[int, str]:
    manifest = tmp_path / "repeats.json"
    manifest.write_text(json.dumps(data))
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    return ran.code, ran.err


def test_an_unknown_key_is_refused_with_its_place_the_keys_allowed_and_the_nearest(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    top = {**WRITTEN_BEFORE, "pair": 2}
    code, err = _run(proctor, tmp_path, top)
    assert code == 2 and "Traceback" not in err
    assert (
        f"{tmp_path / 'repeats.json'}: unknown key 'pair' (did you mean 'pairs'? known keys: "
        "conditions, goalShape, pairs, runs, schemaVersion, tasks)"
    ) in err
    runs = [dict(r) for r in WRITTEN_BEFORE["runs"]]  # type: ignore[attr-defined]
    runs[1]["sesion"] = "p-2b"
    code, err = _run(proctor, tmp_path, {**WRITTEN_BEFORE, "runs": runs})
    assert code == 2
    assert (
        "unknown key 'runs[1].sesion' (did you mean 'session'? known keys: order, pair, "
        "results, session)"
    ) in err
    runs[1].pop("sesion")
    runs[1]["condtion"] = "baseline"
    code, err = _run(proctor, tmp_path, {**WRITTEN_BEFORE, "runs": runs})
    assert code == 2 and "unknown key 'runs[1].condtion' (known keys: order, pair" in err
    assert not (tmp_path / "out").exists()


def test_a_manifest_proctor_wrote_still_runs(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    code, err = _run(proctor, tmp_path, WRITTEN_BEFORE)
    assert code == 0, err
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "2", "--conditions",
        "baseline,treatment", "--output", str(tmp_path / "new.json"),
    )  # fmt: skip
    assert planned.code == 0, planned.err
    assert set(json.loads((tmp_path / "new.json").read_text())) == set(WRITTEN_BEFORE)
