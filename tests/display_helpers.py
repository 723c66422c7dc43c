"""Helpers of the display's tests: a simulated table's journal (``simulate`` then ``replay``,
the real commands), a journal copied record by record (a daemon committing, as the
display sees it), ``table-display`` started as its own process on a free loopback port,
and a PNG read back (is a screenshot blank?).

The expected values the tests compare with are read from the journal's records here, by
the tests' own simple logic, never from the display's code.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import time
import urllib.request
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from controller.cli import main as cli
from tests.processes import stopped

REPO = Path(__file__).resolve().parents[1]
# Each simulated table: its config (README) and the simulate options that keep it short.
TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "roulette": ("embedded:default.toml", ("--spins", "3", "--scenario", "valid",
                                           "--scenario", "valid",
                                           "--scenario", "too_few_revolutions")),
    "mini_baccarat": ("config/mini-baccarat-sim.toml", ("--coups", "6")),
    "blackjack_plus": ("config/blackjack-plus-sim.toml", ("--coups", "3")),
    "pot_luck": ("config/pot-luck-sim.toml", ("--coups", "3")),
    "draw_poker": ("config/draw-poker-sim.toml", ("--coups", "3")),
}


def config_of(table: str) -> str:
    path = TABLES[table][0]
    return path if path.startswith("embedded:") else str(REPO / path)


def simulated_journal(table: str, folder: Path, seed: int = 3) -> Path:
    """A journal of the simulated ``table``: its trace simulated and replayed."""
    trace, journal = folder / f"{table}.jsonl", folder / f"{table}.sqlite"
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        rc = cli.main(["simulate", "--table", table, *TABLES[table][1], "--seed", str(seed),
                       "--out", str(trace)])
        assert rc == 0, out.getvalue()
        rc = cli.main(["replay", str(trace), "--journal", str(journal)])
    assert rc == 0, out.getvalue()[-2000:]
    return journal


def records(journal: Path) -> list[dict[str, Any]]:
    """Every record of ``journal``, whole, in order."""
    db = sqlite3.connect(journal)
    try:
        return [json.loads(b) for (b,) in db.execute("SELECT body FROM records ORDER BY seq")]
    finally:
        db.close()


class Copier:
    """A journal made from another one record at a time, each committed on its own."""

    def __init__(self, source: Path, target: Path) -> None:
        src = sqlite3.connect(source)
        self.rows = src.execute("SELECT seq, t, type, body, hash FROM records "
                                "ORDER BY seq").fetchall()
        schema = [s for (s,) in src.execute("SELECT sql FROM sqlite_master WHERE sql "
                                            "IS NOT NULL")]
        src.close()
        self.db = sqlite3.connect(target, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        for sql in schema:
            self.db.execute(sql)
        self.done = 0

    def upto(self, seq: int) -> None:
        """Commit every record through ``seq``, one transaction each."""
        while self.done < len(self.rows) and self.rows[self.done][0] <= seq:
            self.db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)", self.rows[self.done])
            self.done += 1

    def close(self) -> None:
        self.db.close()


class Display:
    """A running ``table-display`` (its own process); ``url`` is its page's address."""

    def __init__(self, proc: subprocess.Popen[str], url: str) -> None:
        self.proc, self.url = proc, url

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as reply:
            return str(reply.read().decode("utf-8"))

    def state(self) -> dict[str, Any]:
        return dict(json.loads(self.get("/state.json")))

    def wait_seq(self, seq: int, timeout: float = 20.0) -> dict[str, Any]:
        """The state once it shows record ``seq`` (it follows the journal by itself)."""
        return self.wait_for(lambda state: state.get("seq", 0) >= seq, timeout)

    def wait_for(self, ready: Callable[[dict[str, Any]], bool],
                 timeout: float = 20.0) -> dict[str, Any]:
        """The state once ``ready(state)``, or as it is after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if ready(state) or time.monotonic() > deadline:
                return state
            time.sleep(0.02)


@contextmanager
def display(journal: Path, config: str, *args: str) -> Iterator[Display]:
    """``table-display`` on ``journal`` on a free loopback port, stopped (SIGTERM) after:
    killed, and the test failed, if it outlasts 30 s (:func:`tests.processes.stopped`)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "display.cli", "--config", config, "--journal", str(journal),
         "--listen", "127.0.0.1:0", *args],
        cwd=REPO, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", banner)
        assert found, f"no address in the banner: {banner!r}"
        yield Display(proc, found.group(1))
    finally:
        stopped(proc, signal.SIGTERM, timeout=30)


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, unfiltered."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width, height, channels = 8, b"", 0, 0, 3
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def colour_spread(png: bytes) -> tuple[int, float]:
    """How many colours a screenshot has (sampled every 4th pixel) and the share of pixels
    unlike its most common colour: a blank page is one colour, share 0."""
    width, _, rows = png_pixels(png)
    channels = len(rows[0]) // width
    counts: dict[bytes, int] = {}
    for row in rows[::4]:
        for x in range(0, width, 4):
            pixel = row[x * channels:x * channels + 3]
            counts[pixel] = counts.get(pixel, 0) + 1
    total = sum(counts.values())
    return len(counts), 1 - max(counts.values()) / total
