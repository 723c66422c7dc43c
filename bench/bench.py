"""Benchmarks of issue 2 (roulette) and issue 3 (card shoe), printed as figures.

Run with ``make bench``. Nothing here asserts a time: it measures and prints.

1. Replay throughput: GPIO edges per second replaying a 1,000-spin simulated trace
   (``table-controller replay``, scratch journal), and the check that every spin is
   accounted for and the journal verifies.
2. Edge-to-commit latency in ``replay --realtime`` on a durable journal (WAL,
   synchronous=FULL), next to a bare SQLite synchronous=FULL commit measured in the same run.
3. Resident memory of the controller after 100 and after 1,000 simulated spins.
4. Card shoe: codec lines per second against the 9600-baud line rate; last card of a coup
   to its ``coup_result`` committed; the exact 4-deck enumeration.
5. Serial wheel (issue 12): status-line codec lines per second against the 9600-baud line
   rate; the state-5 line to its ``spin_result`` committed on a durable journal (p50, p99),
   next to a bare SQLite synchronous=FULL commit measured in the same run.
6. Draw poker (issue 10): the census of the 2,598,960 five-card hands through the table's
   ranking code, next to a bare loop that only enumerates them, in the same run.
7-9. Operations (issue 11, bench/ops.py): start to
   ``READY=1``; idle CPU and wake-ups of the daemon over 60 s (``BENCH_IDLE_S``); journal
   growth per spin, coup and day.
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def bench_replay(scratch: Path) -> None:
    trace = scratch / "spins-1000.jsonl"
    t0 = time.perf_counter()
    subprocess.run([BIN / "table-controller", "simulate", "--spins", "1000", "--seed", "1",
                    "--out", trace], check=True)
    sim_s = time.perf_counter() - t0
    edges = sum(1 for line in trace.open() if '"gpio"' in line)
    journal = scratch / "replay.sqlite"
    out = scratch / "replay.jsonl"
    t0 = time.perf_counter()
    with out.open("w") as fh:
        subprocess.run([BIN / "table-controller", "replay", trace, "--journal", journal],
                       stdout=fh, check=True)
    wall = time.perf_counter() - t0
    spins: dict[int, str] = {}
    for line in out.open():
        rec = json.loads(line)
        if rec["type"] in ("spin_result", "spin_invalid"):
            spins[rec["spin"]] = rec.get("number") or rec["reason"]
    verify = subprocess.run([BIN / "tablectl", "--journal", journal, "verify"],
                            capture_output=True, text=True)
    print("== 1. replay throughput (1,000 simulated spins)")
    print(f"   trace: {edges} GPIO edges, simulated in {sim_s:.1f} s")
    print(f"   replay (whole command: start, parse, journal, print): {wall:.2f} s "
          f"= {edges / wall:,.0f} edges/s (goal 50,000)")
    parse_s, run_s = _replay_phases(trace, scratch)
    print(f"   of which: parsing and checking the trace {parse_s:.2f} s; the controller "
          f"itself (journal, tracking, state machines) {run_s:.2f} s = "
          f"{edges / run_s:,.0f} edges/s")
    print(f"   spins accounted for: {len(spins)} of 1000 "
          f"({sum(1 for v in spins.values() if not v.isdigit())} invalid)")
    print(f"   tablectl verify: {verify.stdout.strip()} (exit {verify.returncode})")


def _replay_phases(trace: Path, scratch: Path) -> tuple[float, float]:
    """The replay's two phases timed in this process: reading the trace, then the
    controller on trace time (scratch journal, records printed to nowhere)."""
    from controller.core.clock import VirtualClock
    from controller.core.config import apply_overrides, load_config
    from controller.core.logs import configure
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.store.journal import Journal
    from controller.trace import read_trace

    configure("warning")
    t0 = time.perf_counter()
    tr = read_trace(str(trace))
    parse_s = time.perf_counter() - t0
    config = apply_overrides(load_config(), tr.meta, str(trace))
    journal = Journal(scratch / "phases.sqlite", durable=False)
    clock = VirtualClock()
    loop = EventLoop(clock, lambda e: None)
    table = Table(config, journal, loop.call_at, clock.now, lambda body: None)
    loop.handler = table.handle
    t0 = time.perf_counter()
    loop.run_events(tr.events)
    journal.close()
    return parse_s, time.perf_counter() - t0


def _bare_commit_s(path: Path, n: int = 200) -> list[float]:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE r (seq INTEGER PRIMARY KEY, body TEXT, hash TEXT)")
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        db.execute("INSERT INTO r VALUES (?, ?, ?)", (i, "x" * 80, "h" * 64))
        times.append(time.perf_counter() - t0)
    db.close()
    return times


def bench_latency(scratch: Path) -> None:
    from controller.cli.main import _replay_realtime
    from controller.core.config import apply_overrides, load_config
    from controller.core.events import GpioEdge
    from controller.core.logs import configure
    from controller.core.table import Table
    from controller.store.journal import Journal
    from controller.trace import read_trace

    trace = scratch / "spins-3.jsonl"
    subprocess.run([BIN / "table-controller", "simulate", "--spins", "3", "--seed", "2",
                    "--out", trace], check=True)
    tr = read_trace(str(trace))
    config = apply_overrides(load_config(), tr.meta, str(trace))
    configure("warning")
    speed = 4.0
    latencies: list[float] = []
    original = Table.handle

    def timed(self: Table, event: Any) -> None:
        original(self, event)
        if isinstance(event, GpioEdge):
            clock_now = self.now()
            latencies.append((clock_now - event.t) / speed)

    Table.handle = timed  # type: ignore[method-assign]
    journal = Journal(scratch / "latency.sqlite", durable=True)
    try:
        _replay_realtime(config, tr, journal, speed, lambda body: None)
    finally:
        Table.handle = original  # type: ignore[method-assign]
        journal.close()
    bare = _bare_commit_s(scratch / "bare.sqlite")
    print(f"== 2. edge-to-commit latency, replay --realtime --speed {speed:g}, durable journal")
    print(f"   {len(latencies)} edges: p50 {_percentile(latencies, 50) * 1e3:.2f} ms, "
          f"p99 {_percentile(latencies, 99) * 1e3:.2f} ms")
    print(f"   bare SQLite insert+commit (WAL, synchronous=FULL), same run: "
          f"p50 {_percentile(bare, 50) * 1e3:.2f} ms, p99 {_percentile(bare, 99) * 1e3:.2f} ms")


_MEMORY_CHILD = r"""
import os, sys, tempfile
from dataclasses import replace
from controller.core.clock import VirtualClock
from controller.core.config import load_config
from controller.store.journal import Journal
from controller.core.logs import configure
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.games.roulette.simulation import daemon_events
from sim.daemon import SimulatorResume

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

