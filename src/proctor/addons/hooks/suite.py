"""``proctor hooks test`` as a library call: every case in a fresh scratch project (with a copy
of the project's ``.claude`` or ``.gemini`` folder when the hooks come from that project's
settings) and home, the matching hooks run on its planted input, the results checked against
its expectations."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from pathlib import Path

from proctor.addons.hooks.cases import AGENTS, EVENTS, HookCase, load_cases
from proctor.addons.hooks.inputs import Session, hook_input, hook_matches, matcher_notes
from proctor.addons.hooks.results import CaseResult, HookRunResult, HooksReport
from proctor.addons.hooks.runner import (
    copy_config_folder,
    copy_home_entries,
    plant_files,
    run_hook,
)
from proctor.addons.hooks.sources import HookSource, load_hooks
from proctor.addons.hooks.transcript import write_transcript
from proctor.addons.hooks.verdict import check, snippet, strongest
from proctor.errors import ConfigError
from proctor.util.files import temporary_folder

AGENT_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "gemini-cli": "Gemini CLI"}

DEFAULT_CAP_SEC = 30.0


def run_hook_tests(
    source: Path,
    cases_file: Path,
    *,
    agent: str = "claude-code",
    timeout_cap: float = DEFAULT_CAP_SEC,
    scratch: Path | None = None,
) -> HooksReport:
    """Run the hooks of ``source`` (plugin folder or settings file) on the cases of
    ``cases_file``. Raises ConfigError for a bad source or cases file."""
    hooks = load_hooks(source)
    cases = load_cases(cases_file, agent)
    check_agents(source, hooks, cases_file, cases)
    with temporary_folder("proctor-hooks-", dir=scratch) as tmp:  # links never followed
        results = [
            run_case(hooks, case, tmp / f"case-{n}", timeout_cap) for n, case in enumerate(cases)
        ]
    return summarise(str(source), hooks, results)


def source_agents(hooks: HookSource) -> list[str]:
    """The CLIs that would run ``hooks``: the one the source's form names (a plugin, an
    extension, a settings file in an agent's folder), else those that fire every event the
    hooks are under (Claude Code and Codex share names; Gemini CLI's are its own); every CLI
    when the source holds no hook."""
    if hooks.agent is not None:
        return [hooks.agent]
    events = {h.event for h in hooks.hooks}
    fitting = [a for a in AGENTS if events and events <= EVENTS[a]]
    return fitting or list(AGENTS)


def check_agents(source: Path, hooks: HookSource, cases_file: Path, cases: list[HookCase]) -> None:
    """Refuse a case for a CLI that would never run the source's hooks (a Gemini CLI case
    against a Claude Code plugin): no hook would match, and a silent case would pass."""
    agents = source_agents(hooks)
    for case in cases:
        if case.agent not in agents:
            wanted = " or ".join(AGENT_NAMES[a] for a in agents)
            raise ConfigError(
                f"{cases_file}: case '{case.id}' is for {case.agent}, but {source} holds "
                f"{wanted} hooks, which {AGENT_NAMES[str(case.agent)]} never runs (a case for "
                f"them needs the agent {agents[0]}, in its field 'agent' or with --agent)"
            )


def summarise(source: str, hooks: HookSource, results: Sequence[CaseResult]) -> HooksReport:
    errored = sum(1 for r in results if r.errored)
    failed = sum(1 for r in results if not r.ok and not r.errored)
    return HooksReport(
        ok=all(r.ok for r in results),
        passed=sum(1 for r in results if r.ok),
        failed=failed,
        errored=errored,
        source=source,
        skipped_handlers=list(hooks.skipped),
        not_loaded=hooks.not_loaded,
        untrusted=hooks.untrusted,
        loaded_with=str(hooks.loaded_with) if hooks.loaded_with else None,
        home_copies=[str(p) for p in hooks.home_entries],
        home_withheld=[str(p) for p in hooks.home_withheld],
        home_unresolved=list(hooks.home_unresolved),
        results=list(results),
    )


def run_case(hooks: HookSource, case: HookCase, root: Path, cap: float) -> CaseResult:
    """Plant the case in ``root`` (a new folder), run its matching hooks, check the result."""
    agent = str(case.agent)
    project, home = root / "project", root / "home"
    project.mkdir(parents=True)
    home.mkdir()
    (root / "tmp").mkdir()
    if hooks.config_folder is not None:
        copy_config_folder(hooks.config_folder, project)
    copy_home_entries(hooks.home_entries, home)
    plant_files(project, case.files)
    session_id = str(uuid.uuid4())
    transcript = write_transcript(agent, home, project, session_id, case.history)
    session = Session(session_id, project, home, transcript, root / "tmp")
    stdin = hook_input(agent, case, session)
    matched = [h for h in hooks.hooks if hook_matches(agent, h, case, project)]
    runs = [run_hook(agent, case.event, h, session, stdin, cap) for h in matched]
    return judge(case, runs, [] if matched else matcher_notes(agent, hooks.hooks, case))


def _printed(runs: Sequence[HookRunResult]) -> str:
    """What hooks that gave no message printed (output the agent does not read as one: text
    that is not the JSON it reads, or stderr on a success): "no output" only when there was
    none."""
    printed = [text for r in runs for text in (r.stdout, r.stderr) if text.strip()]
    if not printed:
        return "no output"
    return f"no message (it printed: {snippet(' | '.join(printed))})"


_TRACEBACK = "Traceback (most recent call last):"
_FRAMING = re.compile(r"^(?:\s*[|+](?![-+]))*")
"""The ``|`` and ``+`` a Python 3.11+ exception group's traceback frames its lines with."""
_RULE = re.compile(r"[\s|+-]*(?:\d+|\.\.\.)?[\s-]*")
"""A line of an exception group's framing alone (``+-+---- 1 ----``)."""


