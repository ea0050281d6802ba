"""``proctor memory-eval`` against the example memory server over real MCP: the correct store
passes, each planted defect fails, and broken servers and bad files get their own exit codes."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
SERVER = str(EXAMPLES / "memory_server.py")
DATASET = str(EXAMPLES / "dataset.json")
ADAPTER = str(EXAMPLES / "reference.adapter.toml")

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def evaluate(
    proctor: Run, *server: str, adapter: str = ADAPTER, extra: tuple[str, ...] = ()
) -> CliResult:
    return proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", adapter, "--json", *extra,
        "--mcp", *server,
    )  # fmt: skip


def test_the_correct_store_passes(proctor: Run) -> None:
    result = evaluate(proctor, sys.executable, SERVER)
    assert result.code == 0, result.err
    record = result.json()
    assert record["passed"] is True and record["failures"] == []
    assert record["overall"]["recall"] == 1.0 and record["overall"]["mrr"] == 1.0
    assert record["byLabel"]["knowledge-update"]["knowledgeUpdate"] == 1.0
    api_port = next(q for q in record["queries"] if q["id"] == "api-port")
    assert api_port["returned"] == ["atlas-port-new", "atlas-port-old"]


@pytest.mark.parametrize(
    ("mode", "kinds", "text"),
    [
        ("empty", {"threshold"}, "recall@k 0.000 is below --min-recall"),
        ("duplicates", {"duplicate", "threshold"}, "returned atlas-signing more than once"),
        ("unknown", {"threshold"}, "abstention accuracy 0.000 is below --min-abstention"),
        ("reversed", {"threshold"}, "knowledge-update accuracy 0.000 is below --min-update"),
        ("leak", {"cross-project", "threshold"},
         "query no-coffee-here (project borealis) returned atlas-coffee, a note of another project"),
    ],
)  # fmt: skip
def test_each_broken_store_fails(proctor: Run, mode: str, kinds: set[str], text: str) -> None:
    result = evaluate(proctor, sys.executable, SERVER, "--mode", mode)
    assert result.code == 1, result.err
    record = result.json()
    assert record["passed"] is False
    assert {f["kind"] for f in record["failures"]} == kinds
    assert any(text in f["message"] for f in record["failures"])
    if mode == "unknown":
        assert all(q["unknown"] == ["never-remembered"] for q in record["queries"])


def test_text_report_and_quoted_command(proctor: Run) -> None:
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--k", "1",
        "--mcp", f"{sys.executable} {SERVER} --mode correct",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "memory-eval of" in result.out and "(k=1)" in result.out
    assert result.out.splitlines()[-1] == "passed"


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """The example server on a port of its own choosing, read back from its log once it
    listens: a port found free and let go before the server binds it could be taken by
    another test's server meanwhile."""
    log_file = tmp_path / "http-server.log"
    log = log_file.open("w")
    proc = subprocess.Popen(
        [sys.executable, SERVER, "--http", "0"], stdout=log, stderr=log, cwd=tmp_path
    )
    try:
        deadline, listening = time.monotonic() + 30, None
        while listening is None and time.monotonic() < deadline:
            assert proc.poll() is None, log_file.read_text()
            listening = re.search(r"running on (http://127\.0\.0\.1:\d+)", log_file.read_text())
            time.sleep(0.1)
        assert listening, log_file.read_text()
        yield f"{listening.group(1)}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_a_url_is_spoken_to_over_streamable_http(proctor: Run, http_server: str) -> None:
    result = evaluate(proctor, http_server)
    assert result.code == 0, result.err
    assert result.json()["server"] == http_server
    again = evaluate(proctor, http_server)  # fresh projects: a second run sees no first-run notes
    assert again.code == 0, again.err
    # Credentials in the URL are sent, never shown: the server ignores them.
    keyed = http_server.replace("http://", "http://me:pa55word@") + "?api_key=sk-abc123"
    masked = evaluate(proctor, keyed)
    assert masked.code == 0, masked.err
    assert masked.json()["server"] == http_server.replace("http://", "http://me:***@") + (
        "?api_key=***"
    )
    assert "pa55word" not in masked.out + masked.err and "sk-abc123" not in masked.out


def test_a_server_that_cannot_start_is_exit_3(proctor: Run, tmp_path: Path) -> None:
    result = evaluate(proctor, str(tmp_path / "no-such-server"))
    assert result.code == 3
    assert "cannot start" in result.err and "Traceback" not in result.err


