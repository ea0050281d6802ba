"""JUnit XML of a run, for CI systems that show test results: one ``testsuite`` per case × agent ×
condition, one ``testcase`` per trial.

A testcase's ``classname`` is ``<case>.<agent>.<condition>``, each part's own dots written ``_``
(Jenkins reads a classname's dots as its package path: ``api.v2`` would nest), and its ``name``
``repeat <n>``, the same in every run of the same matrix; the testsuite's ``name`` keeps the
names as they are (``<case>/<agent>/<condition>``). Runs read as one sample set (``proctor report
RUN_A RUN_B …``, a repeat manifest's ``<out>/junit.xml``) name a trial by the run it is in and
its repeat as that run numbers it, ``run <i> repeat <n>`` (``i``: the run's place among those
read, from 1), not the repeat the pooled figures number on across the runs (which is no trial
folder's): the same in every build that reads as many runs of the same matrix in the same order,
so a CI's history of a test holds, which a run's id (new in every build) in the name would break.
The run's folder and the trial's (``<run>/trials/<case>/<agent>/<condition>/<n>``) are the
testcase's ``run`` and ``trial`` properties, and the trial's is the first line of its
``system-out`` (``trial <run>/trials/…``), which CI test views show.

Classnames are unique in the file (see :func:`classnames`): when two groups would share one
(cases ``a.b`` and ``a_b``), each whose names hold a dot gets a suffix derived from its names,
the same in every run. A failed trial
(``failed``, ``timeout``) carries a ``failure`` when its group failed its gate, a trial in an
error status an ``error``, a skipped one ``skipped``, each with the reason (a trial a stop cut
short, recorded as ``infra-error`` with an ``interrupted:`` reason, is ``skipped`` too, its
message ``cut short by the stop (interrupted): …``: it neither failed nor broke); the score and key
figures are ``property`` elements of the testcase. A ``failure``'s or ``error``'s text is the
reason (an error's traceback) followed by each evaluator that failed or erred, its message and
the last of what its program printed (see :func:`_checks_failed`), which the reason leaves out
and a CI's test view shows. A failed trial in a group whose gate passed
(a ``minPassRate`` below 1 tolerates it) is a passing testcase whose ``system-out`` says it
failed and why: the file is green exactly when the exit code is 0. A trial's warnings (which
decide nothing) are lines of its ``system-out``, ``warning: …``, where CI test views show them,
never a ``failure``. A testsuite's properties
hold its group's figures and each finding of the group the run proposed, reopened or resolved
(``finding <id>``: ``new: <check>``), or a dismissed one whose check it passed (``passed while
dismissed: <check>``), when the findings ledger holds the run.

A gate that failed fails the file too, whatever its trials did (a cost gate over trials that all
passed, the A/B gate): a last ``testsuite`` named ``gates`` holds a testcase for the A/B gate
when the run has one (classname ``gates``, name ``A/B <treatment> vs <baseline>``, passed or
failed) and one failed testcase for each group whose gate failed over its scored trials (name
``<case>/<agent>/<condition>``), or where a gate evaluator failed in a trial that then ended in
an error status, as the exit code counts a failed gate. A run whose exit code is not 0 although
no test says why (stopped before its first trial ended: nothing to show), and every stopped run
(exit 130: the trials it cut short are skipped, those it never started have no testcase), gets a
testcase ``run`` in ``gates`` with an ``error`` giving the exit code and its reason.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from proctor.models.suite import SuiteRecord
from proctor.models.trial import ERROR_STATUSES, INTERRUPTED_PREFIX, TrialRecord
from proctor.report.ab.measures import total_tokens
from proctor.report.aggregate import IN_ERRORS, FailedGates, failed_gates, group_records
from proctor.report.cut_short import CUT_SHORT, is_cut_short
from proctor.report.pooled_runs import gate_line

if TYPE_CHECKING:
    from proctor.report.pooled_runs import PooledTrial

FAILURE_STATUSES = frozenset({"failed", "timeout"})


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What XML 1.0 cannot hold, escaped or not: control characters (an ANSI colour code in an
agent's question), lone surrogates."""


