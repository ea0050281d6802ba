"""Case folders: every immediate subfolder of a source directory is one case.

A case folder holds ``prompt.md`` and ``config.json`` (required) and optionally ``src.zip`` or
``src/`` (the fixture), ``qna.md`` (question policy), ``evaluation.md`` (judge rubric) and
``plan.json`` (the scripted agent's plan). A folder missing a required file, or with one that
cannot be read, is skipped with a reason; a file that is present but wrong (malformed JSON, an
unknown key, an unknown evaluator, an unsafe, unreadable or oversized ``src.zip``, a ``src/``
with a folder or file that cannot be read) is a :class:`ConfigError`.
"""

from __future__ import annotations

import json
import os
import shlex
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from proctor.discover.files import Unreadable, read_optional, read_text
from proctor.discover.qna import QnaError, parse_qna_rules
from proctor.errors import ConfigError, DiscoveryError, Problems
from proctor.evaluators.base import parse_evaluator_specs
from proctor.models.case import Case, ConfigSource, SkippedCase
from proctor.models.config import CaseConfig
from proctor.models.errors_format import describe_validation_errors
from proctor.models.loading import parse_json_text
from proctor.paths import LEDGER_FILE, newest_run_in
from proctor.scripted.plan import PlanError, validate_plan
from proctor.util.json_shown import WHOLE, json_text
from proctor.workspace.archive import ZipFixtureError, check_zip
from proctor.workspace.fixture import link_leaves

REQUIRED = ("prompt.md", "config.json")
CASE_MARKERS = ("prompt.md", "config.json")


@dataclass
class Discovery:
    cases: list[Case] = field(default_factory=list)
    skipped: list[SkippedCase] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    """The names of the case folders left out for a configuration problem (noted in
    ``problems``): a ``--case`` naming one is no typo."""
    said: dict[str, list[str]] = field(default_factory=dict)
    """Each of ``broken``'s problems, by its name (a problem no case is named by, as a task
    file's, is in ``problems`` alone)."""
    tags: dict[str, list[str] | None] = field(default_factory=dict)
    """The tags each of ``broken`` carries, as its config.json gives them; None when they
    cannot be read there."""


OPTIONAL_FILES = ("qna.md", "plan.json", "evaluation.md", "src.zip")
"""The files a case folder may hold besides ``prompt.md`` and ``config.json``."""


def is_case_folder(path: Path) -> bool:
    return any((path / marker).is_file() for marker in CASE_MARKERS)