def test_a_crashing_server_is_exit_3_with_its_stderr(proctor: Run, tmp_path: Path) -> None:
    script = tmp_path / "crash.py"
    script.write_text("import sys\nsys.exit('memory store corrupted')\n", encoding="utf-8")
    result = evaluate(proctor, sys.executable, str(script))
    assert result.code == 3
    assert "memory store corrupted" in result.err


CRASH_IN_A_CALL = """
import json, os, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def store(text):
    raise RuntimeError("index corrupted, key " + os.environ["CRASH_KEY"])
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        info = {"name": "crash", "version": "1"}
        version = msg["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}})
    elif msg.get("method") == "tools/call":
        store(msg["params"]["arguments"].get("text"))
"""


def test_a_server_crashing_in_a_call_is_one_sentence_not_its_traceback(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRASH_KEY", "sk-crash-key-5e55b1d7f0")  # a user key: masked
    script = tmp_path / "crash.py"
    script.write_text(CRASH_IN_A_CALL, encoding="utf-8")
    result = evaluate(proctor, sys.executable, str(script), extra=("--env", "CRASH_KEY"))
    assert result.code == 3
    sentence, header, *quoted = result.err.strip().splitlines()
    assert sentence == (
        "proctor: error: the memory server exited with status 1 during tool 'remember' (seeding note "
        "atlas-port-old); the last line of its stderr: RuntimeError: index corrupted, key ***"
    ), result.err
    # Under it, the server's own stderr (its traceback), set apart; none of proctor's.
    assert header == "proctor: the end of the memory server's stderr:"
    assert all(line.startswith("  | ") for line in quoted), result.err
    assert quoted[0] == "  | Traceback (most recent call last):"
    assert quoted[-1] == "  | RuntimeError: index corrupted, key ***"
    assert "sk-crash-key-5e55b1d7f0" not in result.err + result.out
    assert result.json()["serverStderr"].endswith("RuntimeError: index corrupted, key ***")


CRASH_WITH_A_LOG = """
import os, sys
for n in range(int(os.environ.get("LINES", "3"))):
    print(f"loading shard {n}", file=sys.stderr)
print("fatal: index corrupted, token " + os.environ["CRASH_KEY"], file=sys.stderr)
sys.exit(1)
"""


@pytest.mark.parametrize("lines", [3, 5000])
def test_a_crashed_server_s_stderr_is_shown_under_the_sentence_bounded_and_masked(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: int
) -> None:
    """The scratch folder that held the server's stderr is removed: its end (4 KB at most,
    from a line's start) is shown under the sentence, and under ``serverStderr`` in --json."""
    monkeypatch.setenv("CRASH_KEY", "sk-crash-key-77aa0c3e1b")
    monkeypatch.setenv("LINES", str(lines))
    script = tmp_path / "crash.py"
    script.write_text(CRASH_WITH_A_LOG, encoding="utf-8")
    result = evaluate(
        proctor, sys.executable, str(script), extra=("--env", "CRASH_KEY", "--env", "LINES")
    )
    assert result.code == 3, result.err
    assert "sk-crash-key-77aa0c3e1b" not in result.err + result.out
    assert "proctor: the end of the memory server's stderr:\n" in result.err
    assert result.err.rstrip().endswith("  | fatal: index corrupted, token ***")
    shown = result.json()
    assert shown["error"].startswith("the memory server exited with status 1 before it answered")
    tail = shown["serverStderr"]
    assert tail.endswith("fatal: index corrupted, token ***")
    assert len(tail) <= 4096
    first = tail.splitlines()[0]
    assert first.startswith("loading shard ")  # a whole line
    if lines == 3:
        assert first == "loading shard 0"
    else:
        assert "  | loading shard 0\n" not in result.err
        assert len(tail) > 3900  # as much as the bound allows


CRASH_WITH_A_WRAPPED_KEY = """
import os, sys
key = os.environ["CRASH_KEY"]
print("fatal: index corrupted, token " + key[:10] + "\\n    " + key[10:], file=sys.stderr)
sys.exit(1)
"""


def test_a_key_wrapped_over_the_last_two_lines_is_masked_in_the_sentence(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A logger that wraps its lines into columns splits a key over two: the sentence quotes
    the last line of the masked text, not the end of the key left on a line of its own."""
    monkeypatch.setenv("CRASH_KEY", "sk-crash-key-0c3e1b77aa")
    script = tmp_path / "crash.py"
    script.write_text(CRASH_WITH_A_WRAPPED_KEY, encoding="utf-8")
    result = evaluate(proctor, sys.executable, str(script), extra=("--env", "CRASH_KEY"))
    assert result.code == 3, result.err
    error = result.json()["error"]
    assert error.endswith("; the last line of its stderr: fatal: index corrupted, token ***")
    assert "0c3e1b77aa" not in result.err + result.out
    assert "sk-crash-k" not in result.err + result.out


def test_a_tool_error_is_exit_3(proctor: Run, tmp_path: Path) -> None:
    adapter = tmp_path / "adapter.json"
    adapter.write_text(json.dumps({
        "seed": {"tool": "remember", "arguments": {"project": "{project}", "id": "{id}"}},
        "search": {"tool": "recall", "arguments": {"project": "{project}", "query": "{query}"}},
        "results": {"path": "results", "id": "id"},
        "scope": {"mode": "argument"},
    }), encoding="utf-8")  # fmt: skip
    result = evaluate(proctor, sys.executable, SERVER, adapter=str(adapter))
    assert result.code == 3
    assert "tool 'remember' returned an error (seeding note atlas-port-old)" in result.err
    # pydantic's four lines are one in the sentence: the field and what is wrong with it;
    # the whole text follows it, and is the JSON's toolError.
    error = result.json()["error"]
    assert "\n" not in error and error.endswith(
        "1 validation error for rememberArguments: text: Field required (the whole error follows)"
    )
    assert "For further information visit" in result.json()["toolError"]
    told = result.err.splitlines()
    assert told[1] == "proctor: the tool's whole error:" and told[3] == "  | text"
    assert told[0] == f"proctor: error: {error}"


PLAIN_STRING_SERVER = """
import json
from mcp.server.mcpserver import MCPServer

server = MCPServer("plain")

@server.tool()
def remember(project: str, id: str, text: str) -> str:
    return "ok"

@server.tool()
def recall(project: str, query: str, limit: int = 10) -> str:
    return json.dumps({"results": []})

server.run()
"""


def test_a_structured_result_without_the_path_names_the_keys_it_has(
    proctor: Run, tmp_path: Path
) -> None:
    """A tool that returns a plain string: the MCP SDK's structured content is
    ``{"result": …}``, said as such; the control, source "text", reads it."""
    script = tmp_path / "plain.py"
    script.write_text(PLAIN_STRING_SERVER, encoding="utf-8")
    result = evaluate(proctor, sys.executable, str(script))
    assert result.code == 3
    assert result.json()["error"].endswith(
        " has no 'results' (adapter field 'results.path'): it has the key 'result' (the MCP "
        "SDK's structured content for a tool that returns a plain value; adapter "
        "'results.source' \"text\" reads the text content instead)"
    )
    adapter = tmp_path / "adapter.toml"
    text = Path(ADAPTER).read_text(encoding="utf-8").replace('"structured"', '"text"')
    adapter.write_text(text, encoding="utf-8")
    control = evaluate(proctor, sys.executable, str(script), adapter=str(adapter))
    assert control.code == 1, control.err  # read: every list empty, recall below its minimum


LIST_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("lists")
notes = []

@server.tool()
def remember(project: str, id: str, text: str) -> str:
    notes.append((project, id))
    return "ok"

@server.tool()
def recall(project: str, query: str, limit: int = 10) -> list[dict]:
    return [{"id": id} for p, id in notes if p == project][:limit]

server.run()
"""


def test_a_text_result_read_through_result_says_the_wrapper_is_the_structured_content_s(
    proctor: Run, tmp_path: Path
) -> None:
    """A tool declared ``-> list[dict]``: its structured content is ``{"result": [...]}``, its
    text the list itself, which ``path = "result"`` does not find; the control, path "", reads
    it."""
    script = tmp_path / "lists.py"
    script.write_text(LIST_SERVER, encoding="utf-8")
    adapter = tmp_path / "adapter.toml"
    text = Path(ADAPTER).read_text(encoding="utf-8").replace('"structured"', '"text"')
    adapter.write_text(text.replace('path = "results"', 'path = "result"'), encoding="utf-8")
    result = evaluate(proctor, sys.executable, str(script), adapter=str(adapter))
    assert result.code == 3
    assert result.json()["error"].endswith(
        " has no 'result' (adapter field 'results.path'): it is a list (only the MCP SDK's "
        "structured content wraps a tool's returned value in 'result'; the text content is the "
        "value itself: adapter 'results.path' \"\" reads it)"
    )
    adapter.write_text(text.replace('path = "results"', 'path = ""'), encoding="utf-8")
    control = evaluate(proctor, sys.executable, str(script), adapter=str(adapter))
    assert control.code == 1, control.err  # read: every note returned, not all relevant


def test_a_result_the_adapter_cannot_read_is_exit_3(proctor: Run, tmp_path: Path) -> None:
    adapter = tmp_path / "adapter.toml"
    text = Path(ADAPTER).read_text(encoding="utf-8").replace('path = "results"', 'path = "hits"')
    adapter.write_text(text, encoding="utf-8")
    result = evaluate(proctor, sys.executable, SERVER, adapter=str(adapter))
    assert result.code == 3
    assert "has no 'hits' (adapter field 'results.path'): it has the key 'results'" in result.err


def test_configuration_errors_are_exit_2(proctor: Run, tmp_path: Path) -> None:
    bad = tmp_path / "data.json"
    bad.write_text('{"notes": [], "queries": []}', encoding="utf-8")
    result = proctor("memory-eval", "--dataset", str(bad), "--mcp", sys.executable, SERVER)
    assert result.code == 2 and f"{bad}: field 'notes'" in result.err
    url = proctor("memory-eval", "--dataset", DATASET, "--mcp", "http://127.0.0.1:9/mcp")
    assert url.code == 2 and "a server at a URL needs --adapter" in url.err
    assert "adapter field" not in url.err
    extra = proctor("memory-eval", "--dataset", DATASET, "--mcp", "http://127.0.0.1:9/mcp", "x")
    assert extra.code == 2 and "a URL takes no further words" in extra.err
    hostless = proctor("memory-eval", "--dataset", DATASET, "--mcp", "http://")
    assert hostless.code == 2 and "--mcp http://: the URL names no host" in hostless.err
    bracket = proctor("memory-eval", "--dataset", DATASET, "--mcp", "http://[::1")
    assert bracket.code == 2 and "not a valid URL" in bracket.err
    missing = proctor("memory-eval", "--dataset", DATASET)
    assert missing.code == 2


def test_the_issue_s_order_mcp_first_then_proctor_s_options(proctor: Run) -> None:
    # `--mcp COMMAND… --dataset FILE`: the command's words end at proctor's next own option;
    # `--` ends them explicitly, so a server option named like one of proctor's stays the server's.
    first = proctor(
        "memory-eval", "--mcp", sys.executable, SERVER, "--dataset", DATASET,
        "--adapter", ADAPTER, "--json",
    )  # fmt: skip
    assert first.code == 0, first.err
    leak = proctor(
        "memory-eval", "--mcp", sys.executable, SERVER, "--mode", "leak", "--",
        "--dataset", DATASET, "--adapter", ADAPTER, "--json",
    )  # fmt: skip
    assert leak.code == 1 and leak.json()["failures"]


def test_an_unclosed_quote_in_mcp_and_a_huge_grade_are_sentences(
    proctor: Run, tmp_path: Path
) -> None:
    quoted = proctor("memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--mcp", 'node "x')
    assert quoted.code == 2 and "not a command line (No closing quotation)" in quoted.err
    data = json.loads(Path(DATASET).read_text())
    first = next(q for q in data["queries"] if q.get("relevant"))
    note = next(iter(first["relevant"]))
    first["relevant"] = {note: 1100}
    dataset = tmp_path / "graded.json"
    dataset.write_text(json.dumps(data))
    graded = proctor(
        "memory-eval", "--dataset", str(dataset), "--adapter", ADAPTER, "--mcp", sys.executable,
        SERVER,
    )  # fmt: skip
    assert graded.code == 2 and "expected relevance grades from 1 to 10" in graded.err


def test_a_server_that_prints_to_stdout_gets_one_sentence_not_a_traceback(proctor: Run) -> None:
    noisy = f"echo Starting v1; exec {sys.executable} {SERVER}"
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--mcp", "sh", "-c", noisy
    )
    assert result.code == 0, result.err
    assert "wrote a line to stdout that is not JSON-RPC ('Starting v1')" in result.err
    assert "Traceback" not in result.err and result.err.count("not JSON-RPC") == 1


def test_a_server_that_never_answers_is_named_with_the_time_it_had(proctor: Run) -> None:
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--timeout", "0.5",
        "--mcp", "sh", "-c", "sleep 60",
    )  # fmt: skip
    assert result.code == 3
    assert "the memory server did not answer within 0.5s of being started (sh -c sleep 60)" in (
        result.err
    )
    assert "TimeoutError" not in result.err
    # A banner on stdout, then silence: proctor's note in the server's log is not quoted as
    # what the server wrote to its stderr (it wrote nothing there).
    banner = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--timeout", "0.5",
        "--mcp", "sh", "-c", "echo hello banner; sleep 60",
    )  # fmt: skip
    assert banner.code == 3, banner.err
    assert "the last line of its stderr" not in banner.err, banner.err
    assert "if it is slow to start; the memory server wrote a line to stdout that is not " in (
        banner.err
    )
    assert "the end of the memory server's stderr" not in banner.err, banner.err


