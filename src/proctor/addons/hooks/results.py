"""What ``proctor hooks test --json`` prints: one result per case, each with the hooks it ran."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from proctor.models.base import CamelModel


class HookRunResult(CamelModel):
    """One hook command run on one case. ``exitCode`` is None when it never finished."""

    command: str
    exit_code: int | None
    decision: str
    message: str
    stdout: str
    stderr: str
    duration_ms: int
    error: str | None = None
    """Why the hook could not be run at all (timeout, program not found)."""
    updated_input: dict[str, Any] | None = None
    """The tool's input as the hook rewrote it (the tool runs with it)."""


class CaseResult(CamelModel):
    id: str
    ok: bool
    agent: str
    event: str
    tool: str | None
    hooks: list[HookRunResult]
    decision: str
    exit_code: int | None
    message: str
    """Why the case failed, or what the hooks said when it passed."""
    errored: bool = False
    """A hook could not be run, so the case proves nothing either way."""
    updated_input: dict[str, Any] | None = None
    """The tool's input as the hooks left it, when one rewrote it (the last rewrite)."""


class HooksReport(CamelModel):
    ok: bool
    passed: int
    failed: int
    errored: int
    source: str
    skipped_handlers: list[str]
    """Handlers of a type proctor does not run (``http``, ``prompt``, ...), as ``event: type``."""
    results: list[CaseResult]
    not_loaded: str | None = None
    """Why the CLI would not load the source where it is (a Codex project not trusted)."""
    untrusted: bool = Field(default=False, exclude=True)
    """Whether :attr:`not_loaded` is the project's trust (not in the JSON: its text says)."""
    loaded_with: str | None = None
    """Codex's other hooks file of the same folder, whose hooks it loads as well (and warns)."""
    home_copies: list[str] = []
    """Entries of the user's agent folder copied into each scratch home (user settings)."""
    home_withheld: list[str] = []
    """Entries the commands name that hold credentials or sessions, never copied."""
    home_unresolved: list[str] = []
    """Commands that name the user's agent folder where no entry to copy could be told."""

    def shown(self) -> HooksReport:
        """The report as ``hooks test`` prints it: a credential in a hook's command line (an
        ``Authorization`` header's value, a ``Bearer`` token, ``--token …``) masked, and every
        registered key anywhere in it (see :func:`~proctor.addons.shown.command_masked`)."""
        from proctor.addons.shown import command_masked
        from proctor.util.cutting import masked_data

        report = HooksReport.model_validate(masked_data(self.to_dict()))
        for result in report.results:
            for hook in result.hooks:
                hook.command = command_masked(hook.command)
        report.skipped_handlers = [command_masked(s) for s in report.skipped_handlers]
        report.home_unresolved = [command_masked(c) for c in report.home_unresolved]
        return report

    @property
    def exit_code(self) -> int:
        """0 all passed, 1 a case failed, 3 a hook could not be run and no case failed."""
        if self.failed:
            return 1
        return 3 if self.errored else 0
