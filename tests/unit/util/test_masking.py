"""Secrets are masked in the files proctor keeps, and nothing outside them is written."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.util import masking, terminal_masking

SECRET = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def one_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", {SECRET})


def test_a_secret_is_masked_and_the_file_keeps_its_mode(tmp_path: Path) -> None:
    trial = tmp_path / "trial"
    (trial / "workspace").mkdir(parents=True)
    log = trial / "workspace" / "run.sh"
    log.write_text(f"export KEY={SECRET}\n")
    log.chmod(0o750)
    (trial / "clean.txt").write_text("nothing here\n")
    assert masking.scrub_tree(trial) == ["workspace/run.sh"]
    assert log.read_text() == "export KEY=***\n"
    assert stat.S_IMODE(log.stat().st_mode) == 0o750
    assert sorted(p.name for p in (trial / "workspace").iterdir()) == ["run.sh"]  # no temp left


def test_a_file_hard_linked_from_outside_is_masked_without_writing_the_outside_one(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "home" / ".env"
    outside.parent.mkdir()
    outside.write_text(f"KEY={SECRET}\n")
    trial = tmp_path / "trial"
    (trial / "workspace").mkdir(parents=True)
    os.link(outside, trial / "workspace" / "stolen.env")  # what an agent can do
    assert masking.scrub_tree(trial) == ["workspace/stolen.env"]
    assert (trial / "workspace" / "stolen.env").read_text() == "KEY=***\n"
    assert outside.read_text() == f"KEY={SECRET}\n"  # the user's own file, untouched


def test_control_writing_in_place_would_have_masked_the_outside_file(tmp_path: Path) -> None:
    outside = tmp_path / ".env"
    outside.write_text(f"KEY={SECRET}\n")
    os.link(outside, tmp_path / "stolen.env")
    (tmp_path / "stolen.env").write_bytes(b"KEY=***\n")
    assert outside.read_text() == "KEY=***\n"


def test_a_secret_in_a_tree_nested_past_the_path_limit_is_masked(tmp_path: Path) -> None:
    """An agent can nest folders past PATH_MAX (4096 bytes) one step at a time; a walk by whole
    paths stopped there with an error (and masked nothing, not even the files above)."""
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(20):
        os.mkdir("d" * 250, dir_fd=fd)
        inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    leak = os.open("leak.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
    os.write(leak, f"{SECRET}\n".encode())
    os.close(leak)
    os.mkfifo("pipe", dir_fd=fd)  # never opened for reading (it would block)
    (tmp_path / "top.txt").write_text(SECRET)
    (tmp_path / "link").symlink_to(tmp_path / "top.txt")
    touched = masking.scrub_tree(tmp_path)
    assert touched[-1] == "top.txt" and touched[0].endswith("/leak.txt") and len(touched) == 2
    leak = os.open("leak.txt", os.O_RDONLY, dir_fd=fd)
    assert os.read(leak, 100) == b"***\n"
    os.close(leak)
    os.close(fd)
    assert (tmp_path / "top.txt").read_text() == "***"


def test_a_deep_chain_opens_each_folder_about_once_with_few_descriptors_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    depth = 400  # deep enough to tell depth² from depth; shallow enough for rmtree
    fd = os.open(tmp_path, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    leak = os.open("leak.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
    os.write(leak, SECRET.encode())
    os.close(leak)
    os.close(fd)
    real_open, opens = os.open, [0]
    most = [0]

    def counting(*args: object, **kwargs: object) -> int:
        opens[0] += 1
        most[0] = max(most[0], len(os.listdir("/proc/self/fd")))
        return real_open(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(masking.os, "open", counting)
    touched = masking.scrub_tree(tmp_path)
    assert len(touched) == 1 and touched[0].endswith("a/leak.txt")
    assert opens[0] < 3 * depth  # reopening each folder from the root would be ~depth²/2
    assert most[0] < 150  # at most 64 + depth / 64 folders held open, plus the test's own


def test_a_folder_made_read_only_is_opened_up_for_the_mask_and_closed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "log.txt").write_text(f"key {SECRET}\n")
    folder.chmod(0o555)
    real_open, refused = os.open, []

    def as_if_not_root(path: object, flags: int, *args: object, **kwargs: object) -> int:
        # root writes into a 0555 folder anyway: refuse the first create as a user is refused
        if flags & os.O_CREAT and not refused:
            refused.append(path)
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(masking.os, "open", as_if_not_root)
    assert masking.scrub_tree(tmp_path) == ["ro/log.txt"]
    assert refused and (folder / "log.txt").read_text() == "key ***\n"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o555


def test_a_long_name_outside_ascii_is_masked_not_removed(tmp_path: Path) -> None:
    name = "é" * 126 + ".md"  # 255 bytes: the longest name a folder can hold
    (tmp_path / name).write_text(SECRET)
    assert masking.scrub_tree(tmp_path) == [name]
    assert (tmp_path / name).read_text() == "***"


def test_a_lowercase_word_is_a_placeholder_not_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """``OPENAI_API_KEY=ollama`` (a local server's placeholder) would otherwise become ``***``
    wherever the word appears: model names, filters, links."""
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret("ollama")
    masking.register_secret("placeholder")
    assert (
        masking.mask("model ollama/llama3, a placeholder") == "model ollama/llama3, a placeholder"
    )
    masking.register_secret("sk-ollama-1")  # the control: a key-shaped value is masked
    assert masking.mask("key sk-ollama-1 here") == "key *** here"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://user:s3cret@127.0.0.1:8765/mcp?api_key=sk-ab&x=1", "http://user:***@127.0.0.1:8765/mcp?api_key=***&x=1"),
        ("npx server --token ghp_abc123 --port 8080", "npx server --token *** --port 8080"),
        ("srv --api-key=sk-1 --verbose", "srv --api-key=*** --verbose"),
        ("GITHUB_TOKEN=ghp_x node s.js", "GITHUB_TOKEN=*** node s.js"),
        ("https://h/mcp?access_token=abc&page=2", "https://h/mcp?access_token=***&page=2"),
        ("http://127.0.0.1:9/mcp?key=ZZurl-1&x=1", "http://127.0.0.1:9/mcp?key=***&x=1"),
        ("https://g/v1beta/models?alt=sse&key=AIzaX", "https://g/v1beta/models?alt=sse&key=***"),
        ("https://s3/o?X-Amz-Signature=ab12&a=1", "https://s3/o?X-Amz-Signature=***&a=1"),
        ("https://h/?monkey=banana", "https://h/?monkey=banana"),  # a word ending in key
        # What closes the value in code or a shell line stays: only the value is masked.
        ('run("srv --token ghp_abc123");', 'run("srv --token ***");'),
        ("spawn(--api-key=sk-1);", "spawn(--api-key=***);"),
        ("fetch(https://h/x?api_key=sk-ab), next", "fetch(https://h/x?api_key=***), next"),
        ("export GITHUB_TOKEN=ghp_x; node s.js", "export GITHUB_TOKEN=***; node s.js"),
        ("--token ab);cd", "--token ***"),  # inside the value: masked with it
        # --auth and --passphrase hold credentials too, quoted values are masked inside
        # their quotes (a scheme kept), and an argument quoted whole is masked in it
        ("notify --auth=hookAUTH123 --auth argAUTH456", "notify --auth=*** --auth ***"),
        ("x -pass pass:abc --passphrase abc123DEF", "x -pass *** --passphrase ***"),
        ("srv --auth 'a b c' --token \"Bearer t-1\"", "srv --auth '***' --token \"Bearer ***\""),
        ("srv '--token=argTOK789!' '--password=p w'", "srv '--token=***' '--password=***'"),
        ("https://h/?auth=abc&x=1 AUTH=xyz", "https://h/?auth=***&x=1 AUTH=***"),
        # A webhook URL's path is its credential
        ("curl -X POST https://hooks.slack.com/services/T0000/B0000/XXXXXXXX -d hi", "curl -X POST https://hooks.slack.com/services/*** -d hi"),
        ("(https://hooks.slack.com/workflows/T1/A2/3/xyz).", "(https://hooks.slack.com/workflows/***)."),
        ("curl https://discord.com/api/webhooks/123456789/abc-DEF_ghi", "curl https://discord.com/api/webhooks/123456789/***"),
        ("https://discordapp.com/api/v10/webhooks/1/tok/slack", "https://discordapp.com/api/v10/webhooks/1/***/slack"),
        # The controls: names that only hold such a word are left as they are.
        ("node s.js --keyboard-layout us --tokens 5 --key-file /x", "node s.js --keyboard-layout us --tokens 5 --key-file /x"),
        ("git log --author Bob --oauth x --auth-file ~/.a --bypass y --pass-env Z OAUTH=1", "git log --author Bob --oauth x --auth-file ~/.a --bypass y --pass-env Z OAUTH=1"),
        ("https://hooks.slack.com/ https://discord.com/api/webhooks/", "https://hooks.slack.com/ https://discord.com/api/webhooks/"),
        ("https://example.com/mcp", "https://example.com/mcp"),
    ],
)  # fmt: skip
def test_a_credential_in_a_command_line_or_url_is_masked(text: str, shown: str) -> None:
    from proctor.util.masking import credentials_masked

    assert credentials_masked(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("curl -u me:s3cret https://h", "curl -u me:*** https://h"),
        ("curl --user me:s3cret https://h", "curl --user me:*** https://h"),
        ("curl -ume:s3cret https://h", "curl -ume:*** https://h"),
        ("curl -sSLu me:s3cret https://h", "curl -sSLu me:*** https://h"),
        ("curl -u 'me:s3 cret' h", "curl -u 'me:***' h"),
        ("curl '-ume:s3 cret' h", "curl '-ume:***' h"),
        ("/usr/bin/curl -U proxy:s3cret -x p h", "/usr/bin/curl -U proxy:*** -x p h"),
        ("wget --user=me:s3cret h", "wget --user=me:*** h"),
        ("bash -c 'curl -u me:s3cret h | jq .'", "bash -c 'curl -u me:*** h | jq .'"),
        ("sudo -u bob curl -u me:s3cret h", "sudo -u bob curl -u me:*** h"),
        (
            "docker run -u 1000:1000 curlimages/curl -u me:s3cret h",
            "docker run -u 1000:1000 curlimages/curl -u me:*** h",
        ),
        # The controls: a user or a uid:gid of another command, a login without a password,
        # an option that only begins so, and a command after curl's in the line.
        ("docker run -u 1000:1000 img", "docker run -u 1000:1000 img"),
        ("podman exec -u root:root box sh", "podman exec -u root:root box sh"),
        ("sudo -u www-data:www-data ls", "sudo -u www-data:www-data ls"),
        ("curl -u me https://h", "curl -u me https://h"),
        ("curl --user-agent a:b h", "curl --user-agent a:b h"),
        ("curl https://h && docker run -u 0:0 img", "curl https://h && docker run -u 0:0 img"),
    ],
)
def test_the_password_of_a_login_given_to_curl_is_masked(text: str, shown: str) -> None:
    from proctor.util.masking import credentials_masked

    assert credentials_masked(text) == shown


def test_the_password_of_a_login_in_arguments_is_masked_after_curl_only() -> None:
    from proctor.util.masking import arguments_masked

    assert arguments_masked(["-u", "me:pw", "-uyou:pw2", "https://h"], "curl") == [
        "-u",
        "me:***",
        "-uyou:***",
        "https://h",
    ]
    assert arguments_masked(["run", "-u", "1:2", "curlimages/curl", "--user", "me:pw"]) == [
        "run",
        "-u",
        "1:2",
        "curlimages/curl",
        "--user",
        "me:***",
    ]
    assert arguments_masked(["-u", "1000:1000", "img"], "docker") == ["-u", "1000:1000", "img"]


def test_a_secret_that_is_part_of_another_never_leaves_the_rest_in_the_clear() -> None:
    from proctor.util.masking import mask, register_secret

    key = "sk-ant-api03-PARTOFkey-0123456789abcdefghijKLMNOP"
    register_secret(key[-20:])  # the tail Claude Code approves a key by, registered first
    register_secret(key)
    assert mask(f"key={key}") == "key=***"
    assert mask(f"tail={key[-20:]}") == "tail=***"


def test_a_credential_pattern_takes_no_time_on_a_name_of_many_parts() -> None:
    """A name of many `_`-joined parts once took exponential time to match; an alarm stops
    the test long before a hang would end."""
    import signal

    from proctor.util.masking import credentials_masked

    def hang(*_: object) -> None:
        raise TimeoutError("the credential pattern backtracks")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(10)
    try:
        for text in ("a_" * 60 + "b", "echo " + "_" * 80, "--" + "x-" * 60 + "token abc"):
            credentials_masked(text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert credentials_masked("--" + "x-" * 3 + "token abc") == "--x-x-x-token ***"


@pytest.mark.parametrize(
    "build",
    [
        lambda n: "a-" * (n // 2),  # a name of many parts, each one a word
        lambda n: "a." * (n // 2) + "://x",  # a run of a scheme's letters
        lambda n: "--token x" + ");" * (n // 2) + "a",  # a value and closing marks
        lambda n: "GITHUB_TOKEN=x" + ");" * (n // 2) + "a",
        lambda n: "?key=x" + ");" * (n // 2) + "a",
    ],
    ids=["parts", "scheme", "option", "variable", "query"],
)
def test_a_long_word_is_masked_in_linear_time(build: Callable[[int], str]) -> None:
    """A 10,000-character word once took seconds (each pattern read it again from each of its
    parts). On a loaded machine the time alone says little: four times the word takes about
    four times as long when the reading is linear, sixteen times when it is quadratic."""
    import time

    from proctor.util.masking import credentials_masked

    def seconds(text: str) -> float:
        started = time.perf_counter()
        credentials_masked(text)
        return time.perf_counter() - started

    small = min(seconds(build(2_500)) for _ in range(3))
    big = min(seconds(build(10_000)) for _ in range(2))
    assert big < 8 * small + 0.05, (big, small)


def test_a_name_found_from_its_first_part_is_masked_from_any() -> None:
    """A variable's name is looked for from its first part only; what its parts join, and a
    name after a blank, a `$` or an underscore, is found all the same."""
    from proctor.util.masking import credentials_masked

    for text, shown in [
        ("x-y.GITHUB_TOKEN=ab c", "x-y.GITHUB_TOKEN=*** c"),
        ("--GITHUB_TOKEN=ab", "--GITHUB_TOKEN=***"),
        ("__a-TOKEN=ab", "__a-TOKEN=***"),
        ("_API_KEY=ab", "_API_KEY=***"),
        ("1-https://u:pw@h", "1-https://u:***@h"),
        ("a-b+c.git+ssh://u:pw@h", "a-b+c.git+ssh://u:***@h"),
        ("TOKEN=)))", "TOKEN=***))"),
        ("a-b-c-d", "a-b-c-d"),
    ]:
        assert credentials_masked(text) == shown, text


def test_a_name_or_a_link_holding_a_key_is_masked_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Masking read the files' contents only: a file or folder the agent named after a key,
    or a link pointing at one, kept it on disk."""
    monkeypatch.setattr(masking, "_SECRETS", set())
    key = "sk-ant-api03-NAMELEAK0123456789"
    masking.register_secret(key)
    (tmp_path / f"file-{key}.txt").write_text("plain")
    (tmp_path / "file-***.txt").write_text("taken")  # the masked name is taken: numbered
    (tmp_path / f"dir-{key}").mkdir()
    (tmp_path / f"dir-{key}" / "inner.txt").write_text(f"holds {key}")
    (tmp_path / "link").symlink_to(f"/nowhere/{key}")
    touched = masking.scrub_tree(tmp_path)
    names = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert not [n for n in names if key in n], names
    assert "file-***.txt.2" in names and (tmp_path / "file-***.txt").read_text() == "taken"
    assert (tmp_path / "dir-***" / "inner.txt").read_text() == "holds ***"
    assert os.readlink(tmp_path / "link") == "/nowhere/***"
    assert {"file-***.txt.2", "dir-***", "dir-***/inner.txt", "link"} <= set(touched)


TERMINAL_KEY = "sk-ant-api03-abcdefGHIJ0123456789"
BOX = "\u2502".encode()


@pytest.mark.parametrize(
    ("raw", "masked"),
    [
        (TERMINAL_KEY.encode(), b"***"),
        # the cursor moved on a cell, a colour changed, an inverse cursor drawn in the key
        (b"x " + TERMINAL_KEY[:16].encode() + b"\x1b[1C" + TERMINAL_KEY[16:].encode() + b" y", b"x ***\x1b[1C y"),
        (b"x " + TERMINAL_KEY[:5].encode() + b"\x1b[31m" + TERMINAL_KEY[5:9].encode() + b"\x1b[0m\x1b[7m" + TERMINAL_KEY[9:].encode() + b"\x1b[27m y", b"x ***\x1b[31m\x1b[0m\x1b[7m\x1b[27m y"),
        # a window title set in it, a backspace, a cursor jump to the next row
        (TERMINAL_KEY[:10].encode() + b"\x1b]0;title\x07" + TERMINAL_KEY[10:].encode(), b"***\x1b]0;title\x07"),
        (TERMINAL_KEY[:10].encode() + b"\x1b[12;3H" + TERMINAL_KEY[10:].encode(), b"***\x1b[12;3H"),
        # wrapped by a terminal UI in a box: the line break kept
        (BOX + b" " + TERMINAL_KEY[:10].encode() + b"  " + BOX + b"\r\n" + BOX + b" " + TERMINAL_KEY[10:].encode() + b" " + BOX, BOX + b" ***  " + BOX + b"\r\n" + BOX + b"  " + BOX),
        # controls: a blank is no escape, and a key's parts drawn apart are not one key
        (TERMINAL_KEY[:10].encode() + b" " + TERMINAL_KEY[10:].encode(), TERMINAL_KEY[:10].encode() + b" " + TERMINAL_KEY[10:].encode()),
        (TERMINAL_KEY[:10].encode() + b"  x  " + TERMINAL_KEY[10:].encode(), TERMINAL_KEY[:10].encode() + b"  x  " + TERMINAL_KEY[10:].encode()),
    ],
)  # fmt: skip
def test_a_key_the_terminal_stream_splits_with_escapes_is_masked(
    monkeypatch: pytest.MonkeyPatch, raw: bytes, masked: bytes
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    assert terminal_masking.mask_terminal(raw) == masked


GEMINI_EDGE = b"\x1b[2m\x1b[38;2;135;175;255m" + BOX
"""Gemini CLI's box edge, dim and coloured (bytes from a recording of its terminal UI)."""
GEMINI_BREAK = (
    b" " * 77 + GEMINI_EDGE + b"\x1b[39m\x1b[22m\r\n" + GEMINI_EDGE + b"\x1b[22m\x1b[39m "
)
"""Between two lines of a command's output in Gemini CLI's box: the line padded to the box's
width, the right edge drawn and coloured back, the break, the next line's left edge."""


@pytest.mark.parametrize("cut", [1, 10, 20, 32])
def test_a_key_wrapped_in_gemini_cli_s_box_is_masked_in_the_terminal_stream(
    monkeypatch: pytest.MonkeyPatch, cut: int
) -> None:
    """Gemini CLI pads each line of its box with blanks to its width and draws the edges in
    colour on both sides of the line break: a key (or its base64) wrapped there was kept in
    ``terminal.raw``. The bytes between the pieces stay, so the recording replays."""
    import base64

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    key = TERMINAL_KEY.encode()
    raw = GEMINI_EDGE + b"\x1b[22m\x1b[39m " + key[:cut] + GEMINI_BREAK + key[cut:] + b" " * 40
    kept = GEMINI_EDGE + b"\x1b[22m\x1b[39m ***" + GEMINI_BREAK + b" " * 40
    assert terminal_masking.mask_terminal(raw) == kept
    # (cat file; printf "$KEY") | base64 in the box: the encoding cut at 76 columns
    encoded = base64.encodebytes(b"a" * 50 + key + b"a" * 80).decode().splitlines()
    drawn = GEMINI_BREAK.join(line.encode() for line in encoded)
    masked = terminal_masking.mask_terminal(drawn)
    assert b"***" in masked and _shown_key(masked.replace(GEMINI_BREAK, b"")) == "", masked
    assert masked.count(b"\r\n") == drawn.count(b"\r\n")
    for size in (7, 64, 4096):  # the mirror, however the chunks fall
        mirror = terminal_masking.StreamMask()
        out = b"".join(mirror.feed(raw[i : i + size]) for i in range(0, len(raw), size))
        assert out + mirror.flush() == kept, size


def test_a_terminal_mask_takes_no_time_on_long_runs_of_padding() -> None:
    """Blanks and box edges, with or without line breaks, are read once after a start of a
    key: many starts, each followed by a long padding and no end, take linear time."""
    import time

    masking.register_secret(TERMINAL_KEY)
    for run in (b" " * 3000 + BOX, GEMINI_BREAK * 40):
        raw = (b"sk-ant" + run + b"!") * 300
        started = time.monotonic()
        assert terminal_masking.mask_terminal(raw) == raw
        assert time.monotonic() - started < 5


def _shown_key(data: bytes) -> str:
    """A piece of 12 characters of :data:`TERMINAL_KEY`'s base64 forms in ``data``."""
    from proctor.util.encoded import stream_forms

    text = data.decode("latin-1")
    pieces = {f[i : i + 12] for f in stream_forms(TERMINAL_KEY) for i in range(len(f) - 11)}
    return next((p for p in pieces if p in text), "")


def test_a_terminal_mask_takes_no_time_on_long_runs_of_escapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing between two characters of a key is given back once taken: a stream of many
    starts of the key, each followed by escapes and no end, is read in linear time."""
    import time

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    raw = (b"sk-ant" + b"\x1b[1C\x1b[31m\r\n  " * 50 + b"!") * 2000
    started = time.monotonic()
    assert terminal_masking.mask_terminal(raw) == raw
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 64])
def test_the_mirror_masks_a_key_split_with_escapes_however_the_chunks_fall(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    key = TERMINAL_KEY.encode()
    stream = b"x " + key[:16] + b"\x1b[1C" + key[16:24] + b"\x1b[38;5;12m" + key[24:] + b"\x1b[0m y"
    stream += b" s" + BOX + b" " + key[:6] + b"  " + BOX + b"\r\n" + BOX + b" " + key[6:] + b" sk-"
    mirror = terminal_masking.StreamMask()
    out = b"".join(mirror.feed(stream[i : i + size]) for i in range(0, len(stream), size))
    out += mirror.flush()
    assert (
        out
        == b"x ***\x1b[1C\x1b[38;5;12m\x1b[0m y s"
        + BOX
        + b" ***  "
        + BOX
        + b"\r\n"
        + BOX
        + b"  sk-"
    )
    assert mirror.feed(b"plain text") == b"plain text"  # nothing held without a start


def test_an_mcp_server_run_by_curl_is_recorded_with_its_login_s_password_masked() -> None:
    from proctor.models.config import McpEntry, Provision
    from proctor.plan.records import recorded_provision

    server = McpEntry.model_validate(
        {"name": "web", "command": "/usr/bin/curl", "args": ["-u", "me:s3cret", "https://h"]}
    )
    recorded = recorded_provision(Provision(mcps=[server]))
    assert recorded.mcps[0].field("args") == ["-u", "me:***", "https://h"]


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


@pytest.mark.parametrize(
    ("raw", "masked"),
    [
        # in a link's address (an OSC): the escape taken out whole would take the key too
        (b"\x1b]8;;https://h/?t=" + TERMINAL_KEY.encode() + b"\x1b\\link", b"\x1b]8;;https://h/?t=***\x1b\\link"),
        # right after an ESC whose second byte would be its first character
        (b"\x1b" + TERMINAL_KEY.encode(), b"\x1b***"),
        # an escape of two bytes (the cursor saved) between two of its characters
        (TERMINAL_KEY[:7].encode() + b"\x1b7" + TERMINAL_KEY[7:].encode(), b"***\x1b7"),
    ],
)  # fmt: skip
def test_a_key_the_quick_search_of_the_stream_might_miss_is_masked(
    monkeypatch: pytest.MonkeyPatch, raw: bytes, masked: bytes
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    assert terminal_masking.mask_terminal(raw) == masked


def test_a_secret_of_digits_is_masked_only_where_it_stands_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``MAX_TOKEN=100000`` set in a profile's env is registered (its name says token): the
    digits of larger figures are not it."""
    from proctor.agents.credentials import register_given_secrets
    from proctor.util.cutting import mask_wrapped, secret_spans

    monkeypatch.setattr(masking, "_SECRETS", set())
    register_given_secrets([], {"MAX_TOKEN": "100000"}, {})
    assert masking.registered_secrets() == ["100000"]
    text = "limit 100000; 2100000 tokens, 1000000 left, 0.1000001 s, id=100000."
    shown = "limit ***; 2100000 tokens, 1000000 left, 0.1000001 s, id=***."
    assert masking.mask(text) == shown
    assert mask_wrapped(text) == shown
    assert secret_spans("2100000 100000") == [(8, 14)]
    assert terminal_masking.mask_terminal(text.encode()) == shown.encode()
    (tmp_path / "out.txt").write_text(text)
    assert masking.scrub_tree(tmp_path) == ["out.txt"]
    assert (tmp_path / "out.txt").read_text() == shown


def test_a_short_secret_named_by_the_user_is_masked_only_where_it_stands_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret("Ab12", named=True)
    masking.register_secret("x!9y", named=True)  # punctuation: rare in words, masked anywhere
    assert masking.mask("Ab12, XAb12 Ab12s 'Ab12' ax!9yz") == "***, XAb12 Ab12s '***' a***z"


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


@pytest.mark.parametrize(
    "tail",
    [b"\x00" * 1023 + b"x", b"\x07\x08\r" * 341 + b"x", BOX * 341 + b"x"],
    ids=["nul", "controls", "edges"],
)
def test_the_mirror_reads_a_tail_of_control_characters_once(
    monkeypatch: pytest.MonkeyPatch, tail: bytes
) -> None:
    """Where a chunk's last kilobyte may hold a line's padding after a key's first character,
    a run of control characters or box edges not reaching the end was read again from each of
    its bytes (40 ms a chunk, 3 ms for edges): read once, a thousand chunks take a tenth of a
    second."""
    import time

    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(TERMINAL_KEY)
    mirror = terminal_masking.StreamMask()
    mirror.feed(tail)  # the patterns compiled
    started = time.monotonic()
    for _ in range(1000):
        assert mirror.feed(tail) == tail
    assert time.monotonic() - started < 1.5