class CaseProblems(Problems):
    """Every problem found in one case folder (``problems``), one sentence each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems, "this case", "proctor validate")


def _refuse_a_folder_of_cases(folder: Path) -> None:
    """Skip ``folder``, which holds no case file of its own, saying that it is a folder of
    cases, when it is one (``cases/`` beside ``proctor.json``, run from the project's folder),
    and the ``--source`` that runs them; else return."""
    try:
        inner = sorted(
            p.name
            for p in folder.iterdir()
            if p.is_dir() and all((p / name).is_file() for name in REQUIRED)
        )
    except OSError:
        return
    if inner:
        shown = ", ".join(inner[:3]) + (f" and {len(inner) - 3} more" if len(inner) > 3 else "")
        command = f"proctor run --source {shlex.quote(str(folder))}"
        raise Unreadable(f"a folder of case folders ({shown}), not a case: {command} runs them")


def load_case(folder: Path) -> Case:
    """Load one case folder. Raises Unreadable (skip) or ConfigError (stop): with more than one
    problem, a :class:`CaseProblems` naming each (``validate`` lists them all in one pass)."""
    for name in REQUIRED:
        if (folder / name).is_dir():
            raise Unreadable(f"{name} is a folder, where the case expects a file")
        if not (folder / name).is_file():
            path = folder / name
            if path.is_symlink() and not path.exists():
                raise Unreadable(f"{name} is a link to nothing ({os.readlink(path)})")
            if os.path.lexists(path):
                raise Unreadable(f"{name} is not a regular file, where the case expects one")
            if not is_case_folder(folder):
                _refuse_a_folder_of_cases(folder)
            raise Unreadable(f"missing required file {name}")
    # A byte-order mark some editors write first is no part of the task the agent is sent.
    prompt = read_text(folder / "prompt.md").removeprefix("\ufeff")
    if not prompt.strip():
        raise Unreadable("prompt.md is empty")
    if "\0" in prompt:  # a binary file: pasted to the agent, it would be no task
        raise Unreadable("prompt.md is not text: it holds a NUL character (a binary file?)")
    found: list[str] = []
    config_path = folder / "config.json"
    config: CaseConfig | None = None
    evaluators: list[Any] = []
    try:
        raw = parse_json_text(read_text(config_path), config_path, unique=True)
        if not isinstance(raw, dict):
            raise ConfigError(f"{config_path}: expected a JSON object at the top level")
        try:
            config = CaseConfig.model_validate(raw)
        except ValidationError as exc:  # every field that is wrong, not only the first
            said = describe_validation_errors(str(config_path), exc, CaseConfig)
            raise CaseProblems(said + _entry_problems(raw, exc, config_path, folder)) from exc
        bad: list[str] = []  # every bad entry named, not only the first
        evaluators = parse_evaluator_specs(
            config.evaluators, str(config_path), folder, problems=bad
        )
        if bad:
            raise CaseProblems(bad)
    except CaseProblems as exc:
        found.extend(exc.problems)
    except ConfigError as exc:
        found.append(str(exc))
    for name in OPTIONAL_FILES:
        if name == "src.zip":  # the fixture's own check says it (once)
            continue
        if (folder / name).is_dir():  # read as absent, its content would be ignored silently
            found.append(f"{folder / name}: a folder, where the case expects a file")
    fixture, kind = None, None
    try:
        fixture, kind = _fixture(folder)
    except ConfigError as exc:
        found.append(str(exc))
    qna_text, rules = None, []
    if (folder / "qna.md").is_file():
        try:
            qna_text = read_optional(folder / "qna.md")
            rules = parse_qna_rules(qna_text)
        except QnaError as exc:
            found.append(f"{folder / 'qna.md'}: rules block, {exc}")
        except ConfigError as exc:
            found.append(str(exc))
    plan = None
    if (folder / "plan.json").is_file():
        plan_path = folder / "plan.json"
        try:
            plan = parse_json_text(read_optional(plan_path), plan_path, unique=True)
            validate_plan(plan, str(plan_path))
        except PlanError as exc:
            found.append(str(exc))
        except ConfigError as exc:
            found.append(str(exc))
    if found:
        raise CaseProblems(found) if len(found) > 1 else ConfigError(found[0])
    assert config is not None
    rubric = folder / "evaluation.md"
    return Case(
        name=folder.name,
        path=folder,
        prompt=prompt,
        config=config,
        evaluators=evaluators,
        fixture=fixture,
        fixture_kind=kind,
        qna_text=qna_text,
        qna_rules=rules,
        rubric=rubric if rubric.is_file() else None,
        plan=plan,
        source=ConfigSource(file=config_path),
    )


def _entry_problems(
    raw: dict[str, Any], exc: ValidationError, config_path: Path, folder: Path
) -> list[str]:
    """The evaluator entries' problem, checked although other fields of the configuration are
    wrong (so validate names it in the same pass); none when the list itself is malformed,
    which the field errors already say."""
    entries = raw.get("evaluators", [])
    if any(error["loc"][:1] == ("evaluators",) for error in exc.errors()):
        return []
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return []
    bad: list[str] = []
    parse_evaluator_specs(entries, str(config_path), folder, problems=bad)
    return bad


def _fixture(folder: Path) -> tuple[Path | None, Any]:
    zipped, tree = folder / "src.zip", folder / "src"
    if zipped.is_file() and tree.is_dir():
        raise ConfigError(
            f"{folder}: both src/ and src.zip: give the starting files once (remove one)"
        )
    for name, path, wanted in (("src", tree, "a folder"), ("src.zip", zipped, "a zip file")):
        if os.path.lexists(path) and not (path.is_file() if name == "src.zip" else path.is_dir()):
            what = (
                "a folder"
                if path.is_dir()
                else "a link to nothing"
                if not path.exists()
                else "a file"
            )
            raise ConfigError(f"{path}: {what}, where the case expects {wanted}")
    if zipped.is_file():
        try:
            check_zip(zipped)
        except ZipFixtureError as exc:
            # An inline run's src.zip is a link to the user's --src: name the zip itself too.
            said = f"{exc} (src.zip links to {os.path.realpath(zipped)})"
            lead = "unsafe" if exc.unsafe else "unusable"
            raise ConfigError(f"{lead} src.zip: {said if zipped.is_symlink() else exc}") from exc
        return zipped, "zip"
    if tree.is_dir():
        _check_tree(tree)
        return tree, "dir"
    return None, None


def _check_tree(tree: Path) -> None:
    """A folder fixture holds no link leading out of it, and every folder and file in it can
    be read: every trial's workspace is a copy of it, so one that cannot be read would fail
    every trial (and made ``run`` stop, after making its run folder, naming a file that is not
    there). A name the system cannot handle (past its path limit, deep in the tree) is passed
    over here."""
    inside = os.path.realpath(tree)
    unreadable: list[OSError] = []
    for where, dirs, files in os.walk(tree, onerror=unreadable.append):
        if unreadable:
            break
        for name in [*dirs, *files]:
            item = Path(where, name)
            try:
                if not item.is_symlink():
                    if name in files and not os.access(item, os.R_OK):
                        unreadable.append(PermissionError(13, "Permission denied", str(item)))
                        break
                    continue
                link = os.readlink(item)
            except OSError:
                continue
            # realpath, not resolve(): a symlink loop leads nowhere rather than raising.
            target = Path(os.path.realpath(item.parent / link))
            if not target.is_relative_to(inside):
                raise ConfigError(f"unsafe src/: {item} points outside the fixture ({link})")
            # Inside here, but each trial's workspace is a copy under another name: a link that
            # leaves the folder on its way (`../src/a`, an absolute path) leads out of the copy.
            how = link_leaves(tree, item)
            if how is not None:
                raise ConfigError(
                    f"unsafe src/: {item} points outside the fixture in each trial's copy of it "
                    f"({how}); make it a relative link that stays inside {tree.name}/"
                )
    if unreadable:
        exc = unreadable[0]
        why = exc.strerror or str(exc)
        if Path(str(exc.filename)) == tree:
            raise ConfigError(
                f"{tree}: the fixture folder cannot be read ({why}); every trial's workspace is "
                "a copy of it, so every trial would fail: make it readable"
            )
        raise ConfigError(
            f"{exc.filename}: cannot be read ({why}); it is part of the fixture {tree}, which "
            "every trial's workspace is a copy of, so every trial would fail: make it readable"
        )


TOP_LEVEL_CONFIG = "proctor.json"


def _refuse_a_file_that_is_no_task_file(source: Path) -> None:
    """A ``--source`` file that is one of a case folder's own files (its ``config.json``) or
    the top-level configuration is refused naming what to give instead, rather than read as a
    task file, whose first missing field would say nothing of the slip."""
    parent = source.parent
    if source.name in (*CASE_MARKERS, *OPTIONAL_FILES) and all(
        (parent / name).is_file() for name in REQUIRED
    ):
        raise DiscoveryError(
            f"--source {source}: a file of the case folder {parent}, not a task file: give "
            f"the case folder (--source {parent}) or the folder that holds the cases"
        )
    if source.name == TOP_LEVEL_CONFIG:
        raise DiscoveryError(
            f"--source {source}: the top-level configuration, not a task file: give it as "
            "--config, and as --source the folder of cases (or a case folder, or a task file)"
        )
    data = b""
    try:
        data = source.read_bytes()
        document = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # (JSON nested too deeply to parse)
        # One that begins as JSON does (`{`, `[`) is a task file with a mistake in it (a
        # trailing comma): the reader of task files says where.
        begins = data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"["))
        if source.suffix.lower() != ".json" and not begins:  # a task file by another name
            kind = f"a {source.suffix} file" if source.suffix else "a file"
            what = f"{kind} that is not JSON"
            raise DiscoveryError(not_a_source_kind(source, what)) from None
        return
    if isinstance(document, dict):
        _refuse_an_object_that_is_no_task_file(source, document)


def _refuse_an_object_that_is_no_task_file(source: Path, document: dict[str, Any]) -> None:
    """A ``--source`` JSON object that no task file can be (a repeat manifest, a top-level
    configuration under another name, a ``package.json``) is refused saying what it is, rather
    than read as one task whose ``id`` is missing."""
    from proctor.discover.tasks import MANIFEST_KEYS, TASK_KEYS
    from proctor.models.config import TopConfig

    if all(key in document for key in MANIFEST_KEYS):
        raise DiscoveryError(
            f"--source {source}: a repeat manifest (proctor plan-repeats), not a task file: "
            f"run it with proctor run --manifest {source}"
        )
    if any(key in document for key in TASK_KEYS):
        return
    top_keys = {field.alias or name for name, field in TopConfig.model_fields.items()}
    if document and set(document) <= top_keys:
        raise DiscoveryError(
            f"--source {source}: a top-level configuration (its keys are proctor.json's), not "
            "a task file: give it as --config, and as --source the folder of cases (or a case "
            "folder, or a task file)"
        )
    keys = ", ".join(f"'{key}'" for key in TASK_KEYS)
    raise DiscoveryError(
        not_a_source_kind(source, f"a JSON object with none of the keys {keys} (no task file)")
    )


def not_a_source_kind(source: Path, what: str) -> str:
    """The sentence refusing a ``--source`` that is none of the kinds it takes (``what`` it
    is), naming those kinds."""
    return (
        f"--source {source}: {what}, which --source does not take: give a folder of cases, a "
        "case folder (holding prompt.md and config.json) or a task file (JSON)"
    )


def discover_cases(
    source: Path, source_root: Path | None = None, problems: list[str] | None = None
) -> Discovery:
    """Every case under ``source``: its case folders and task JSON files, ``source`` itself when
    it is a case folder, or the tasks of ``source`` when it is a task file. A case's
    configuration error stops discovery, unless ``problems`` is given: then it is noted there
    and the other cases are read on."""
    if source_root is not None and not source_root.is_dir():
        raise DiscoveryError(f"--source-root {source_root}: no such directory")
    if not source.exists():
        raise DiscoveryError(f"--source {source}: no such file or directory")
    if not source.is_file() and not source.is_dir():
        raise DiscoveryError(not_a_source_kind(source, "neither a folder nor a regular file"))
    if source.is_file():
        _refuse_a_file_that_is_no_task_file(source)
        from proctor.discover.tasks import load_task_file  # a task file's model, when needed

        return _unique(Discovery(cases=load_task_file(source, source_root)), source, problems)
    if is_case_folder(source):
        _refuse_stray_marker(source)
    folders = (
        # Named by its folder: `--source .` inside a case folder is that folder ("." has no
        # name); any other path is kept as given.
        [source if source.name not in ("", "..") else Path(os.path.abspath(source))]
        if is_case_folder(source)
        else sorted(p for p in source.iterdir() if p.is_dir() and not p.name.startswith("."))
    )
    found = Discovery()
    for folder in folders:
        if not is_case_folder(folder) and holds_results(folder):
            continue  # proctor's own results (`--source .` in a case folder writes them there)
        try:
            found.cases.append(load_case(folder))
        except Unreadable as exc:
            found.skipped.append(SkippedCase(name=folder.name, path=folder, reason=str(exc)))
        except ConfigError as exc:
            if problems is None:
                raise
            said = exc.problems if isinstance(exc, Problems) else [str(exc)]
            problems.extend(said)
            found.broken.append(folder.name)
            found.said.setdefault(folder.name, []).extend(said)
            found.tags[folder.name] = _raw_tags(folder / "config.json")
    if not is_case_folder(source):
        for task_file in sorted(source.glob("*.json")):
            if task_file.name != TOP_LEVEL_CONFIG:
                from proctor.discover.tasks import load_task_file

                try:
                    found.cases.extend(load_task_file(task_file, source_root, beside_cases=True))
                except Unreadable as exc:
                    skipped = SkippedCase(name=task_file.name, path=task_file, reason=str(exc))
                    found.skipped.append(skipped)
                except ConfigError as exc:
                    if problems is None:
                        raise
                    problems.append(str(exc))
    return _unique(found, source, problems)


def _raw_tags(config_path: Path) -> list[str] | None:
    """The tags a refused config.json gives (a list of strings), or None when it gives none
    that can be read (it is no JSON object, or its ``tags`` is no list of strings)."""
    try:
        raw = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # (nested too deeply to read)
        return None
    tags = raw.get("tags", []) if isinstance(raw, dict) else None
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return None
    return tags


def holds_results(folder: Path) -> bool:
    """Whether ``folder`` is a results directory of proctor's: a findings ledger, a run
    folder (``run-…`` with its ``run.json``), or a session ``proctor prepare`` made
    (``prepared/…/session.json``) in it. Not a case, and never listed as one that was
    skipped."""
    try:
        if (folder / LEDGER_FILE).is_file() or newest_run_in(folder) is not None:
            return True
        prepared = folder / "prepared"
        return prepared.is_dir() and any((p / "session.json").is_file() for p in prepared.iterdir())
    except OSError:
        return False


def _refuse_stray_marker(source: Path) -> None:
    """A folder of cases that also holds a lone ``prompt.md`` or ``config.json`` would read as
    one incomplete case, and none of its cases would run: said, naming both."""
    if all((source / name).is_file() for name in REQUIRED):
        return  # a whole case folder: its subfolders are its own (a fixture, hidden tests)
    try:
        cases = sorted(
            p.name
            for p in source.iterdir()
            if p.is_dir() and all((p / name).is_file() for name in REQUIRED)
        )
    except OSError:
        return
    if cases:
        stray = next(name for name in CASE_MARKERS if (source / name).is_file())
        shown = ", ".join(cases[:3]) + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")
        raise DiscoveryError(
            f"--source {source}: its {stray} makes it read as one case folder, but it holds "
            f"case folders ({shown}): move {source / stray} into a case folder or away"
        )


def _unique(found: Discovery, source: Path, problems: list[str] | None = None) -> Discovery:
    """Two cases of one name are refused; so are two whose names differ only in capitals
    (``fix`` and ``FIX``: one folder on a macOS or Windows disk, where their trials' folders
    would be one) or in how Unicode writes them (``naïve`` as one character or as ``i`` and a
    combining mark: they read the same in every report, and are one folder on a file system
    that normalises names); and so is a name that starts or ends with white space or holds a
    control character, which no listing shows, or ends with ``.``, which Windows drops. Unless
    ``problems`` is given: then each is noted there, the case left out, and the others kept."""
    names: dict[str, Case] = {}
    kept: list[Case] = []
    for case in found.cases:
        said = _name_problem(case) or _same_name(names, case, source)
        if said is None:
            names[_name_key(case.name)] = case
            kept.append(case)
        elif problems is None:
            raise ConfigError(said)
        else:
            found.broken.append(case.name)  # a --case naming it is no typo: its problem says it
            found.said.setdefault(case.name, []).append(said)
            found.tags.setdefault(case.name, case.tags)
            if said not in problems:
                problems.append(said)
    found.cases = kept
    return found


def _name_key(name: str) -> str:
    """What two names that one disk could hold as one folder share: their letters in one
    Unicode form, capitals as small letters."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def _same_name(names: dict[str, Case], case: Case, source: Path) -> str | None:
    """The sentence refusing ``case`` when a case before it has its name, or one alike."""
    earlier = names.get(_name_key(case.name))
    if earlier is None:
        return None
    seen, name = earlier.name, case.name
    if seen == name:  # a case folder and a task, or two task files: said where each is
        places = " and ".join(
            c.source.where if c.source and c.source.prefix else str(c.path) for c in (earlier, case)
        )
        return f"--source {source}: two cases are named '{name}' ({places}): rename one"
    if seen.casefold() == name.casefold():
        both = f"{json_text(seen, WHOLE)} and {json_text(name, WHOLE)}"
        how = (
            "the same name but for capitals: one folder on a macOS or Windows disk, where "
            "their trials' folders would be one"
        )
    else:  # each letter beyond ASCII an escape: the two read the same as they are
        both = f"{json.dumps(seen)} and {json.dumps(name)}"
        how = "the same name, its letters written with other Unicode characters"
        if unicodedata.normalize("NFC", seen) != unicodedata.normalize("NFC", name):
            how = "the same name but for capitals, its letters written with other characters"
    return f"--source {source}: two cases are named alike, {both} ({how}): rename one"


def _name_problem(case: Case) -> str | None:
    """The sentence refusing a case name no listing shows as it is: white space at its start or
    end (``fix `` reads as ``fix``), a ``.`` at its end (Windows drops it, as it drops the white
    space), a control character (a line break, a tab)."""
    name, where = case.name, json_text(str(case.path), WHOLE)  # a task's id never does
    if name != name.strip():
        end = "starts" if name[:1].isspace() else "ends"
        if name[:1].isspace() and name[-1:].isspace():
            end = "starts and ends"
        return (
            f"{where}: the case folder's name {end} with white space, which no listing shows "
            f"(and Windows drops from a folder's name): rename it"
        )
    if name.endswith("."):
        return (
            f"{where}: the case folder's name ends with '.', which Windows drops from a folder's "
            "name (as it drops white space there): rename it"
        )
    if any(unicodedata.category(c) == "Cc" for c in name):
        return (
            f"{where}: the case folder's name holds a control character (a line break, a tab), "
            "which a listing would show as nothing or as a broken line: rename it"
        )
    return None
