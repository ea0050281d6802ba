"""The adapter file: how one MCP memory server's tools map onto "seed a note" and "search".

Templates are JSON values whose strings may hold ``{placeholders}``; a string that is exactly
one placeholder takes the value's own type (``"{k}"`` becomes the number). Without
``--adapter`` proctor uses :data:`KNOWLEDGE_GRAPH`, the mapping for the reference
``@modelcontextprotocol/server-memory`` knowledge-graph server.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from proctor.errors import ConfigError
from proctor.models.base import UserModel
from proctor.models.errors_format import describe_validation_error
from proctor.models.loading import parse_json_text, parse_toml_text, read_text_file

_PLACEHOLDER = re.compile(r"\{([A-Za-z]+)\}")


class ToolCall(UserModel):
    """A tool of the server and the template of its arguments."""

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = {}


class ResultMapping(UserModel):
    """Where the result list sits in a search tool's result, and where each item's note id is.

    ``source``: ``structured`` (the result's structured content), ``text`` (its text content,
    parsed as JSON) or ``auto`` (structured when present). ``path`` and ``id`` are dotted paths
    (``entities``, ``data.hits``, ``0``); an empty ``id`` means each item is the id itself.
    """

    source: Literal["structured", "text", "auto"] = "auto"
    path: str = ""
    id: str = ""


class Scope(UserModel):
    """How projects are kept apart: an ``argument`` (``{project}`` in the seed template, and in
    the search template unless the server cannot filter; every project through one server
    process, whose ``env`` may use ``{scratch}``), or one server ``process`` per
    project, told its project through ``env`` (``MEMORY_FILE_PATH={scratch}/{project}.jsonl``).
    """

    mode: Literal["argument", "process"]
    env: dict[str, str] = {}


class Adapter(UserModel):
    seed: ToolCall
    supersede: ToolCall | None = None
    """Called once per older note after seeding a note that supersedes it (for servers whose
    way to update a memory is to delete or mark the old one); ``{supersedes}`` is its id."""
    search: ToolCall
    results: ResultMapping
    scope: Scope


#: Which placeholders each template may use.
ALLOWED: dict[str, frozenset[str]] = {
    "seed": frozenset({"id", "text", "project", "scratch"}),
    "supersede": frozenset({"id", "supersedes", "project", "scratch"}),
    "search": frozenset({"query", "project", "k", "scratch"}),
    "scope.env": frozenset({"project", "scratch"}),
}

KNOWLEDGE_GRAPH: dict[str, Any] = {
    "seed": {
        "tool": "create_entities",
        "arguments": {
            "entities": [{"name": "{id}", "entityType": "note", "observations": ["{text}"]}]
        },
    },
    "supersede": {"tool": "delete_entities", "arguments": {"entityNames": ["{supersedes}"]}},
    "search": {"tool": "search_nodes", "arguments": {"query": "{query}"}},
    "results": {"source": "structured", "path": "entities", "id": "name"},
    "scope": {"mode": "process", "env": {"MEMORY_FILE_PATH": "{scratch}/{project}.jsonl"}},
}


def load_adapter(path: Path | None) -> Adapter:
    """The adapter in ``path`` (JSON or TOML), or the knowledge-graph default."""
    if path is None:
        return check_adapter(KNOWLEDGE_GRAPH, "the built-in knowledge-graph adapter")
    text = read_text_file(path)
    if path.suffix == ".toml":
        try:
            data: Any = parse_toml_text(text, path)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: malformed TOML ({exc})") from exc
    else:
        data = parse_json_text(text, path, unique=True)  # a file written for proctor
    if _depth(data) > MAX_DEPTH:
        raise ConfigError(f"{path}: nested more than {MAX_DEPTH} levels deep, too deep to use")
    return check_adapter(data, str(path))


#: How deep an adapter's values may nest (templates are rendered recursively).
MAX_DEPTH = 100


def _depth(value: Any) -> int:
    """How many lists and objects deep ``value`` nests, counted without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, depth = todo.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        if isinstance(item, dict):
            todo.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, depth + 1) for v in item)
    return deepest


def check_adapter(data: Any, where: str) -> Adapter:
    try:
        adapter = Adapter.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(where, exc, Adapter)) from exc
    templates: dict[str, Any] = {
        "seed": adapter.seed.arguments,
        "search": adapter.search.arguments,
        "scope.env": adapter.scope.env,
    }
    if adapter.supersede is not None:
        templates["supersede"] = adapter.supersede.arguments
    for name, template in templates.items():
        unknown = placeholders(template) - ALLOWED[name]
        if unknown:
            allowed = ", ".join("{" + p + "}" for p in sorted(ALLOWED[name]))
            raise ConfigError(
                f"{where}: field '{name}': unknown placeholder {{{sorted(unknown)[0]}}} "
                f"(allowed: {allowed})"
            )
    if adapter.scope.mode == "argument":
        if "project" not in placeholders(adapter.seed.arguments):
            raise ConfigError(
                f"{where}: field 'seed.arguments': scope mode 'argument' needs {{project}} in "
                "the arguments"
            )
        if "project" in placeholders(adapter.scope.env):
            raise ConfigError(
                f"{where}: field 'scope.env': scope mode 'argument' runs one server process for "
                "every project, so its environment can use {scratch} but not {project}"
            )
    elif "project" not in placeholders(adapter.scope.env):
        raise ConfigError(
            f"{where}: field 'scope.env': scope mode 'process' needs {{project}} in an "
            "environment variable"
        )
    return adapter


def placeholders(template: Any) -> set[str]:
    text = json.dumps(template)
    return set(_PLACEHOLDER.findall(text))


def render(template: Any, values: dict[str, Any]) -> Any:
    """``template`` with every ``{name}`` replaced by ``values[name]``."""
    if isinstance(template, dict):
        return {render(k, values): render(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [render(item, values) for item in template]
    if not isinstance(template, str):
        return template
    whole = _PLACEHOLDER.fullmatch(template)
    if whole and whole.group(1) in values:
        return values[whole.group(1)]
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), template)


def follow(value: Any, path: str) -> Any:
    """The value at a dotted ``path`` (list indices as numbers); raises KeyError when absent."""
    for part in [p for p in path.split(".") if p]:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyError(part)
    return value