def _xml_text(text: str | None) -> str | None:
    """``text`` with each character XML cannot hold shown as its code (``\\x1b``): a
    reason or a traceback that held one would make the whole file unreadable to CI."""
    if text is None or not _NOT_XML.search(text):
        return text
    return _NOT_XML.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"
        ),
        text,
    )


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _properties(parent: ET.Element, values: dict[str, object]) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in values.items():
        if value is not None:
            # A boolean as XML Schema and JSON write it (true, false), not Python's True.
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            ET.SubElement(props, "property", name=name, value=text)


def _outcome(record: TrialRecord, tolerated: bool) -> str | None:
    """The element a trial's testcase carries (``failure``, ``error``, ``skipped``), or None
    for a passing testcase. ``tolerated``: its group passed its gate, so a failure fails no
    gate and fails no test."""
    if record.status in FAILURE_STATUSES:
        return None if tolerated else "failure"
    if is_cut_short(record):  # the stop's doing, not the trial's: said by the run's error
        return "skipped"
    if record.status in ERROR_STATUSES:
        return "error"
    return "skipped" if record.status == "skipped" else None


def classname(case: str, agent: str, condition: str) -> str:
    """A testcase's ``classname``: ``<case>.<agent>.<condition>``, each part's own dots
    written ``_``, so that a reader splitting at dots (Jenkins: package, class) finds the
    three parts and no more."""
    return ".".join(part.replace(".", "_") for part in (case, agent, condition))


def _written(key: tuple[str, str, str]) -> str:
    """:func:`classname` as the file writes it: two names can differ only where XML cannot
    hold a character."""
    return classname(*(_xml_text(part) or "" for part in key))


