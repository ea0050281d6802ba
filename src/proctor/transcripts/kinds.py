"""Normalised tool kinds and the file paths a tool call touched, across agents."""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from proctor.models.trajectory import ToolKind
from proctor.util.shellwords import READERS, looking_kind, simple_argv

CLAUDE_KINDS: dict[str, ToolKind] = {
    "Bash": "shell",
    "BashOutput": "shell",
    "KillShell": "shell",
    "KillBash": "shell",
    "Read": "read",
    "NotebookRead": "read",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Grep": "search",
    "Glob": "search",
    "LS": "search",
    "Skill": "skill",
    "Task": "subagent",
    "Agent": "subagent",
    "AskUserQuestion": "question",
    "WebFetch": "web",
    "WebSearch": "web",
}

PATH_KEYS = ("file_path", "notebook_path", "path", "filePath", "absolute_path")
_NAMING_FILES = frozenset((*PATH_KEYS, "edits"))


def claude_kind(name: str) -> ToolKind:
    if name.startswith("mcp__"):
        return "mcp"
    return CLAUDE_KINDS.get(name, "other")


def question_of(arguments: Any) -> tuple[str, list[str]]:
    """The first question of a question tool's input and its options' labels, for every
    agent (see :func:`questions_of`)."""
    return questions_of(arguments)[0]


def questions_of(arguments: Any) -> list[tuple[str, list[str]]]:
    """Every question of a question tool's input, in order, each with its options' labels:
    the objects of its ``questions`` list when it has such a list with any, else the input
    itself (the single-question form), so there is always one. Anything of another type
    reads as no text or no options."""
    return [_question(q) for q in asked_questions(arguments)]


def asked_questions(arguments: Any) -> list[dict[str, Any]]:
    """The objects of a question tool's input that each ask one question, in order (see
    :func:`questions_of`): for the fields an agent keeps beside the text and options, such as
    Codex's ``id``, which its answers are keyed by."""
    return [asked for _, asked in numbered_questions(arguments)]


def numbered_questions(arguments: Any) -> list[tuple[int, dict[str, Any]]]:
    """Each of :func:`asked_questions` with its index in the input's ``questions`` list (0 for
    the single-question form): an entry of another type, which asks none, still holds its
    place there, and Gemini CLI's answers are keyed by that place."""
    args = arguments if isinstance(arguments, dict) else {}
    listed = args.get("questions")
    asked = (
        [(i, q) for i, q in enumerate(listed) if isinstance(q, dict)]
        if isinstance(listed, list)
        else []
    )
    return asked or [(0, args)]


def answers_in(output: str) -> dict[str, Any] | None:
    """The ``answers`` object of a question tool's output written as JSON, ``{"answers":
    {...}}`` (Gemini CLI's ``ask_user`` keys it by the question's index, Codex's
    ``request_user_input`` by its id); None for any other output (a refusal's sentence)."""
    said = None
    if output.lstrip().startswith("{"):
        try:
            said = json.loads(output)
        except (ValueError, RecursionError):
            said = None
    answers = said.get("answers") if isinstance(said, dict) else None
    return answers if isinstance(answers, dict) else None


def _question(asked: dict[str, Any]) -> tuple[str, list[str]]:
    options = asked.get("options")
    labels = (
        [str(o.get("label", o)) if isinstance(o, dict) else str(o) for o in options]
        if isinstance(options, list)
        else []
    )
    return str(asked.get("question", "")), labels


def chosen_answers(questions: list[str], answers: Any) -> list[Any]:
    """What a question call's result says was answered to each of its questions, in order,
    from a Claude Code ``toolUseResult``'s ``answers``, an object that holds every answer by
    its question's text; None for a question it holds no answer to. When it names none of the
    questions, the first answer it holds is the first question's (as one question's result
    is read whatever it names it by). Anything but such an object (a refusal's result, an
    answer in text) answers none."""
    if not isinstance(answers, dict) or not answers:
        return [None] * len(questions)
    if any(text in answers for text in questions):
        return [answers.get(text) for text in questions]
    return [next(iter(answers.values())), *[None] * (len(questions) - 1)]


