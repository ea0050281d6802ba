"""``proctor run --prompt``: the case a prompt given on the command line makes (written into
the results folder as an inline case), the folders its writing made (removed when the run does
not run it), and a refusal of its files named by the options they came from."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click


def inline_source(
    prompt: str,
    qna: Path | None,
    eval_file: Path | None,
    src: Path | None,
    evaluate: bool | None,
    source: Path,
    out: Path | None,
    config: Path | None,
) -> tuple[Path, bool]:
    """``--prompt``: the inline case's folder, and whether the run evaluates it."""
    from proctor.errors import ConfigError
    from proctor.models.loading import load_top_config
    from proctor.paths import current_folder, read_against
    from proctor.session.inline import inline_case

    if source != Path("."):
        raise ConfigError("--prompt makes the case: drop --source")
    here = current_folder()  # (None: gone, no ./proctor.json)
    top, _ = load_top_config(config, here)
    results = out or Path(top.out or "proctor-results")
    if here is None:  # a relative one names nothing there: getcwd's error, said in a sentence
        results = read_against(here, results)
    if evaluate and eval_file is None:
        raise ConfigError("--evaluate with --prompt needs --eval FILE (evaluators or a rubric)")
    made = [results, *results.parents]
    made = made[: next((i for i, d in enumerate(made) if d.exists()), len(made))]
    folder, has_evaluators = inline_case(results, prompt, qna=qna, eval_file=eval_file, src=src)
    MADE_FOR[folder] = made  # the folders --out named that this run made, to remove if refused
    if evaluate and not has_evaluators:
        forget_inline(folder)
        raise ConfigError("--evaluate with --prompt needs --eval FILE (evaluators or a rubric)")
    if eval_file is not None and evaluate is None:
        # An inline run is evaluated only when asked: said, as a CI job would pass green.
        click.echo(
            f"proctor: note: --eval {eval_file} is not run: an inline case is evaluated only "
            "with --evaluate (the trial is recorded, not scored)",
            err=True,
        )
    return folder, bool(evaluate)


MADE_FOR: dict[Path, list[Path]] = {}
"""Per inline case: the results folder and those above it that writing the case made."""


def forget_inline(source: Path) -> None:
    """Remove an inline case proctor wrote for a run that did not run it (refused, or a dry
    run), its ``inline/`` folder when nothing else is left there, and the results folder (and
    those above it) the case's writing made, when empty: a dry run leaves nothing behind."""
    from proctor.util.files import remove_tree

    remove_tree(source)
    with contextlib.suppress(OSError):
        source.parent.rmdir()  # only when empty
        for folder in MADE_FOR.pop(source, []):
            folder.rmdir()  # only when empty, and only one this run made


def named_by_options(message: str, source: Path, eval_file: Path | None, qna: Path | None) -> str:
    """``message`` about the inline case proctor wrote, with its files named by the options
    they came from (``--eval FILE``, ``--qna FILE``): those are the files to mend."""
    from proctor.session.inline import CASE_NAME

    case = source / CASE_NAME
    if eval_file is not None:
        message = message.replace(f"{case / 'config.json'}:", f"--eval {eval_file}:")
    if qna is not None:
        message = message.replace(f"{case / 'qna.md'}:", f"--qna {qna}:")
    return message
