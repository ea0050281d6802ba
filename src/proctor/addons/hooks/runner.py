"""Running one hook command as its CLI would: ``/bin/sh -c`` (Claude Code) or ``bash -c``
(Codex, Gemini CLI) in the scratch project, the CLI's stdin JSON and variables, the scratch
home as ``HOME``, secrets filtered out of the environment, a timeout, and its whole process
group killed afterwards."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from proctor.addons.hooks.inputs import Session, expand_command, hook_environment
from proctor.addons.hooks.results import HookRunResult
from proctor.addons.hooks.sources import WORKTREES, HookSpec, kept_from_scratch
from proctor.addons.hooks.verdict import Reading, read_result
from proctor.errors import ConfigError
from proctor.util.masking import mask
from proctor.util.processes import run_captured
from proctor.util.startable import first_program, hidden_shebang, why_unstartable
from proctor.workspace.environment import agent_environment

DEFAULT_TIMEOUT_SEC = {"claude-code": 600.0, "codex": 600.0, "gemini-cli": 60.0}
"""What each CLI waits for a hook that declares no timeout."""
SHELL = {"claude-code": "/bin/sh", "codex": "bash", "gemini-cli": "bash"}
"""The shell each CLI hands a hook's command to (``SHELL -c COMMAND``). Claude Code 2.1.197
spawns it with Node's ``shell: true``, which is ``/bin/sh`` on Linux and macOS (dash on Debian
and Ubuntu, so ``[[ … ]]`` or ``source`` written in the command fail there), whatever the
handler's ``shell`` says short of ``powershell``; Gemini CLI 0.61.0 runs ``bash -c``."""
OUTPUT_KEEP = 4000
NOT_RUNNABLE = {126: "is not executable", 127: "was not found"}


def timeout_for(agent: str, hook: HookSpec, cap: float) -> float:
    """The hook's declared timeout in seconds (Gemini CLI declares milliseconds), or the CLI's
    default, never more than ``cap``."""
    declared = hook.timeout
    if declared is None:
        seconds = DEFAULT_TIMEOUT_SEC[agent]
    else:
        seconds = declared / 1000 if agent == "gemini-cli" else float(declared)
    return min(seconds, cap)


def run_hook(
    agent: str, event: str, hook: HookSpec, session: Session, stdin: dict[str, object], cap: float
) -> HookRunResult:
    """Run ``hook`` once and read its result as ``agent`` would."""
    command = expand_command(agent, hook, session)
    env = agent_environment(
        os.environ, home=session.home, extra=hook_environment(agent, hook, session)
    )
    if session.temp is not None:  # a hook's temporary files stay in the case's scratch
        env["TMPDIR"] = str(session.temp)
    timeout = timeout_for(agent, hook, cap)
    started = time.monotonic()
    try:
        outcome = run_captured(
            [SHELL[agent], "-c", command],
            cwd=session.project,
            env=env,
            timeout=timeout,
            stdin=json.dumps(stdin),
        )
    except OSError as exc:
        why = f"could not start {SHELL[agent]} ({exc.strerror or exc})"
        return _not_run(hook, started, why)
    stdout, stderr = mask(outcome.stdout), mask(outcome.stderr)
    flooded = outcome.stopped_for_output()
    if outcome.timed_out or flooded:
        result = _not_run(hook, started, flooded or f"timed out after {timeout:g}s")
        return result.model_copy(update={"stdout": _keep(stdout), "stderr": _keep(stderr)})
    code = outcome.returncode
    error = None
    if code in NOT_RUNNABLE:
        error = _not_runnable(command, code, stderr, session.project, env)
    program = first_program(command)
    hidden = (
        None if program is None else hidden_shebang(program, session.project, env.get("PATH", ""))
    )
    if error is None and hidden is not None:
        error = f"the hook's program cannot be started: {mask(hidden)} (exit {code})"
    reading = read_result(agent, event, code, stdout, stderr)
    if agent == "claude-code" and hook.background and not error:
        # ``async``: Claude Code does not wait for it, so nothing it says blocks or decides.
        was = reading.decision
        said = (
            f"async: ran in the background, so its {was} takes no effect" if was != "silent" else ""
        )
        reading = Reading("silent", said)
    return HookRunResult(
        command=hook.command,
        exit_code=code,
        decision="error" if error else reading.decision,
        message=error or reading.message,
        stdout=_keep(stdout),
        stderr=_keep(stderr),
        duration_ms=round((time.monotonic() - started) * 1000),
        error=error,
        updated_input=None if error else reading.updated_input,
    )


