"""A secret's base64 forms and a secret wrapped across lines are masked
(:mod:`proctor.util.encoded`): a key sent as ``Authorization: Basic`` or piped through
``base64`` (wherever it falls in the groups, the 76-column lines, the line breaks a
transcript's JSON or a terminal UI's frame puts between them) in text, files and the terminal
stream; a short secret has no base64 forms; and Gemini CLI's transcript rows, where a key (or
its base64) cut at a row's end is masked, ordinary rows are left as they are and a large JSON
object is read in linear time."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.util import masking, terminal_masking

pytestmark = pytest.mark.usefixtures("one_secret")


B64_KEY = "sk-ant-api03-" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz_-" * 3


@pytest.mark.parametrize("login", ["", "u:", "me:", "bob:", "user:"])
def test_a_key_in_base64_is_masked_wherever_it_falls_in_the_groups(
    monkeypatch: pytest.MonkeyPatch, login: str
) -> None:
    """``curl -u user:$KEY`` sends ``Authorization: Basic`` base64 of ``user:KEY``: the key
    starts at any of the three places of a group; ``-w0`` output, and URL-safe base64."""
    import base64

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(B64_KEY)
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        encoded = encode(f"{login}{B64_KEY}\n".encode()).decode()
        masked = masking.mask(f"Authorization: Basic {encoded}")
        head, mask, tail = masked.removeprefix("Authorization: Basic ").partition("***")
        assert mask, masked
        assert len(head) <= -(-len(login) * 4 // 3) and len(tail) <= 4  # one group at most
        line = terminal_masking.mask_terminal(f"\x1b[32m{encoded}\x1b[0m\r\n".encode())
        assert b"***" in line and encoded.encode() not in line


def test_the_output_of_base64_wrapped_at_76_columns_is_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``echo $KEY | base64``: its lines break at 76 columns, inside the key's encoding."""
    import subprocess

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(B64_KEY)
    out = subprocess.run(
        ["base64"], input=f"{B64_KEY}\n", capture_output=True, text=True, check=True
    ).stdout
    assert "\n" in out.strip()  # wrapped
    assert _lines_masked(masking.mask(out).rstrip("\n").split("\n"))
    raw = terminal_masking.mask_terminal(out.replace("\n", "\r\n").encode())
    assert raw.startswith(b"***") and len(raw.replace(b"***", b"").replace(b"\r\n", b"")) < 9


def _lines_masked(lines: list[str]) -> bool:
    """Every line masked, but the last when it holds under 6 characters the key alone decides
    (and 3 more it shares with the line break after it, or the padding)."""
    *whole, last = lines
    return all(line == "***" for line in whole) and (last == "***" or len(last) < 6 + 3)


def test_a_short_secret_has_no_base64_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its forms would be a few letters, found in any long base64 text."""
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret("Pw9!x", named=True)
    assert masking.registered_secrets() == ["Pw9!x"]
    assert masking.base64_forms("Pw9!x") == set()


def test_each_line_of_base64_s_output_is_masked_whatever_stands_between(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A transcript's JSON writes the line break as ``\\n``; a terminal UI draws each line in
    a frame of its own."""
    import base64

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(B64_KEY)
    encoded = base64.encodebytes(f"{B64_KEY}\n".encode()).decode()  # 76 columns, as base64
    first, *rest = encoded.rstrip("\n").split("\n")
    for between in ("\\n", "\n  \u23bf  "):
        shown = between.join([first, *rest])
        assert _lines_masked(masking.mask(shown).split(between)), masking.mask(shown)
        drawn = terminal_masking.mask_terminal(f"\x1b[2m{shown}".encode()).decode()
        assert _lines_masked(drawn.removeprefix("\x1b[2m").split(between)), drawn


@pytest.mark.parametrize("before", [5, 100, 101, 102, 150])
def test_a_key_inside_wrapped_base64_is_masked_in_text_json_and_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, before: int
) -> None:
    """``(cat prefix; printf "$KEY") | base64``: the key's encoding starts anywhere in a
    line and a break at 76 columns cuts it. Only ``terminal.raw`` found it; a transcript (a
    file, a JSON string with ``\\n``), a record, a log and a screen that frames each line
    now mask it too, what stands between the lines kept."""
    import base64
    import json
    import re

    from proctor.util.encoded import stream_forms

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(B64_KEY)
    encoded = base64.encodebytes(b"x" * before + B64_KEY.encode() + b"y" * 80).decode()
    assert encoded.count("\n") > 2
    pieces = stream_forms(B64_KEY)

    def shows_key(text: str) -> bool:
        flat = re.sub(r"\s|\u2502|\\n", "", text)
        return any(p[i : i + 12] in flat for p in pieces for i in range(len(p) - 11))

    framed = "\n".join(f"\u2502 {line:<90} \u2502" for line in encoded.splitlines())  # a TUI's
    assert shows_key(encoded)
    for text in (encoded, encoded.replace("\n", "\r\n"), json.dumps({"out": encoded}), framed):
        assert shows_key(text)
        masked = masking.mask(text)
        assert not shows_key(masked) and "***" in masked, masked
        assert masked.count("\n") == text.count("\n"), masked  # the lines stay
    (tmp_path / "stdout.jsonl").write_text(json.dumps({"out": encoded}) + "\n")
    (tmp_path / "out.txt").write_text(encoded)
    (tmp_path / "screen.log").write_text(framed)
    assert masking.scrub_tree(tmp_path) == ["out.txt", "screen.log", "stdout.jsonl"]
    for name in ("out.txt", "screen.log", "stdout.jsonl"):
        assert not shows_key((tmp_path / name).read_text())


