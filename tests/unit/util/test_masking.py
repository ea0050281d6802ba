"""Secrets are masked in the files proctor keeps, and nothing outside them is written: plain
and named secrets in :func:`~proctor.util.masking.mask` and what it leaves alone (a placeholder
word, digits inside larger figures, a short name inside a word), the credentials a command
line, a URL or a curl login holds, and :func:`~proctor.util.masking.scrub_tree` on disk (a
file's mode, hard links, trees nested past the path limit, read-only folders, names and links
holding a key). Base64 and wrapped forms are in ``test_encoded.py``, the terminal stream in
``test_terminal_masking.py``."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.util import masking, terminal_masking
from tests.unit.util.conftest import SECRET

pytestmark = pytest.mark.usefixtures("one_secret")


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


def test_an_mcp_server_run_by_curl_is_recorded_with_its_login_s_password_masked() -> None:
    from proctor.models.config import McpEntry, Provision
    from proctor.plan.records import recorded_provision

    server = McpEntry.model_validate(
        {"name": "web", "command": "/usr/bin/curl", "args": ["-u", "me:s3cret", "https://h"]}
    )
    recorded = recorded_provision(Provision(mcps=[server]))
    assert recorded.mcps[0].field("args") == ["-u", "me:***", "https://h"]


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
