"""JUnit XML of a run, for CI systems that show test results: one ``testsuite`` per case ×
agent × condition, one ``testcase`` per trial.

A testcase's ``classname`` is ``<case>.<agent>.<condition>`` and its ``name`` ``repeat <n>``,
the same in every run of the same matrix. A failed trial (``failed``, ``timeout``) carries a
``failure``, a trial in an error status an ``error``, a skipped one ``skipped``, each with the
reason; the score and key figures are ``property`` elements of the testcase. A testsuite's
properties hold its group's figures and each finding of the group the run proposed, reopened
or resolved (``finding <id>``: ``new: <check>``), when the findings ledger holds the run.

A gate that failed fails the file too, whatever its trials did (a cost gate over trials that
all passed, the A/B gate): a last ``testsuite`` named ``gates`` holds a testcase for the A/B
gate when the run has one (classname ``gates``, name ``A/B <treatment> vs <baseline>``, passed
or failed) and one failed testcase for each group whose gate failed over its scored trials
(name ``<case>/<agent>/<condition>``), as the exit code counts a failed gate.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from proctor.models.suite import SuiteRecord
from proctor.models.trial import ERROR_STATUSES, TrialRecord
from proctor.report.ab.measures import total_tokens
from proctor.report.aggregate import group_records

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
            ET.SubElement(props, "property", name=name, value=str(value))


def _testcase(suite: ET.Element, record: TrialRecord) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        classname=f"{record.case}.{record.agent}.{record.condition}",
        name=f"repeat {record.repeat}",
        time=_seconds(record.timings.total_ms),
    )
    _properties(
        case,
        {
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
    if record.status in FAILURE_STATUSES:
        ET.SubElement(case, "failure", message=reason, type=record.status).text = reason
    elif record.status in ERROR_STATUSES:
        error = ET.SubElement(case, "error", message=reason, type=record.status)
        error.text = record.error.traceback if record.error and record.error.traceback else reason
    elif record.status == "skipped":
        ET.SubElement(case, "skipped", message=reason)


def _tallies(trials: Sequence[TrialRecord]) -> dict[str, str]:
    """The counts and time a ``testsuites`` or ``testsuite`` element carries."""
    return {
        "tests": str(len(trials)),
        "failures": str(sum(r.status in FAILURE_STATUSES for r in trials)),
        "errors": str(sum(r.status in ERROR_STATUSES for r in trials)),
        "skipped": str(sum(r.status == "skipped" for r in trials)),
        "time": _seconds(sum(r.timings.total_ms for r in trials)),
    }


def _gates(root: ET.Element, suite: SuiteRecord) -> None:
    """The ``gates`` testsuite (see the module docstring), when there is a gate to show."""
    cases: list[tuple[str, str | None]] = []  # (name, failure message)
    scored = any(group.scored for group in suite.groups)
    if suite.ab_gate is not None:
        ab = suite.ab_gate
        failed_ab = not ab.passed and scored  # nothing scored: said by the trials' errors
        cases.append((f"A/B {ab.treatment} vs {ab.baseline}", ab.message if failed_ab else None))
    for group in suite.groups:
        if group.gate_passed or not group.scored:  # no scored trial: its errors say it all
            continue
        failed = [c.message or f"{c.name} {c.threshold}" for c in group.gate_checks if not c.passed]
        name = f"{group.case}/{group.agent}/{group.condition}"
        cases.append((name, "; ".join(failed) or "the group's gate failed"))
    if not cases:
        return
    failures = sum(message is not None for _, message in cases)
    element = ET.SubElement(
        root,
        "testsuite",
        name="gates",
        tests=str(len(cases)),
        failures=str(failures),
        errors="0",
        skipped="0",
        time="0.000",
    )
    for name, message in cases:
        case = ET.SubElement(element, "testcase", classname="gates", name=name, time="0.000")
        if message is not None:
            ET.SubElement(case, "failure", message=message, type="gate").text = message
    for tally, added in (("tests", len(cases)), ("failures", failures)):
        root.set(tally, str(int(root.get(tally, "0")) + added))


def render_junit(suite: SuiteRecord, records: Sequence[TrialRecord]) -> str:
    """The run as a JUnit XML document (UTF-8, with its declaration)."""
    root = ET.Element("testsuites", {"name": f"proctor {suite.run_id}", **_tallies(records)})
    stats = {(g.case, g.agent, g.condition): g for g in suite.groups}
    changes: dict[tuple[str, str, str], dict[str, object]] = {}
    for change in suite.findings or ():
        where = changes.setdefault((change.case, change.agent, change.condition), {})
        where[f"finding {change.id}"] = f"{change.event}: {change.check}"
    for key, trials in group_records(records).items():
        element = ET.SubElement(root, "testsuite", {"name": "/".join(key), **_tallies(trials)})
        group = stats.get(key)
        figures: dict[str, object] = {}
        if group is not None:
            figures = {
                "passRate": group.pass_rate,
                "scored": group.scored,
                "meanScore": group.mean_score,
                "gatePassed": group.gate_passed,
            }
        if figures or key in changes:
            _properties(element, {**figures, **changes.get(key, {})})
        for record in trials:
            _testcase(element, record)
    _gates(root, suite)
    for node in root.iter():
        node.text = _xml_text(node.text)
        node.attrib = {k: _xml_text(v) or "" for k, v in node.attrib.items()}
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
