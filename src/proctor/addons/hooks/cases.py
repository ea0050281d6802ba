"""The cases file of ``proctor hooks test``: planted hook inputs and what each must produce.

A cases file is JSON: ``{"cases": [...]}`` (or the bare list). Each case names the agent whose
hook input it imitates, the event, the tool and its input, files to plant in the scratch project
(path → size in bytes, or text), earlier shell commands to write into the agent's native
transcript, and the expectations. Unknown keys are refused, so a typo is an error, not a check
that silently never runs.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from proctor.agents.spec import covered_agent
from proctor.errors import ConfigError
from proctor.models.base import UserModel
from proctor.models.errors_format import EXPECTED_TYPE, describe_validation_error, format_loc
from proctor.models.loading import parse_json_text

Decision = Literal["allow", "deny", "ask", "block", "stop", "nudge", "error", "silent"]
DECISIONS: tuple[str, ...] = ("allow", "deny", "ask", "block", "stop", "nudge", "error", "silent")
AGENTS = ("claude-code", "codex", "gemini-cli")

EVENTS: dict[str, frozenset[str]] = {
    "claude-code": frozenset(
        [
            "SessionStart",
            "Setup",
            "UserPromptSubmit",
            "UserPromptExpansion",
            "PreToolUse",
            "PermissionRequest",
            "PermissionDenied",
            "PostToolUse",
            "PostToolUseFailure",
            "PostToolBatch",
            "Notification",
            "MessageDisplay",
            "SubagentStart",
            "SubagentStop",
            "TaskCreated",
            "TaskCompleted",
            "Stop",
            "StopFailure",
            "TeammateIdle",
            "InstructionsLoaded",
            "ConfigChange",
            "CwdChanged",
            "FileChanged",
            "WorktreeCreate",
            "WorktreeRemove",
            "PreCompact",
            "PostCompact",
            "Elicitation",
            "ElicitationResult",
            "SessionEnd",
        ]
    ),
    "codex": frozenset(
        [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
            "PermissionRequest",
            "PostToolUse",
            "PreCompact",
            "PostCompact",
            "SubagentStop",
            "Stop",
            "Interrupt",
        ]
    ),
    "gemini-cli": frozenset(
        [
            "SessionStart",
            "SessionEnd",
            "BeforeAgent",
            "AfterAgent",
            "BeforeModel",
            "AfterModel",
            "BeforeToolSelection",
            "BeforeTool",
            "AfterTool",
            "PreCompress",
            "Notification",
        ]
    ),
}
"""Hook events each pinned CLI fires (Claude Code 2.1.197, Codex 0.171.0, Gemini CLI 0.61.0)."""

TOOL_EVENTS = frozenset(
    [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "PermissionDenied",
        "BeforeTool",
        "AfterTool",
    ]
)
"""Events whose matcher is compared with the tool name; a case of one must name its tool."""


LOWEST_SIGNAL_CODE = -64
"""The exit code of a hook killed by a signal is minus the signal's number (-9 for SIGKILL),
as Python reports it; Linux numbers its signals up to 64."""


def _exit_status(value: int) -> int:
    """A shell command's exit status: 0 to 255, all a process can exit with."""
    if not 0 <= value <= 255:
        raise ValueError("an exit code is between 0 and 255")
    return value


class HistoryEntry(UserModel):
    """One earlier shell command of the session, as the transcript records it."""

    command: str = Field(min_length=1)
    exit_code: int = 0

    _exit_code = field_validator("exit_code")(_exit_status)
    output: str = ""


