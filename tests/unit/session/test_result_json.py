"""``proctor record --result-json``: a file or the JSON itself, and one sentence when neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.session.manual import _json_report


def test_a_file_or_the_text_itself_is_read(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    report.write_text('{"done": true}')
    assert _json_report(str(report)) == {"done": True}
    assert _json_report('{"done": false}') == {"done": False}


@pytest.mark.parametrize("content", [b"\xff\xfe{}", b"[1]", b"{not json"])
def test_a_file_that_is_not_a_json_object_is_a_sentence(tmp_path: Path, content: bytes) -> None:
    report = tmp_path / "r.json"
    report.write_bytes(content)
    with pytest.raises(ConfigError, match="--result-json"):
        _json_report(str(report))
