"""Number options refuse NaN and infinity with a sentence and exit 2 (click's ranges alone let
NaN through every bound)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from proctor.cli.options import FiniteRange
from tests.conftest import MakeCase, Run


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf", "1e400"])
def test_a_range_refuses_what_is_not_finite(text: str) -> None:
    with pytest.raises(click.BadParameter, match="is not a finite number"):
        FiniteRange().convert(text, None, None)  # no bound to catch it first


def test_control_a_range_keeps_its_bounds_and_numbers() -> None:
    assert FiniteRange(0, 1).convert("0.5", None, None) == 0.5
    with pytest.raises(click.BadParameter, match="not in the range"):
        FiniteRange(0, 1).convert("2", None, None)


@pytest.mark.parametrize(
    "argv",
    [
        ("run", "--timeout", "nan"),
        ("run", "--budget-usd", "inf"),
        ("hooks", "test", "--timeout", "nan"),
        ("memory-eval", "--min-precision", "nan"),
    ],
)
def test_commands_refuse_nan_with_exit_2(proctor: Run, argv: tuple[str, ...]) -> None:
    result = proctor(*argv)
    assert result.code == 2 and "is not a finite number" in result.err, result.err


WITH_OUT = [
    ("run", "--dry-run", "--source", "."),
    ("eval", "x"),
    ("prepare", "c"),
    ("record", "c", "--workspace", "."),
]
"""The commands that take --out, each as it would otherwise run."""


@pytest.mark.parametrize("blank", ["", " ", "\t"])
@pytest.mark.parametrize("argv", WITH_OUT)
def test_a_blank_out_is_refused_with_exit_2(
    proctor: Run, argv: tuple[str, ...], blank: str
) -> None:
    """``--out ""`` was the current folder (results among the cases), ``--out " "`` a folder
    named by a space."""
    result = proctor(*argv, "--out", blank)
    assert result.code == 2, result.err
    said = (
        f"'--out': expected the path of a results folder, not a blank one, got {json.dumps(blank)}"
    )
    assert said in result.err  # quoted as proctor.json's "out" is


@pytest.mark.parametrize("blank", ["", " "])
@pytest.mark.parametrize(
    "argv", [("run", "--dry-run"), ("validate",), ("prepare", "c"), ("record", "c")]
)
def test_a_blank_source_is_refused_with_exit_2(
    proctor: Run,
    make_case: MakeCase,
    argv: tuple[str, ...],
    blank: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--source "$SUITE"`` with the variable unset read the current folder's cases."""
    make_case("c")
    monkeypatch.chdir(tmp_path / "cases")
    result = proctor(*argv, "--source", blank)
    assert result.code == 2, result.err
    assert (
        "Invalid value for '--source': expected a folder of cases, a case folder or a task "
        f"file, not a blank path, got {json.dumps(blank)}"
    ) in result.err
    assert not (tmp_path / "cases" / "proctor-results").exists()


@pytest.mark.parametrize("argv", WITH_OUT)
def test_an_out_that_is_a_file_is_one_sentence_of_proctor_s(
    proctor: Run, argv: tuple[str, ...], tmp_path: Path
) -> None:
    """``--out FILE`` was click's "Invalid value for '--out': Directory 'FILE' is a file"."""
    file = tmp_path / "afile"
    file.write_text("kept\n")
    result = proctor(*argv, "--out", str(file))
    assert result.code == 2, result.err
    assert f"proctor: error: --out {file}: a file, not a folder (results are a folder)" in (
        result.err
    )
    assert "Invalid value" not in result.err and file.read_text() == "kept\n"


@pytest.mark.parametrize("argv", WITH_OUT)
def test_an_out_inside_a_file_says_so_and_claims_nothing_kept(
    proctor: Run, argv: tuple[str, ...], tmp_path: Path
) -> None:
    """``--out FILE/sub`` was ``…/prepared: Not a directory; what was finished before it is
    kept`` from `prepare` (nothing had run), and `run --dry-run` took it."""
    file = tmp_path / "afile"
    file.write_text("kept\n")
    result = proctor(*argv, "--out", str(file / "sub" / "more"))
    assert result.code == 2, result.err
    said = (
        f"proctor: error: --out {file / 'sub' / 'more'}: {file} is a file, not a folder; "
        "the results folder cannot be made inside it"
    )
    assert said in result.err and "kept" not in result.err, result.err
    assert file.read_text() == "kept\n"
