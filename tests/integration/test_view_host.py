"""``proctor view --host``: what the address the viewer is bound to allows (decided from the
bound socket, never from how the address was written), and bad addresses as one sentence."""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.view.serve import bound_address, listen
from tests.conftest import Run
from tests.integration.test_view_server import _project, post, raw_get


@contextmanager
def _viewer_on(host: str, tmp_path: Path) -> Iterator[tuple[int, str]]:
    """``proctor view --host HOST`` over an empty results folder with a playground; yields the
    port it printed and the line that printed it."""
    results = tmp_path / "results"
    results.mkdir()
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "proctor", "view", str(results)),
            *("--host", host, "--port", "0", "--no-open", "--source", str(_project(tmp_path))),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "proctor view printed nothing"
        line = process.stdout.readline()  # type: ignore[union-attr]
        match = re.search(r"http://\S+:(\d+)/", line)
        assert match, line
        yield int(match.group(1)), line
    finally:
        if process.poll() is None:
            process.terminate()
        process.communicate(timeout=60)


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("0", "127.0.0.1"),
        ("0.0.0.0", "127.0.0.1"),
        ("::", "[::1]"),
        ("::0", "[::1]"),
        ("::ffff:0.0.0.0", "127.0.0.1"),  # an IPv6 socket taking IPv4 only
    ],
)
def test_a_viewer_on_every_address_prints_a_url_that_opens_here(
    tmp_path: Path, host: str, local: str
) -> None:
    if ":" in host and not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    with _viewer_on(host, tmp_path) as (port, line):
        assert f" at http://{local}:{port}/ (listening on every interface;" in line, line
        status, page = raw_get(f"http://{local}:{port}", "/", {"Host": f"{local}:{port}"})
    assert status == 200 and "proctor" in page


@pytest.mark.parametrize("host", ["0", "0.0.0.0"])
def test_every_address_however_written_runs_no_batch(tmp_path: Path, host: str) -> None:
    with _viewer_on(host, tmp_path) as (port, _):
        base = f"http://127.0.0.1:{port}"
        for name in (f"{host}:{port}", f"127.0.0.1:{port}", f"anything.example:{port}"):
            status, page = raw_get(base, "/playground", {"Host": name})
            assert status == 200, name  # pages are served to any name
            token = re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
            headers = {"host": name, "x-proctor-token": token, "origin": f"http://{name}"}
            status, answer = post(base, {"suite": "suite", "cases": ["fix-a-bug"]}, headers)
            assert status == 403 and "every address" in str(answer["error"]), (name, answer)


def test_every_ipv6_address_written_as_double_colon_zero_runs_no_batch(tmp_path: Path) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    with _viewer_on("::0", tmp_path) as (port, _):
        base = f"http://[::1]:{port}"
        status, page = raw_get(base, "/playground", {"Host": f"[::0]:{port}"})
        assert status == 200
        token = re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        headers = {
            "host": f"[::0]:{port}",
            "x-proctor-token": token,
            "origin": f"http://[::0]:{port}",
        }
        assert post(base, {"suite": "suite"}, headers)[0] == 403


@pytest.mark.parametrize(
    ("host", "loopback", "wildcard"),
    [
        ("127.0.0.1", True, False),
        ("localhost", True, False),
        ("127.0.0.2", False, False),
        ("0", False, True),
        ("0.0.0.0", False, True),
        ("::0", False, True),
        ("::", False, True),
        ("::ffff:0.0.0.0", False, True),
        ("::1", True, False),
    ],
)
def test_what_an_address_allows_is_read_from_the_bound_socket(
    host: str, loopback: bool, wildcard: bool
) -> None:
    try:
        sock = listen(host, 0, fallback=False)
    except ConfigError:
        pytest.skip(f"{host} cannot be bound here")
    with sock:
        where = bound_address(sock)
    assert (where.loopback, where.wildcard) == (loopback, wildcard)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "999.1.1.1"], "--host 999.1.1.1: cannot listen on that address"),
        (["--host", "10.255.255.1"], "--host 10.255.255.1: cannot listen on that address"),
        (["--host", "10.255.255.1", "--port", "0"], "--host 10.255.255.1: cannot listen"),
        (["--host", "a" * 70], "cannot listen on that address"),
    ],
)
def test_an_address_this_machine_lacks_is_one_sentence_naming_host(
    proctor: Run, tmp_path: Path, args: list[str], message: str
) -> None:
    result = proctor("view", str(tmp_path), "--no-open", *args)
    assert result.code == 2 and message in result.err, result.err
    assert "Traceback" not in result.err and "--port" not in result.err
