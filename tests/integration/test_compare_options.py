"""`proctor compare`'s options as a user gives them: a `--config`, which no comparison takes,
is said so in one sentence, not Click's bare "No such option"."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


@pytest.mark.parametrize("given", [["--config", "proctor.json"], ["--config=x.json"], ["--config"]])
def test_a_config_given_to_compare_is_said_to_be_read_by_no_comparison(
    proctor: Run, make_case: MakeCase, tmp_path: Path, given: list[str]
) -> None:
    make_case("one", config=AB, plan=PLAN)
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    refused = proctor("compare", str(run), *given)
    assert refused.code == 2 and refused.out == ""
    assert refused.err.startswith(
        "proctor: error: --config: `proctor compare` reads no configuration, only the runs' "
        "stored trials as each run scored and measured them (--seed and --min-samples set its "
        "statistics); `proctor report RUN --config FILE` applies another file's gate (usage: "
        "proctor compare [OPTIONS] RUNS...;"
    ), refused.err
    assert refused.err.count("\n") == 1
    assert "--config" not in proctor("compare", "--help").out  # taken by no comparison
