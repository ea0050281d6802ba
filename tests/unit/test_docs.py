"""The documentation names what exists: every Python example compiles and its imports resolve,
and the README's exit-code table is the ``ExitCode`` enum."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from proctor.exit_codes import ExitCode
from proctor.models.ab import (
    ABCase,
    ABDelta,
    ABGroup,
    ABPair,
    ABReport,
    ABSide,
    HandMark,
    IncompletePair,
    MetricComparison,
)
from proctor.models.config import CaseConfig, Condition, TopConfig
from proctor.models.pricing import CostInfo
from proctor.models.process import ProcessMetrics
from proctor.models.run import RunManifest
from proctor.models.suite import GroupStats, SuiteRecord, SuiteTotals
from proctor.models.trial import QuestionRecord, TrialRecord

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
FROM_IMPORT = re.compile(r"^from (proctor[\w.]*) import (?:\(([^)]*)\)|([^(\n]+)$)", re.M)


def python_blocks() -> list[tuple[str, str]]:
    return [
        (f"{page.name}#{n}", block)
        for page in PAGES
        for n, block in enumerate(BLOCK.findall(page.read_text()))
    ]


@pytest.mark.parametrize(("where", "block"), python_blocks())
def test_a_python_example_compiles_and_imports_what_exists(where: str, block: str) -> None:
    try:
        compile(block, where, "exec")
    except SyntaxError:
        compile(f"def {block.strip()}: ...", where, "exec")  # a signature, as documented
    for module_name, listed, inline in FROM_IMPORT.findall(block):
        module = importlib.import_module(module_name)
        for name in (listed or inline).replace("\n", ",").split(","):
            name = name.split("#")[0].split(" as ")[0].strip()
            if name:
                assert hasattr(module, name), f"{where}: {module_name} has no {name}"


def test_the_readme_exit_code_table_is_the_enum() -> None:
    text = (ROOT / "README.md").read_text()
    table = text[text.index("| exit code | meaning |") :].split("\n\n")[0]
    codes = [int(m) for m in re.findall(r"^\| (\d+) \|", table, re.M)]
    assert codes == [int(code) for code in ExitCode]


def _section(page: str, start: str, end: str) -> str:
    """The text of ``page`` from the heading (or line) ``start`` up to ``end``."""
    text = (ROOT / page).read_text()
    head = text.index(start)
    return text[head : text.index(end, head + len(start))]


def _aliases(model: type[BaseModel]) -> set[str]:
    """The keys a record of ``model`` is written with (``schemaVersion`` aside)."""
    fields = model.model_fields.items()
    return {field.alias or name for name, field in fields if not field.exclude} - {"schemaVersion"}


def _named(section: str, quoted: bool = False) -> set[str]:
    """Every word of the section; with ``quoted``, only those it writes in backticks (a field
    path such as `groups[].bySource` names each of its parts)."""
    if quoted:
        section = " ".join(re.findall(r"`([^`]+)`", section))
    return set(re.findall(r"[A-Za-z][A-Za-z0-9]*", section))


@pytest.mark.parametrize(
    ("model", "start", "end"),
    [
        (TrialRecord, "## `trial.json`", "## `trajectory.jsonl`"),
        (QuestionRecord, "## `questions.jsonl`", "## `suite.json`"),
        (SuiteRecord, "## `suite.json`", "written before the field existed"),
        (GroupStats, "## `suite.json`", "written before the field existed"),
        (SuiteTotals, "## `suite.json`", "written before the field existed"),
        (RunManifest, "  run.json ", "  config.json "),
        (ProcessMetrics, "| `process` |", "\n"),
        (CostInfo, "| `cost` |", "\n"),
    ],
)
def test_results_md_names_every_field_of_a_record(
    model: type[BaseModel], start: str, end: str
) -> None:
    quoted = not start.startswith("  ")  # the folder layout is a plain-text block
    missing = _aliases(model) - _named(_section("docs/results.md", start, end), quoted)
    assert not missing, f"docs/results.md does not name {sorted(missing)} of {model.__name__}"


def test_the_readme_config_json_table_is_every_key_of_a_case_config() -> None:
    """A key a case's ``config.json`` takes is a row of the README's table, and a row is a key
    it takes (unknown keys are errors, so a row naming none would be refused when copied)."""
    section = _section("README.md", "### `config.json`", "### Top-level configuration")
    table = section[section.index("| key | default | meaning |") :].split("\n\n")[0]
    rows = {
        key
        for line in table.splitlines()[2:]
        for key in re.findall(r"`([^`]+)`", line.split("|")[1])
    }
    assert rows == _aliases(CaseConfig)


@pytest.mark.parametrize(
    ("model", "start", "end"),
    [
        (TopConfig, "### Top-level configuration", "### A/B conditions"),
        (Condition, "### A/B conditions", "### Task files"),
    ],
)
def test_the_readme_names_every_key_of_proctor_json_and_of_a_condition(
    model: type[BaseModel], start: str, end: str
) -> None:
    section = _section("README.md", start, end)
    blocks = re.findall(r"^```\w*\n(.*?)^```", section, re.S | re.M)  # its examples' "keys"
    prose = re.sub(r"^```\w*\n.*?^```", "", section, flags=re.S | re.M)
    named = _named(prose, quoted=True) | {k for b in blocks for k in re.findall(r'"(\w+)":', b)}
    missing = _aliases(model) - named
    assert not missing, f"README.md ({start}) does not name {sorted(missing)}"


def test_ab_md_lists_the_keys_of_an_ab_report() -> None:
    listing = _section("docs/ab.md", "The keys of `analyse_ab(...).to_dict()`", "\n```\n\n")
    block = listing.split("```\n", 1)[1]
    rows: dict[str, str] = {}
    for line in block.splitlines():
        if line[:1].strip():
            label = re.match(r"\w+", line)
            assert label is not None
            rows[label.group()] = line
        else:
            rows[label.group()] += line
    words = {key: _named(row) for key, row in rows.items()}
    assert _aliases(ABReport) <= set(rows) | words["treatment"]
    assert _aliases(ABPair) | _aliases(ABSide) | _aliases(ABDelta) <= words["pairs"]
    assert _aliases(IncompletePair) <= words["incomplete"]
    assert _aliases(ABCase) <= words["cases"]
    assert _aliases(ABGroup) <= words["overall"]
    assert _aliases(MetricComparison) <= words["comparison"]
    assert _aliases(HandMark) <= words["annotations"]


def test_results_md_gives_the_schema_versions_proctor_writes() -> None:
    from proctor.models.base import SCHEMA_VERSION
    from proctor.models.findings import FindingsLedger

    opening = (ROOT / "docs/results.md").read_text().split("\n\n")[1]
    assert f"carries `schemaVersion` (currently {SCHEMA_VERSION};" in opening
    assert f"currently {FindingsLedger.current_schema_version}:" in opening


def test_ab_md_lists_the_keys_of_a_comparison_of_two_runs() -> None:
    from proctor.models.ab import RunComparison

    sentence = _section("docs/ab.md", "`compare_runs(...).to_dict()` contains", "\n\n")
    assert _aliases(RunComparison) <= _named(sentence, quoted=True)


def test_history_md_names_every_field_of_a_session() -> None:
    from proctor.models.history import SessionSummary

    table = _section("docs/history.md", "| field | meaning |", "\n\n")
    missing = _aliases(SessionSummary) - _named(table, quoted=True)
    assert not missing, f"docs/history.md does not name {sorted(missing)} of a session"


@pytest.mark.parametrize(
    ("model_name", "start", "end"),
    [
        ("StepCounts", "## Steps", "## Checks"),
        ("CheckRun", "`checks` lists each check as", "\n\n"),
        ("Orientation", "## Orientation", "## Verified"),
        ("LoopInstance", "## Loops", "## Context"),
        ("ContextMetrics", "## Context", "### Paths"),
        ("Effort", "## Effort", "### List prices"),
        ("ModelUsage", "## Effort", "### List prices"),
        ("RuleResult", "## Task rules", "## Configuration"),
        ("MetricsConfig", "## Configuration", "## Empty trajectory"),
        ("TraceMetrics", "## Expected traces", "absent."),
    ],
)
def test_metrics_md_names_every_field_of_the_process_metrics(
    model_name: str, start: str, end: str
) -> None:
    from proctor.models import process

    model = getattr(process, model_name)
    missing = _aliases(model) - _named(_section("docs/metrics.md", start, end))
    assert not missing, f"docs/metrics.md does not name {sorted(missing)} of {model_name}"


def test_addons_md_names_every_key_of_the_check_install_json() -> None:
    from proctor.models.install_check import InstallCheck, InstallCheckReport

    sentence = _section("docs/addons.md", "## Installer checks", "`--keep DIR`")
    keys = _aliases(InstallCheckReport) | _aliases(InstallCheck) | {"schemaVersion"}
    missing = keys - _named(sentence.split("`--json` prints")[1], quoted=True)
    assert not missing, f"docs/addons.md does not name {sorted(missing)} of check-install --json"


def test_transcripts_md_tool_kinds_are_the_kinds_the_parsers_give() -> None:
    from proctor.transcripts.kinds import claude_kind, codex_kind, gemini_kind

    table = _section("docs/transcripts.md", "| kind | Claude Code | Codex | Gemini CLI |", "\n\n")
    wrong = []
    for row in table.splitlines()[2:]:
        kind, *cells = (cell.strip() for cell in row.strip().strip("|").split("|"))
        for kind_of, cell in zip((claude_kind, codex_kind, gemini_kind), cells, strict=True):
            for name in re.findall(r"`([^`]+)`", cell):
                # a pattern (`mcp__server__tool`, `*_agent`) or a record (`mcp_tool_call_end`)
                if "*" in name or "server" in name or name in ("__", "mcp_tool_call_end"):
                    continue
                if kind_of(name) != kind.strip("`"):
                    wrong.append(f"{name}: {kind_of(name)}, not {kind}")
    assert not wrong


def test_history_md_names_every_key_of_a_history_report() -> None:
    """`proctor history --json`: the report's keys, a summary's (`total` and each group), a
    model's usage and an unavailable entry's, each named in docs/history.md."""
    from proctor.models.history import GroupSummary, HistoryReport, SessionSummary, Unavailable
    from proctor.models.trajectory import ModelUsage

    named = _named(_section("docs/history.md", "## `proctor history`", "## Before and after"))
    for model in (HistoryReport, GroupSummary, SessionSummary, Unavailable, ModelUsage):
        missing = _aliases(model) - named
        assert not missing, f"docs/history.md does not name {sorted(missing)} of {model.__name__}"
