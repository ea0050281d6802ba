"""``proctor agents install`` with the real npm and a registry nobody listens on: a sentence
within seconds, not after the minutes of npm's own retries."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import closed_port

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")


def test_an_unreachable_registry_fails_fast(tmp_path: Path) -> None:
    with closed_port() as port:
        _unreachable_registry_fails_fast(tmp_path, port)


def _unreachable_registry_fails_fast(tmp_path: Path, port: int) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "npm_config_registry": f"http://127.0.0.1:{port}/",
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "PYTHONPATH": str(Path(__file__).parents[2] / "src"),
    }
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "agents", "install", "--dir", str(tmp_path / "a")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=90,  # npm's own retries, unasked, take minutes
    )
    took = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"proctor: error: npm could not reach the registry http://127.0.0.1:{port}/ (connect "
        f"ECONNREFUSED 127.0.0.1:{port}); check the network, or npm's registry setting "
        "(npm_config_registry, an .npmrc), and run it again; nothing was installed"
    )
    assert took < 30, took
    assert not (tmp_path / "a").exists()


def test_npm_set_to_install_from_its_cache_is_not_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm's prefer-offline installs what its cache holds without a registry: a registry that
    cannot be reached is then npm's to judge, not proctor's."""
    from proctor.agents.install import registry_problem

    npm = shutil.which("npm")
    assert npm is not None
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    with closed_port() as port:
        monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
        assert registry_problem(npm, tmp_path / "a") is not None
        monkeypatch.setenv("npm_config_prefer_offline", "true")
        assert registry_problem(npm, tmp_path / "a") is None


def test_a_registry_that_never_answers_is_said_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A registry that takes the connection and never answers (a black-holed proxy): npm's own
    5 minutes for each request, retried, would keep the install waiting for a quarter hour."""
    from proctor.agents import install

    npm = shutil.which("npm")
    assert npm is not None
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        port = silent.getsockname()[1]
        monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
        monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
        monkeypatch.setattr(install, "PROBE_FETCH_TIMEOUT_SEC", 1.0)
        said = install.registry_problem(npm, tmp_path / "a")
    assert said is not None and said.startswith(
        f"npm could not reach the registry http://127.0.0.1:{port}/ (no answer within 1 s, "
        "twice); check the network"
    )
