"""The note ids in a memory server's search result, read as the adapter's ``results`` says.

The result is its structured content or its text blocks (the MCP SDK sends a returned list as one
text block per item); a result that does not fit the mapping is a
:class:`~proctor.addons.memory.client.MemoryServerError` saying what it holds instead.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from mcp_types import CallToolResult, TextContent

from proctor.addons.memory.adapter import ResultMapping, follow
from proctor.addons.memory.client import MemoryServerError
from proctor.util.cutting import masked_head


def result_ids(
    result: CallToolResult, mapping: ResultMapping, what: str, known: Collection[str] = ()
) -> list[str]:
    """The note ids of a search result, in the server's order, as the adapter maps them.

    ``known`` is the dataset's note ids: a text block that is exactly one of them is that id
    when each item is the id itself, though it reads as another JSON value (``true``,
    ``null``, ``1.0``, ``[]``): the MCP SDK sends a string item as its bare text."""
    data, one = _payload(result, mapping, what, known)
    if data is None:
        return []
    from_text = mapping.source == "text" or result.structured_content is None
    try:
        items = follow(data, mapping.path)
    except KeyError as exc:
        raise MemoryServerError(
            f"the result of {what} has no '{mapping.path}' (adapter field 'results.path')"
            f"{_found_instead(data, mapping, from_text)}"
        ) from exc
    if not isinstance(items, list):
        raise MemoryServerError(
            f"the result of {what} at '{mapping.path}' is not a list (adapter 'results.path')"
        )
    ids: list[str] = []
    label = f"'{mapping.id}'" if mapping.id else "the id (the item itself)"
    for n, item in enumerate(items):
        try:
            value = follow(item, mapping.id)
        except KeyError as exc:
            if one:  # (the MCP SDK sends a list of one item as that item alone)
                raise MemoryServerError(
                    f"the text result of {what} is {_one(item, mapping)}, not a list of items "
                    f"with '{mapping.id}' (adapter fields 'results.path' and 'results.id')"
                ) from exc
            lacks = (
                f"has no '{mapping.id}'"
                if isinstance(item, dict | list)
                else f"is {_json_kind(item)}, not an object with '{mapping.id}'"
            )
            raise MemoryServerError(
                f"result item {n} of {what} {lacks} (adapter field 'results.id')"
            ) from exc
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise MemoryServerError(
                f"result item {n} of {what}: {label} is {_json_kind(value)}, expected a string "
                "or an integer (adapter 'results.id')"
            )
        ids.append(str(value))
    return ids


def _found_instead(data: Any, mapping: ResultMapping, from_text: bool = False) -> str:
    """What the result holds where ``mapping.path`` stops being there, as the end of a
    sentence: the keys of the object it reached (the MCP SDK's wrapping of a tool that returns
    a plain value, ``{"result": …}``, said as such), else what the value is; a path through
    ``result`` in a text result (``from_text``), said to be that wrapping's, which only the
    structured content has."""
    parts = [p for p in mapping.path.split(".") if p]
    said = _reached(data, parts, mapping)
    if from_text and parts[:1] == ["result"] and not _has(data, "result"):
        said += (
            " (only the MCP SDK's structured content wraps a tool's returned value in "
            "'result'; the text content is the value itself: adapter 'results.path' "
            f'"{".".join(parts[1:])}" reads it)'
        )
    return said


def _has(data: Any, part: str) -> bool:
    try:
        follow(data, part)
    except KeyError:
        return False
    return True


def _reached(data: Any, parts: list[str], mapping: ResultMapping) -> str:
    """What the result holds where ``parts`` (the path) stops being there (see
    :func:`_found_instead`)."""
    reached, where = data, "it"
    for n, part in enumerate(parts):
        try:
            reached = follow(reached, part)
        except KeyError:
            break
        where = f"'{'.'.join(parts[: n + 1])}'"
    if not isinstance(reached, dict):
        return f": {where} is {_json_kind(reached)}"
    if not reached:
        return f": {where} is an empty object"
    keys = [masked_head(str(key), 40) for key in list(reached)[:10]]
    shown = ", ".join(f"'{key}'" for key in keys) + (", …" if len(reached) > 10 else "")
    said = f": {where} has the key{'s' if len(reached) > 1 else ''} {shown}"
    if where == "it" and list(reached) == ["result"] and mapping.source != "text":
        said += (
            " (the MCP SDK's structured content for a tool that returns a plain value; "
            "adapter 'results.source' \"text\" reads the text content instead)"
        )
    return said


def _json_kind(value: Any) -> str:
    """What a JSON value is, as a sentence names it: ``null``, ``true``, ``a number (1.5)``."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return f"a string ({masked_head(value, 40)!r})"
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    return f"a number ({value!r})"


def _one(item: Any, mapping: ResultMapping) -> str:
    """What the one value a text result holds is, for a sentence: ``one object with no 'id'
    (it has the key 'error')``, ``a number (5)``."""
    if not isinstance(item, dict):
        return _json_kind(item)
    return f"one object with no '{mapping.id}' ({_reached(item, [], mapping)[2:]})"


def _payload(
    result: CallToolResult, mapping: ResultMapping, what: str, known: Collection[str] = ()
) -> tuple[Any, bool]:
    """The result as JSON, and whether it is one text value taken as a list of that one item.

    The MCP SDK (``_convert_to_content``) sends a tool's returned list as one text block per
    item: a string as its text, any other value as JSON; so a list of one item is that item
    alone, and a list of one string is its bare text."""
    if mapping.source != "text" and result.structured_content is not None:
        return result.structured_content, False
    if mapping.source == "structured":
        raise MemoryServerError(f"the result of {what} has no structured content")
    blocks = [block.text for block in result.content if isinstance(block, TextContent)]
    text = "".join(blocks)
    if not text.strip():
        return None, False
    if not mapping.path and not mapping.id and any(_known(b, known) for b in blocks):
        # a string id that reads as another JSON value ("true", "1.0", "[]"), sent bare
        return [_known(b, known) or _json_or_text(b) for b in blocks], len(blocks) == 1
    if len(blocks) > 1 and (items := _each_json(blocks)) is not None:
        return items, False
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if len(blocks) > 1:  # a list holding strings: each sent as its text
            return [_json_or_text(block) for block in blocks], False
        if not mapping.path and not mapping.id:  # a list of one id, sent as its text
            return [text], True
        shown = masked_head(text, 120)
        raise MemoryServerError(f"the text result of {what} is not JSON: {shown!r}") from exc
    if len(blocks) == 1 and not mapping.path and not isinstance(value, list):
        return [value], True
    return value, False


def _known(block: str, known: Collection[str]) -> str | None:
    """The note id ``block`` is, its text or that text stripped; None when it is none."""
    for text in (block, block.strip()):
        if text in known:
            return text
    return None


def _each_json(blocks: list[str]) -> list[Any] | None:
    """Each text block read as JSON, in turn; None when one is not JSON."""
    try:
        return [json.loads(block) for block in blocks]
    except json.JSONDecodeError:
        return None


def _json_or_text(block: str) -> Any:
    try:
        return json.loads(block)
    except json.JSONDecodeError:
        return block
