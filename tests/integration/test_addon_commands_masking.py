"""``audit``, ``hooks test`` and ``addon check-install`` mask what they print: every key of the
environment and ``./.env`` (they registered none, so a hook's ``curl -H 'x-api-key: …'``, a
hook's stdin and an installer's failure were printed with the key whole), and a credential in a
command line shown (an ``Authorization`` header's value, a ``Bearer`` token)."""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
from pathlib import Path

import pytest

from proctor.addons.shown import command_masked
from proctor.util import masking
from tests.conftest import Run

KEY = "sk-ant-api03-TESTaddonKEY1111AAAA2222BBBB"
DOTENV_KEY = "sk-TESTdotenv9999IIII0000JJJJ"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.chdir(tmp_path)  # ./.env is read from here
    (tmp_path / "scratch").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))


def shows_part(text: str, key: str = KEY) -> bool:
    return any(key[:n] in text or key[-n:] in text for n in range(10, len(key) + 1))


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_audit_masks_keys_and_header_credentials_in_commands(tmp_path: Path, proctor: Run) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    hooks = [
        f"curl -H 'x-api-key: {KEY}' https://api.example.test/v1",
        "curl -s -H 'Authorization: Bearer hdr-TOKEN-123456' https://hooks.test -d @-",
        'curl -H "Authorization: Bearer $HOOK_TOKEN" https://hooks.test',
    ]
    handlers = [{"type": "command", "command": c} for c in hooks]
    write(
        home / ".claude" / "settings.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]}},
    )
    remote = ["mcp-remote", "https://x.test/mcp", "--header", "Authorization: Bearer arg-TOK-99"]
    write(project / ".mcp.json", {"mcpServers": {"remote": {"command": "npx", "args": remote}}})
    args = ("audit", "--home", str(home), "--project", str(project), "--agent", "claude-code")
    text, as_json = proctor(*args), proctor(*args, "--json")
    assert text.code == as_json.code == 0, text.err
    for out in (text.out, as_json.out):
        assert not shows_part(out)
        assert "hdr-TOKEN" not in out and "arg-TOK" not in out
    assert "curl -H 'x-api-key: ***' https://api.example.test/v1" in text.out
    assert "-H 'Authorization: Bearer ***' https://hooks.test" in text.out
    assert 'Bearer $HOOK_TOKEN"' in text.out  # a variable is no key
    assert "--header 'Authorization: Bearer ***'" in text.out


def test_audit_masks_credential_options_and_webhook_urls(tmp_path: Path, proctor: Run) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    hooks = [
        "curl -X POST https://hooks.slack.com/services/T0000/B0000/XXXXXXXX -d done",
        "notify --auth=hookAUTH123 --password hookPW9876",
    ]
    handlers = [{"type": "command", "command": c} for c in hooks]
    write(home / ".claude" / "settings.json", {"hooks": {"Stop": [{"hooks": handlers}]}})
    args = ["--auth", "argAUTH456", "--token=argTOK789!", "--api-key", "argKEY000"]
    write(project / ".mcp.json", {"mcpServers": {"s": {"command": "srv", "args": args}}})
    argv = ("audit", "--home", str(home), "--project", str(project), "--agent", "claude-code")
    text, as_json = proctor(*argv), proctor(*argv, "--json")
    assert text.code == as_json.code == 0, text.err
    for out in (text.out, as_json.out):
        for secret in ("XXXXXXXX", "B0000", "hookAUTH", "hookPW", "argAUTH", "argTOK", "argKEY"):
            assert secret not in out, out
    assert "curl -X POST https://hooks.slack.com/services/*** -d done" in text.out
    assert "notify --auth=*** --password ***" in text.out
    assert "srv --auth *** '--token=***' --api-key ***" in text.out


def test_hooks_test_masks_a_key_in_what_a_hook_read_and_wrote(tmp_path: Path, proctor: Run) -> None:
    settings = write(
        tmp_path / "settings.json",
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [{"type": "command", "command": "cat >&2; exit 2"}],
                    }
                ]
            }
        },
    )
    case = {
        "id": "c1",
        "event": "PreToolUse",
        "tool": "Bash",
        "input": {"command": f"curl -H 'x-api-key: {KEY}' https://api", "description": "d"},
        "expect": {"silent": True},
    }
    cases = write(tmp_path / "cases.json", {"cases": [case]})
    text = proctor("hooks", "test", str(settings), "--cases", str(cases))
    assert text.code == 1 and not shows_part(text.out + text.err), text.err
    result = proctor("hooks", "test", str(settings), "--cases", str(cases), "--json")
    (hook,) = result.json()["results"][0]["hooks"]
    assert "x-api-key: ***" in hook["stderr"] and "x-api-key: ***" in hook["message"]
    assert not shows_part(result.out + result.err)