class Expect(UserModel):
    """What the hooks must produce; every field given is checked, at least one is required."""

    decision: Decision | None = None
    exit_code: int | None = None
    output_includes: str | list[str] | None = None
    output_matches: str | None = None
    silent: bool | None = None
    updated_input: dict[str, Any] | None = None
    """Fields the hooks' rewrite of the tool's input must hold (``updatedInput`` in Claude
    Code, ``tool_input`` in Gemini CLI), each equal; the others are not compared."""

    @field_validator(
        "decision", "exit_code", "output_includes", "output_matches", "silent", "updated_input"
    )
    @classmethod
    def _not_vacuous(cls, value: Any) -> Any:
        """A field given must check something: ``null``, ``[]`` or ``""`` would always pass."""
        if value is None:
            raise ValueError("null checks nothing (give a value or leave the field out)")
        if value == [] or value == "" or value == {}:
            raise ValueError("an empty value checks nothing (give a value or leave the field out)")
        if isinstance(value, list) and "" in value:
            raise ValueError("an empty string checks nothing (every output includes it)")
        return value

    @field_validator("exit_code")
    @classmethod
    def _exit_code(cls, value: int | None) -> int | None:
        """0 to 255, what a hook can exit with, or minus a signal's number (-9), how a hook
        killed by that signal is reported."""
        if value is not None and not LOWEST_SIGNAL_CODE <= value <= 255:
            raise ValueError(
                f"an exit code is between 0 and 255 (or -1 to {LOWEST_SIGNAL_CODE} for a hook "
                "killed by that signal, -9 for SIGKILL)"
            )
        return value

    @field_validator("output_matches")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression ({exc})") from exc
        return value

    @model_validator(mode="after")
    def _something(self) -> Expect:
        if not self.model_fields_set:
            raise ValueError(
                "give at least one of decision, exitCode, outputIncludes, outputMatches, silent, "
                "updatedInput"
            )
        return self

    @property
    def includes(self) -> list[str]:
        value = self.output_includes
        return [] if value is None else [value] if isinstance(value, str) else list(value)


class HookCase(UserModel):
    """One planted hook input."""

    id: str = Field(min_length=1)
    agent: str | None = None
    event: str = Field(min_length=1)
    tool: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)
    response: Any = None
    prompt: str = ""
    source: str = "startup"
    permission_mode: str = "default"
    files: dict[str, int | str] = Field(default_factory=dict)
    history: list[HistoryEntry] = Field(default_factory=list)
    expect: Expect

    @field_validator("files")
    @classmethod
    def _files(cls, value: dict[str, int | str]) -> dict[str, int | str]:
        files = {posixpath.normpath(p): p for p in value}
        for path, content in value.items():
            parts = Path(path).parts
            if not path or "\0" in path or Path(path).is_absolute() or ".." in parts:
                raise ValueError(f"'{path}' must be a relative path inside the project")
            if posixpath.normpath(path) == ".":
                raise ValueError(f"'{path}' names the project folder itself, not a file in it")
            if path.endswith("/") or posixpath.basename(path) == ".":
                raise ValueError(
                    f"'{path}' names a folder, not a file (a key of files is a file's path: "
                    f"'{posixpath.normpath(path)}/name')"
                )
            if files[posixpath.normpath(path)] != path:
                raise ValueError(
                    f"'{path}' and '{files[posixpath.normpath(path)]}' name the same file"
                )
            if isinstance(content, int) and not 0 <= content <= 1 << 30:
                raise ValueError(f"'{path}': a size must be between 0 and 1 GiB")
            # A file cannot also be a folder of another file: 'a' and 'a/b'.
            for i in range(1, len(parts)):
                above = posixpath.join(*parts[:i])
                if above in files:
                    raise ValueError(
                        f"'{files[above]}' is a file, and '{path}' would need it to be a folder"
                    )
        return value


class CasesFile(UserModel):
    cases: list[HookCase] = Field(min_length=1)


UNION_TAG = re.compile(r"(str|int|float|bool|none|[a-z-]+\[.*\])", re.DOTALL)
"""How pydantic names the member of a union a value was tried against (``str``,
``list[str]``, ``literal['allow',...]``): a step of its error location, not the user's."""


def _user_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """``loc`` without pydantic's union tags (a key of ``files`` is the user's, kept as is)."""
    out: list[int | str] = []
    for part in loc:
        after_files = bool(out) and out[-1] == "files"
        if isinstance(part, str) and UNION_TAG.fullmatch(part) and not after_files:
            continue
        out.append(part)
    return tuple(out)


