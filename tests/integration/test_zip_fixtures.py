"""``proctor validate`` and ``proctor run`` refuse a ``src.zip`` proctor cannot extract (exit 2,
one sentence naming the case's zip), and a zip that only extraction finds damaged ends its
trials as infra-errors with a sentence, not a traceback."""

from __future__ import annotations

import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.workspace import archive
from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

PLAN = {"turns": [{"say": "Done."}]}


def _corrupt(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("repo/a.txt", "hello world")
    path.write_bytes(path.read_bytes().replace(b"hello world", b"HELLO world"))


def _encrypted(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a.txt", "secret")
        zf.getinfo("a.txt").flag_bits |= 0x1


def _huge(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("bomb.bin", b"\0")
        zf.getinfo("bomb.bin").file_size = 8 * 1024**3  # what a zip bomb declares


def _dotdot(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("../escape.txt", "x")


def _link_out(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("repo/a.txt", "x")
        info = zipfile.ZipInfo("repo/link")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "../outside")


def _not_a_zip(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04 and then nothing a zip has")


BAD: dict[str, tuple[Callable[[Path], None], str]] = {
    "corrupt": (
        _corrupt,
        "unusable src.zip: {zip}: entry 'repo/a.txt' is corrupt: its content does not match "
        "its CRC-32 checksum (rebuild the zip)",
    ),
    "encrypted": (
        _encrypted,
        "unusable src.zip: {zip}: entry 'a.txt' is encrypted, and proctor cannot read "
        "encrypted zip entries (zip the fixture again without a password)",
    ),
    "huge": (
        _huge,
        "unusable src.zip: {zip}: expands to 8.0 GiB (8,589,934,592 bytes, by the sizes its "
        "entries declare), above proctor's cap of 2.0 GiB on a zip fixture's expanded size",
    ),
    "dotdot": (
        _dotdot,
        "unsafe src.zip: {zip}: entry '../escape.txt' would be written outside the workspace",
    ),
    "link-out": (
        _link_out,
        "unsafe src.zip: {zip}: symlink entry 'repo/link' points outside the workspace once "
        "the zip's single top folder 'repo' is unwrapped (../outside)",
    ),
    "not-a-zip": (_not_a_zip, "unusable src.zip: {zip}: not a valid zip file ("),
}


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_zip_proctor_cannot_extract_is_a_configuration_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path, kind: str, command: str
) -> None:
    make, said = BAD[kind]
    case = make_case(kind, plan=PLAN)
    make(case / "src.zip")
    extra = ["--out", str(tmp_path / "out")] if command == "run" else []
    result = proctor(command, "--source", str(tmp_path / "cases"), *extra)
    assert result.code == 2, result.out + result.err
    assert f"proctor: error: {said.format(zip=case / 'src.zip')}" in result.err
    assert "Traceback" not in result.err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("run-*"))


def test_validate_names_every_unusable_zip(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    for kind in ("corrupt", "encrypted", "huge"):
        BAD[kind][0](make_case(kind, plan=PLAN) / "src.zip")
    make_case("fine", plan=PLAN)
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert result.code == 2
    assert "3 configuration problems, each named above" in result.err
    for kind in ("corrupt", "encrypted", "huge"):
        assert str(tmp_path / "cases" / kind / "src.zip") in result.out + result.err


def test_a_damage_only_extraction_finds_is_each_trials_infra_error_sentence(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A zip too large to test whole up front passes ``validate``; its bad entry then ends every
    trial as an infra-error saying so (extracted once: the other trials are told the same)."""
    monkeypatch.setattr(archive, "TESTED_UP_TO_BYTES", 0)
    case = make_case("late", config={"timeoutSec": 30, "repeats": 2}, plan=PLAN)
    _corrupt(case / "src.zip")
    assert proctor("validate", "--source", str(tmp_path / "cases")).code == 0
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2, result.err  # every trial an infra-error
    run_dir = single_run_dir(out)
    said = (
        f"{case / 'src.zip'}: entry 'repo/a.txt' is corrupt: its content does not match its "
        "CRC-32 checksum (rebuild the zip)"
    )
    for repeat in (1, 2):
        trial = load_trial(run_dir, "late", repeat)
        assert trial["status"] == "infra-error"
        assert trial["reason"] == said
        assert trial["error"]["traceback"] is None


def test_an_inline_zip_is_named_by_where_it_is(proctor: Run, tmp_path: Path) -> None:
    src = tmp_path / "mine.zip"
    _encrypted(src)
    result = proctor("run", "--prompt", "Do it.", "--src", str(src), "--out", str(tmp_path / "o"))
    assert result.code == 2
    assert f"(src.zip links to {src})" in result.err and "is encrypted" in result.err
