"""Whether proctor can extract a zip fixture, read from its central directory, and reading its
entries at extraction time within a cap.

:func:`check_zip` refuses, in one sentence naming the zip and what is wrong: a file that is not
a readable zip; an encrypted entry, or one compressed by a method proctor cannot decompress; a
total expanded size (as the entries declare it) above :data:`MAX_ZIP_EXPANDED_BYTES`; entries
that would land outside the workspace (absolute paths, ``..``, a path through the archive's own
symlinks that leads out) and symlinks that point outside it, also once a single top folder is
unwrapped. It decompresses nothing but symlink targets, except for a zip small enough
(:data:`TESTED_UP_TO_BYTES`) to read whole cheaply: then every entry's checksum is tested too.

What the headers say can be wrong: :func:`member_chunks` reads an entry in bounded pieces,
turns a corrupt one into a :class:`ZipFixtureError`, and stops once the bytes read pass the cap.
"""

from __future__ import annotations

import bz2
import os
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path, PurePosixPath

from proctor.errors import WorkspaceError

try:
    import lzma
except ImportError:  # pragma: no cover - a Python built without it
    lzma = None  # type: ignore[assignment]

MAX_ZIP_EXPANDED_BYTES = 2 * 1024**3
"""The most a zip fixture may expand to, all its entries together (2 GiB): a larger one is
refused when the case is validated, and extraction stops once it has written more."""
TESTED_UP_TO_BYTES = 16 * 1024**2
"""A zip fixture expanding to at most this much (16 MiB) has every entry's checksum tested
when the case is validated; a larger one only when extracted, by the trial."""
MAX_LINK_TARGET_BYTES = 4096
"""The longest target a symlink entry may hold (Linux's ``PATH_MAX``)."""
_CHUNK = 1024**2
"""Read and decompressed at most this much at a time."""
_MAX_LINK_HOPS = 40
"""As many symlinks as one path may pass through before it is treated as a loop (Linux's)."""

_ENCRYPTED = 0x1 | 0x40  # traditional PKWARE encryption, strong encryption
_PATCHED = 0x20
_AES = 99
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2}
if lzma is not None:
    _METHODS.add(zipfile.ZIP_LZMA)
_METHOD_NAMES = {6: "implode", 8: "deflate", 9: "deflate64", 12: "bzip2", 14: "LZMA", 93: "zstd",
                 95: "xz", 98: "PPMd"}  # fmt: skip
_READ_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    ValueError,
    struct.error,
    *((lzma.LZMAError,) if lzma is not None else ()),
)
"""What reading a damaged archive raises, from the zipfile module and the decompressors."""
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, …, name length, extra field length
_LOCAL_MAGIC = b"PK\x03\x04"


class ZipFixtureError(WorkspaceError):
    """A zip fixture proctor refuses; ``unsafe`` when an entry would reach outside the
    workspace (rather than the zip being unreadable or too large)."""

    def __init__(self, message: str, *, unsafe: bool = False) -> None:
        super().__init__(message)
        self.unsafe = unsafe


def size_text(n: int) -> str:
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:,} bytes"


def shown(target: str) -> str:
    """A link target for a message: bytes that are not UTF-8 (kept as surrogates so the link
    is made exactly) written as escapes."""
    return target.encode("utf-8", "backslashreplace").decode("utf-8")