def _where(data: Any, loc: tuple[int | str, ...]) -> str:
    """``case 'id', field 'expect.decision'`` for a pydantic error location."""
    if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
        raw = data.get("cases", []) if isinstance(data, dict) else data
        item = raw[loc[1]] if isinstance(raw, list) and loc[1] < len(raw) else None
        name = item.get("id") if isinstance(item, dict) else None
        label = f"case '{name}'" if isinstance(name, str) else f"case #{loc[1] + 1}"
        field = format_loc(loc[2:])
        return f"{label}, field '{field}'" if field else label
    return f"field '{format_loc(loc)}'"


def _sentence(path: Path, data: Any, exc: ValidationError) -> str:
    """The first validation error as one sentence: the shared formatter's wording, with the
    location written as ``case 'id', field 'x'``."""
    first = exc.errors()[0]
    loc = tuple(first["loc"])
    shown = loc[:-2] if loc[-1:] == ("[key]",) and len(loc) >= 2 else loc
    where = _where(data, _user_loc(shown))
    if (
        first["type"] in ("too_short", "string_too_short")
        and first.get("ctx", {}).get("min_length") == 1
    ):
        return f"{path}: {where}: must not be empty"
    if first["type"] == "value_error" and first.get("input") in (None, "", []):
        return f"{path}: {where}: {first['msg'].removeprefix('Value error, ')}"
    said = describe_validation_error("\0", exc, CasesFile)
    same = [e for e in exc.errors() if _user_loc(tuple(e["loc"])) == _user_loc(loc)]
    kinds = list(dict.fromkeys(EXPECTED_TYPE.get(e["type"], "") for e in same))
    if len(kinds) > 1 and all(kinds) and ", got " in said:  # each member of a union refused it
        return f"{path}: {where}: expected {' or '.join(kinds)}, got {said.rsplit(', got ', 1)[1]}"
    old = format_loc(list(shown))
    for head, tail in ((f"\0: field '{old}'", ""), (f"\0: unknown key '{old}'", ": unknown key")):
        if said.startswith(head):
            return f"{path}: {where}{tail}{said[len(head) :]}"
    return f"{path}: {where}: {said.split(': ', 2)[-1]}"


def load_cases(path: Path, default_agent: str = "claude-code") -> list[HookCase]:
    """The cases of ``path``, each with its agent resolved (``default_agent`` when it names
    none) and its event checked against that agent's events. Raises ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the cases file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    data: Any = parse_json_text(text, path, unique=True)
    wrapped = {"cases": data} if isinstance(data, list) else data
    if not isinstance(wrapped, dict):
        raise ConfigError(f"{path}: expected an object with 'cases' (a list of cases)")
    try:
        cases = CasesFile.model_validate(wrapped).cases
    except ValidationError as exc:
        raise ConfigError(_sentence(path, wrapped, exc)) from None
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise ConfigError(f"{path}: case '{case.id}', field 'id': used by two cases")
        seen.add(case.id)
        case.agent = _agent(path, case, default_agent)
        _check_event(path, case)
    return cases


def check_default_agent(agent: str) -> str:
    """``--agent``'s value as an agent id (aliases such as ``claude`` accepted); an agent whose
    hook input is not imitated (``scripted``, ``acp:gemini``) is a ConfigError saying so."""
    return covered_agent(agent, AGENTS, "proctor hooks test")


def _agent(path: Path, case: HookCase, default_agent: str) -> str:
    if case.agent is None:
        return check_default_agent(default_agent)
    return covered_agent(
        case.agent,
        AGENTS,
        "proctor hooks test",
        where=f"{path}: case '{case.id}', field 'agent'",
        advice="name",
    )


def _check_event(path: Path, case: HookCase) -> None:
    events = EVENTS[str(case.agent)]
    if case.event not in events:
        raise ConfigError(
            f"{path}: case '{case.id}', field 'event': '{case.event}' is not a {case.agent} hook "
            f"event (known: {', '.join(sorted(events))})"
        )
    if case.event in TOOL_EVENTS and not case.tool:
        raise ConfigError(
            f"{path}: case '{case.id}', field 'tool': a {case.event} case must name its tool"
        )