@functools.lru_cache(maxsize=8192)
def relativise(path: str, cwd: str | None) -> str:
    """A workspace-relative POSIX path when ``path`` lies under ``cwd``; else unchanged.
    Remembered: a session names the same few files in call after call."""
    if cwd and os.path.isabs(path):
        if path.startswith(cwd) and path[len(cwd) : len(cwd) + 1] == "/":
            rest = path[len(cwd) + 1 :]
            probe = "/" + rest + "/"
            if rest and "//" not in probe and "/." not in probe:
                return rest  # already normal: the common case, without relpath's cost
        rel = os.path.relpath(path, cwd)
        if not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return path[2:] if path.startswith("./") else path


def touched_files(tool_input: dict[str, Any], cwd: str | None) -> list[str]:
    """The paths a call's input names (:data:`PATH_KEYS`, and each of ``edits``), relative
    to ``cwd`` where they lie under it, each once in that order."""
    if _NAMING_FILES.isdisjoint(tool_input):  # a command, a search: most calls
        return []
    files: list[str] = []
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if value and type(value) is str:
            files.append(relativise(value, cwd))
    edits = tool_input.get("edits")
    if edits and type(edits) is list:
        for edit in edits:
            if type(edit) is dict and type(edit.get("file_path")) is str:
                files.append(relativise(edit["file_path"], cwd))
    return files if len(files) < 2 else list(dict.fromkeys(files))


def claude_call_files(
    kind: str, tool_input: dict[str, Any], cwd: str | None, root: str | None = None
) -> list[str]:
    """The files a Claude Code call touched: those its input names, or, for a shell command
    that only reads or searches (``cat src/app.py``), those the command names (see
    :func:`shell_files`), as the other CLIs' readers give them; relative to ``root``, the
    session's folder, where they lie under it. ``cwd`` is the folder the call's line records
    (the shell's, after a ``cd`` of an earlier call), where a command's relative operands
    lie; ``root`` None: that folder is the session's."""
    if root is None or cwd is None or cwd == root:
        if kind == "shell":
            command = tool_input.get("command")
            return shell_files(command, cwd) if type(command) is str else []
        return touched_files(tool_input, cwd)
    if kind == "shell":
        command = tool_input.get("command")
        return shell_files_in(command, cwd, root) if type(command) is str else []
    return touched_files(tool_input, root)


CODEX_KINDS: dict[str, ToolKind] = {
    "exec_command": "shell",
    "shell": "shell",
    "shell_command": "shell",
    "local_shell": "shell",
    "container.exec": "shell",
    "write_stdin": "shell",
    "apply_patch": "edit",
    "view_image": "read",
    "web_search": "web",
    "web_search_preview": "web",
    "request_user_input": "question",
    "spawn_agent": "subagent",
    "send_input": "subagent",
    "wait_agent": "subagent",
    "close_agent": "subagent",
    "resume_agent": "subagent",
}
SUBAGENT_NAMESPACES = ("multi_agent", "collab")


def codex_kind(name: str, namespace: str | None = None) -> ToolKind:
    """Kind of a Codex tool: built-ins by name; ``server__tool`` and namespaced tools are MCP."""
    if namespace:
        if namespace.startswith(SUBAGENT_NAMESPACES):
            return "subagent"
        if name not in CODEX_KINDS:
            return "mcp"
    if name.startswith(SUBAGENT_NAMESPACES):
        return "subagent"
    if name in CODEX_KINDS:
        return CODEX_KINDS[name]
    if "__" in name.strip("_"):
        return "mcp"
    return "other"