def is_symlink_entry(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


@contextmanager
def open_zip(path: Path) -> Iterator[zipfile.ZipFile]:
    """``path`` opened as a zip (its central directory read); a ZipFixtureError when it cannot
    be read or is not a zip."""
    with ExitStack() as stack:
        try:
            handle = stack.enter_context(open(path, "rb"))
        except OSError as exc:
            raise ZipFixtureError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
        try:
            zf = stack.enter_context(zipfile.ZipFile(handle))
        except _READ_ERRORS as exc:
            raise ZipFixtureError(f"{path}: not a valid zip file ({_reason(exc)})") from exc
        yield zf


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


class ExpansionBudget:
    """The bytes one extraction of ``path`` may still write, :data:`MAX_ZIP_EXPANDED_BYTES` in
    all, whatever the entries declare."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cap = MAX_ZIP_EXPANDED_BYTES
        self.used = 0

    def spend(self, n: int, info: zipfile.ZipInfo) -> None:
        self.used += n
        if self.used > self.cap:
            raise ZipFixtureError(
                f"{self.path}: extraction stopped at entry '{info.filename}', past proctor's cap "
                f"of {size_text(self.cap)} on a zip fixture's expanded size (the entries hold "
                "more than they declare)"
            )


def member_chunks(
    zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, budget: ExpansionBudget
) -> Iterator[bytes]:
    """The content of the entry ``info``, in pieces of at most 1 MiB each, checked against its
    CRC-32; a damaged entry is a ZipFixtureError naming it, and so is passing ``budget``."""
    try:
        if info.compress_type == zipfile.ZIP_BZIP2:
            pieces = _checked(_bzip2_pieces(path, info), info)
        else:
            pieces = _zipfile_pieces(zf, info)
        for piece in pieces:
            budget.spend(len(piece), info)
            yield piece
    except _READ_ERRORS as exc:
        raise ZipFixtureError(f"{path}: entry '{info.filename}' {_damage(exc)}") from exc


def _damage(exc: BaseException) -> str:
    text = _reason(exc)
    if isinstance(exc, zipfile.BadZipFile) and "CRC" in text:
        return "is corrupt: its content does not match its CRC-32 checksum (rebuild the zip)"
    if isinstance(exc, RuntimeError) and "encrypted" in text:
        return "is encrypted, and proctor cannot read encrypted zip entries"
    if isinstance(exc, NotImplementedError):
        return f"cannot be decompressed by proctor ({text})"
    return f"is corrupt and cannot be extracted ({text})"


def _zipfile_pieces(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """zipfile's reader never reads past the size the entry declares, and tests the CRC-32
    at the end. It decompresses deflate a bounded piece at a time, but LZMA as much as one
    read of compressed bytes holds: that read is kept to 4 KiB (at most some 30 MB of LZMA)."""
    step = _CHUNK if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) else 4096
    with zf.open(info) as src:
        while piece := src.read(step):
            yield piece


def _bzip2_pieces(path: Path, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """A bzip2 entry, decompressed at most 1 MiB at a time. zipfile's own reader decompresses
    whatever one read of compressed bytes holds in one go, and a few kilobytes of bzip2 can
    hold gigabytes."""
    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        header = fh.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size:
            raise zipfile.BadZipFile("truncated file header")
        magic, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if magic != _LOCAL_MAGIC:
            raise zipfile.BadZipFile("bad magic number for file header")
        fh.seek(name_length + extra_length, os.SEEK_CUR)
        left = info.compress_size
        decompressor = bz2.BZ2Decompressor()
        while not decompressor.eof:
            data = b""
            if decompressor.needs_input:
                data = fh.read(min(left, _CHUNK)) if left > 0 else b""
                if not data:
                    raise EOFError("the compressed data ends before its end-of-stream marker")
                left -= len(data)
            piece = decompressor.decompress(data, _CHUNK)
            if piece:
                yield piece


def _checked(pieces: Iterator[bytes], info: zipfile.ZipInfo) -> Iterator[bytes]:
    """``pieces``, refused once they pass the entry's declared size or end with another CRC."""
    crc, size = 0, 0
    for piece in pieces:
        size += len(piece)
        if size > info.file_size:
            raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r} (it is longer)")
        crc = zlib.crc32(piece, crc)
        yield piece
    if crc != info.CRC or size != info.file_size:
        raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")


