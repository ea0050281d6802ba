"""`proctor plan-repeats --output FILE` takes FILE as `proctor report --output` does, as a
shell's `> FILE`: a path naming a folder is refused, a link is written through, a named pipe,
a device or a descriptor is written to as it is, never replaced by a file nor waited on for
ever."""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Run


def _labels(tmp_path: Path) -> Path:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\nt2,single_goal\n")
    return labels


def _plan(labels: Path, *args: str, shell: bool = False) -> subprocess.CompletedProcess[str]:
    """``proctor plan-repeats`` as a process of its own, given a minute: one that hangs on a
    pipe fails the test instead of blocking it. With ``shell``, bash runs the command line, the last argument
    as bash reads it (``>(cat)``)."""
    command = [sys.executable, "-m", "proctor", "plan-repeats", "--goal-labels", str(labels)]
    command += args
    if shell:
        command = ["bash", "-c", shlex.join(command[:-1]) + " " + command[-1]]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=dict(os.environ))


def test_a_path_ending_in_a_slash_is_refused_as_a_folder(proctor: Run, tmp_path: Path) -> None:
    labels = _labels(tmp_path)
    for given in (f"{tmp_path}/newdir/", f"{tmp_path}/newdir/.", f"{tmp_path}/m.json/"):
        refused = proctor("plan-repeats", "--goal-labels", str(labels), "--output", given)
        tail = given[given.rindex("/") :]
        assert refused.code == 2 and refused.err == (
            f"proctor: error: --output {given}: a path ending in {tail} names a folder, not a "
            "file: give the name of the file to write the manifest to\n"
        ), refused.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["goals.csv"]
    folder = proctor("plan-repeats", "--goal-labels", str(labels), "--output", str(tmp_path))
    assert folder.code == 2 and folder.err == (
        f"proctor: error: --output {tmp_path}: a folder, not a file (the manifest is one file)\n"
    )


