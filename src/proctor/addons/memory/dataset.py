"""The memory dataset: notes seeded per project and the queries asked of them.

A dataset is one JSON object ``{"notes": [...], "queries": [...]}`` or a JSONL file with one
note or query per line (a line with a ``query``, ``relevant`` or ``labels`` key is a query).
Cross-references are checked at load, so a typo in a ``relevant`` id is one sentence naming
the file and the field, never a silently wrong score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError, field_validator

from proctor.errors import ConfigError
from proctor.models.base import UserModel
from proctor.models.errors_format import describe_validation_error
from proctor.models.loading import parse_json_text, read_json_file, read_text_file

Label = Literal["extraction", "multi-note", "knowledge-update", "abstention"]
LABELS: tuple[Label, ...] = ("extraction", "multi-note", "knowledge-update", "abstention")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _id_text(value: Any) -> Any:
    """An id given as an integer (``{"id": 1}``) is taken as its text, ``"1"``: ids are compared
    as text, as the ids a server returns are (an integer id of a result item is its text)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise ValueError("expected an id, a string or an integer")
    return value


Id = Annotated[str, BeforeValidator(_id_text)]
"""A note or query id: a string, or an integer taken as its text."""


def _each_once(ids: list[str]) -> list[str]:
    """A list of note ids without repeats (a repeat is a typo, or a note counted twice)."""
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ValueError(f"'{twice[0]}' is listed twice")
    return ids


def _safe_project(value: str) -> str:
    """A project's name: it names the server's files (``{project}`` in the adapter)."""
    if not _NAME.match(value):
        raise ValueError("expected letters, digits, '.', '_' or '-' (it names files)")
    return value


