"""Inline runs (``proctor run --prompt …``): one case made from command-line options, run like
any other and written to the same results layout.

The case is written as an ordinary case folder under ``<out>/inline/<UTC timestamp>/`` (so
``report``, ``--resume`` and a later look at what ran all find it): ``prompt.md`` from the text
or file given, ``qna.md`` from ``--qna``, ``src`` linking to ``--src`` (a folder or a zip, read
only), and ``config.json`` with the evaluators of ``--eval`` (a JSON list of evaluators or an
object with ``evaluators``), or the ``llm-judge`` evaluator over ``--eval``'s rubric when it is
Markdown. Nothing is evaluated unless ``--evaluate`` is given with evaluators or a rubric.

The findings of inline runs belong to the suite of their case (:func:`inline_suite`): runs of
the same prompt, answers, evaluators and source are one suite, and a different prompt is
another, whose checks never resolve the first one's findings.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.models.config import CliOverrides
from proctor.models.io import write_text_atomic
from proctor.models.loading import read_text_file

CASE_NAME = "inline"
RUBRIC = "evaluation.md"


_FILE_ENDINGS = (".md", ".markdown", ".txt")


def _text(value: str) -> str:
    """The file's text when ``value`` names a file, else ``value`` itself. A value that can
    only be a file's name (one word ending in ``.md`` or ``.txt``, starting with ``./``,
    ``../`` or ``~/``, or a path of several folders, ``/a/b``) and names none is refused: a
    mistyped name would otherwise be the prompt, and an agent would be asked to act on it. A
    slash command (``/init``) is a prompt."""
    path = Path(value)
    try:
        if path.is_file():
            return _read(path, "--prompt")
    except OSError as exc:
        raise ConfigError(f"--prompt {value}: cannot be read ({exc})") from exc
    word = value.strip()
    if word and not any(c.isspace() for c in word):
        # ("/init", "/my-skill": a CLI's slash command, a prompt of one word.)
        path_like = word.startswith(("./", "../", "~/")) or (
            word.startswith("/") and "/" in word[1:]
        )
        if word.lower().endswith(_FILE_ENDINGS) or path_like:
            raise ConfigError(
                f"--prompt {value}: no such file (a prompt given as text is taken as it is, "
                "but this one can only be a file's name)"
            )
    return value


def _read(path: Path, option: str) -> str:
    """A file's text, or one sentence naming the option and the file (exit 2)."""
    return read_text_file(path, f"{option} {path}")


def _evaluators(eval_file: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The evaluators ``--eval`` gives, and the rubric's text when it is Markdown."""
    if not eval_file.is_file():
        raise ConfigError(f"--eval {eval_file}: no such file")
    if eval_file.suffix.lower() in _FILE_ENDINGS:
        return [{"use": "llm-judge", "rubric": RUBRIC}], _read(eval_file, "--eval")
    try:
        data = json.loads(_read(eval_file, "--eval"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--eval {eval_file}: not a readable JSON file ({exc})") from exc
    entries = data.get("evaluators") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(
            f"--eval {eval_file}: expected a list of evaluators, or an object with "
            "'evaluators', or a Markdown rubric"
        )
    return entries, None


def inline_case(
    out: Path,
    prompt: str,
    *,
    qna: Path | None = None,
    eval_file: Path | None = None,
    src: Path | None = None,
) -> tuple[Path, bool]:
    """Write the inline case; the folder to run as ``--source`` and whether it has anything to
    evaluate with. Every option is read and checked before anything is written: a refused
    run leaves no case folder behind."""
    text = _text(prompt).strip()
    if not text:
        raise ConfigError("--prompt: the prompt is empty")
    answers = None
    if qna is not None:
        if not qna.is_file():
            raise ConfigError(f"--qna {qna}: no such file")
        answers = _read(qna, "--qna")
    if src is not None:
        if not src.exists():
            raise ConfigError(f"--src {src}: no such folder or zip")
        if src.is_file() and src.suffix.lower() != ".zip":
            raise ConfigError(f"--src {src}: expected a folder or a .zip file")
    evaluators, rubric = _evaluators(eval_file) if eval_file is not None else ([], None)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    source = out / "inline" / stamp
    case = source / CASE_NAME
    case.mkdir(parents=True)
    write_text_atomic(case / "prompt.md", text + "\n")
    if answers is not None:
        write_text_atomic(case / "qna.md", answers)
    if src is not None:
        os.symlink(src.resolve(), case / ("src.zip" if src.is_file() else "src"))
    if rubric is not None:
        write_text_atomic(case / RUBRIC, rubric)
    config = {"description": "an inline run (proctor run --prompt)", "evaluators": evaluators}
    write_text_atomic(case / "config.json", json.dumps(config, indent=2) + "\n")
    return source, bool(evaluators)


def inline_suite(source: Path) -> str:
    """The suite of the inline case written under ``source``: ``inline/`` and a digest of
    what the case is (its prompt, answers, rubric and evaluators, and the folder or zip its
    ``src`` links to), the same for every run of the same case."""
    case = source / CASE_NAME
    digest = hashlib.sha256()
    for item in sorted(case.iterdir()):
        if item.is_symlink():  # src: the folder or zip it names (its files may change)
            content = os.readlink(item).encode("utf-8", "surrogateescape")
        elif item.is_file():
            content = item.read_bytes()
        else:
            continue
        name = item.name.encode("utf-8", "surrogateescape")
        digest.update(b"%d:%s%d:%s" % (len(name), name, len(content), content))
    return f"inline/{digest.hexdigest()[:10]}"


def resumed_options(overrides: CliOverrides, argv: Sequence[str]) -> CliOverrides:
    """The options of a run being resumed, as its ``config.json`` recorded them; of an inline
    run an older proctor started (it recorded no ``promptWithoutEvaluate``), whether
    ``--prompt`` came with neither ``--evaluate`` nor ``--no-evaluate``, as its command line
    says (``run.json``'s ``argv``)."""
    inline = any(a == "--prompt" or a.startswith("--prompt=") for a in argv)
    if overrides.evaluate or not inline or "--no-evaluate" in argv:
        return overrides
    return overrides.model_copy(update={"prompt_without_evaluate": True})
