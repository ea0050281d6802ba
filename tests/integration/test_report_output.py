"""`proctor report --output FILE`: the one report named, written to a file instead of stdout
(an HTML report for a CI artifact without `> report.html`), never over a file that is not a
report of that reporter proctor wrote unless --force."""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeCase, Run


def one_run(proctor: Run, make_case: MakeCase, tmp_path: Path) -> Path:
    make_case("fix", plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "results"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    return run


def test_output_writes_the_report_named_instead_of_printing_it(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = str(one_run(proctor, make_case, tmp_path))
    page = tmp_path / "report.html"
    written = proctor("report", run, "--reporter", "html", "--output", str(page))
    assert written.code == 0 and written.out == "", written.err
    assert f"proctor: HTML report written to {page}" in written.err
    printed = proctor("report", run, "--reporter", "html")
    assert page.read_text() == printed.out and printed.out.startswith("<!doctype html>")
    # The report proctor wrote there is replaced when asked again, unasked.
    again = proctor("report", run, "--reporter", "html", "--output", str(page))
    assert again.code == 0, again.err
    # --json, and the Markdown report (with its repeated-run table) when none is named.
    data = tmp_path / "suite.json"
    assert proctor("report", run, "--json", "--output", str(data)).code == 0
    assert json.loads(data.read_text())["runId"] == Path(run).name
    table = tmp_path / "suite.md"
    assert proctor("report", run, "--repeated", "--output", str(table)).code == 0
    text = table.read_text()
    assert text.startswith("# proctor run ") and "## Repeated runs" in text


def test_output_never_replaces_what_is_not_a_report_of_its_kind_unless_forced(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = str(one_run(proctor, make_case, tmp_path))
    notes = tmp_path / "README.md"
    notes.write_text("my notes\n")
    refused = proctor("report", run, "--reporter", "html", "--output", str(notes))
    assert refused.code == 2 and refused.out == "", refused.err
    assert (
        f"--output {notes}: the file exists and is not an HTML report proctor wrote; "
        "give --force to replace it"
    ) in refused.err
    assert notes.read_text() == "my notes\n"
    # A Markdown report is not an HTML one: suite.md is not replaced by a page either.
    suite_md = Path(run) / "suite.md"
    kept = suite_md.read_text()
    other = proctor("report", run, "--reporter", "html", "--output", str(suite_md))
    assert other.code == 2 and "is not an HTML report proctor wrote" in other.err
    assert suite_md.read_text() == kept
    forced = proctor("report", run, "--reporter", "html", "--output", str(notes), "--force")
    assert forced.code == 0 and notes.read_text().startswith("<!doctype html>")


def test_output_mistakes_are_one_sentence_before_anything_is_read(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = str(one_run(proctor, make_case, tmp_path))
    cases = {
        ("--output", ""): '--output "": give the path of a file to write',
        ("--output", str(tmp_path)): f"--output {tmp_path}: a folder, not a file",
        ("--output", str(tmp_path / "no" / "r.html")): (
            f"--output {tmp_path / 'no' / 'r.html'}: the folder {tmp_path / 'no'} does not exist"
        ),
        ("--output", f"{tmp_path / 'newdir'}/"): (
            f"--output {tmp_path / 'newdir'}/: a path ending in / names a folder, not a file: "
            "give the name of the file to write the report to"
        ),
        ("--output", f"{tmp_path / 'newdir'}/."): (
            f"--output {tmp_path / 'newdir'}/.: a path ending in /. names a folder"
        ),
        ("--reporter", "markdown,html", "--output", str(tmp_path / "r")): (
            f"--output {tmp_path / 'r'}: writes one report, and 2 are named (markdown, html)"
        ),
        ("--force",): (
            "--force replaces the --output file (or, with --write and --config, the run's files "
            "under a gate not its own): give --output FILE with it"
        ),
    }
    for args, said in cases.items():
        result = proctor("report", run, *args)
        assert result.code == 2 and result.out == "", (args, result.err)
        assert f"proctor: error: {said}" in result.err, (args, result.err)
    assert not (tmp_path / "r").exists() and not (tmp_path / "newdir").exists()


def test_output_through_a_link_writes_the_file_it_links_to_and_keeps_the_link(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = str(one_run(proctor, make_case, tmp_path))
    (tmp_path / "artifacts").mkdir()
    target = tmp_path / "artifacts" / "report.html"
    link = tmp_path / "report.html"
    link.symlink_to(target)  # not there yet: written through, as `> FILE` writes it
    for _ in range(2):  # and the page proctor wrote there is replaced through it
        written = proctor("report", run, "--reporter", "html", "--output", str(link))
        assert written.code == 0, written.err
        assert link.is_symlink() and target.read_text().startswith("<!doctype html>")
        assert f"written to {link} (the file it links to, {target})" in written.err
    # What the link leads to is checked as the file itself: notes are not replaced.
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n")
    to_notes = tmp_path / "n.html"
    to_notes.symlink_to(notes)
    refused = proctor("report", run, "--reporter", "html", "--output", str(to_notes))
    assert refused.code == 2 and "is not an HTML report proctor wrote" in refused.err
    assert notes.read_text() == "my notes\n" and to_notes.is_symlink()
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    looped = proctor("report", run, "--reporter", "html", "--output", str(loop))
    assert looped.code == 2 and f"--output {loop}: a link that cannot be followed" in looped.err
    nowhere = tmp_path / "nowhere.html"
    nowhere.symlink_to(tmp_path / "gone" / "r.html")
    lost = proctor("report", run, "--reporter", "html", "--output", str(nowhere))
    assert lost.code == 2 and f"whose folder {tmp_path / 'gone'} does not exist" in lost.err
    assert nowhere.is_symlink() and loop.is_symlink()


def report_process(
    run: Path, *args: str, shell: str | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """``proctor report RUN ARGS`` as a process of its own, given a minute: one that hangs (on a
    named pipe, say) fails the test instead of blocking it. With ``shell``, bash runs that
    command line, ``{proctor}`` standing for ``proctor report RUN``."""
    command = [sys.executable, "-m", "proctor", "report", str(run), *args]
    if shell is not None:
        command = ["bash", "-c", shell.format(proctor=shlex.join(command))]
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        command, stderr=subprocess.PIPE, text=True, timeout=60, env=dict(os.environ), **kwargs
    )


def test_output_to_a_named_pipe_is_written_to_never_replaced_nor_waited_on_for_ever(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = one_run(proctor, make_case, tmp_path)
    printed = proctor("report", str(run)).out
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for force in ((), ("--force",)):  # --force replaces a file, not a pipe
        reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
        try:
            written = report_process(run, "--output", str(fifo), *force)
            got, _ = reader.communicate(timeout=60)
        finally:  # a report that read the pipe instead leaves its reader waiting
            reader.kill()
            reader.communicate()
        assert written.returncode == 0 and written.stdout == "", written.stderr
        assert got == printed and f"report written to {fifo}" in written.stderr
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # No reader: waited for a while, then one sentence, the pipe kept.
    alone = report_process(run, "--output", str(fifo))
    assert alone.returncode == 2 and alone.stdout == ""
    assert (
        f"proctor: error: --output {fifo}: a named pipe that no process reads from (proctor "
        "waited 5 seconds for one): start its reader first"
    ) in alone.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    # A process substitution, `--output >(cat)`: a pipe as /dev/fd/63.
    substituted = report_process(run, shell="{proctor} --output >(cat)")
    assert substituted.returncode == 0 and substituted.stdout == printed, substituted.stderr


def test_output_to_stdout_a_descriptor_or_a_device_writes_to_it_where_it_stands(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run = one_run(proctor, make_case, tmp_path)
    printed = proctor("report", str(run)).out
    piped = report_process(run, "--output", "/dev/stdout")
    assert piped.returncode == 0 and piped.stdout == printed, piped.stderr
    assert "proctor: Markdown report written to /dev/stdout" in piped.stderr
    # Stdout sent to a file (`>> log.md`): written where it stands, not refused nor replaced.
    log = tmp_path / "log.md"
    log.write_text("before\n")
    with log.open("a") as appended:
        into = report_process(run, "--output", "/dev/stdout", stdout=appended)
    assert into.returncode == 0 and log.read_text() == "before\n" + printed, into.stderr
    dash = report_process(run, "--output", "-")  # stdout, as a dash names it
    assert dash.returncode == 0 and dash.stdout == printed, dash.stderr
    assert "report written to - (standard output)" in dash.stderr
    to_err = report_process(run, "--output", "/dev/stderr")
    assert to_err.returncode == 0 and to_err.stderr.startswith(printed), to_err.stderr
    closed = report_process(run, "--output", "/dev/fd/9")
    assert closed.returncode == 2 and closed.stdout == ""
    assert "proctor: error: --output /dev/fd/9: descriptor 9 is not open" in closed.stderr
    null = report_process(run, "--output", "/dev/null", "--force")
    assert null.returncode == 0 and stat.S_ISCHR(os.lstat("/dev/null").st_mode), null.stderr
    device = tmp_path / "null"
    try:  # a character device of our own (root only): written to, not replaced, with --force
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return
    kept = report_process(run, "--output", str(device), "--force")
    assert kept.returncode == 0 and stat.S_ISCHR(os.lstat(device).st_mode), kept.stderr


def test_output_is_never_a_socket(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = str(one_run(proctor, make_case, tmp_path))
    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock")
        refused = proctor("report", run, "--output", "sock", "--force")
        assert refused.code == 2 and stat.S_ISSOCK(os.lstat("sock").st_mode)
        assert (
            "proctor: error: --output sock: a socket, not a file, a pipe or a terminal to write "
            "a report to"
        ) in refused.err


def test_output_line_on_stderr_says_links_to_only_of_a_link(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = str(one_run(proctor, make_case, tmp_path))
    monkeypatch.chdir(tmp_path)
    written = proctor("report", run, "--output", "./r.md")
    assert written.code == 0 and written.err.endswith("report written to ./r.md\n"), written.err


def test_output_to_the_terminal_of_a_process_without_one_is_said_at_once(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``--output /dev/tty`` under CI or setsid (no controlling terminal) failed as a pipe no
    process reads: a wait of 5 seconds, then "start its reader first"."""
    run = str(one_run(proctor, make_case, tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "report", run, "--output", "/dev/tty"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        start_new_session=True,  # no controlling terminal
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "proctor: error: --output /dev/tty: a terminal that is not there (proctor runs with no "
        "controlling terminal, as under CI or setsid): give a file\n"
    )