def test_env_passes_a_variable_to_the_server_masked(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that needs a key (an embedding service's) gets nothing of the environment but
    PATH and the like: `--env NAME` passes it, masked in the output. A name not set, or
    `--env` with a URL, is an error (exit 2)."""
    wrapper = tmp_path / "needs_key.py"
    wrapper.write_text(
        "import os, runpy, sys\n"
        "if os.environ.get('EMBED_KEY') != 'k-PLANTED-1234567':\n"
        "    sys.exit('EMBED_KEY is missing')\n"
        f"sys.argv = [{SERVER!r}]\n"
        f"runpy.run_path({SERVER!r}, run_name='__main__')\n"
    )
    monkeypatch.setenv("EMBED_KEY", "k-PLANTED-1234567")
    without = evaluate(proctor, sys.executable, str(wrapper))
    assert without.code == 3, without.err  # the control: not passed by default
    passed = evaluate(proctor, sys.executable, str(wrapper), extra=("--env", "EMBED_KEY"))
    assert passed.code == 0, passed.err
    assert "k-PLANTED-1234567" not in passed.out + passed.err
    unset = evaluate(proctor, sys.executable, str(wrapper), extra=("--env", "NOT_SET_HERE"))
    assert unset.code == 2 and "--env NOT_SET_HERE: not set" in unset.err


RAW_SERVER = """
import json, sys
MODE = sys.argv[1]
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, i = message["method"], message["id"]
    if method == "initialize" and MODE == "init":
        send({"jsonrpc": "2.0", "id": i, "result": {"hello": 1}})
    elif method == "initialize":
        version = message["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": version,
              "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": i, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": i, "result": {}})
"""


@pytest.mark.parametrize(
    ("mode", "sentence"),
    [
        (
            "init",
            "the memory server failed: its reply is not a valid MCP InitializeResult: field "
            "'capabilities': field required (and 2 more problems)",
        ),
        (
            "call",
            "tool 'remember' failed (seeding note atlas-port-old): its reply is not a valid MCP "
            "CallToolResult: field 'content': field required",
        ),
    ],
)
def test_a_reply_that_is_not_valid_mcp_is_one_sentence_naming_the_field(
    proctor: Run, tmp_path: Path, mode: str, sentence: str
) -> None:
    server = tmp_path / "raw_server.py"
    server.write_text(RAW_SERVER, encoding="utf-8")
    result = evaluate(proctor, sys.executable, str(server), mode, extra=("--timeout", "10"))
    assert result.code == 3, result.err
    assert result.json()["error"] == sentence
    assert "pydantic" not in result.err + result.out and "\n  Field" not in result.err


def test_a_url_where_nothing_answers_is_named_with_its_credentials_masked(proctor: Run) -> None:
    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        url = f"http://me:pa55word@127.0.0.1:{port}/mcp?api_key=sk-abc123"
        result = evaluate(proctor, url, extra=("--timeout", "5"))
    assert result.code == 3, result.err
    shown = f"http://me:***@127.0.0.1:{port}/mcp?api_key=***"
    assert result.json()["error"].startswith(f"cannot connect to the memory server at {shown} (")
    assert "pa55word" not in result.out + result.err and "sk-abc123" not in result.out