LEAKY_KEY = "sk-ant-test-FAKEKEY0123456789abcdefghijklmnop"
GEMINI_ROWS = (
    '[{"text":"YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFzay1hbnQtdGVzdC1GQUtFS0VZMDEyMzQ1Njc4'
    + " " * 66
    + '","bold":false,"italic":false,"underline":false,"dim":false,"inverse":false,'
    '"isUninitialized":true,"fg":"","bg":""}],[{"text":"OWFiY2RlZmdoaWprbG1ub3BhYWFhYWFhYWFh'
    "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFh"
    + " "
    * 66
    + '","bold":false,"italic":false,"underline":false,"dim":false,"inverse":false,'
    '"isUninitialized":true,"fg":"","bg":""}]'
)
"""Two rows of a command's output as Gemini CLI's interactive transcript keeps them (captured
from a run: ``(cat prefix; printf "$KEY"; cat prefix) | base64``, a fake key): the key's
encoding is cut between the rows."""


def _rows_text(rows: str) -> str:
    """The text of the rows, one line each (what the screen showed)."""
    import json

    return "\n".join("".join(p["text"] for p in row) for row in json.loads(f"[{rows}]"))


def test_a_key_a_screen_row_of_gemini_cli_s_transcript_cuts_is_masked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Gemini CLI keeps an interactive command's output as screen rows, one JSON object each:
    a key (its base64, or the key itself) cut at a row's end stayed in the clear in
    ``raw-transcript.jsonl``; now masked, the JSON kept valid."""
    import json

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(LEAKY_KEY)
    record = json.dumps({"resultDisplay": "x"}).replace('"x"', f"[{GEMINI_ROWS}]") + "\n"
    assert "zay1hbnQtdGVzdC1GQUtF" in record and "OWFiY2RlZmdoaWprbG1ub3" in record
    masked = masking.mask(record)
    shown = _rows_text(json.dumps(json.loads(masked)["resultDisplay"])[1:-1])
    assert "***" in shown and "Njc4" not in shown and "OWFiY2Rl" not in shown, shown
    assert shown.count("\n") == 1 and shown.startswith("YWFhYWFh"), shown
    (tmp_path / "raw-transcript.jsonl").write_text(record)
    assert masking.scrub_tree(tmp_path) == ["raw-transcript.jsonl"]
    assert (tmp_path / "raw-transcript.jsonl").read_text() == masked
    # the key itself, cut by a row's end (or a style changed in it), padded to the row's width
    for cut in (3, 20):
        rows = GEMINI_ROWS.replace("Njc4", "Njc4" + LEAKY_KEY[:cut]).replace(
            '"OWFi', '"' + LEAKY_KEY[cut:] + "OWFi"
        )
        for text in (rows, rows.replace('}],[{"text":"', '},{"text":"')):
            masked = masking.mask(text)
            assert LEAKY_KEY[:cut] + " " not in masked and LEAKY_KEY[cut:] not in masked, masked
            assert "Njc4***" in _rows_text(masked.replace('},{"text":"', '}],[{"text":"'))


def test_ordinary_rows_of_gemini_cli_s_transcript_are_left_as_they_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rows that hold no key, or a key's first characters at a row's end and other text
    after it, or a short secret that stands alone, are not changed."""
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(LEAKY_KEY)
    masking.register_secret("100000")
    rows = GEMINI_ROWS.replace("Njc4", "sk-ant-test").replace('"OWFi', '"FAKE more text OWFi')
    rows += ',[{"text":"1000","bold":false}],[{"text":"00 tests","bold":false}]'
    assert masking.mask(rows) == rows
    assert masking.mask_bytes(rows.encode()) == rows.encode()


def test_a_large_flat_json_object_holding_a_text_is_masked_in_linear_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where a text holds ``"text"`` (a Gemini CLI screen row may be in it), the end of a row
    was looked for from each string's end through all the fields after it: an object of
    16,000 string fields took a minute to mask; Gemini's rows have a handful of fields."""
    import time

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(LEAKY_KEY)
    text = '{"text":"x",' + ",".join(f'"k{i}":"v"' for i in range(16_000)) + "}"
    started = time.monotonic()
    assert masking.mask(text) == text
    assert masking.mask_bytes(text.encode()) == text.encode()
    assert time.monotonic() - started < 5


def test_a_secret_holding_a_blank_a_screen_row_of_gemini_cli_s_transcript_cuts_is_masked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A secret named with a blank in it (a passphrase), cut at a row's end, stayed in the
    clear: it was looked for first, as it is, in the text with the blanks taken out."""
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret("Pass word-1234-XYZ", named=True)
    rows = '[{"text":"Pass wo   ","bold":false}],[{"text":"rd-1234-XYZ","bold":false}]'
    masked = '[{"text":"***   ","bold":false}],[{"text":"","bold":false}]'
    assert masking.mask(rows) == masked
    assert masking.mask_bytes(rows.encode()) == masked.encode()