config = load_config()
config = replace(config, simulator=replace(config.simulator, spins=1000))
configure("warning")
journal = Journal(os.path.join(sys.argv[1], "memory.sqlite"), durable=False)
clock = VirtualClock()
loop = EventLoop(clock, lambda e: None)
table = Table(config, journal, loop.call_at, clock.now)
loop.handler = table.handle
samples = {}
for batch in daemon_events(config, 0.0, SimulatorResume()):
    loop.run_events(batch)
    samples[table.game.game_number - 1] = rss_mb()
print(" ".join(f"{k}:{v:.1f}" for k, v in sorted(samples.items())))
"""


def bench_memory(scratch: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, scratch], capture_output=True,
                         text=True, check=True).stdout.split()
    samples = {int(k): float(v) for k, v in (item.split(":") for item in out)}
    first = min(k for k in samples if k >= 100)
    last = max(samples)
    print("== 3. resident memory of the controller (daemon code path: Table, spin tracker, "
          "state machine, journal; the simulator's spins in batches of 50, on trace time)")
    print(f"   after {first} spins: {samples[first]:.1f} MB; after {last} spins: "
          f"{samples[last]:.1f} MB (goal < 60 MB, no growth after the first 100)")
    print(f"   samples: {', '.join(f'{k}: {v:.1f}' for k, v in sorted(samples.items()))}")


def bench_shoe(scratch: Path) -> None:
    from controller.games.mini_baccarat.game import analyze
    from controller.protocols import make_codec

    lines = [f"[Game]<Card:{r}{s}>\r\n" for r in "A23456789TJQK" for s in "SHDC"] * 200
    data = "".join(lines).encode()
    codec = make_codec("reference")
    t0 = time.perf_counter()
    for i in range(0, len(data), 512):
        codec.feed(data[i:i + 512])
    dt = time.perf_counter() - t0
    line_rate = 9600 / 10 / (len(data) / len(lines))  # 8N1: 10 bits a byte
    print("== 4. card shoe")
    print(f"   codec: {len(lines) / dt:,.0f} lines/s; the 9600-baud line carries "
          f"{line_rate:.0f} lines/s ({len(lines) / dt / line_rate:,.0f} x headroom)")
    latency = _coup_latency(scratch)
    print(f"   coups concluded: {len(latency)} of {COUPS}")
    if latency:
        print(f"   last card of a coup to coup_result committed (durable journal): "
              f"p50 {_percentile(latency, 50) * 1e3:.2f} ms, "
              f"p99 {_percentile(latency, 99) * 1e3:.2f} ms over {len(latency)} coups")
    t0 = time.perf_counter()
    analyze(4, "draw")
    print(f"   exact 4-deck enumeration (analyze mini_baccarat --decks 4): "
          f"{time.perf_counter() - t0:.2f} s")


COUPS = 40
"""Coups of the simulated shoe in the coup latency figure."""


def _coup_latency(scratch: Path) -> list[float]:
    """Wall time from handing the last card of each coup to the table to its coup_result
    being committed, on a durable journal, over a simulated shoe: one figure per coup
    concluded (``COUPS`` when every bet was accepted)."""
    try:
        from controller.games.mini_baccarat.simulation import sim_config_from, simulate
    except ImportError:
        return []
    from controller.core.clock import VirtualClock
    from controller.core.config import load_config
    from controller.core.logs import configure
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.store.journal import Journal
    from controller.trace import trace_from_objects

    configure("warning")
    config = load_config("embedded:mini-baccarat-sim.toml")
    # The simulated bets follow the limits of the config the events are replayed under:
    # a bet under its minimum is refused, and the coup dealt for it never concludes.
    sim = sim_config_from(config, misread_rate=0, warning_rate=0)
    objects = simulate(COUPS, 5, sim).objects
    trace = trace_from_objects("bench", enumerate(objects, 1))
    journal = Journal(scratch / "coups.sqlite", durable=True)
    clock = VirtualClock()
    loop = EventLoop(clock, lambda e: None)
    results: list[float] = []
    started = [0.0]

    def sink(body: str) -> None:
        if '"type":"coup_result"' in body:
            results.append(time.perf_counter() - started[0])

    table = Table(config, journal, loop.call_at, clock.now, sink)

    def handle(event: Any) -> None:
        started[0] = time.perf_counter()
        table.handle(event)

    loop.handler = handle
    loop.run_events(trace.events)
    journal.close()
    return results


WHEEL_SPINS = 40
"""Spins of the simulated serial wheel in the state-5 latency figure."""


def bench_wheel(scratch: Path) -> None:
    from controller.protocols import make_codec

    lines = [f"*X;{s};{g:03d};{n:>2};0;{v:03d};{g % 2}\r" for g in range(250)
             for s, n, v in ((2, "7", 160), (3, "7", 158), (4, "7", 150), (5, "32", 149))]
    lines += ["32\r", "*P OK\r"] * 100
    data = "".join(lines).encode()
    codec = make_codec("status_line")
    t0 = time.perf_counter()
    for _ in range(10):
        for i in range(0, len(data), 512):
            codec.feed(data[i:i + 512])
    dt = (time.perf_counter() - t0) / 10
    line_rate = 9600 / 10 / (len(data) / len(lines))  # 8N1: 10 bits a byte
    print("== 5. serial wheel (status lines)")
    print(f"   codec: {len(lines) / dt:,.0f} lines/s; the 9600-baud line carries "
          f"{line_rate:.0f} lines/s ({len(lines) / dt / line_rate:,.0f} x headroom)")
    latency = _state5_latency(scratch)
    bare = _bare_commit_s(scratch / "bare-wheel.sqlite")
    print(f"   results: {len(latency)} of {WHEEL_SPINS} spins")
    if latency:
        print(f"   state-5 line to spin_result committed (durable journal): "
              f"p50 {_percentile(latency, 50) * 1e3:.2f} ms, "
              f"p99 {_percentile(latency, 99) * 1e3:.2f} ms over {len(latency)} spins")
    print(f"   bare SQLite insert+commit (WAL, synchronous=FULL), same run: "
          f"p50 {_percentile(bare, 50) * 1e3:.2f} ms, p99 {_percentile(bare, 99) * 1e3:.2f} ms")


def _state5_latency(scratch: Path) -> list[float]:
    """Wall time from handing the bytes that carry each spin's state-5 line to the table to
    its ``spin_result`` being committed, on a durable journal, over a simulated serial
    wheel (standard lines, every habit on): one figure per result."""
    from controller.core.clock import VirtualClock
    from controller.core.config import load_config
    from controller.core.logs import configure
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.games.roulette.simulation import simulate
    from controller.store.journal import Journal
    from controller.trace import trace_from_objects

    configure("error")  # the simulated wheel's habits are alarms: not printed here
    config = load_config(str(ROOT / "config" / "roulette-serial-sim.toml"))
    objects, _ = simulate(WHEEL_SPINS, 3, source="serial")
    trace = trace_from_objects("bench", enumerate(objects, 1), ("wheel",))
    journal = Journal(scratch / "wheel.sqlite", durable=True)
    clock = VirtualClock()
    loop = EventLoop(clock, lambda e: None)
    results: list[float] = []
    started = [0.0]

    def sink(body: str) -> None:
        if '"type":"spin_result"' in body:
            results.append(time.perf_counter() - started[0])

    table = Table(config, journal, loop.call_at, clock.now, sink)

    def handle(event: Any) -> None:
        started[0] = time.perf_counter()
        table.handle(event)

    loop.handler = handle
    loop.run_events(trace.events)
    journal.close()
    return results
def bench_poker() -> None:
    from controller.games.draw_poker.analysis import bare_enumeration, census

    hands, bare_s = bare_enumeration()
    result = census()
    print("== 6. draw poker: the census of five-card hands (tablectl analyze draw_poker)")
    print(f"   {result.hands:,} hands ranked by the table's code: {result.seconds:.2f} s; "
          f"the bare loop enumerating the {hands:,} hands: {bare_s:.2f} s "
          f"(ranking x{result.seconds / bare_s:.1f})")


def main() -> None:
    print(f"table-controller benchmarks on {os.uname().machine}, {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        scratch = Path(tmp)
        bench_replay(scratch)
        bench_latency(scratch)
        bench_memory(scratch)
        bench_shoe(scratch)
        bench_wheel(scratch)
        bench_poker()
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import ops

        ops.bench_ready(scratch)
        ops.bench_idle(scratch)
        ops.bench_growth(scratch)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(bench process peak RSS {peak:.0f} MB; figures vary with the machine's load)")


if __name__ == "__main__":
    main()