def test_a_named_pipe_is_written_to_never_replaced_nor_waited_on_for_ever(
    tmp_path: Path,
) -> None:
    labels = _labels(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for force in ((), ("--force",)):  # --force replaces a file, not a pipe
        reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
        try:
            written = _plan(labels, "--output", str(fifo), *force)
            got, _ = reader.communicate(timeout=60)
        finally:
            reader.kill()
            reader.communicate()
        assert written.returncode == 0, written.stderr
        assert json.loads(got)["tasks"] == ["t1", "t2"]
        assert f"planned in {fifo}\n" in written.stderr
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    alone = _plan(labels, "--output", str(fifo))
    assert (
        alone.returncode == 2
        and (
            f"proctor: error: --output {fifo}: a named pipe that no process reads from (proctor "
            "waited 5 seconds for one): start its reader first"
        )
        in alone.stderr
    )
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_descriptor_or_a_device_is_written_to_where_it_stands(tmp_path: Path) -> None:
    labels = _labels(tmp_path)
    # `--output >(cat)`, a pipe as /dev/fd/63, and stdout named by its descriptor.
    substituted = _plan(labels, "--output", ">(cat)", shell=True)
    assert substituted.returncode == 0, substituted.stderr
    assert json.loads(substituted.stdout)["pairs"] == 3
    piped = _plan(labels, "--output", "/dev/fd/1", "--force")
    assert piped.returncode == 0 and json.loads(piped.stdout)["pairs"] == 3, piped.stderr
    assert "planned in /dev/fd/1\n" in piped.stderr
    closed = _plan(labels, "--output", "/dev/fd/9")
    assert closed.returncode == 2
    assert "proctor: error: --output /dev/fd/9: descriptor 9 is not open" in closed.stderr
    device = tmp_path / "null"
    try:  # a character device of our own (root only): written to, not replaced, with --force
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return
    kept = _plan(labels, "--output", str(device), "--force")
    assert kept.returncode == 0 and stat.S_ISCHR(os.lstat(device).st_mode), kept.stderr


def test_a_socket_is_refused(proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    labels = _labels(tmp_path)
    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock")
        refused = proctor(
            "plan-repeats", "--goal-labels", str(labels), "--output", "sock", "--force"
        )
        assert refused.code == 2 and stat.S_ISSOCK(os.lstat("sock").st_mode)
        assert refused.err == (
            "proctor: error: --output sock: a socket, not a file, a pipe or a terminal to write "
            "a manifest to\n"
        )


def test_a_link_is_written_through_and_kept(proctor: Run, tmp_path: Path) -> None:
    labels = _labels(tmp_path)
    target = tmp_path / "kept" / "repeats.json"
    target.parent.mkdir()
    link = tmp_path / "repeats.json"
    link.symlink_to(target)
    plan = ("plan-repeats", "--goal-labels", str(labels), "--output", str(link))
    written = proctor(*plan)
    assert written.code == 0, written.err
    assert link.is_symlink() and json.loads(target.read_text())["tasks"] == ["t1", "t2"]
    assert f"planned in {link} (the file it links to, {target})" in written.err
    again = proctor(*plan)  # the file it links to exists now
    assert again.code == 2 and "the file exists; give --force" in again.err
    forced = proctor(*plan, "--force", "--pairs", "2")
    assert forced.code == 0 and link.is_symlink(), forced.err
    assert json.loads(target.read_text())["pairs"] == 2
    nowhere = tmp_path / "nowhere.json"
    nowhere.symlink_to(tmp_path / "gone" / "m.json")
    lost = proctor("plan-repeats", "--goal-labels", str(labels), "--output", str(nowhere))
    assert lost.code == 2 and f"whose folder {tmp_path / 'gone'} does not exist" in lost.err
    assert nowhere.is_symlink()


def test_a_dash_is_standard_output_not_a_file_named_dash(tmp_path: Path) -> None:
    """``--output -`` writes the manifest on stdout, as ``run --manifest -`` reads it from
    stdin; no file named ``-`` is made."""
    labels = _labels(tmp_path)
    command = [sys.executable, "-m", "proctor", "plan-repeats", "--goal-labels", str(labels)]
    planned = subprocess.run(
        [*command, "--output", "-"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert planned.returncode == 0, planned.stderr
    assert json.loads(planned.stdout)["pairs"] == 3
    assert "planned in - (standard output)\n" in planned.stderr
    assert not (tmp_path / "-").exists()


def test_a_dash_is_standard_output_beside_a_folder_named_dash(tmp_path: Path) -> None:
    """A folder named ``-`` where proctor runs is not the ``--output -`` it writes."""
    labels = _labels(tmp_path)
    (tmp_path / "-").mkdir()
    planned = subprocess.run(
        [sys.executable, "-m", "proctor", "plan-repeats", "--goal-labels", str(labels),
         "--output", "-"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    assert json.loads(planned.stdout)["pairs"] == 3


def test_every_problem_of_the_options_is_named_at_once(proctor: Run, tmp_path: Path) -> None:
    """An --output file that exists was refused alone: fixed, the --conditions were refused
    next, then the --goal-shape; each independent problem is a line, and nothing is written."""
    labels = _labels(tmp_path)
    manifest = tmp_path / "m.json"
    manifest.write_text("kept\n")
    plan = ("plan-repeats", "--goal-labels", str(labels), "--output", str(manifest))
    refused = proctor(*plan, "--conditions", "a,a", "--goal-shape", "nope")
    assert refused.code == 2 and refused.out == "", refused.err
    assert refused.err == (
        f"proctor: error: --output {manifest}: the file exists; give --force to replace it\n"
        "proctor: error: --conditions: 'a' is named twice; give two or more different "
        "conditions, comma-separated, each once\n"
        "proctor: error: --goal-shape nope: expected one of single_goal, weak_multi_goal, "
        "strong_multi_goal\n"
        "proctor: error: 3 problems with the options, each named above; no manifest was "
        "written\n"
    )
    # A goal shape no task has is named beside the others too; one problem is one sentence.
    shaped = proctor(*plan, "--conditions", "a", "--goal-shape", "weak_multi_goal")
    assert shaped.code == 2 and "2 problems with the options" not in shaped.err
    assert "--conditions: give two or more" in shaped.err
    assert "--goal-shape weak_multi_goal: no task has that goal shape" in shaped.err
    assert "3 problems with the options, each named above" in shaped.err
    alone = proctor(*plan)
    assert alone.code == 2 and alone.err == (
        f"proctor: error: --output {manifest}: the file exists; give --force to replace it\n"
    )
    assert manifest.read_text() == "kept\n"