def _not_runnable(
    command: str, code: int, stderr: str, cwd: Path, env: dict[str, str]
) -> str | None:
    """Why a hook that exited 126 or 127 could not be run; None when its program started and
    the status is the hook's own (a script that called a missing command): an ``error``
    decision like any other exit code. A line whose program cannot be told (``cd x && ./y``,
    ``"$CLAUDE_PROJECT_DIR"/hook.sh``) is taken as not run."""
    program = first_program(command)
    why = None if program is None else why_unstartable(program, cwd, env.get("PATH", ""))
    if program is not None and why is None:
        return None
    said = (
        f"the hook's program cannot be started: {mask(why)}"
        if why
        else (f"the hook's program {NOT_RUNNABLE[code]}")
    )
    return f"{said} (exit {code}): {stderr.strip()[-300:]}"


def _not_run(hook: HookSpec, started: float, why: str) -> HookRunResult:
    return HookRunResult(
        command=hook.command,
        exit_code=None,
        decision="error",
        message=why,
        stdout="",
        stderr="",
        duration_ms=round((time.monotonic() - started) * 1000),
        error=why,
    )


def _keep(text: str) -> str:
    return text if len(text) <= OUTPUT_KEEP else text[: OUTPUT_KEEP - 1] + "…"


def copy_config_folder(folder: Path, project: Path) -> None:
    """Copy the project's ``folder`` (``.claude`` or ``.gemini``) into the scratch ``project``,
    links followed, so hooks find the scripts beside their settings file; its ``worktrees``
    are left out. Raises ConfigError when it cannot be read."""
    try:
        shutil.copytree(
            folder,
            project / folder.name,
            ignore=lambda where, names: [
                *([WORKTREES] if Path(where) == folder else []),
                *_dangling(where, names),
            ],
            dirs_exist_ok=True,
        )
    except shutil.Error as exc:  # one (source, copy, why) per file that failed
        why = exc.args[0][0][2]  # names the file
        raise ConfigError(
            f"{folder}: cannot copy this folder into the scratch project for its hooks "
            f"({why}); expected a folder of readable files"
        ) from exc
    except OSError as exc:
        raise ConfigError(
            f"{folder}: cannot copy this folder into the scratch project for its hooks "
            f"({exc.strerror or exc}); expected a folder of readable files"
        ) from exc


def _dangling(where: str, names: list[str]) -> list[str]:
    """The links among ``names`` (in folder ``where``) that lead nowhere: left out of a copy.
    Each is followed from its own folder (``copytree``'s own check follows a relative link
    from the current folder, and drops good ones)."""
    return [
        n
        for n in names
        if os.path.islink(os.path.join(where, n)) and not os.path.exists(os.path.join(where, n))
    ]


def copy_home_entries(entries: tuple[Path, ...], home: Path) -> None:
    """Copy each entry of the user's agent folder (``~/.claude/hooks``) to the same place in
    the scratch ``home``, links followed, what holds credentials or session records left out
    at any depth, however reached (:func:`~proctor.addons.hooks.sources.kept_from_scratch`).
    Raises ConfigError when one cannot be read."""
    for entry in entries:
        copy = home / entry.parent.name / entry.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        try:
            if entry.is_dir():
                shutil.copytree(
                    entry,
                    copy,
                    ignore=lambda where, names, folder=entry.parent: [
                        n for n in names if kept_from_scratch(os.path.join(where, n), folder)
                    ],
                    dirs_exist_ok=True,
                )
            else:
                shutil.copy2(entry, copy)
        except shutil.Error as exc:
            why = exc.args[0][0][2]
            raise ConfigError(
                f"{entry}: cannot copy this into the scratch home for the hooks that name it "
                f"({why}); expected readable files"
            ) from exc
        except OSError as exc:
            raise ConfigError(
                f"{entry}: cannot copy this into the scratch home for the hooks that name it "
                f"({exc.strerror or exc}); expected readable files"
            ) from exc


def plant_files(project: Path, files: dict[str, int | str]) -> None:
    """Create each planted file: text as given, or a size in bytes filled with numbered lines
    (so a hook can stat, count lines or read it)."""
    for rel, content in files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
            continue
        with path.open("wb") as fh:
            remaining, n = content, 0
            while remaining > 0:
                block = "".join(
                    f"line {n + i:08d} planted by proctor hooks test\n" for i in range(1, 2049)
                ).encode()
                n += 2048
                fh.write(block[:remaining])
                remaining -= min(remaining, len(block))
