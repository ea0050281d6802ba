"""Zip fixtures proctor cannot extract (corrupt, encrypted, too large, unsafe) are refused in one
sentence naming the zip, up front from the central directory, and again while extracting."""

import os
import shutil
import stat
import subprocess
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from proctor.errors import WorkspaceError
from proctor.workspace import archive, fixture
from proctor.workspace.archive import ZipFixtureError, check_zip
from proctor.workspace.fixture import materialise_fixture


def _zip(
    path: Path,
    entries: dict[str, str | bytes],
    links: dict[str, str] | None = None,
    method: int = zipfile.ZIP_STORED,
) -> Path:
    with zipfile.ZipFile(path, "w", method) as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def _flip(path: Path, old: bytes, new: bytes) -> Path:
    """Change the stored bytes ``old`` to ``new`` (same length): the central directory still
    reads, the entry's CRC-32 no longer matches."""
    data = path.read_bytes()
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))
    return path


def _unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction on its own, as if the up-front check had missed (or the zip changed since)."""
    monkeypatch.setattr(fixture, "check_zip", lambda path: None)


def _files(root: Path) -> dict[str, int]:
    return {
        p.relative_to(root).as_posix(): p.stat().st_size for p in root.rglob("*") if p.is_file()
    }


# -- corrupt ------------------------------------------------------------------------------


def test_a_small_zip_with_a_bad_crc_is_refused_up_front(tmp_path: Path) -> None:
    z = _flip(_zip(tmp_path / "src.zip", {"a.txt": "hello world"}), b"hello world", b"HELLO world")
    with pytest.raises(ZipFixtureError) as caught:
        check_zip(z)
    assert str(caught.value) == (
        f"{z}: entry 'a.txt' is corrupt: its content does not match its CRC-32 checksum "
        "(rebuild the zip)"
    )
    assert not caught.value.unsafe


def test_a_large_zip_is_checked_from_its_central_directory_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above TESTED_UP_TO_BYTES nothing is decompressed up front: a bad CRC is found by the
    extraction, as a sentence rather than zipfile's BadZipFile."""
    monkeypatch.setattr(archive, "TESTED_UP_TO_BYTES", 5)
    z = _flip(_zip(tmp_path / "src.zip", {"a.txt": "hello world"}), b"hello world", b"HELLO world")
    check_zip(z)
    with pytest.raises(WorkspaceError, match=r"entry 'a.txt' is corrupt: its content does not"):
        materialise_fixture(z, "zip", tmp_path / "ws")


def test_a_damaged_deflate_stream_is_a_sentence_not_a_zlib_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = bytes(range(256)) * 64
    z = _zip(tmp_path / "src.zip", {"data.bin": content}, method=zipfile.ZIP_DEFLATED)
    with zipfile.ZipFile(z) as zf:
        info = zf.getinfo("data.bin")
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data = bytearray(z.read_bytes())
    data[start : start + 8] = b"\xff" * 8  # the first deflate block's header: invalid
    z.write_bytes(bytes(data))
    with pytest.raises(ZipFixtureError, match=r"entry 'data.bin' is corrupt and cannot be extr"):
        check_zip(z)
    monkeypatch.setattr(archive, "TESTED_UP_TO_BYTES", 0)
    with pytest.raises(WorkspaceError, match=r"entry 'data.bin' is corrupt and cannot be extr"):
        materialise_fixture(z, "zip", tmp_path / "ws")


def test_a_truncated_zip_is_not_a_valid_zip(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"a.txt": "x" * 1000})
    z.write_bytes(z.read_bytes()[:-30])  # the end of the central directory cut off
    with pytest.raises(ZipFixtureError, match=rf"^{z}: not a valid zip file \("):
        check_zip(z)


# -- encrypted and unreadable entries ---------------------------------------------------------