def _gist(text: str) -> str:
    """A hook's message, or where it holds a Python traceback, the line that ends the last one
    (``KeyError: 'x'``: what broke), whatever the hook printed after it; of an exception group,
    its own line and its first sub-exception's (``ExceptionGroup: checks failed (2
    sub-exceptions), the first KeyError: 'x'``)."""
    lines = text.splitlines()
    starts = [n for n, line in enumerate(lines) if _TRACEBACK in line]
    if not starts:
        return text
    last = next((line.strip() for line in reversed(lines) if line.strip()), text)
    lines = _unprefixed(lines, starts[0])
    starts = [n for n, line in enumerate(lines) if _TRACEBACK in line]
    depth = [lines[n][: lines[n].index(_TRACEBACK)].count("|") for n in starts]
    outer = [n for n, d in zip(starts, depth, strict=True) if d == min(depth)]
    start = outer[-1]  # the last of the outermost: an exception group's own, not its parts'
    said = _ending(lines, start)
    if said is None or not _EXCEPTION_LINE.match(said):
        return last  # no exception line where one ends a traceback: what it printed last
    if "Exception Group Traceback" in lines[start]:
        inner = _first_part(lines, start, starts)
        return f"{said}, the first {inner}" if inner and _EXCEPTION_LINE.match(inner) else said
    return said


_HEADER = re.compile(r"(.*?)[\s|+]*(?:Exception Group )?" + re.escape(_TRACEBACK))
"""A traceback's header, after what the hook writes before each line (``[hook] ``, a time),
and before the framing of an exception group's traceback (``  | ``, ``+``)."""


def _unprefixed(lines: list[str], start: int) -> list[str]:
    """``lines`` without the prefix the header ``lines[start]`` has before its framing, from
    each line that has it or one of its shape (a time or a counter with other digits, as many
    or not: ``12:00:9 `` then ``12:00:10 ``, ``[9] `` then ``[10] ``, padded by spaces or
    not: ``[ 9] `` then ``[10] ``), so a traceback logged line by line reads as printed."""
    found = _HEADER.match(lines[start])
    prefix = found.group(1) if found else ""
    if not prefix.strip():
        return lines
    parts = _DIGITS.split(prefix)
    shape = re.compile(
        "".join(_shaped(n, part, n + 1 < len(parts)) for n, part in enumerate(parts))
    )
    return [line[m.end() :] if (m := shape.match(line)) else line for line in lines]


def _shaped(n: int, part: str, digits_follow: bool) -> str:
    """The pattern of the ``n``th part of a prefix split at its runs of digits (the odd
    ones): any digits for those, and the spaces that pad them to a width (before them, or
    after them before the text that follows) as many or none. The spaces that end the prefix
    are kept as they are: those after them indent the line."""
    if n % 2:
        return r"\d+"
    head = tail = ""
    if n > 0 and part.startswith(" ") and part.strip():  # ``[9 ]``: padded on its right
        part, head = part.lstrip(" "), " *"
    if digits_follow and part.endswith(" "):  # ``[ 9]``: padded on its left
        part, tail = part.rstrip(" "), " *"
    return head + re.escape(part) + tail


_DIGITS = re.compile(r"(\d+)")
"""A run of digits in a prefix: any other run of digits in its place is the same prefix."""


_FIRST_RULE = re.compile(r"[\s|+]*\+-\+-+ 1 -+")
"""The rule an exception group's traceback opens its first sub-exception with."""


