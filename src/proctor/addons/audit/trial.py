"""The audit a trial records of its scratch home right after provisioning: what the agent
actually had. It never fails a trial: an error is logged and the audit left out."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from proctor.addons.audit import AUDITORS, audit, shown
from proctor.models.audit import AuditReport

log = logging.getLogger(__name__)


def trial_audit(
    home: Path, workspace: Path, agent: str, launch_args: Sequence[str] = ()
) -> AuditReport | None:
    """``agent``'s audit of the trial's scratch ``home`` and ``workspace`` (with the session's
    command line); None for an agent with no audit (the scripted agent) or when it fails.
    Claude Code's trials run with ``CLAUDE_CONFIG_DIR=<home>/.claude``."""
    if agent not in AUDITORS:
        return None
    try:
        return shown(
            audit(
                home,
                workspace,
                [agent],
                launch_args=launch_args,
                claude_config_dir=home / ".claude",
            )
        )
    except Exception:  # the audit is a record, never a reason for the trial to fail
        log.warning("the audit of %s's scratch home failed", agent, exc_info=True)
        return None