def _encrypted(path: Path) -> Path:
    """A zip whose entry carries the encryption flag (bit 0x1), in both of its headers."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a.txt", "not really secret")
        zf.writestr("b.txt", "plain")
        zf.getinfo("a.txt").flag_bits |= 0x1  # the central directory, written on close
    data = bytearray(path.read_bytes())
    data[6] |= 0x1  # the first local header's flags
    path.write_bytes(bytes(data))
    return path


def test_an_encrypted_entry_is_refused_up_front(tmp_path: Path) -> None:
    z = _encrypted(tmp_path / "src.zip")
    with pytest.raises(ZipFixtureError) as caught:
        check_zip(z)
    assert str(caught.value) == (
        f"{z}: entry 'a.txt' is encrypted, and proctor cannot read encrypted zip entries "
        "(zip the fixture again without a password)"
    )


def test_an_encrypted_entry_met_while_extracting_is_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = _encrypted(tmp_path / "src.zip")
    _unchecked(monkeypatch)
    with pytest.raises(WorkspaceError, match="entry 'a.txt' is encrypted, and proctor cannot"):
        materialise_fixture(z, "zip", tmp_path / "ws")


@pytest.mark.skipif(shutil.which("zip") is None, reason="the zip program is not installed")
def test_a_zip_made_with_a_password_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("secret")
    subprocess.run(["zip", "-q", "-P", "pw", "src.zip", "a.txt"], cwd=tmp_path, check=True)
    with pytest.raises(ZipFixtureError, match="entry 'a.txt' is encrypted"):
        check_zip(tmp_path / "src.zip")


def test_an_entry_compressed_by_an_unknown_method_is_refused(tmp_path: Path) -> None:
    z = tmp_path / "src.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a.txt", "x")
        zf.getinfo("a.txt").compress_type = 9  # deflate64, in the central directory
    with pytest.raises(ZipFixtureError, match=r"compressed with method 9 \(deflate64\), which"):
        check_zip(z)


# -- expanded size ---------------------------------------------------------------------------


def test_a_zip_declaring_more_than_the_cap_is_refused_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_ZIP_EXPANDED_BYTES", 1000)
    z = _zip(tmp_path / "src.zip", {"a.bin": b"\0" * 600, "b.bin": b"\0" * 600}, method=8)
    monkeypatch.setattr(archive, "member_chunks", None)  # nothing is decompressed
    with pytest.raises(ZipFixtureError) as caught:
        check_zip(z)
    assert str(caught.value) == (
        f"{z}: expands to 1.2 KiB (1,200 bytes, by the sizes its entries declare), above "
        "proctor's cap of 1,000 bytes on a zip fixture's expanded size"
    )


def test_the_default_cap_is_two_gib(tmp_path: Path) -> None:
    assert archive.MAX_ZIP_EXPANDED_BYTES == 2 * 1024**3
    z = tmp_path / "src.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("a.txt", "x")
        zf.getinfo("a.txt").file_size = 3 * 1024**3  # as a zip bomb's central directory says
    with pytest.raises(ZipFixtureError, match=r"expands to 3.0 GiB .*cap of 2.0 GiB"):
        check_zip(z)


def test_extraction_stops_once_it_has_written_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the headers said, no more than the cap is written."""
    _unchecked(monkeypatch)
    monkeypatch.setattr(archive, "MAX_ZIP_EXPANDED_BYTES", 1000)
    z = _zip(tmp_path / "src.zip", {"a.bin": b"a" * 600, "b.bin": b"b" * 600, "c.bin": b"c"})
    ws = tmp_path / "ws"
    with pytest.raises(ZipFixtureError, match=r"extraction stopped at entry 'b.bin', past pro"):
        materialise_fixture(z, "zip", ws)
    assert sum(_files(ws).values()) <= 1000


def test_a_bzip2_entry_is_decompressed_a_bounded_piece_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few bytes of bzip2 can hold gigabytes, which zipfile's own reader would decompress in
    one go (before any cap could stop it): proctor's reader holds 1 MiB at a time."""
    size = 32 * 1024**2
    z = _zip(tmp_path / "src.zip", {"zeros.bin": b"\0" * size}, method=zipfile.ZIP_BZIP2)
    assert z.stat().st_size < 1000
    monkeypatch.setattr(archive, "TESTED_UP_TO_BYTES", 0)
    tracemalloc.start()
    try:
        materialise_fixture(z, "zip", tmp_path / "ws")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (tmp_path / "ws" / "zeros.bin").stat().st_size == size
    assert peak < 8 * 1024**2


def test_a_bzip2_entry_longer_than_it_declares_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = tmp_path / "src.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("a.bin", b"\0" * 100_000)
        zf.getinfo("a.bin").file_size = 10  # the central directory lies
    monkeypatch.setattr(archive, "TESTED_UP_TO_BYTES", 0)
    with pytest.raises(ZipFixtureError, match="entry 'a.bin' is corrupt: its content does not"):
        materialise_fixture(z, "zip", tmp_path / "ws")
    assert _files(tmp_path / "ws").get("a.bin", 0) <= 10


def test_bzip2_and_lzma_entries_still_extract(tmp_path: Path) -> None:
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        z = _zip(tmp_path / f"{method}.zip", {"a.txt": "alpha\n" * 5000}, method=method)
        ws = tmp_path / f"ws{method}"
        materialise_fixture(z, "zip", ws)
        assert (ws / "a.txt").read_text() == "alpha\n" * 5000


# -- unsafe entries --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("../up.txt", "entry '../up.txt' would be written outside the workspace"),
        ("/abs.txt", "entry '/abs.txt' would be written outside the workspace"),
        ("a/.", "entry 'a/.' names no file"),
    ],
)
def test_unsafe_names_are_refused(tmp_path: Path, name: str, said: str) -> None:
    z = _zip(tmp_path / "src.zip", {name: "x", "ok.txt": "y"})
    with pytest.raises(ZipFixtureError) as caught:
        check_zip(z)
    assert str(caught.value) == f"{z}: {said}" and caught.value.unsafe


