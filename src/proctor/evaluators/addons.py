"""Did the add-on actually fire? ``hook-transcript-check`` and ``skill-loaded``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from proctor.agents.hook_markers import (
    MARKERS_FILE,
    DeclaredHook,
    matcher_names,
    plugin_hooks,
    read_markers,
)
from proctor.evaluators.base import (
    CaseProblem,
    EvaluationContext,
    EvaluatorParams,
    error_result,
    register,
    scored_result,
)
from proctor.evaluators.trajectory_check import input_texts
from proctor.models.case import EvaluatorSpec
from proctor.models.trajectory import HookEvent, ToolCall
from proctor.models.trial import EvaluatorResult

PLUGIN_ROOT_VARS = ("${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT")


class HookCheckParams(EvaluatorParams):
    plugin_manifest: str = Field(min_length=1)
    """The plugin (its folder, its ``hooks/hooks.json`` or its ``.claude-plugin/plugin.json``:
    all of its hooks are read either way), relative to the case folder."""
    ignore_events: list[str] = Field(default_factory=lambda: ["PostCompact"])
    require_commands: bool = True

    def case_problem(self, case_dir: Path) -> CaseProblem | None:
        manifest = Path(self.plugin_manifest)
        if not (manifest if manifest.is_absolute() else case_dir / manifest).exists():
            return CaseProblem(
                "pluginManifest",
                f"{self.plugin_manifest} is not a file or folder (in {case_dir})",
            )
        return None


TOOL_EVENTS = frozenset(
    ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"]
)
"""Claude Code's events whose matcher names the tool."""


def _tool_of(hit: HookEvent, tools: dict[str, str]) -> str | None:
    """The tool a hook ran for, as the transcript shows it: the call its ``toolUseID`` names,
    else the tool in its name (``PreToolUse:Bash``); None when it shows none."""
    if hit.id and hit.id in tools:
        return tools[hit.id]
    event, _, tool = (hit.name or "").partition(":")
    return tool or None if event == hit.hook_event else None


def _core(command: str) -> str:
    """The part of a hook command that survives path expansion (after the plugin root)."""
    for var in PLUGIN_ROOT_VARS:
        if var in command:
            return command.split(var, 1)[1]
    return command


