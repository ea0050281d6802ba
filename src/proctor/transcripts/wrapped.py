"""A transcript handed over in a form no CLI writes it in: compressed, or re-encoded out of
UTF-8. Read as it is, its lines were none of a transcript's (or, UTF-16, its first line was
taken for a record and the rest were not), and ``parse`` showed a session of no event."""

from __future__ import annotations

import shlex
from pathlib import Path

from proctor.util.files import open_regular

COMPRESSED = {
    b"\x1f\x8b": ("gzip", "gunzip -k"),
    **{f"BZh{level}".encode(): ("bzip2", "bunzip2 -k") for level in range(1, 10)},
    b"\xfd7zXZ\x00": ("xz", "unxz -k"),
    b"\x28\xb5\x2f\xfd": ("zstd", "unzstd"),
    b"PK\x03\x04": ("zip", "unzip"),
}
ENCODINGS = {
    b"\xff\xfe\x00\x00": "UTF-32",
    b"\x00\x00\xfe\xff": "UTF-32",
    b"\xff\xfe": "UTF-16",
    b"\xfe\xff": "UTF-16",
}


def wrapped(path: Path) -> str | None:
    """The sentence for a file compressed or in UTF-16 or UTF-32 (its first bytes say so):
    what it is and how to get the transcript it holds; else None."""
    try:
        with open_regular(path) as fh:
            head = fh.read(8)
    except OSError:
        return None
    quoted = shlex.quote(str(path))
    for magic, (kind, command) in COMPRESSED.items():
        if head.startswith(magic):
            return (
                f"{path}: a {kind}-compressed file, not a transcript as a CLI writes it: "
                f"decompress it (`{command} {quoted}`) and give the file it holds"
            )
    encoding = _encoding(head)
    if encoding is not None:
        utf8 = shlex.quote(str(path.with_name(f"{path.stem}-utf8{path.suffix}")))
        return (
            f"{path}: {encoding} text, where every CLI writes its transcript in UTF-8: "
            f"convert it (`iconv -f {encoding} -t UTF-8 {quoted} > {utf8}`) and give that"
        )
    return None


def _encoding(head: bytes) -> str | None:
    """UTF-16 or UTF-32, from a byte order mark or, without one, from the zeros around the
    first characters (``{\\x00"\\x00``, little-endian); else None."""
    for mark, encoding in ENCODINGS.items():
        if head.startswith(mark):
            return encoding
    if len(head) < 4 or b"\x00" not in head[:4] or head[:4] == b"\x00" * 4:
        return None
    if head[1:4] == b"\x00\x00\x00":
        return "UTF-32LE"
    if head[:3] == b"\x00\x00\x00":
        return "UTF-32BE"
    if head[1:2] == head[3:4] == b"\x00" != head[:1]:
        return "UTF-16LE"
    if head[:1] == head[2:3] == b"\x00" != head[1:2]:
        return "UTF-16BE"
    return None