def test_a_link_in_a_single_top_folder_that_leads_out_once_unwrapped_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``proj/link -> ../outside`` stays inside the archive, but the single top folder is
    unwrapped: the link then sits in the workspace's root and leads out of it."""
    z = _zip(tmp_path / "src.zip", {"proj/a.txt": "x"}, links={"proj/link": "../outside"})
    with pytest.raises(ZipFixtureError) as caught:
        check_zip(z)
    assert str(caught.value) == (
        f"{z}: symlink entry 'proj/link' points outside the workspace once the zip's single "
        "top folder 'proj' is unwrapped (../outside)"
    )
    _unchecked(monkeypatch)
    with pytest.raises(ZipFixtureError, match=rf"^{z}: symlink entry 'link' points outside the"):
        fixture.zip_template(z, tmp_path / "templates")


def test_links_inside_the_single_top_folder_are_kept(tmp_path: Path) -> None:
    z = _zip(
        tmp_path / "src.zip",
        {"proj/lib/a.txt": "x", "__MACOSX/proj/._a.txt": "m"},
        links={"proj/here": "lib/a.txt", "proj/lib/up": "../here"},
    )
    check_zip(z)
    materialise_fixture(z, "zip", tmp_path / "ws")
    assert (tmp_path / "ws" / "here").read_text() == "x"
    assert os.readlink(tmp_path / "ws" / "lib" / "up") == "../here"


def test_a_file_that_is_also_a_folder_entry_is_refused(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"x": "file", "x/": ""})
    with pytest.raises(ZipFixtureError, match="entry 'x' is a file, and entry 'x/' needs it"):
        check_zip(z)


def test_a_symlink_target_longer_than_any_path_is_refused(tmp_path: Path) -> None:
    z = _zip(tmp_path / "src.zip", {"a.txt": "x"}, links={"link": "a/" * 3000})
    with pytest.raises(ZipFixtureError, match=r"symlink entry 'link' holds a target longer"):
        check_zip(z)


# -- reading each zip once -------------------------------------------------------------------


def test_a_zip_is_checked_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = _zip(tmp_path / "src.zip", {"a.txt": "x"})
    calls: list[Path] = []
    real = archive._check
    monkeypatch.setattr(archive, "_check", lambda path: calls.append(path) or real(path))
    check_zip(z)
    check_zip(z)  # as the trials forked after the cases were read do
    assert len(calls) == 1
    _encrypted(z)
    os.utime(z, ns=(1, 1))
    for _ in range(2):
        with pytest.raises(ZipFixtureError, match="is encrypted"):
            check_zip(z)
    assert len(calls) == 2


def test_a_zip_that_cannot_be_extracted_is_tried_once_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = _flip(_zip(tmp_path / "src.zip", {"a.txt": "hello world"}), b"hello world", b"HELLO world")
    monkeypatch.setattr(archive, "TESTED_UP_TO_BYTES", 0)
    tried: list[Path] = []
    real = fixture._extract_zip
    monkeypatch.setattr(fixture, "_extract_zip", lambda p, d: tried.append(p) or real(p, d))
    for _ in range(3):
        with pytest.raises(ZipFixtureError, match="entry 'a.txt' is corrupt: its content"):
            fixture.zip_template(z, tmp_path / "templates")
    assert len(tried) == 1


def test_a_workspace_that_refuses_a_write_is_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    z = _zip(tmp_path / "src.zip", {"n" * 300: "x"})  # longer than a file name may be
    with pytest.raises(WorkspaceError, match=r"entry 'n+' cannot be written into the workspac"):
        materialise_fixture(z, "zip", tmp_path / "ws")


def test_a_full_disk_while_extracting_is_tried_again_by_the_next_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link the file system refused to make (ENOSPC) is no fault of the zip: the next trial
    extracts it again instead of being refused with the first trial's sentence."""
    import errno

    z = _zip(tmp_path / "src.zip", {"a.txt": "x"}, links={"here": "a.txt"})
    real = os.symlink
    calls = {"n": 0}

    def full_once(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(src, dst)

    monkeypatch.setattr(os, "symlink", full_once)
    templates = tmp_path / "templates"
    with pytest.raises(WorkspaceError, match="cannot be created") as caught:
        fixture.zip_template(z, templates)
    assert not isinstance(caught.value, ZipFixtureError)
    assert not list(templates.glob("*.failed"))
    template = fixture.zip_template(z, templates)  # the next trial: extracted this time
    assert (template / "here").is_symlink() and (template / "a.txt").read_text() == "x"