GEMINI_KINDS: dict[str, ToolKind] = {
    "run_shell_command": "shell",
    "read_file": "read",
    "read_many_files": "read",
    "get_internal_docs": "read",
    "write_file": "write",
    "replace": "edit",
    "edit": "edit",
    "edit_file": "edit",
    "glob": "search",
    "search_file_content": "search",
    "grep": "search",
    "grep_search": "search",
    "list_directory": "search",
    "ls": "search",
    "web_fetch": "web",
    "google_web_search": "web",
    "save_memory": "other",
    "write_todos": "other",
    "ask_user": "question",
    "activate_skill": "skill",
    "delegate_to_agent": "subagent",
    "codebase_investigator": "subagent",
    "cli_help": "subagent",
    "generalist": "subagent",
}


def gemini_kind(name: str) -> ToolKind:
    """Kind of a Gemini CLI tool; MCP tools are ``server__tool`` (older) or ``mcp_server_tool``."""
    if name in GEMINI_KINDS:
        return GEMINI_KINDS[name]
    if name.startswith("mcp_") or "__" in name.strip("_"):
        return "mcp"
    if name.endswith("_agent") or name.startswith("delegate"):
        return "subagent"
    return "other"


PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_files(patch: str, cwd: str | None) -> list[str]:
    """Paths named by the headers of a Codex ``apply_patch`` body, in order, without repeats."""
    files = []
    for line in patch.splitlines():
        for header in PATCH_HEADERS:
            if line.startswith(header):
                path = line[len(header) :].strip()
                if path:
                    files.append(relativise(path, cwd))
                break
    return list(dict.fromkeys(files))


SEARCH_VALUE_OPTIONS = frozenset(
    [
        "-A",
        "-B",
        "-C",
        "-e",
        "-f",
        "-m",
        "-t",
        "-g",
        "-T",
        "--type",
        "--type-not",
        "--glob",
        "--regexp",
        "--file",
        "--max-count",
        "--context",
        "--after-context",
        "--before-context",
    ]
)
"""grep/rg options whose value is the next word."""
READER_VALUE_OPTIONS = frozenset({"-n", "-c", "--lines", "--bytes"})
"""head/tail options whose value is the next word."""


PATTERN_OPTIONS = frozenset({"-e", "-f", "--regexp", "--file"})
"""grep/rg options that give the pattern, so that every operand is a file."""


def _operands(args: list[str], with_values: frozenset[str]) -> list[str]:
    """The words that are not options nor the values of options (``-A 3``, ``--type py``)."""
    operands, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in with_values:
            skip = True
        elif not arg.startswith("-"):
            operands.append(arg)
    return operands


def shell_files_in(command: Any, folder: Any, cwd: str | None) -> list[str]:
    """:func:`shell_files` of a command run in ``folder`` (absolute, or relative to ``cwd``;
    None or empty for ``cwd`` itself): its relative operands are the folder's files."""
    base = folder if isinstance(folder, str) and folder else None
    return [
        relativise(os.path.join(base, f) if base and not os.path.isabs(f) else f, cwd)
        for f in shell_files(command, None)
    ]


def shell_files(command: Any, cwd: str | None) -> list[str]:
    """Files an obviously simple read command names (``cat f``, ``sed -n '1,9p' f``, ``grep p f``).

    Deliberately cheap and conservative: commands with pipes, redirections, chaining or
    substitutions give ``[]``. A ``bash -lc '<cmd>'`` wrapper is looked through.
    """
    # Only a command that reads or searches and does nothing else (not tail -f, not sed -i).
    argv = simple_argv(command) if looking_kind(command) is not None else None
    if argv is None:
        return []
    program, args = os.path.basename(argv[0]), argv[1:]
    if program == "sed":  # sed -n SCRIPT FILE…, as looking_kind let it through
        operands = args[2:]
    elif program in ("grep", "rg"):
        operands = _operands(args, SEARCH_VALUE_OPTIONS)
        if not any(a in PATTERN_OPTIONS for a in args):
            operands = operands[1:]  # the first operand is the pattern
    elif program in READERS:
        takes = READER_VALUE_OPTIONS if program in ("head", "tail") else frozenset()
        operands = [a for a in _operands(args, takes) if not a.isdigit()]
    else:
        return []
    return list(dict.fromkeys(relativise(a, cwd) for a in operands if a))