def link_target(
    zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, budget: ExpansionBudget
) -> str:
    """A symlink entry's target; a ZipFixtureError when it is longer than any path."""
    data = b""
    for piece in member_chunks(zf, path, info, budget):
        data += piece
        if len(data) > MAX_LINK_TARGET_BYTES:
            break
    if len(data) > MAX_LINK_TARGET_BYTES or info.file_size > MAX_LINK_TARGET_BYTES:
        raise ZipFixtureError(
            f"{path}: symlink entry '{info.filename}' holds a target longer than any path "
            f"({max(len(data), info.file_size):,} bytes, above {MAX_LINK_TARGET_BYTES:,})",
            unsafe=True,
        )
    return os.fsdecode(data)


def _follow(path: PurePosixPath, links: Mapping[PurePosixPath, str]) -> PurePosixPath | None:
    """Where the archive-relative ``path`` leads once the archive's own symlinks are followed.

    Components are resolved the way the kernel does once the archive is extracted: a symlink is
    replaced by its target before a later ``..`` applies. None when the path leaves the root or
    a link is absolute. A loop stops being followed, as ``os.path.realpath`` does.
    """
    pending = list(reversed(path.parts))
    here: list[str] = []
    hops = 0
    while pending:
        part = pending.pop()
        if part == "..":
            if not here:
                return None
            here.pop()
            continue
        here.append(part)
        link = links.get(PurePosixPath(*here))
        if link is None or hops >= _MAX_LINK_HOPS:
            continue
        if link.startswith("/"):
            return None
        hops += 1
        here.pop()
        pending.extend(reversed(PurePosixPath(link).parts))
    return PurePosixPath(*here)


def _check_entry(path: Path, info: zipfile.ZipInfo, links: Mapping[PurePosixPath, str]) -> None:
    name = info.filename
    parts = PurePosixPath(name.replace("\\", "/")).parts
    lexically_out = name.startswith(("/", "\\")) or (parts and ":" in parts[0]) or ".." in parts
    # Without symlinks in the archive, a path with no ``..`` stays inside it.
    if lexically_out or (links and _follow(PurePosixPath(name).parent, links) is None):
        raise ZipFixtureError(
            f"{path}: entry '{name}' would be written outside the workspace", unsafe=True
        )
    if not info.is_dir() and name.rsplit("/", 1)[-1] in ("", "."):
        raise ZipFixtureError(f"{path}: entry '{name}' names no file", unsafe=True)
    if is_symlink_entry(info):
        link = links[PurePosixPath(name)]
        if link.startswith("/") or _follow(PurePosixPath(name).parent / link, links) is None:
            raise ZipFixtureError(
                f"{path}: symlink entry '{name}' points outside the workspace ({shown(link)})",
                unsafe=True,
            )


def single_top(entries: list[zipfile.ZipInfo]) -> str | None:
    """The one top folder the entries make (``__MACOSX`` aside), which extraction unwraps."""
    tops: set[str] = set()
    files: set[str] = set()
    for info in entries:
        parts = PurePosixPath(info.filename).parts
        if not parts or parts[0] == "__MACOSX":
            continue
        tops.add(parts[0])
        if len(parts) == 1 and not info.is_dir():
            files.add(parts[0])
    top = tops.pop() if len(tops) == 1 else None
    return None if top is None or top in files else top


def _check_unwrapped_links(path: Path, top: str, links: Mapping[PurePosixPath, str]) -> None:
    """Links judged as they will stand once the single top folder ``top`` is unwrapped: a
    ``..`` out of it then leads out of the workspace."""
    inner = {
        PurePosixPath(*link.parts[1:]): target
        for link, target in links.items()
        if link.parts[0] == top and len(link.parts) > 1
    }
    for rel, target in inner.items():
        if _follow(rel.parent / target, inner) is None:
            raise ZipFixtureError(
                f"{path}: symlink entry '{top}/{rel}' points outside the workspace once the "
                f"zip's single top folder '{top}' is unwrapped ({shown(target)})",
                unsafe=True,
            )


