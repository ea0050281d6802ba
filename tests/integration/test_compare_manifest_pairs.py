"""`proctor compare` of the two run folders of a repeat manifest's pairs compares them run
against run (each condition with itself), and says how to pair their conditions instead."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}


def test_two_pairs_of_a_manifest_compared_say_how_to_read_them_as_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan={"turns": [{"say": "hi"}]})
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = ("plan-repeats", "--goal-labels", str(labels), "--pairs", "2")
    assert proctor(*planned, "--output", str(manifest)).code == 0
    out = tmp_path / "out"
    ran = proctor("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
                  "--out", str(out))  # fmt: skip
    assert ran.code == 0, ran.err
    (first,) = (out / "pair-1").glob("run-*")
    (second,) = (out / "pair-2").glob("run-*")
    compared = proctor("compare", str(first), str(second))
    assert compared.code == 0, compared.err
    assert (
        f"proctor: note: {first} and {second} are pairs of a repeat manifest "
        "(all-pair-1, all-pair-2): compared run against run, each condition "
        f"with itself; `proctor compare {first} {second} --treatment TREATMENT --baseline "
        "BASELINE` reads them as one sample set, the conditions of each pair paired"
    ) in compared.err, compared.err
    pooled = proctor("compare", str(first), str(second), "--treatment", "treatment")
    assert pooled.code == 0 and "repeat manifest" not in pooled.err, pooled.err
    # Two runs of no manifest: no such note.
    for name in ("a", "b"):
        assert (
            proctor("run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / name)).code
            == 0
        )
    (a,) = (tmp_path / "a").glob("run-*")
    (b,) = (tmp_path / "b").glob("run-*")
    plain = proctor("compare", str(a), str(b))
    assert plain.code == 0 and "repeat manifest" not in plain.err, plain.err
