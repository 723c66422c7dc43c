"""Benchmark of issue 21 (surveillance statistics), printed by ``make bench``
(bench/bench.py, section 12).

12. ``tablectl stats`` over a journal of 100,000 spins (a year of a busy table): the
    records of 100 simulated spins (a replay's journal, every record type but the raw
    edges) journaled again and again with later spin numbers and times, and a dealer
    change every 1,000 spins. The whole command in a fresh process (start, imports, the
    journal read as a stream, the figures, the text; the figures themselves mean nothing,
    100 spins copied): wall time and peak resident memory,
    against the goals of 5 s and 100 MB; then the pit page's redraw: one more result folded
    and every figure computed again, without reading the journal.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from harness import peak_mb

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SPINS = 100_000
SEED_SPINS = 100


def _seed_records(scratch: Path) -> list[dict]:
    trace, journal = scratch / "stats-seed.jsonl", scratch / "stats-seed.sqlite"
    subprocess.run([BIN / "table-controller", "simulate", "--spins", str(SEED_SPINS),
                    "--seed", "21", "--out", trace], check=True)
    subprocess.run([BIN / "table-controller", "replay", trace, "--journal", journal],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from controller.store.journal import Journal

    with Journal(journal, readonly=True) as source:
        return [r for r in source.records() if r["type"] not in ("evidence", "checkpoint")]


def build_journal(scratch: Path) -> tuple[Path, float]:
    """A journal of ``SPINS`` spins; returns it and the seconds it took to write."""
    from controller.store.journal import Journal

    start = time.perf_counter()
    seed = _seed_records(scratch)
    span = seed[-1]["t"] - seed[0]["t"] + 60.0
    path = scratch / "stats-100k.sqlite"
    journal = Journal(path, durable=False)
    copies = SPINS // SEED_SPINS
    for k in range(copies):
        journal.begin()
        if k % 10 == 0:
            journal.append("dealer", k * span, {"name": f"dealer {k // 10 % 7 + 1}"})
        for rec in seed:
            fields = {key: v for key, v in rec.items() if key not in ("type", "seq", "t")}
            for key in ("spin", "game"):
                if isinstance(fields.get(key), int):
                    fields[key] += k * SEED_SPINS
            journal.append(rec["type"], rec["t"] + k * span, fields)
        journal.commit()
    journal.close()
    return path, time.perf_counter() - start


def bench_stats(scratch: Path) -> None:
    path, built_s = build_journal(scratch)
    # Its own peak, through a small parent (a child's ru_maxrss carries the bench's size).
    rss_mb, rc, wall, out = peak_mb([BIN / "tablectl", "--journal", path, "stats", "--json"],
                                    keep=True)
    assert rc == 0, f"tablectl stats exit {rc}"
    figures = json.loads(out)
    size_mb = path.stat().st_size / 2**20
    redraw = _redraw_s(figures["wheel"])
    print(f"== stats: tablectl stats over {figures['spins']:,} spins (a {size_mb:.0f} MiB "
          f"journal built in {built_s:.0f} s)")
    print(f"   the whole command (start, imports, read, figures): {wall:.2f} s "
          f"(goal at most 5 s: {'met' if wall <= 5 else 'NOT met'})")
    print(f"   its peak RSS {rss_mb:.0f} MB (goal at most 100 MB: "
          f"{'met' if rss_mb <= 100 else 'NOT met'})")
    print(f"   the pit page's redraw (one result folded, every figure again, no journal "
          f"read):\n   {redraw * 1e3:.1f} ms")


def _redraw_s(wheel: str) -> float:
    from controller.games.roulette.stats import RouletteFold

    fold = RouletteFold(wheel)
    for i in range(SPINS):
        fold.counts[i % len(fold.counts)] += 1
    fold.figures()  # the imports, once
    start = time.perf_counter()
    fold.fold({"type": "spin_result", "spin": SPINS + 1, "number": "17", "pocket_index": 8,
               "lap_times": [1.0, 1.3], "ball_direction": "cw"})
    fold.figures()
    return time.perf_counter() - start


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        bench_stats(Path(tmp))