def _check_shapes(path: Path, entries: list[zipfile.ZipInfo]) -> None:
    """No entry is both a file and the folder of another entry (``x`` and ``x/y.txt``, or
    ``x`` and ``x/``): no workspace can hold both."""
    names = [PurePosixPath(info.filename.replace("\\", "/")).as_posix() for info in entries]
    files = {name for name, info in zip(names, entries, strict=True) if not info.is_dir()}
    for name, info in zip(names, entries, strict=True):
        parts = name.split("/")
        for k in range(len(parts) if info.is_dir() else len(parts) - 1, 0, -1):
            parent = "/".join(parts[:k])
            if parent in files:
                raise ZipFixtureError(
                    f"{path}: entry '{parent}' is a file, and entry '{info.filename}' needs it "
                    "to be a folder",
                    unsafe=True,
                )


def _unreadable(info: zipfile.ZipInfo) -> str | None:
    """Why proctor cannot read the entry ``info`` at all, if it cannot."""
    if info.is_dir():
        return None  # nothing to read
    if info.flag_bits & _ENCRYPTED or info.compress_type == _AES:
        return (
            f"entry '{info.filename}' is encrypted, and proctor cannot read encrypted zip "
            "entries (zip the fixture again without a password)"
        )
    if info.flag_bits & _PATCHED:
        return f"entry '{info.filename}' holds patch data, which proctor cannot read"
    if info.compress_type not in _METHODS:
        method = _METHOD_NAMES.get(info.compress_type, "unknown")
        return (
            f"entry '{info.filename}' is compressed with method {info.compress_type} "
            f"({method}), which proctor cannot decompress (zip it again with deflate)"
        )
    return None


def _check(path: Path) -> None:
    with open_zip(path) as zf:
        entries = zf.infolist()
        for info in entries:
            problem = _unreadable(info)
            if problem:
                raise ZipFixtureError(f"{path}: {problem}")
        total = sum(info.file_size for info in entries)
        cap = MAX_ZIP_EXPANDED_BYTES
        if total > cap:
            raise ZipFixtureError(
                f"{path}: expands to {size_text(total)} ({total:,} bytes, by the sizes its "
                f"entries declare), above proctor's cap of {size_text(cap)} on a zip "
                "fixture's expanded size"
            )
        budget = ExpansionBudget(path)
        links = {
            PurePosixPath(info.filename): link_target(zf, path, info, budget)
            for info in entries
            if is_symlink_entry(info)
        }
        for info in entries:
            _check_entry(path, info, links)
        _check_shapes(path, entries)
        top = single_top(entries)
        if top is not None:
            _check_unwrapped_links(path, top, links)
        if total <= TESTED_UP_TO_BYTES:
            for info in entries:
                if not info.is_dir() and not is_symlink_entry(info):
                    for _ in member_chunks(zf, path, info, budget):
                        pass


_VERDICTS: dict[tuple[object, ...], tuple[str, bool] | None] = {}
"""What :func:`check_zip` found of each zip (None, or the sentence and whether it is about an
unsafe entry), by its path, identity, size and times (and the caps): a zip checked when the
cases were read is not read again by the trials forked after."""


def check_zip(path: Path) -> None:
    """Raise a ZipFixtureError (a WorkspaceError) when proctor cannot extract the zip fixture
    ``path`` safely and within the cap: see the module's docstring."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ZipFixtureError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    key = (
        os.fspath(path),
        st.st_dev,
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
        MAX_ZIP_EXPANDED_BYTES,
        TESTED_UP_TO_BYTES,
    )
    if key not in _VERDICTS:
        if len(_VERDICTS) >= 1024:
            _VERDICTS.clear()
        try:
            _check(path)
            _VERDICTS[key] = None
        except ZipFixtureError as exc:
            _VERDICTS[key] = (str(exc), exc.unsafe)
            raise
    found = _VERDICTS[key]
    if found is not None:
        raise ZipFixtureError(found[0], unsafe=found[1])