def _first_part(lines: list[str], start: int, starts: list[int]) -> str | None:
    """The exception line of the first sub-exception of the group whose header is
    ``lines[start]``: its traceback's (the last of its own, not that of the exception it was
    raised from or while handling), or, for one never raised (``ExceptionGroup("…",
    [ValueError("…")])``), the line alone under the group's first rule."""
    rule = next((n for n in range(start + 1, len(lines)) if _FIRST_RULE.fullmatch(lines[n])), None)
    if rule is not None and rule + 1 < len(lines) and _TRACEBACK not in lines[rule + 1]:
        lead = _FRAMING.match(lines[rule + 1])
        return lines[rule + 1][lead.end() if lead else 0 :].strip()
    if rule is not None:  # its last traceback: the cause or context it was raised from is above
        col = lines[rule].index("+-+") + 2
        end = next(
            (
                n
                for n in range(rule + 1, len(lines))
                if lines[n][col : col + 1] == "+" and _RULE.fullmatch(lines[n])
            ),
            len(lines),
        )
        inside = [n for n in starts if rule < n < end]
        if inside:
            depth = [lines[n][: lines[n].index(_TRACEBACK)].count("|") for n in inside]
            return _ending(
                lines, [n for n, d in zip(inside, depth, strict=True) if d == min(depth)][-1]
            )
    first = next((n for n in starts if n > start), None)
    return _ending(lines, first) if first is not None else None


_EXCEPTION_LINE = re.compile(r"[A-Za-z_][\w.]*(?::\s.*|:)?$")
"""How the line that ends a traceback reads: the exception's name, then its message after
``: `` (``KeyError: 'x'``, ``SystemExit``); a frame line (``File "…", line 4``) or a line of
the hook's own prefix found instead is not one."""


def _ending(lines: list[str], start: int) -> str | None:
    """The exception line that ends the traceback whose header is ``lines[start]``: the first
    line below it as little indented as the header (its frames are indented under it), read
    past an exception group's framing and any prefix the hook wrote before the header."""
    header = lines[start]
    lead = _FRAMING.match(header)
    framed = header[lead.end() if lead else 0 :]
    before = framed[: framed.index(_TRACEBACK)]
    prefix = "" if before.strip().endswith("Exception Group") else before.strip()
    ahead = before.lstrip()[len(prefix) :] if prefix else before  # (what stands before it)
    indent = len(ahead) - len(ahead.lstrip())
    for line in lines[start + 1 :]:
        if _RULE.fullmatch(line):
            continue
        lead = _FRAMING.match(line)
        body = line[lead.end() if lead else 0 :]
        if prefix and body.lstrip().startswith(prefix):
            body = body.lstrip()[len(prefix) :]
        if body.strip() and len(body) - len(body.lstrip()) <= indent:
            return body.strip()
    return None


def _heard(runs: Sequence[HookRunResult], said: Sequence[str]) -> str:
    """What the hooks of a failed case said or printed, for its message: a hook that errored
    (a Python exception, ``jq`` not found) says why, so the failure is understood without
    ``--json``; empty when they were silent."""
    if said:
        return f" (the hook said: {snippet(' | '.join(_gist(m) for m in said))})"
    printed = [_gist(t) for r in runs for t in (r.stdout, r.stderr) if t.strip()]
    return f" (it printed: {snippet(' | '.join(printed))})" if printed else ""


def judge(case: HookCase, runs: Sequence[HookRunResult], notes: Sequence[str] = ()) -> CaseResult:
    """The case's result from its hooks' runs; ``notes`` say why none matched, when none did
    (see :func:`~proctor.addons.hooks.inputs.matcher_notes`)."""
    decision = strongest([r.decision for r in runs])
    codes = [r.exit_code for r in runs if r.exit_code is not None]
    exit_code = next((c for c in codes if c != 0), 0) if codes else None
    said = [r.message for r in runs if r.message]
    output = "\n".join([*said, *(r.stdout for r in runs), *(r.stderr for r in runs)])
    rewrites = [r.updated_input for r in runs if r.updated_input is not None]
    updated = rewrites[-1] if rewrites and decision not in ("block", "deny") else None
    problems = check(case.expect, decision, exit_code, output, ran=bool(runs), updated=updated)
    broken = [r.error for r in runs if r.error]
    expects_silence = case.expect.silent is True or case.expect.decision == "silent"
    why = "".join(f" ({note})" for note in notes)
    if not runs and not expects_silence:
        problems.insert(0, f"no hook matched, so the case exercised nothing{why}")
    if broken:
        message = "; ".join([*(str(b) for b in broken), *problems])
    elif problems:
        message = "; ".join(problems) + _heard(runs, said)
    elif not runs:
        message = f"no hook matched{why}"
    elif said:
        message = snippet(" | ".join(said))
    else:
        message = _printed(runs)
    return CaseResult(
        id=case.id,
        ok=not problems and not broken,
        agent=str(case.agent),
        event=case.event,
        tool=case.tool,
        hooks=list(runs),
        decision=decision,
        exit_code=exit_code,
        message=message,
        errored=bool(broken),
        updated_input=updated,
    )