def classnames(keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
    """The ``classname`` of each (case, agent, condition) of one file, each different: its
    :func:`classname` (as the file writes it, see :func:`_xml_text`), unless another group of
    the file has the same one (cases ``a.b`` and ``a_b``, whose testcases a CI would merge, with
    their names ``repeat <n>`` twice over). Then the group whose names hold no dot keeps it (it
    is its names as they are), and each other one is it followed by ``~`` and the first 8 hex
    digits of the SHA-256 of ``<case>/<agent>/<condition>`` (``a.b/x/y``: ``a_b.x.y~558cfa32``):
    the same in every run, so a CI's history of it holds; ``~<n>`` more, counting from 2, in the
    unlikely case that is taken too. A file without such a pair has the plain classnames."""
    keys = sorted(set(keys))
    sharing: dict[str, list[tuple[str, str, str]]] = {}
    for key in keys:
        sharing.setdefault(_written(key), []).append(key)
    names: dict[tuple[str, str, str], str] = {}
    for base, group in sharing.items():
        for key in group:
            if len(group) == 1 or ".".join(key) == base:
                names[key] = base
    taken = set(names.values())
    for key in keys:
        if key in names:
            continue
        base = _written(key)
        digest = hashlib.sha256("/".join(key).encode("utf-8", "surrogatepass")).hexdigest()[:8]
        name, more = f"{base}~{digest}", 2
        while name in taken:
            name, more = f"{base}~{digest}~{more}", more + 1
        names[key] = name
        taken.add(name)
    return names


def _checks_failed(record: TrialRecord) -> list[str]:
    """What the trial's reason leaves out, for a CI's test view: each evaluator that failed or
    erred and counted for the verdict, ``<label or use>: <message>``, followed by the last of
    what its program printed (``outputTail``, the test run's own output), indented."""
    lines: list[str] = []
    for result in record.evaluators:
        if not result.counted or (result.passed and not result.error):
            continue
        said = result.message or ("erred" if result.error else "failed")
        lines.append(f"{result.label or result.use}: {said}")
        tail = result.details.get("outputTail")
        if isinstance(tail, str):
            lines += [f"  {line}" for line in tail.splitlines() if line.strip()]
    return lines


def _with_checks(text: str, record: TrialRecord) -> str:
    """``text`` followed, after a blank line, by :func:`_checks_failed` when there are any."""
    checks = _checks_failed(record)
    return "\n".join([text, "", *checks]) if checks else text


def _testcase(
    suite: ET.Element,
    record: TrialRecord,
    outcome: str | None,
    class_name: str,
    own: PooledTrial | None = None,
) -> None:
    """One trial's testcase; ``own``: the trial as its own run knows it, when it was pooled
    from several runs (see the module docstring)."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=class_name,
        name=f"repeat {record.repeat}" if own is None else f"run {own.run} repeat {own.repeat}",
        time=_seconds(record.timings.total_ms),
    )
    where = {} if own is None else {"run": own.run_folder, "trial": own.where}
    _properties(
        case,
        {
            **where,
            "status": record.status,
            "score": record.score,
            "passThreshold": record.pass_threshold,
            "toolCalls": record.tool_calls,
            "tokens": total_tokens(record),
            "costUsd": record.cost.total_usd,
            "agentMs": record.timings.agent_ms,
            "exitCode": record.exit_code,
            "agentVersion": record.agent_version,
            "agentModel": record.agent_model,
        },
    )
    reason = record.reason
    if outcome == "failure":
        failure = ET.SubElement(case, "failure", message=reason, type=record.status)
        failure.text = _with_checks(reason, record)
    elif outcome == "error":
        error = ET.SubElement(case, "error", message=reason, type=record.status)
        traceback = record.error.traceback if record.error else None
        error.text = _with_checks(traceback or reason, record)
    elif outcome == "skipped":
        if is_cut_short(record):  # "interrupted: the run was stopped …", said once
            reason = f"{CUT_SHORT}: {reason.removeprefix(INTERRUPTED_PREFIX).strip()}"
        # Jenkins shows the message, GitLab the element's text: both say it.
        ET.SubElement(case, "skipped", message=reason).text = reason
    said = [] if own is None else [f"trial {own.where}"]
    if outcome is None and record.status in FAILURE_STATUSES:  # tolerated: said, not failed
        said.append(
            _with_checks(f"{record.status}, tolerated by its group's gate: {reason}", record)
        )
    said += [f"warning: {warning}" for warning in record.warnings]  # decides nothing
    if said:
        ET.SubElement(case, "system-out").text = "\n".join(said)


def _tallies(outcomes: Sequence[tuple[TrialRecord, str | None]]) -> dict[str, str]:
    """The counts and time a ``testsuites`` or ``testsuite`` element carries."""
    kinds = [outcome for _, outcome in outcomes]
    return {
        "tests": str(len(outcomes)),
        "failures": str(kinds.count("failure")),
        "errors": str(kinds.count("error")),
        "skipped": str(kinds.count("skipped")),
        "time": _seconds(sum(r.timings.total_ms for r, _ in outcomes)),
    }


def _gates(root: ET.Element, suite: SuiteRecord, failing: FailedGates) -> None:
    """The ``gates`` testsuite (see the module docstring), when there is a gate to show."""
    cases: list[tuple[str, str, str | None]] = []  # (name, element, message)
    if suite.ab_gate is not None:
        ab = suite.ab_gate
        # A failed A/B gate that decided nothing (no trial scored: not evaluated) is skipped.
        kind = "failure" if failing.ab else "skipped" if not ab.passed else ""
        cases.append((f"A/B {ab.treatment} vs {ab.baseline}", kind, ab.message if kind else None))
    for group in failing.groups:
        failed = [c.message or f"{c.name} {c.threshold}" for c in group.gate_checks if not c.passed]
        name = f"{group.case}/{group.agent}/{group.condition}"
        cases.append((name, "failure", "; ".join(failed) or "the group's gate failed"))
    for group in failing.in_errors:
        cases.append((f"{group.case}/{group.agent}/{group.condition}", "failure", IN_ERRORS))
    said = root.get("failures") != "0" or root.get("errors") != "0" or failing
    # A stopped run says so whatever its trials did: its trials cut short are skipped, and
    # those not started have no testcase.
    if suite.exit_code != 0 and (not said or suite.interrupted):
        reason = f"exit {suite.exit_code}: {suite.exit_reason}"
        cases.append(("run", "error", reason))
    if not cases:
        return
    counts = {kind: sum(k == kind for _, k, _ in cases) for kind in ("failure", "error", "skipped")}
    element = ET.SubElement(
        root,
        "testsuite",
        name="gates",
        tests=str(len(cases)),
        failures=str(counts["failure"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
        time="0.000",
    )
    for name, kind, message in cases:
        case = ET.SubElement(element, "testcase", classname="gates", name=name, time="0.000")
        if kind == "skipped":
            ET.SubElement(case, kind, message=message or "")
        elif kind:
            what = "gate" if kind == "failure" else "run"
            ET.SubElement(case, kind, message=message or "", type=what).text = message
    added = {"tests": len(cases), "failures": counts["failure"], "errors": counts["error"]}
    added["skipped"] = counts["skipped"]
    for tally, more in added.items():
        root.set(tally, str(int(root.get(tally, "0")) + more))


def render_junit(
    suite: SuiteRecord,
    records: Sequence[TrialRecord],
    pooled: Mapping[tuple[str, str, str, int], PooledTrial] | None = None,
    *,
    command: str = "run",
) -> str:
    """The run as a JUnit XML document (UTF-8, with its declaration), its ``testsuites``
    named ``proctor <run id>``, ``proctor eval <run id>`` for a run of ``proctor eval``
    (``command``); ``pooled``: each trial
    as its own run knows it, for records pooled from several runs (keyed by case, agent,
    condition and pooled repeat)."""
    stats = {(g.case, g.agent, g.condition): g for g in suite.groups}
    grouped = {
        key: [(r, _outcome(r, key in stats and stats[key].gate_passed)) for r in trials]
        for key, trials in group_records(records).items()
    }
    every = [pair for pairs in grouped.values() for pair in pairs]
    # A run of `proctor eval` or `proctor record` is named for its command, as its Markdown is.
    named = f"proctor {command} {suite.run_id}" if command != "run" else f"proctor {suite.run_id}"
    root = ET.Element("testsuites", {"name": named, **_tallies(every)})
    changes: dict[tuple[str, str, str], dict[str, object]] = {}
    for change in suite.findings or ():
        where = changes.setdefault((change.case, change.agent, change.condition), {})
        where[f"finding {change.id}"] = f"{change.said}: {change.check}"
    unique = classnames(grouped)
    gate = gate_line(suite)  # the thresholds applied, and a --config gate said so
    for key, trials in grouped.items():
        element = ET.SubElement(root, "testsuite", {"name": "/".join(key), **_tallies(trials)})
        group = stats.get(key)
        figures: dict[str, object] = {}
        if group is not None:
            figures = {
                "passRate": group.pass_rate,
                "scored": group.scored,
                "meanScore": group.mean_score,
                "gatePassed": group.gate_passed,
                "gate": gate,
            }
        if figures or key in changes:
            _properties(element, {**figures, **changes.get(key, {})})
        for record, outcome in trials:
            own = pooled.get((*key, record.repeat)) if pooled is not None else None
            _testcase(element, record, outcome, unique[key], own)
    _gates(root, suite, failed_gates(suite.groups, records, suite.ab_gate))
    for node in root.iter():
        node.text = _xml_text(node.text)
        node.attrib = {k: _xml_text(v) or "" for k, v in node.attrib.items()}
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def render_stopped(name: str, exit_code: int, reason: str) -> str:
    """A JUnit document for what stopped with ``exit_code`` before it had a report to show
    (``run --manifest`` refused, or interrupted before its last pair): the ``gates`` suite's
    testcase ``run``, with an ``error`` giving the exit code and ``reason``, so that a CI's
    test view is red, as the exit code is, rather than empty or an earlier file's."""
    tally = {"tests": "1", "failures": "0", "errors": "1", "skipped": "0", "time": "0.000"}
    root = ET.Element("testsuites", {"name": f"proctor {name}", **tally})
    suite = ET.SubElement(root, "testsuite", {"name": "gates", **tally})
    case = ET.SubElement(suite, "testcase", classname="gates", name="run", time="0.000")
    message = _xml_text(f"exit {exit_code}: {reason}") or ""
    ET.SubElement(case, "error", message=message, type="run").text = message
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
