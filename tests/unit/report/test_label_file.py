"""Label files as spreadsheets save them."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.report.labels import read_label_file


def test_a_byte_order_mark_is_not_part_of_the_first_task_id(tmp_path: Path) -> None:
    csv = tmp_path / "buckets.csv"
    csv.write_bytes(b"\xef\xbb\xbfab5,small\nab6,large\n")
    assert read_label_file(csv, "--buckets") == {"ab5": "small", "ab6": "large"}
    doc = tmp_path / "buckets.json"
    doc.write_bytes(b'\xef\xbb\xbf{"ab5": "small"}')
    assert read_label_file(doc, "--buckets") == {"ab5": "small"}


def test_a_task_id_labelled_twice_two_ways_is_refused_with_both_labels(tmp_path: Path) -> None:
    csv = tmp_path / "buckets.csv"
    csv.write_text("ab5,small\nab6,large\n\nab5,large\n")
    with pytest.raises(ConfigError) as refused:
        read_label_file(csv, "--buckets")
    message = str(refused.value)
    assert f"{csv}:4" in message and "'small'" in message and "line 1" in message
    doc = tmp_path / "buckets.json"
    doc.write_text('{"ab5": "small", "ab6": "large", "ab5": "large"}')
    with pytest.raises(ConfigError, match="'ab5' is given twice"):
        read_label_file(doc, "--buckets")


def test_a_task_id_repeated_with_the_same_label_is_read_once(tmp_path: Path) -> None:
    csv = tmp_path / "buckets.csv"
    csv.write_text("ab5,small\nab5,small\n")
    assert read_label_file(csv, "--buckets") == {"ab5": "small"}
    doc = tmp_path / "buckets.json"
    doc.write_text('{"ab5": "small", "ab5": "small"}')
    assert read_label_file(doc, "--buckets") == {"ab5": "small"}
