"""The result of ``proctor addon check-install``: one line per check, and the audit of what the
installer wrote into an empty scratch home. Printed by ``proctor addon check-install --json``."""

from __future__ import annotations

from proctor.models.audit import AuditReport
from proctor.models.base import CamelModel, RecordModel


class InstallCheck(CamelModel):
    """One check: its name (``install``, ``present``, ``project``, ``idempotent``,
    ``keeps-user``, ``uninstall``, ``uninstall-removes``, ``uninstall-keeps-user``,
    ``real-home``), the agent it is about (``None`` when it is about the whole scratch), whether
    it passed, and why, in a sentence."""

    name: str
    agent: str | None = None
    passed: bool
    message: str


class NotRunCheck(CamelModel):
    """A check that was not run, as a command before it failed: its name, and the step that
    failed (``the install``, ``the install over the user's state``, ``the uninstall``)."""

    name: str
    failed: str


class InstallCheckReport(RecordModel):
    ok: bool
    """True when every check passed."""
    checks: list[InstallCheck] = []
    installed: AuditReport | None = None
    """The audit of the scratch home and project after the first install (failed or not)."""
    not_run: list[NotRunCheck] = []
    """The checks not run, as a command before them failed (its failure is a check of its own,
    with the command's output); in the order they would have run."""
    notes: list[str] = []
    """What is worth knowing but fails nothing (empty folders left by the uninstall, components
    the installer added that the expect file does not name, what a failed install left, the
    checks not run after a failed command, where ``--keep`` kept the scratches)."""

    def failed(self) -> list[InstallCheck]:
        return [c for c in self.checks if not c.passed]
