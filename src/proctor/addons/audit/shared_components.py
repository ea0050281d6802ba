"""The components the three CLIs lay out alike as files and folders: skill folders (a
``SKILL.md`` each, or a decoy), instruction files, another agent's files planted in this
one's folder, and the folders above the project that the agent reads too."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from proctor.addons.audit.front_matter import SkillRule, claude_code_skill
from proctor.addons.audit.reading import Reader, Scope
from proctor.addons.audit.repository import marks_root
from proctor.models.audit import ComponentKind

EMPTY_SKILL = "empty skill folder (no SKILL.md)"


def skills(
    reader: Reader,
    root: Path,
    scope: Scope,
    disabled: Collection[str] = (),
    prefix: str = "",
    rule: SkillRule = claude_code_skill,
) -> None:
    """One skill per folder of ``root``: ``SKILL.md`` inside, or a decoy when it is missing.
    ``rule`` is the CLI's reading of its front matter (``front_matter.py``): the name the skill
    is loaded under, or why it is not loaded (Codex wants a ``description``, Gemini CLI a
    ``name`` and a ``description``). ``disabled`` names are matched without regard to case.

    A Claude Code ``SKILL.md`` with no ``description`` (none in its front matter, no front
    matter, even an empty file) is no decoy: Claude Code 2.1.197 leaves it out of the ``skills``
    of its ``system/init`` event, yet lists it to the model with its body's first paragraph as
    the description and loads it when the model calls the Skill tool (measured by
    ``tests/contract/test_skills.py::
    test_claude_code_offers_skills_without_a_description_to_the_model``)."""
    off = {name.lower() for name in disabled}
    for folder in reader.subdirs(root, linked=True):
        manifest = folder / "SKILL.md"
        if not reader.is_file(manifest) and reader.looked_at(manifest, "is_file"):
            # Linked in from outside (an add-on's checkout, a folder of dotfiles): each CLI
            # follows the link and loads the skill (measured by tests/contract/test_skills.py::
            # test_a_skill_linked_in_from_outside_the_home_is_offered_to_the_model). Only its
            # SKILL.md's presence is looked at there; nothing of it is read, so it is named by
            # its folder.
            target = str(folder.resolve())
            decoy = "disabled (skills.disabled)" if folder.name.lower() in off else None
            name = prefix + folder.name
            reader.add("skill", name, manifest, scope=scope, decoy=decoy, linked_to=target)
        elif not reader.is_file(manifest):
            reader.add("skill", prefix + folder.name, folder, scope=scope, decoy=EMPTY_SKILL)
        else:
            loaded_as, decoy = rule(reader.text(manifest) or "", folder.name)
            if decoy is None and loaded_as.lower() in off:
                decoy = "disabled (skills.disabled)"
            reader.add("skill", prefix + loaded_as, manifest, scope=scope, decoy=decoy)


def instructions(reader: Reader, path: Path, scope: Scope, decoy: str | None = None) -> None:
    """An instruction file; one linked in from outside the home and project is not read, and
    is a problem that says so (not left out in silence)."""
    if not reader.looked_at(path, "is_file"):
        return
    if not reader.allowed(path):
        problem = f"{path}: leads outside the home and project; not read"
        if problem not in reader.problems:
            reader.problems.append(problem)
        return
    reader.add("instructions", path.name, path, scope=scope, decoy=decoy)


def ancestors(
    reader: Reader,
    *,
    to_repository_root: bool,
    outside_one_every: bool = False,
    is_root: Callable[[Path], bool] = marks_root,
) -> list[Path]:
    """The folders above the project the agent reads too, nearest first: for a project in the
    home, as far as the home (the CLIs stop there); for one outside it, as far as the
    filesystem's root (the CLIs walk on: Codex 0.171 reads a repository root's ``AGENTS.md``
    and ``.agents/skills`` above a project outside the home). Every one, or
    (``to_repository_root``) those up to the repository's root, the nearest folder that
    ``is_root`` takes for one (none when the project is that root; when it is in no
    repository, none, or with ``outside_one_every`` every one). The folders returned outside
    the home may be read."""
    project, home = reader.project, reader.home
    if project is None:
        return []
    inside = project.is_relative_to(home)
    above = [folder for folder in project.parents if not inside or folder.is_relative_to(home)]
    if to_repository_root:
        depth = next((d for d, f in enumerate([project, *above]) if is_root(f)), None)
        if depth is not None:
            above = above[:depth]
        elif not outside_one_every:
            above = []
    if not inside:
        reader.reach(above)
    return above


def from_above(reader: Reader, folder: Path, read: Callable[[], None]) -> None:
    """Run ``read`` on ``folder``, a folder above the project, and mark what it adds as coming
    from there (``above``: ``../``, ``../../``), shown as the scope ``[project: ../]``."""
    start = len(reader.components)
    read()
    if reader.project is not None and reader.project.is_relative_to(folder):
        label = "../" * len(reader.project.relative_to(folder).parts)
        for component in reader.components[start:]:
            component.above = label


def foreign_files(reader: Reader, folder: Path, owners: Mapping[str, str], scope: Scope) -> None:
    """Files of another agent planted in this agent's folder (``owners``: file name → whose)."""
    for name, owner in owners.items():
        path = folder / name
        if reader.is_file(path):
            kind: ComponentKind = "instructions" if name.endswith(".md") else "settings"
            reader.add(kind, name, path, scope=scope, decoy=f"a file of {owner}; not read here")