class Note(UserModel):
    """One memory: seeded into ``project``; ``supersedes`` names older notes it replaces."""

    id: Id = Field(min_length=1)
    project: str
    text: str = Field(min_length=1)
    supersedes: list[Id] = []

    @field_validator("supersedes", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return [value]
        return value

    @field_validator("supersedes")
    @classmethod
    def _each_once(cls, value: list[str]) -> list[str]:
        return _each_once(value)

    @field_validator("project")
    @classmethod
    def _safe(cls, value: str) -> str:
        return _safe_project(value)


class Query(UserModel):
    """One question to one project. ``relevant`` is a list of note ids (grade 1 each) or a map
    of note id to a graded relevance (1 or more); abstention queries have none."""

    id: Id = Field(min_length=1)
    project: str
    query: str = Field(min_length=1)
    relevant: dict[str, int] = {}
    labels: list[Label] = Field(min_length=1)

    @field_validator("project")
    @classmethod
    def _safe(cls, value: str) -> str:
        return _safe_project(value)

    @field_validator("relevant", mode="before")
    @classmethod
    def _list_is_grade_one(cls, value: Any) -> Any:
        if not isinstance(value, list | dict):  # the grades' "expected an object" alone
            example = f" ([{json.dumps(value)}])" if isinstance(value, str) else ""
            raise ValueError(  # sent a user who wrote one id the wrong way
                f"expected a list of note ids{example} or an object of graded ids"
            )
        if isinstance(value, list):
            for n, item in enumerate(value):  # as keys of grades it was "expected a string"
                if isinstance(item, bool) or not isinstance(item, str | int):
                    raise ValueError(
                        f"item {n}: expected a note id (a string or an integer), got "
                        f"{json.dumps(item)}"
                    )
            value = [_id_text(item) for item in value]  # 1 is "1", as a note's id 1 is
            _each_once(value)
            return dict.fromkeys(value, 1)
        return value

    @field_validator("relevant")
    @classmethod
    def _positive_grades(cls, value: dict[str, int]) -> dict[str, int]:
        if any(not 1 <= grade <= 10 for grade in value.values()):
            # nDCG weighs a grade g as 2**g - 1: past 10 one note outweighs any ranking.
            raise ValueError("expected relevance grades from 1 to 10")
        return value


class Dataset(UserModel):
    notes: list[Note] = Field(min_length=1)
    queries: list[Query] = Field(min_length=1)

    def projects(self) -> list[str]:
        """Every project, in order of first appearance."""
        return list(
            dict.fromkeys([n.project for n in self.notes] + [q.project for q in self.queries])
        )

    def note_by_id(self) -> dict[str, Note]:
        return {n.id: n for n in self.notes}

    def superseded_by(self, note_id: str) -> set[str]:
        """Every older note ``note_id`` replaces, directly or through a chain."""
        notes, found, todo = self.note_by_id(), set[str](), [note_id]
        while todo:
            for older in notes[todo.pop()].supersedes:
                if older not in found:
                    found.add(older)
                    todo.append(older)
        return found


def load_dataset(path: Path) -> Dataset:
    """Read and check a dataset file; every mistake is a ConfigError naming file and field."""
    lines: dict[tuple[str, int], int] = {}
    if path.suffix == ".jsonl":
        data: Any = _read_jsonl(path, lines)
    else:
        data = read_json_file(path, unique=True)
    try:
        try:
            dataset = Dataset.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(describe_validation_error(str(path), exc, Dataset)) from exc
        check_references(dataset, str(path))
    except ConfigError as exc:
        raise ConfigError(_with_line(str(exc), lines)) from exc
    return dataset


_ITEM = re.compile(r"field '(notes|queries)\[(\d+)\]")


def _with_line(message: str, lines: Mapping[tuple[str, int], int]) -> str:
    """A JSONL file's mistake said at its line: ``d.jsonl: line 7: field 'queries[2]…``."""
    found = _ITEM.search(message)
    line = lines.get((found[1], int(found[2]))) if found else None
    if found is None or line is None:
        return message
    return f"{message[: found.start()]}line {line}: {message[found.start() :]}"


_QUERY_KEYS = frozenset({"query", "relevant", "labels"})
"""The keys only a query has: a JSONL line with one of them is a query."""


def _read_jsonl(path: Path, line_of: dict[tuple[str, int], int]) -> dict[str, list[Any]]:
    """The notes and queries of a JSONL file; ``line_of`` gets each one's line number."""
    lines = read_text_file(path).splitlines()
    out: dict[str, list[Any]] = {"notes": [], "queries": []}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = parse_json_text(line, path, unique=True, line=number)
        if not isinstance(item, Mapping):
            raise ConfigError(f"{path}: line {number}: expected a JSON object")
        if isinstance(item.get("notes"), list) or isinstance(item.get("queries"), list):
            raise ConfigError(
                f"{path}: line {number}: holds 'notes' or 'queries', the layout of a .json "
                "dataset; a .jsonl dataset has one note or query per line (or name the file "
                ".json)"
            )
        # A query's own keys make it one, so a misspelled "query" is said as such, not as a
        # note without "text".
        kind = "queries" if _QUERY_KEYS & set(item) else "notes"
        line_of[(kind, len(out[kind]))] = number
        out[kind].append(item)
    return out


def check_references(dataset: Dataset, where: str) -> None:
    """Ids unique; every ``relevant`` and ``supersedes`` id a note of the same project; labels
    consistent with the relevant ids (abstention has none, knowledge-update a newer note)."""
    notes: dict[str, Note] = {}
    for i, note in enumerate(dataset.notes):
        if note.id in notes:
            raise ConfigError(f"{where}: field 'notes[{i}].id': duplicate note id '{note.id}'")
        notes[note.id] = note
    for i, note in enumerate(dataset.notes):
        for older in note.supersedes:
            same = notes.get(older)
            if same is None or same.project != note.project or older == note.id:
                raise ConfigError(
                    f"{where}: field 'notes[{i}].supersedes': '{older}' is not another note "
                    f"of project '{note.project}'"
                )
    _check_no_cycle(notes, where)
    seen: set[str] = set()
    for i, query in enumerate(dataset.queries):
        field = f"{where}: field 'queries[{i}]"
        if query.id in seen:
            raise ConfigError(f"{field}.id': duplicate query id '{query.id}'")
        seen.add(query.id)
        for note_id in query.relevant:
            hit = notes.get(note_id)
            if hit is None or hit.project != query.project:
                raise ConfigError(
                    f"{field}.relevant': '{note_id}' is not a note of project '{query.project}'"
                )
        _check_labels(dataset, query, field)


def _check_labels(dataset: Dataset, query: Query, field: str) -> None:
    if "abstention" in query.labels and query.relevant:
        raise ConfigError(f"{field}.relevant': an abstention query must have no relevant notes")
    if "abstention" not in query.labels and not query.relevant:
        raise ConfigError(
            f"{field}.relevant': expected at least one note id (or the label 'abstention')"
        )
    if "knowledge-update" in query.labels and not any(
        dataset.superseded_by(note_id) for note_id in query.relevant
    ):
        raise ConfigError(
            f"{field}.relevant': a knowledge-update query needs a relevant note that supersedes "
            "another"
        )


def _check_no_cycle(notes: dict[str, Note], where: str) -> None:
    """A superseded note is stored before the note that supersedes it: a cycle has no order.

    Depth first without recursion (a chain of thousands of notes is a dataset, not an error)."""
    done: set[str] = set()
    for start in notes:
        if start in done:
            continue
        path: list[str] = [start]
        on_path: set[str] = {start}
        pending = [iter(notes[start].supersedes)]
        while pending:
            older = next(pending[-1], None)
            if older is None:
                pending.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if older in on_path:
                loop = " -> ".join([*path[path.index(older) :], older])
                raise ConfigError(
                    f"{where}: field 'supersedes': the notes supersede each other in a cycle "
                    f"({loop})"
                )
            if older in done:
                continue
            path.append(older)
            on_path.add(older)
            pending.append(iter(notes[older].supersedes))
