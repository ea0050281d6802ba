"""Datasets and adapter files: what loads, and one sentence naming file and field otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.memory.adapter import KNOWLEDGE_GRAPH, follow, load_adapter, render
from proctor.addons.memory.dataset import load_dataset
from proctor.addons.memory.seeding import seeding_order
from proctor.errors import ConfigError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "addons" / "memory"


def dataset(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "notes": [
            {"id": "old", "project": "p", "text": "port 1"},
            {"id": "new", "project": "p", "text": "port 2", "supersedes": "old"},
            {"id": "other", "project": "q", "text": "elsewhere"},
        ],
        "queries": [
            {"id": "q1", "project": "p", "query": "port", "relevant": ["new"],
             "labels": ["knowledge-update"]},
            {"id": "q2", "project": "q", "query": "nothing", "labels": ["abstention"]},
        ],
    }  # fmt: skip
    data.update(changes)
    return data


def write(tmp_path: Path, data: Any, name: str = "data.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_the_examples_load() -> None:
    loaded = load_dataset(EXAMPLES / "dataset.json")
    assert loaded.projects() == ["atlas", "borealis"]
    assert loaded.queries[3].relevant == {"atlas-production": 2, "atlas-staging": 1}
    for name in ("knowledge-graph.adapter.json", "knowledge-graph-shared.adapter.json",
                 "reference.adapter.toml"):  # fmt: skip
        load_adapter(EXAMPLES / name)
    assert load_adapter(None) == load_adapter(EXAMPLES / "knowledge-graph.adapter.json")


def test_jsonl_dataset(tmp_path: Path) -> None:
    data = dataset()
    lines = [json.dumps(item) for item in data["notes"] + data["queries"]]
    loaded = load_dataset(write(tmp_path, "\n".join(lines) + "\n", "data.jsonl"))
    assert [q.id for q in loaded.queries] == ["q1", "q2"]
    assert loaded.superseded_by("new") == {"old"}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["ghost"],
                       "labels": ["extraction"]}]},
         "field 'queries[0].relevant': 'ghost' is not a note of project 'p'"),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["other"],
                       "labels": ["extraction"]}]},
         "field 'queries[0].relevant': 'other' is not a note of project 'p'"),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["old"],
                       "labels": ["abstention"]}]},
         "field 'queries[0].relevant': an abstention query must have no relevant notes"),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "labels": ["extraction"]}]},
         "field 'queries[0].relevant': expected at least one note id"),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["old"],
                       "labels": ["knowledge-update"]}]},
         "needs a relevant note that supersedes another"),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["old"],
                       "labels": ["recall"]}]},
         "field 'queries[0].labels[0]'"),
        ({"notes": [{"id": "a", "project": "p", "text": "t", "supersedes": ["zzz"]}]},
         "field 'notes[0].supersedes': 'zzz' is not another note of project 'p'"),
        ({"notes": [{"id": "a", "project": "p/../x", "text": "t"}]},
         "field 'notes[0].project'"),
        # A query's project names files too (the server's storage, through the adapter).
        ({"queries": [{"id": "q", "project": "../../escaped", "query": "x",
                       "labels": ["abstention"]}]},
         "field 'queries[0].project'"),
        ({"notes": [{"id": "a", "project": "p", "text": "t"},
                    {"id": "a", "project": "p", "text": "u"}]},
         "field 'notes[1].id': duplicate note id 'a'"),
        ({"notes": [{"id": "a", "project": "p", "text": "t", "tags": []}]},
         "unknown key 'notes[0].tags'"),
        # An id twice in a list: a typo, or a note counted (or superseded) twice.
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["old", "old"],
                       "labels": ["extraction"]}]},
         "'old' is listed twice"),
        ({"notes": [{"id": "old", "project": "p", "text": "t"},
                    {"id": "new", "project": "p", "text": "u", "supersedes": ["old", "old"]}]},
         "'old' is listed twice"),
        ({"notes": [{"id": "a", "project": "p", "text": "t", "supersedes": ["b"]},
                    {"id": "b", "project": "p", "text": "u", "supersedes": ["a"]}],
          "queries": [{"id": "q", "project": "p", "query": "x", "labels": ["abstention"]}]},
         "the notes supersede each other in a cycle (a -> b -> a)"),
        # One id not in a list: "expected an object" (the grades' form) sent users the wrong way.
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": "new",
                       "labels": ["extraction"]}]},
         "field 'queries[0].relevant': expected a list of note ids ([\"new\"]) or an object of "
         "graded ids, got \"new\""),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["new", 7.5],
                       "labels": ["extraction"]}]},
         "field 'queries[0].relevant': item 1: expected a note id (a string or an integer), "
         "got 7.5"),
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": [True],
                       "labels": ["extraction"]}]},
         "item 0: expected a note id (a string or an integer), got true"),
        # An integer id is its text: 7 is the note "7", which this dataset does not have.
        ({"queries": [{"id": "q", "project": "p", "query": "x", "relevant": ["new", 7],
                       "labels": ["extraction"]}]},
         "field 'queries[0].relevant': '7' is not a note of project 'p'"),
        ({"notes": [{"id": 1.5, "project": "p", "text": "t"}]},
         "field 'notes[0].id': expected an id, a string or an integer, got 1.5"),
        ({"notes": [{"id": "1", "project": "p", "text": "t"}, {"id": 1, "project": "p",
                     "text": "u"}]},
         "field 'notes[1].id': duplicate note id '1'"),
    ],
)  # fmt: skip
def test_bad_datasets_name_file_and_field(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    path = write(tmp_path, dataset(**changes))
    with pytest.raises(ConfigError) as caught:
        load_dataset(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


@pytest.mark.parametrize("name", ["data.json", "data.jsonl"])
def test_integer_ids_are_taken_as_their_text(tmp_path: Path, name: str) -> None:
    """As a server's integer id of a result item is compared as its text: ``{"id": 1}`` is the
    note "1", wherever an id is given (a note's, a query's, ``supersedes``, ``relevant``)."""
    items = [
        {"id": 1, "project": "p", "text": "port 1"},
        {"id": 2, "project": "p", "text": "port 2", "supersedes": 1},
        {"id": 3, "project": "p", "text": "other", "supersedes": [2]},
        {"id": 10, "project": "p", "query": "port", "relevant": [3], "labels": ["knowledge-update"]},
        {"id": 11, "project": "p", "query": "other", "relevant": {"3": 2}, "labels": ["extraction"]},
    ]  # fmt: skip
    text = (
        "\n".join(json.dumps(item) for item in items)
        if name.endswith(".jsonl")
        else {"notes": items[:3], "queries": items[3:]}
    )
    loaded = load_dataset(write(tmp_path, text, name))
    assert [(n.id, n.supersedes) for n in loaded.notes] == [("1", []), ("2", ["1"]), ("3", ["2"])]
    assert [(q.id, q.relevant) for q in loaded.queries] == [("10", {"3": 1}), ("11", {"3": 2})]


def test_malformed_json_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="malformed JSON at line 1"):
        load_dataset(write(tmp_path, "{"))
    with pytest.raises(ConfigError, match="cannot be read"):
        load_dataset(tmp_path / "absent.json")
    # A JSONL line is named as docs/addons.md names it, not as "data.jsonl:2: … at line 1".
    with pytest.raises(ConfigError, match=r"data.jsonl: line 2: malformed JSON at column 2:"):
        load_dataset(write(tmp_path, '{"id": "a", "project": "p", "text": "t"}\n{\n', "data.jsonl"))


def test_a_key_given_twice_on_a_jsonl_line_names_that_line_once(tmp_path: Path) -> None:
    # Each line is read alone: the key's "at line 1" of that one line is no line of the file.
    text = '{"id": "a", "project": "p", "text": "t"}\n{"id": "b", "id": "c", "text": "t"}\n'
    with pytest.raises(ConfigError) as info:
        load_dataset(write(tmp_path, text, "dup.jsonl"))
    assert str(info.value) == (
        f"{tmp_path / 'dup.jsonl'}: line 2: key 'id' is given twice in one object; keep one "
        "(JSON would take the last and ignore the first)"
    )
    # A lone surrogate is named at its line too.
    with pytest.raises(ConfigError, match=r"bad.jsonl: line 1: field 'text' holds a lone"):
        load_dataset(
            write(tmp_path, '{"id": "a", "project": "p", "text": "\\ud800"}\n', "bad.jsonl")
        )


def test_unreadable_files_are_said_as_every_other_file_of_proctor_s(tmp_path: Path) -> None:
    """Neither Python's "[Errno 2] … : 'path'" nor its codec's "'utf-8' codec can't decode
    byte 0xff in position 0" in the sentence."""
    absent = (("absent.jsonl", load_dataset), ("absent.toml", load_adapter))
    for name, load in (*absent, ("absent.json", load_adapter)):
        with pytest.raises(ConfigError) as info:
            load(tmp_path / name)
        assert str(info.value) == f"{tmp_path / name}: cannot be read (No such file or directory)"
    for name, load in (("d.jsonl", load_dataset), ("a.toml", load_adapter)):
        path = tmp_path / name
        path.write_bytes(b"\xff\xfe{}\n")
        with pytest.raises(ConfigError) as info:
            load(path)
        assert str(info.value) == f"{path}: not UTF-8 text (invalid start byte)"


