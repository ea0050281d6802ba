"""Masking: what masking a big terminal recording costs, by the number of secrets registered.

Builds a synthetic recording of a terminal UI (colours, cursor moves, wrapped lines, some
base64 and digits, a fifth of the lines padded and framed in a box as Gemini CLI draws them;
``--mb`` megabytes, default 4) and times, median of ``--repeats`` (default 5), for 3 and for
10 secrets registered (provider-like keys, 40-160 characters):

- ``terminal``: :func:`~proctor.util.terminal_masking.mask_terminal` over the whole recording (what
  ``terminal.raw`` is written through);
- ``stream``: :class:`~proctor.util.terminal_masking.StreamMask` fed 4 KiB chunks (the live mirror);
- ``scrub``: :func:`~proctor.util.masking.scrub_tree` over a folder holding it (every trial's
  folder goes through it);
- ``text``: :func:`~proctor.util.masking.mask` over it as text (a transcript's lines).

Also prints how many values the masker holds (each secret's base64 forms count too, where
they are registered). Nothing is asserted: shared machines are noisy.

Usage: ``.venv/bin/python bench/mask_bench.py [--mb N] [--repeats N]`` (with ``PYTHONPATH``
set to the ``src`` of the proctor measured).
"""

from __future__ import annotations

import argparse
import base64
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from proctor.util import masking, terminal_masking


def recording(megabytes: float, rng: random.Random) -> bytes:
    words = [
        b"def",
        b"return",
        b"pytest",
        b"\xe2\x94\x82",
        b"1000000",
        b"src/app.py",
        b"ok",
        b"Traceback",
        b"sk-",
        b"Bearer",
    ]
    out: list[bytes] = []
    size = 0
    row = 0
    while size < megabytes * 1_000_000:
        row += 1
        line = b" ".join(rng.choice(words) for _ in range(rng.randint(3, 14)))
        if row % 7 == 0:
            line += b" " + base64.b64encode(rng.randbytes(rng.randint(12, 60)))
        if row % 5 == 0:  # in a box, padded to its width and framed in colour (Gemini CLI)
            edge = b"\x1b[2m\x1b[38;2;135;175;255m\xe2\x94\x82"
            pad = b" " * max(0, 150 - len(line))
            chunk = b"%s\x1b[22m\x1b[39m %s%s%s\x1b[39m\x1b[22m\r\n" % (edge, line, pad, edge)
        else:
            chunk = b"\x1b[%d;1H\x1b[2K\x1b[38;5;%dm%s\x1b[0m\r\n" % (row % 50 + 1, row % 256, line)
        out.append(chunk)
        size += len(chunk)
    return b"".join(out)


def secrets(count: int, rng: random.Random) -> list[str]:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    lengths = [108, 164, 39, 40, 56, 72, 32, 48, 64, 96]
    return [
        "sk-" + "".join(rng.choice(alphabet) for _ in range(lengths[i % len(lengths)]))
        for i in range(count)
    ]


def median_ms(action: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def stream(raw: bytes) -> None:
    masker = terminal_masking.StreamMask()
    for i in range(0, len(raw), 4096):
        masker.feed(raw[i : i + 4096])
    masker.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=4.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    raw = recording(args.mb, rng)
    text = raw.decode()
    print(f"recording: {len(raw) / 1e6:.1f} MB")
    print(
        f"{'secrets':>7} {'values':>6} {'terminal':>10} {'stream':>10} {'scrub':>10} {'text':>10}"
    )
    for count in (3, 10):
        masking._SECRETS.clear()
        for secret in secrets(count, rng):
            masking.register_secret(secret)
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)

            def scrub(root: Path = root) -> None:
                (root / "terminal.raw").write_bytes(raw)
                masking.scrub_tree(root)

            figures = [
                median_ms(lambda: terminal_masking.mask_terminal(raw), args.repeats),
                median_ms(lambda: stream(raw), args.repeats),
                median_ms(scrub, args.repeats),
                median_ms(lambda: masking.mask(text), args.repeats),
            ]
        cells = " ".join(f"{f:>8.0f}ms" for f in figures)
        print(f"{count:>7} {len(masking._SECRETS):>6} {cells}")


if __name__ == "__main__":
    main()
