"""``proctor hooks test``: an add-on's hook commands run on planted hook inputs, as each agent
CLI would send them, with no agent and no model, and their decisions checked.

Example::

    report = run_hook_tests(Path("my-plugin"), Path("cases.json"), agent="claude-code")
    assert report.ok, [r.message for r in report.results if not r.ok]
"""

from proctor.addons.hooks.cases import DECISIONS, Expect, HistoryEntry, HookCase, load_cases
from proctor.addons.hooks.results import CaseResult, HookRunResult, HooksReport
from proctor.addons.hooks.sources import HookSource, HookSpec, load_hooks
from proctor.addons.hooks.suite import run_hook_tests

__all__ = [
    "DECISIONS",
    "CaseResult",
    "Expect",
    "HistoryEntry",
    "HookCase",
    "HookRunResult",
    "HookSource",
    "HookSpec",
    "HooksReport",
    "load_cases",
    "load_hooks",
    "run_hook_tests",
]