def test_check_install_masks_a_dotenv_key_in_a_failing_installers_output(
    tmp_path: Path, proctor: Run
) -> None:
    write(tmp_path / ".env", f"CODEX_API_KEY={DOTENV_KEY}\n")
    installer = write(
        tmp_path / "install.py",
        "import os, sys\n"
        f"sys.stderr.write('failed: ' + 'u' * 560 + {DOTENV_KEY!r} + ' bye' + 'z' * 580)\n"
        "sys.exit(1)\n",
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(installer))}"
    for extra in ((), ("--json",)):
        result = proctor("addon", "check-install", "--install", command, *extra)
        assert result.code == 1, result.err
        assert "uuuu*** bye" in result.out and not shows_part(result.out, DOTENV_KEY)


def test_check_install_masks_credentials_in_the_configuration_an_installer_wrote(
    tmp_path: Path, proctor: Run
) -> None:
    installer = write(
        tmp_path / "install.py",
        "import json, os\n"
        "home = os.environ['HOME']\n"
        "args = ['-H', 'Authorization: Bearer inst-TOK-4242', '--api-key', os.environ.get("
        "'X', 'sk-x-1234567')]\n"
        "json.dump({'mcpServers': {'tidy': {'command': 'tidy-server', 'args': args}}},"
        " open(home + '/.claude.json', 'w'))\n",
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(installer))}"
    result = proctor(
        "addon", "check-install", "--install", command, "--agent", "claude-code", "--json"
    )
    assert result.code in (0, 1), result.err
    assert "inst-TOK" not in result.out and "sk-x-1234567" not in result.out
    assert "tidy-server -H 'Authorization: Bearer ***' --api-key ***" in result.out


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("curl -H 'Authorization: Bearer abc.DEF-123' u", "curl -H 'Authorization: Bearer ***' u"),
        ('curl -H "authorization:Basic dXNlcjpw" u', 'curl -H "authorization:Basic ***" u'),
        ("curl -H 'X-Goog-Api-Key: AIza-9' u", "curl -H 'X-Goog-Api-Key: ***' u"),
        ("curl -H 'X-Auth-Token: t0k3n' u", "curl -H 'X-Auth-Token: ***' u"),
        ("srv --auth 'Bearer tok-77'", "srv --auth 'Bearer ***'"),
        (
            'curl -H "Authorization: Bearer ${TOKEN}" u',
            'curl -H "Authorization: Bearer ${TOKEN}" u',
        ),
        (
            "curl 'https://g.test/v1?key=AIza-9&alt=json'",
            "curl 'https://g.test/v1?key=***&alt=json'",
        ),
        ("echo 'tokens: 5, keyboard: 2'", "echo 'tokens: 5, keyboard: 2'"),
    ],
)
def test_a_credential_in_a_command_line_is_masked(line: str, shown: str) -> None:
    assert command_masked(line) == shown


def test_grounding_masks_a_key_of_the_environment_in_the_advice(
    tmp_path: Path, proctor: Run
) -> None:
    checkpoints = write(tmp_path / "cps.json", [{"id": "c1", "signals": {"tokensSoFar": 48210}}])
    advisor = f"echo 'Use {KEY} for 48210 tokens.'"
    for extra in ((), ("--json",)):
        result = proctor(
            "grounding", "--advisor", advisor, "--checkpoints", str(checkpoints), *extra
        )
        assert result.code == 0, result.out + result.err
        assert not shows_part(result.out + result.err)
    assert result.json()["results"][0]["advice"] == "Use *** for 48210 tokens."


def test_memory_eval_masks_a_key_of_the_environment_in_a_servers_error(
    tmp_path: Path, proctor: Run
) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
    server = write(
        tmp_path / "server.py",
        "from mcp.server.mcpserver import MCPServer\n"
        "from mcp.server.mcpserver.exceptions import ToolError\n"
        "server = MCPServer('leaky')\n"
        "@server.tool()\n"
        "def remember(project: str, id: str, text: str) -> dict:\n"
        f"    raise ToolError('refused with ' + {KEY!r})\n"
        "server.run()\n",
    )
    result = proctor(
        "memory-eval", "--dataset", str(examples / "dataset.json"),
        "--adapter", str(examples / "reference.adapter.toml"),
        "--mcp", sys.executable, str(server),
    )  # fmt: skip
    assert result.code == 3 and "refused with ***" in result.err, result.err
    assert not shows_part(result.out + result.err)