def test_a_json_dataset_saved_as_jsonl_is_said_so(tmp_path: Path) -> None:
    whole = json.dumps(dataset())
    with pytest.raises(ConfigError) as info:
        load_dataset(write(tmp_path, whole + "\n", "data.jsonl"))
    assert str(info.value) == (
        f"{tmp_path / 'data.jsonl'}: line 1: holds 'notes' or 'queries', the layout of a .json "
        "dataset; a .jsonl dataset has one note or query per line (or name the file .json)"
    )


def adapter_with(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(KNOWLEDGE_GRAPH))
    return data | changes


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (adapter_with(search={"tool": "search_nodes", "arguments": {"q": "{question}"}}),
         "field 'search': unknown placeholder {question}"),
        (adapter_with(scope={"mode": "process", "env": {"MEMORY_FILE_PATH": "{scratch}/m"}}),
         "field 'scope.env': scope mode 'process' needs {project}"),
        (adapter_with(scope={"mode": "argument"}),
         "field 'seed.arguments': scope mode 'argument' needs {project}"),
        (adapter_with(seed={"tool": "c", "arguments": {"p": "{project}"}},
                      scope={"mode": "argument", "env": {"M": "{scratch}/{project}.jsonl"}}),
         "field 'scope.env': scope mode 'argument' runs one server process for every project"),
        (adapter_with(scope={"mode": "tenant"}), "field 'scope.mode'"),
        (adapter_with(results={"path": "entities", "idField": "name"}),
         "unknown key 'results.idField'"),
        ({"seed": {"tool": "x"}}, "field 'search' is required but missing"),
    ],
)  # fmt: skip
def test_bad_adapters_name_file_and_field(tmp_path: Path, data: Any, message: str) -> None:
    path = write(tmp_path, data, "adapter.json")
    with pytest.raises(ConfigError) as caught:
        load_adapter(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_bad_toml_adapter(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="malformed TOML"):
        load_adapter(write(tmp_path, "[seed\n", "adapter.toml"))


def test_render_keeps_the_type_of_a_whole_placeholder() -> None:
    template = {"limit": "{k}", "q": "about {query}", "items": ["{id}"], "keep": 3}
    out = render(template, {"k": 5, "query": "ports", "id": "n1"})
    assert out == {"limit": 5, "q": "about ports", "items": ["n1"], "keep": 3}


def test_follow_dotted_paths() -> None:
    assert follow({"a": [{"b": "x"}]}, "a.0.b") == "x"
    assert follow([1], "") == [1]
    with pytest.raises(KeyError):
        follow({"a": []}, "a.0")


def test_superseded_notes_are_seeded_first() -> None:
    loaded = load_dataset(EXAMPLES / "dataset.json")
    notes = list(reversed(loaded.notes))
    order = [n.id for n in seeding_order(notes)]
    assert order.index("atlas-port-old") < order.index("atlas-port-new")
    assert sorted(order) == sorted(n.id for n in loaded.notes)


def test_a_long_supersedes_chain_listed_newest_first_loads_and_seeds_oldest_first(
    tmp_path: Path,
) -> None:
    count = 1200
    notes = [
        {"id": f"n{i}", "project": "p", "text": f"version {i}"}
        | ({"supersedes": f"n{i - 1}"} if i else {})
        for i in reversed(range(count))
    ]
    query = {"id": "q", "project": "p", "query": "version", "relevant": [f"n{count - 1}"],
             "labels": ["knowledge-update"]}  # fmt: skip
    loaded = load_dataset(write(tmp_path, {"notes": notes, "queries": [query]}))
    assert [n.id for n in seeding_order(loaded.notes)] == [f"n{i}" for i in range(count)]
    cycle = [*notes[:-1], notes[-1] | {"supersedes": f"n{count - 1}"}]
    with pytest.raises(ConfigError, match=r"in a cycle \(n1199 -> n1198 -> .* -> n0 -> n1199\)"):
        load_dataset(write(tmp_path, {"notes": cycle, "queries": [query]}))


def test_deep_nesting_and_overlong_integers_are_sentences(tmp_path: Path) -> None:
    deep_toml = "seed = " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(ConfigError, match="adapter.toml: TOML nested too deeply to read"):
        load_adapter(write(tmp_path, deep_toml, "adapter.toml"))
    deep = adapter_with(search={"tool": "s", "arguments": {"q": json.loads("[" * 500 + "]" * 500)}})
    with pytest.raises(ConfigError, match="adapter.json: nested more than 100 levels deep"):
        load_adapter(write(tmp_path, deep, "adapter.json"))
    digits = "9" * 4400
    too_long = "a number has more than 4300 digits, too long to read"
    with pytest.raises(ConfigError, match=f"adapter.toml: {too_long}"):
        load_adapter(write(tmp_path, f"k = {digits}\n", "adapter.toml"))
    with pytest.raises(ConfigError, match=f"adapter.json: {too_long}"):
        load_adapter(write(tmp_path, f'{{"k": {digits}}}', "adapter.json"))
    with pytest.raises(ConfigError, match=f"data.json: {too_long}"):
        load_dataset(write(tmp_path, f'{{"notes": {digits}}}', "data.json"))
    with pytest.raises(ConfigError, match=f"data.jsonl: line 1: {too_long}"):
        load_dataset(write(tmp_path, f'{{"id": {digits}}}\n', "data.jsonl"))


def test_an_item_or_id_the_adapter_cannot_read_is_named_with_what_it_is() -> None:
    from mcp_types import CallToolResult, TextContent

    from proctor.addons.memory.adapter import ResultMapping
    from proctor.addons.memory.client import MemoryServerError
    from proctor.addons.memory.search_results import result_ids

    mapping = ResultMapping(source="text", path="results", id="id")

    def ids(results: object) -> list[str]:
        text = json.dumps({"results": results})
        reply = CallToolResult(content=[TextContent(type="text", text=text)])
        return result_ids(reply, mapping, "query q")

    assert ids([{"id": "a"}, {"id": 7}]) == ["a", "7"]
    with pytest.raises(MemoryServerError) as bare:
        ids(["a"])
    assert str(bare.value) == (
        "result item 0 of query q is a string ('a'), not an object with 'id' "
        "(adapter field 'results.id')"
    )
    with pytest.raises(MemoryServerError) as null:
        ids([{"id": None}])
    assert str(null.value) == (
        "result item 0 of query q: 'id' is null, expected a string or an integer "
        "(adapter 'results.id')"
    )
    with pytest.raises(MemoryServerError, match=r"'id' is a number \(1\.5\), expected"):
        ids([{"id": 1.5}])
    itself = ResultMapping(source="text", path="results", id="")
    reply = CallToolResult(content=[TextContent(type="text", text='{"results": [{"a": 1}]}')])
    with pytest.raises(MemoryServerError, match=r"the id \(the item itself\) is an object"):
        result_ids(reply, itself, "query q")


def test_a_jsonl_dataset_s_mistake_names_its_line(tmp_path: Path) -> None:
    lines = [
        {"id": "n1", "project": "p", "text": "alpha"},
        {"id": "n2", "project": "p", "text": "beta", "supersedes": "ghost"},
        {"id": "q1", "project": "p", "query": "alpha", "relevant": ["n1"], "labels": ["bogus"]},
    ]
    data = tmp_path / "d.jsonl"

    def mistake(items: list[dict[str, Any]]) -> str:
        data.write_text("\n\n".join(json.dumps(item) for item in items) + "\n")
        with pytest.raises(ConfigError) as info:
            load_dataset(data)
        return str(info.value)

    assert mistake(lines).startswith(f"{data}: line 5: field 'queries[0].labels[0]': expected")
    lines[2]["labels"] = ["extraction"]
    assert mistake(lines) == (
        f"{data}: line 3: field 'notes[1].supersedes': 'ghost' is not another note of project 'p'"
    )
    # A query line whose "query" is misspelled is still a query (its "relevant" and
    # "labels" say so), not a note without "text"; nor is it a .json dataset's layout.
    lines[1].pop("supersedes")
    for slip in ("qeury", "queries"):
        lines[2] = {"id": "q1", "project": "p", slip: "alpha", "relevant": ["n1"],
                    "labels": ["extraction"]}  # fmt: skip
        assert mistake(lines) == (
            f"{data}: line 5: field 'queries[0].query' is required but missing ('{slip}' is "
            "given: did you mean 'query'?)"
        )


def test_a_key_given_twice_in_a_json_adapter_is_refused(tmp_path: Path) -> None:
    """As in a dataset (and as TOML does): JSON keeps the last silently, and the first, the
    one the user may be reading, never applies."""
    results = '{"source": "auto", "path": "results", "id": "id"}'
    text = json.dumps(adapter_with()).replace('"results": ', f'"results": {results}, "results": ')
    with pytest.raises(ConfigError, match="key 'results' is given twice in one object"):
        load_adapter(write(tmp_path, text, "adapter.json"))


def test_a_list_the_mcp_sdk_sent_as_one_text_block_per_item_is_read_as_that_list() -> None:
    """A tool of the MCP SDK returning a list with no output schema (``def find(...)`` without
    a return type) sends each item as its own text block: the result is that list, not the
    blocks' texts run together (no JSON at all from two items) or, for one item, an object."""
    from mcp_types import CallToolResult, TextContent

    from proctor.addons.memory.adapter import ResultMapping
    from proctor.addons.memory.client import MemoryServerError
    from proctor.addons.memory.search_results import result_ids

    mapping = ResultMapping(source="auto", path="", id="key")

    def reply(*items: object) -> CallToolResult:
        blocks = [TextContent(type="text", text=json.dumps(item)) for item in items]
        return CallToolResult(content=list(blocks))

    assert result_ids(reply({"key": "a"}, {"key": "b"}, {"key": 3}), mapping, "q") == [
        "a",
        "b",
        "3",
    ]
    assert result_ids(reply({"key": "a"}), mapping, "q") == ["a"]
    assert result_ids(reply(), mapping, "q") == []
    whole = ResultMapping(source="text", path="hits", id="key")  # one block: the value itself
    assert result_ids(reply({"hits": [{"key": "a"}]}), whole, "q") == ["a"]
    halves = [TextContent(type="text", text=t) for t in ('{"hits": [{"key"', ': "a"}]}')]
    assert result_ids(CallToolResult(content=list(halves)), whole, "q") == ["a"]  # one JSON text
    mixed = CallToolResult(
        content=[TextContent(type="text", text='{"key": "a"}'), TextContent(type="text", text="ok")]
    )
    with pytest.raises(  # (a block that is not JSON is a string item, sent as its text)
        MemoryServerError, match=r"result item 1 of q is a string \('ok'\), not an object"
    ):
        result_ids(mixed, mapping, "q")


def test_a_text_result_read_through_result_says_only_structured_content_has_that_wrapper() -> None:
    """A tool of the MCP SDK declared ``-> list[dict]`` sends ``{"result": [...]}`` as its
    structured content but the list itself as its text: ``path = "result"`` with ``source =
    "text"`` finds no ``result``, and says why."""
    from mcp_types import CallToolResult, TextContent

    from proctor.addons.memory.adapter import ResultMapping
    from proctor.addons.memory.client import MemoryServerError
    from proctor.addons.memory.search_results import result_ids

    items = [{"id": "a"}, {"id": "b"}]
    reply = CallToolResult(
        content=[TextContent(type="text", text=json.dumps(item)) for item in items],
        structuredContent={"result": items},
    )
    hint = (
        " (only the MCP SDK's structured content wraps a tool's returned value in 'result'; "
        "the text content is the value itself: adapter 'results.path' \"\" reads it)"
    )
    with pytest.raises(MemoryServerError) as caught:
        result_ids(reply, ResultMapping(source="text", path="result", id="id"), "query q")
    assert str(caught.value) == (
        "the result of query q has no 'result' (adapter field 'results.path'): it is a list" + hint
    )
    one = CallToolResult(content=[TextContent(type="text", text='{"hits": [{"id": "a"}]}')])
    with pytest.raises(MemoryServerError) as caught:
        result_ids(one, ResultMapping(source="auto", path="result.hits", id="id"), "query q")
    assert str(caught.value).endswith(
        ": it has the key 'hits' (only the MCP SDK's structured content wraps a tool's returned "
        "value in 'result'; the text content is the value itself: adapter 'results.path' "
        '"hits" reads it)'
    )
    # The structured content has it; a text result that has a 'result' gets no hint.
    assert result_ids(reply, ResultMapping(source="structured", path="result", id="id"), "q") == [
        "a",
        "b",
    ]
    has = CallToolResult(content=[TextContent(type="text", text='{"result": {"x": 1}}')])
    with pytest.raises(MemoryServerError) as caught:
        result_ids(has, ResultMapping(source="text", path="result.hits", id="id"), "query q")
    assert str(caught.value).endswith(": 'result' has the key 'x'")
