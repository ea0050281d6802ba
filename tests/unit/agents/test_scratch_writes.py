"""A file an adapter writes in the scratch home replaces a link a setup line left there: it
is never written through (see proctor.workspace.confine)."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.agents.cli_base import write_json, write_replacing


def test_a_settings_file_linked_elsewhere_is_replaced_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "settings.json"
    outside.parent.mkdir()
    outside.write_text('{"yours": true}\n')
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.symlink_to(outside)
    write_json(settings, {"proctor": 1})
    assert not settings.is_symlink() and json.loads(settings.read_text()) == {"proctor": 1}
    assert outside.read_text() == '{"yours": true}\n'
    write_replacing(settings, "again\n")  # an existing file of its own: replaced too
    assert settings.read_text() == "again\n"
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
