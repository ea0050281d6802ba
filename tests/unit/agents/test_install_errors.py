"""The message of a failed ``npm install`` names npm's own error, not a stack-trace tail."""

from __future__ import annotations

import pytest

from proctor.agents.install import npm_failure_message
from proctor.util import masking

OFFLINE = """\
npm error code ECONNREFUSED
npm error syscall connect
npm error errno ECONNREFUSED
npm error FetchError: request to https://registry.npmjs.org/@openai%2fcodex failed, reason: \
connect ECONNREFUSED 127.0.0.1:9
npm error     at ClientRequest.<anonymous> (/usr/lib/node_modules/npm/node_modules/minipass-fetch/lib/index.js:130:14)
npm error     at ClientRequest.emit (node:events:519:28)
npm error     at Socket.socketErrorListener (node:_http_client:500:9)
npm error     at Socket.emit (node:events:519:28)
npm error
npm error A complete log of this run can be found in: /root/.npm/_logs/2025-debug-0.log
"""


def test_npm_error_lines_name_the_cause() -> None:
    message = npm_failure_message(1, "warning: something first\n" + OFFLINE)
    lines = message.splitlines()
    assert lines[0] == "npm install failed (1): npm error code ECONNREFUSED"
    assert len(lines) == 4  # npm's stack trace and its log's path are left out
    assert "request to https://registry.npmjs.org/@openai%2fcodex failed" in message
    assert "reason: connect ECONNREFUSED" in message
    assert "warning: something first" not in message
    assert " at " not in message and "complete log" not in message


def test_an_unreachable_registry_is_named_with_the_fix() -> None:
    message = npm_failure_message(1, OFFLINE, "http://127.0.0.1:9/")
    assert message.splitlines()[-1] == (
        "npm could not reach the registry http://127.0.0.1:9/: check the network, or npm's "
        "registry setting (npm_config_registry, an .npmrc), and run it again"
    )
    assert "could not reach" not in npm_failure_message(1, "npm error code E404\n", "r")


def test_old_npm_err_prefix_is_recognised() -> None:
    message = npm_failure_message(1, "npm ERR! code E404\nnpm ERR! 404 Not Found - GET x\n")
    assert message == "npm install failed (1): npm ERR! code E404\nnpm ERR! 404 Not Found - GET x"


def test_without_npm_error_lines_the_tail_is_shown() -> None:
    stderr = "x" * 700 + "\nsh: 1: node: not found\n"
    message = npm_failure_message(127, stderr)
    assert message.endswith("sh: 1: node: not found")
    assert len(message) == len("npm install failed (127): ") + 600


def test_the_tail_shows_no_part_of_a_key_the_cut_would_split(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-ant-api03-" + "Q" * 87
    monkeypatch.setattr(masking, "_SECRETS", set())
    masking.register_secret(key)
    message = npm_failure_message(1, key + "y" * 560 + "\n")
    assert message == "npm install failed (1): ***" + "y" * 560
    # npm's own error lines are masked too
    message = npm_failure_message(1, f"npm error 401 token {key}\n")
    assert message == "npm install failed (1): npm error 401 token ***"


def test_a_registry_npm_does_not_name_is_its_registry() -> None:
    """npm keeps a registry whose address holds a login to itself ("the registry option is
    protected"): the sentence still says npm could not reach it, without naming a setting as
    if it were a registry."""
    message = npm_failure_message(1, OFFLINE, "")
    assert message.splitlines()[-1] == (
        "npm could not reach its registry: check the network, or npm's registry setting "
        "(npm_config_registry, an .npmrc), and run it again"
    )


def test_a_failed_install_names_the_proxy_npm_goes_through() -> None:
    message = npm_failure_message(
        1, OFFLINE, "http://127.0.0.1:9/", [("HTTPS_PROXY", "http://proxy.corp:3128")]
    )
    assert message.splitlines()[-1].startswith(
        "npm could not reach the registry http://127.0.0.1:9/: check the network and the proxy "
        "npm goes through (HTTPS_PROXY=http://proxy.corp:3128)"
    )
