"""``proctor parse`` of a transcript handed over compressed or re-encoded: it was "not a
Claude Code, Codex or Gemini CLI transcript" (pass --agent to force one), and in UTF-16 it was
read as a session of no event, every line unparsed, exit 0."""

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from proctor.cli.parse import command
from proctor.errors import ConfigError

CORPUS = Path(__file__).parents[2] / "corpus"
SESSION = CORPUS / "codex-0.171.0-basic.transcript.jsonl"


@pytest.mark.parametrize(
    ("name", "pack", "kind", "undo"),
    [
        ("t.jsonl.gz", gzip.compress, "gzip", "gunzip -k"),
        ("t.jsonl.bz2", bz2.compress, "bzip2", "bunzip2 -k"),
        ("t.jsonl.xz", lzma.compress, "xz", "unxz -k"),
    ],
)
def test_a_compressed_transcript_is_said_compressed(
    tmp_path: Path, name: str, pack: Callable[[bytes], bytes], kind: str, undo: str
) -> None:
    path = tmp_path / name
    path.write_bytes(pack(SESSION.read_bytes()))
    result = CliRunner().invoke(command, [str(path)])
    assert isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == (
        f"{path}: a {kind}-compressed file, not a transcript as a CLI writes it: decompress it "
        f"(`{undo} {path}`) and give the file it holds"
    )


@pytest.mark.parametrize(
    ("codec", "named"),
    [
        ("utf-16", "UTF-16"),
        ("utf-16-le", "UTF-16LE"),
        ("utf-16-be", "UTF-16BE"),
        ("utf-32", "UTF-32"),
        ("utf-32-le", "UTF-32LE"),
    ],
)
def test_a_transcript_in_utf16_or_utf32_is_said_so(tmp_path: Path, codec: str, named: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(SESSION.read_text(encoding="utf-8").encode(codec))
    result = CliRunner().invoke(command, [str(path)])
    assert isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == (
        f"{path}: {named} text, where every CLI writes its transcript in UTF-8: convert it "
        f"(`iconv -f {named} -t UTF-8 {path} > {tmp_path / 't-utf8.jsonl'}`) and give that"
    )


def test_a_transcript_in_utf8_with_its_mark_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + SESSION.read_bytes())
    result = CliRunner().invoke(command, [str(path)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
def test_a_format_named_makes_no_compressed_or_utf16_file_a_transcript(
    tmp_path: Path, agent: str
) -> None:
    """``--agent`` forces a reading of a file of another format, never of a compressed or
    re-encoded one: it was read as a session of no event, every line unparsed, exit 0."""
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(SESSION.read_bytes()))
    wide = tmp_path / "t16.jsonl"
    wide.write_bytes(SESSION.read_text(encoding="utf-8").encode("utf-16"))
    for path, said in ((packed, "a gzip-compressed file"), (wide, "UTF-16")):
        result = CliRunner().invoke(command, ["--agent", agent, str(path)])
        assert isinstance(result.exception, ConfigError), result.output
        assert said in str(result.exception)
