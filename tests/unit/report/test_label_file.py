"""Label files as spreadsheets save them."""

from __future__ import annotations

from pathlib import Path

from proctor.report.stored import read_label_file


def test_a_byte_order_mark_is_not_part_of_the_first_task_id(tmp_path: Path) -> None:
    csv = tmp_path / "buckets.csv"
    csv.write_bytes(b"\xef\xbb\xbfab5,small\nab6,large\n")
    assert read_label_file(csv, "--buckets") == {"ab5": "small", "ab6": "large"}
    doc = tmp_path / "buckets.json"
    doc.write_bytes(b'\xef\xbb\xbf{"ab5": "small"}')
    assert read_label_file(doc, "--buckets") == {"ab5": "small"}
