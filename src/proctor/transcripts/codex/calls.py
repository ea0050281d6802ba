"""What a Codex call is given: its arguments as an object, and the files it touches.

A ``function_call`` holds its arguments as a JSON string (an object, read as one; anything
else is kept under ``arguments``); a ``custom_tool_call`` (``apply_patch``) its raw ``input``.
The files are those of a patch (``apply_patch``, or a shell command that runs it), of a shell
command (read in the folder it runs in), else the paths among the arguments.
"""

from __future__ import annotations

import json
from typing import Any

from proctor.transcripts.kinds import patch_files, shell_files_in, touched_files
from proctor.util.shellwords import shell_folder


def function_arguments(item: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a ``function_call`` as an object."""
    raw = item.get("arguments")
    arguments: Any = raw
    if isinstance(raw, str):
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except ValueError:
            arguments = {"arguments": raw}
    if isinstance(arguments, dict):
        return arguments
    return {"arguments": arguments}


def custom_arguments(item: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a ``custom_tool_call``: its ``input``, as text."""
    raw = item.get("input")
    return {"input": raw if isinstance(raw, str) else json.dumps(raw)}


def command_of(arguments: dict[str, Any]) -> Any:
    return arguments.get("cmd", arguments.get("command"))


def is_shell_patch(arguments: dict[str, Any]) -> bool:
    """Whether a shell call runs ``apply_patch``."""
    command = command_of(arguments)
    if isinstance(command, list) and command:
        command = command[-1] if command[0] != "apply_patch" else "apply_patch"
    return isinstance(command, str) and command.lstrip().startswith("apply_patch")


def files_of(name: str, kind: str, arguments: dict[str, Any], cwd: str | None) -> list[str]:
    """The files a call of tool ``name`` (of ``kind``) touches, relative to ``cwd``."""
    if name == "apply_patch":
        patch = arguments.get("input", arguments.get("patch"))
        return patch_files(patch, cwd) if isinstance(patch, str) else []
    if kind == "shell":
        command = command_of(arguments)
        if is_shell_patch(arguments):
            text = " ".join(command) if isinstance(command, list) else str(command)
            return patch_files(text, cwd)
        workdir = shell_folder(arguments)
        base = workdir if isinstance(workdir, str) else cwd
        return shell_files_in(command, base, cwd)
    return touched_files(arguments, cwd)
