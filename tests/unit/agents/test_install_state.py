"""``proctor agents install``: an install cut short is not taken as installed, npm's whole
process group stops with it, and a folder it cannot make is one sentence."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from proctor.agents import install
from proctor.agents.install import install_agents, missing_pins
from proctor.errors import AgentError
from proctor.util import processes
from tests.conftest import Run

PINS = {"@scope/cli": "1.2.3"}

# Unpacks each package's package.json, starts a background child (an install script's
# download), then writes npm's record of a finished install unless FAKE_NPM_HANG is set.
FAKE_NPM = """#!/bin/sh
if [ "$1" = config ]; then echo http://registry.test/; exit 0; fi
if [ "$1" = ping ]; then exit 0; fi
prefix=""
for arg in "$@"; do
  if [ "$want_prefix" = 1 ]; then prefix=$arg; want_prefix=0; continue; fi
  case "$arg" in
    --prefix) want_prefix=1 ;;
    --*) ;;
    *) pkg=${arg%@*}; ver=${arg##*@}; mkdir -p "$prefix/node_modules/$pkg"
       printf '{"name":"%s","version":"%s"}' "$pkg" "$ver" > "$prefix/node_modules/$pkg/package.json"
       lock="$lock${lock:+,}\\"node_modules/$pkg\\": {\\"version\\": \\"$ver\\"}" ;;
  esac
done
sleep 30 & echo $! > "$FAKE_NPM_CHILD"
if [ -n "$FAKE_NPM_HANG" ]; then sleep 30; fi
printf '{"packages": {%s}}' "$lock" > "$prefix/node_modules/.package-lock.json"
"""


@pytest.fixture
def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    child = tmp_path / "child.pid"
    monkeypatch.setenv("FAKE_NPM_CHILD", str(child))
    for name in list(os.environ):  # the sentences below are of npm without a proxy
        if name.lower() in install.PROXY_VARIABLES:
            monkeypatch.delenv(name)
    return child


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return not state.startswith("Z")


def _alive(pid: int) -> bool:
    """Still running a moment after it was killed (a kill lands asynchronously)."""
    deadline = time.monotonic() + 5
    while _running(pid):
        if time.monotonic() > deadline:
            return True
        time.sleep(0.05)
    return False


def test_a_package_unpacked_by_an_install_cut_short_is_not_installed(tmp_path: Path) -> None:
    manifest = tmp_path / "node_modules" / "@scope" / "cli" / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"name": "@scope/cli", "version": "1.2.3"}')
    assert missing_pins(tmp_path, PINS) == ["@scope/cli@1.2.3"]
    lock = tmp_path / "node_modules" / ".package-lock.json"
    lock.write_text(json.dumps({"packages": {"node_modules/@scope/cli": {"version": "1.0.0"}}}))
    assert missing_pins(tmp_path, PINS) == ["@scope/cli@1.2.3"]  # an older finished install
    lock.write_text(json.dumps({"packages": {"node_modules/@scope/cli": {"version": "1.2.3"}}}))
    assert missing_pins(tmp_path, PINS) == []


def test_install_then_reuse(tmp_path: Path, fake_npm: Path) -> None:
    folder = tmp_path / "agents"
    assert install_agents(folder, PINS) == ["@scope/cli@1.2.3"]
    assert install_agents(folder, PINS) == []
    assert not _alive(int(fake_npm.read_text()))  # npm's leftovers are stopped when it ends


def test_a_stopped_install_stops_npms_children_and_is_installed_again(
    tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "agents"
    monkeypatch.setenv("FAKE_NPM_HANG", "1")
    monkeypatch.setattr(install, "NPM_TIMEOUT_SEC", 1.0)
    started = time.monotonic()
    with pytest.raises(AgentError, match="npm install did not finish in 1 s") as caught:
        install_agents(folder, PINS)
    assert time.monotonic() - started < 20
    assert "http://registry.test/" in str(caught.value)
    assert not _alive(int(fake_npm.read_text()))
    assert missing_pins(folder, PINS) == ["@scope/cli@1.2.3"]  # its package.json is there
    monkeypatch.delenv("FAKE_NPM_HANG")
    assert install_agents(folder, PINS) == ["@scope/cli@1.2.3"]


def test_a_folder_it_cannot_make_is_one_sentence(tmp_path: Path, fake_npm: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(AgentError) as caught:
        install_agents(blocker / "agents", PINS)
    assert str(caught.value) == (
        f"cannot make the install folder {blocker / 'agents'}: Not a directory; "
        "give `--dir` a folder you can write"
    )


def test_the_command_says_what_it_installs_before_npm_starts(
    proctor: Run, tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROCTOR_AGENTS_DIR", "agents")
    folder = Path("agents")  # relative, as the default `.agents` is
    done = proctor("agents", "install", "--dir", str(folder))
    assert done.code == 0, done.err
    assert done.err.startswith("proctor: installing @anthropic-ai/claude-code@")
    assert f"into {folder} (npm)" in done.err
    again = proctor("agents", "install", "--dir", str(folder))
    assert again.err == "" and again.out == f"pinned agent CLIs already present in {folder}\n"


def test_a_folder_proctor_does_not_look_in_is_said(
    proctor: Run, tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROCTOR_AGENTS_DIR", raising=False)
    done = proctor("agents", "install", "--dir", "elsewhere")
    assert done.code == 0, done.err
    assert (
        f"proctor: note: proctor does not look in elsewhere: set "
        f"PROCTOR_AGENTS_DIR={tmp_path.resolve() / 'elsewhere'}"
    ) in done.err
    monkeypatch.setenv("PROCTOR_AGENTS_DIR", "elsewhere")
    assert "note" not in proctor("agents", "install", "--dir", "elsewhere").err


FAILING_NPM = """#!/bin/sh
if [ "$1" = config ]; then echo http://registry.test/; exit 0; fi
echo 'npm error code E404' >&2
exit 1
"""


def test_a_failed_install_leaves_no_empty_folder_of_its_own(
    proctor: Run, tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bin" / "npm").write_text(FAILING_NPM)
    monkeypatch.chdir(tmp_path)
    failed = proctor("agents", "install", "--dir", "new/agents")
    assert failed.code == 2
    assert "npm install failed (1): npm error code E404" in failed.err
    assert not (tmp_path / "new").exists()  # both folders it made, deepest first
    # a folder the user had is kept, empty or not, and so is one npm wrote into
    (tmp_path / "mine").mkdir()
    assert proctor("agents", "install", "--dir", "mine").code == 2
    assert (tmp_path / "mine").is_dir()
    (tmp_path / "bin" / "npm").write_text(FAILING_NPM.replace("exit 1", 'touch "$3/x"; exit 1'))
    assert proctor("agents", "install", "--dir", "wrote").code == 2
    assert (tmp_path / "wrote" / "x").is_file()


UNREACHABLE_NPM = """#!/bin/sh
if [ "$1" = config ]; then echo http://127.0.0.1:9/; exit 0; fi
if [ "$1" = ping ]; then
  echo "$@" > "$FAKE_NPM_CHILD.ping"
  echo 'npm error code ECONNREFUSED' >&2
  echo 'npm error FetchError: request to http://127.0.0.1:9/-/ping failed, reason: connect \
ECONNREFUSED 127.0.0.1:9' >&2
  exit 1
fi
touch "$FAKE_NPM_CHILD.installed"
exit 1
"""


def test_an_unreachable_registry_stops_before_npm_install(
    proctor: Run, tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm's own retries take minutes to give up on a registry it cannot reach: proctor asks
    the registry first, with short retries, and says so in a sentence."""
    (tmp_path / "bin" / "npm").write_text(UNREACHABLE_NPM)
    monkeypatch.chdir(tmp_path)
    failed = proctor("agents", "install", "--dir", "new/agents")
    assert failed.code == 2
    assert failed.err.splitlines()[-1] == (
        "proctor: error: npm could not reach the registry http://127.0.0.1:9/ (connect "
        "ECONNREFUSED 127.0.0.1:9); check the network, or npm's registry setting "
        "(npm_config_registry, an .npmrc), and run it again; nothing was installed"
    )
    asked = (tmp_path / "child.pid.ping").read_text().split()
    assert asked[:3] == ["ping", "--prefix", "new/agents"]  # as the install would ask it
    assert "--fetch-retries=1" in asked
    assert not (tmp_path / "child.pid.installed").exists()  # npm install was not started
    assert not (tmp_path / "new").exists()


def test_a_registry_without_npms_ping_is_installed_from(tmp_path: Path, fake_npm: Path) -> None:
    """Only a registry npm could not connect to stops the install: one that answers the ping
    otherwise (a private registry's 404) is left to the install."""
    npm = tmp_path / "bin" / "npm"
    npm.write_text(
        FAKE_NPM.replace(
            'if [ "$1" = ping ]; then exit 0; fi',
            'if [ "$1" = ping ]; then echo "npm error code E404" >&2; exit 1; fi',
        )
    )
    assert install_agents(tmp_path / "agents", PINS) == ["@scope/cli@1.2.3"]


PROTECTED_NPM = """#!/bin/sh
if [ "$1" = config ]; then
  echo 'npm error The registry option is protected, and cannot be retrieved in this way' >&2
  exit 1
fi
if [ "$1" = ping ]; then
  echo 'npm error code ETIMEDOUT' >&2
  echo 'npm error network request to http://bob:***@registry.test/-/ping failed, reason: \
connect ETIMEDOUT 10.0.0.1:80' >&2
  exit 1
fi
exit 1
"""


def test_a_registry_with_a_login_in_it_is_named_as_npm_names_it(
    tmp_path: Path, fake_npm: Path
) -> None:
    (tmp_path / "bin" / "npm").write_text(PROTECTED_NPM)
    with pytest.raises(AgentError) as caught:
        install_agents(tmp_path / "agents", PINS)
    assert str(caught.value).startswith(
        "npm could not reach the registry http://bob:***@registry.test/ (connect ETIMEDOUT "
        "10.0.0.1:80); check the network"
    )
    # the ping answered (a login it refused), the install then could not connect
    (tmp_path / "bin" / "npm").write_text(
        PROTECTED_NPM.replace("ETIMEDOUT", "E401")[: -len("exit 1\n")]
        + "echo 'npm error code ECONNREFUSED' >&2\nexit 1\n"
    )
    with pytest.raises(AgentError) as caught:
        install_agents(tmp_path / "agents", PINS)
    assert (
        str(caught.value)
        .splitlines()[-1]
        .startswith("npm could not reach its registry: check the network")
    )


PROXIED_NPM = """#!/bin/sh
if [ "$1 $2 $3" = "config get registry" ]; then echo https://registry.npmjs.org/; exit 0; fi
if [ "$1" = config ]; then printf 'https-proxy=%s\\nproxy=null\\n' "$NPM_HTTPS_PROXY"; exit 0; fi
if [ "$1" = ping ]; then
  echo "npm error code $CODE" >&2
  echo "npm error FetchError: request to https://registry.npmjs.org/-/ping failed, reason: \
connect $CODE $AT" >&2
  exit 1
fi
exit 1
"""


def test_a_dead_proxy_is_said_with_the_proxy_settings_to_check(
    tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection npm could not make is the proxy's: the sentence says so, and names the
    setting the proxy comes from among what to check."""
    (tmp_path / "bin" / "npm").write_text(PROXIED_NPM)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    monkeypatch.setenv("NPM_HTTPS_PROXY", "null")
    monkeypatch.setenv("CODE", "ECONNREFUSED")
    monkeypatch.setenv("AT", "127.0.0.1:3128")
    with pytest.raises(AgentError) as caught:
        install_agents(tmp_path / "agents", PINS)
    assert str(caught.value) == (
        "npm could not reach the proxy it goes through to the registry "
        "https://registry.npmjs.org/ (connect ECONNREFUSED 127.0.0.1:3128); check the network "
        "and the proxy npm goes through (HTTPS_PROXY=http://127.0.0.1:3128): that it runs, or, "
        "when the registry needs no proxy, unset it or add the registry's host to NO_PROXY; or "
        "npm's registry setting (npm_config_registry, an .npmrc); and run it again; nothing "
        "was installed"
    )
    # npm's own setting, a login in it: named as set, the password masked
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv("NPM_HTTPS_PROXY", "http://bob:hunter2@10.0.0.9:8080")
    monkeypatch.setenv("CODE", "ETIMEDOUT")
    monkeypatch.setenv("AT", "10.0.0.9:8080")
    with pytest.raises(AgentError) as caught:
        install_agents(tmp_path / "agents", PINS)
    said = str(caught.value)
    assert said.startswith("npm could not reach the proxy it goes through to the registry")
    assert (
        "(npm_config_https_proxy or an .npmrc's https-proxy=http://bob:***@10.0.0.9:8080)"
    ) in said
    assert "hunter2" not in said
    # a proxy that is there, the registry behind it refusing: the registry, the proxy checked
    monkeypatch.setenv("AT", "104.16.0.1:443")
    with pytest.raises(AgentError) as caught:
        install_agents(tmp_path / "agents", PINS)
    assert str(caught.value).startswith(
        "npm could not reach the registry https://registry.npmjs.org/ (connect ETIMEDOUT "
        "104.16.0.1:443); check the network and the proxy npm goes through"
    )


def test_an_install_printing_without_end_says_it_was_stopped_for_its_output(
    tmp_path: Path, fake_npm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm stopped for its output (an install script's endless printing) says so, not the
    exit its kill gave it."""
    monkeypatch.setattr(processes, "FLOOD_LIMIT_BYTES", 1024 * 1024)
    npm = tmp_path / "bin" / "npm"
    npm.write_text(FAKE_NPM.replace("sleep 30 &", "yes postinstall; sleep 30 &"))
    with pytest.raises(AgentError) as caught:
        install_agents(tmp_path / "agents", PINS)
    said = str(caught.value)
    assert said.startswith(
        "npm install printed more than 1 MiB on stdout and was stopped there, so nothing was "
        "taken as installed; its last output: "
    )
    assert said.endswith("postinstall") and "failed (-9)" not in said
    assert missing_pins(tmp_path / "agents", PINS) == ["@scope/cli@1.2.3"]