@register
class HookTranscriptCheck:
    """Every hook event the plugin declares fired and ran the plugin's own command.

    Evidence: hook events in the transcript (attachments, stop-hook summaries) and proctor's
    capture markers (``hook-markers.jsonl``, written by the provisioned copy of the plugin).
    With no hook evidence at all the check fails loudly instead of passing.
    """

    name: ClassVar[str] = "hook-transcript-check"
    Params: ClassVar[type[EvaluatorParams]] = HookCheckParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = HookCheckParams.of(spec)
        manifest = Path(params.plugin_manifest)
        manifest = manifest if manifest.is_absolute() else ctx.case_dir / manifest
        try:
            hooks = plugin_hooks(manifest)
        except (OSError, ValueError) as exc:
            return error_result(spec, f"cannot read plugin manifest {manifest}: {exc}")
        declared: dict[str, list[DeclaredHook]] = {}
        for hook in hooks:
            declared.setdefault(hook.event, []).append(hook)
        checked = {e: h for e, h in declared.items() if e not in params.ignore_events}
        transcript = [e for e in ctx.trajectory.events if isinstance(e, HookEvent)]
        tools = {e.id: e.name for e in ctx.trajectory.events if isinstance(e, ToolCall) and e.id}
        markers = read_markers(ctx.trial.root / MARKERS_FILE)
        fired, matched, missing, off_tool = [], [], [], []
        for event, own in checked.items():
            m_hits = [m for m in markers if m.get("event") == event]
            t_hits, ran_own, elsewhere = [], False, set()
            for hit in (h for h in transcript if h.hook_event == event):
                tool = _tool_of(hit, tools) if event in TOOL_EVENTS else None
                named = [d for d in own if tool is None or matcher_names(d.matcher, tool)]
                if not named:  # Claude Code would not have run this plugin's hook for that tool
                    elsewhere.add(str(tool))
                    continue
                t_hits.append(hit)
                cores = [_core(d.command) for d in named]
                ran_own = ran_own or any(core and core in (hit.command or "") for core in cores)
            if not t_hits and not m_hits:
                missing.append(event)
                if elsewhere:
                    off_tool.append(f"{event} ({', '.join(sorted(elsewhere))})")
                continue
            fired.append(event)
            if ran_own or any(m.get("command") in [d.command for d in own] for m in m_hits):
                matched.append(event)
        metrics = {
            "hook_events_declared": float(len(declared)),
            "hook_events_checked": float(len(checked)),
            "hook_events_fired": float(len(fired)),
            "hook_events_plugin_matched": float(len(matched)),
        }
        if not checked:
            return scored_result(
                spec,
                passed=False,
                message="nothing to check: the manifest declares no hook events"
                + (f" besides the ignored {', '.join(params.ignore_events)}" if declared else ""),
                metrics=metrics,
            )
        if not transcript and not markers:
            return scored_result(
                spec,
                passed=False,
                message="no hook evidence at all: neither transcript hook entries nor proctor "
                "capture markers (was the plugin provisioned?)",
                metrics=metrics,
            )
        ok = not missing and (not params.require_commands or len(matched) == len(checked))
        score = (
            100.0 * (len(matched) if params.require_commands else len(fired)) / max(len(checked), 1)
        )
        unmatched = sorted(set(fired) - set(matched))
        message = (
            f"{len(fired)}/{len(checked)} hook events fired, {len(matched)} ran the plugin's "
            f"own command"
            + (f"; never fired: {', '.join(missing)}" if missing else "")
            + (f"; fired without the plugin's command: {', '.join(unmatched)}" if unmatched else "")
            + (
                f"; fired only for tools its matcher does not name: {'; '.join(off_tool)}"
                if off_tool
                else ""
            )
        )
        return scored_result(
            spec,
            passed=ok,
            score=score,
            message=message,
            metrics=metrics,
            missing=missing,
            unmatched=unmatched,
        )


class SkillLoadedParams(EvaluatorParams):
    name: str = Field(min_length=1)


@register
class SkillLoaded:
    """The agent invoked the skill (a Skill tool call or a skill event) or touched its files
    (a read, or a shell command naming a ``skills/<name>/`` path) without the call failing."""

    name: ClassVar[str] = "skill-loaded"
    Params: ClassVar[type[EvaluatorParams]] = SkillLoadedParams

    def evaluate(self, spec: EvaluatorSpec, ctx: EvaluationContext) -> EvaluatorResult:
        params = SkillLoadedParams.of(spec)
        wanted = params.name
        evidence = []
        marker = f"skills/{wanted}/"
        in_path = re.compile(rf"(?:^|[/\s'\"=]){re.escape(marker)}")
        results = {e.id: e for e in ctx.trajectory.events if e.type == "tool_result" and e.id}
        for event in ctx.trajectory.events:
            if event.type == "skill" and (event.name or "").split(":")[-1] == wanted:
                evidence.append("skill event")
            elif event.type == "tool_call" and (
                any(in_path.search(f) for f in event.files or [])
                or any(in_path.search(t) for t in input_texts(event.input))
            ):
                result = results.get(event.id) if event.id else None
                if result is not None and (result.is_error or result.denied):
                    continue  # a failed or refused read loads nothing
                evidence.append(f"{event.name} touched {marker}")
        return scored_result(
            spec,
            passed=bool(evidence),
            message=f"skill '{wanted}' " + ("was loaded" if evidence else "was never loaded"),
            metrics={"skill_loads": float(len(evidence))},
            evidence=evidence[:10],
        )
