"""Benchmarks of issues 2 (roulette), 3 (card shoe) and 8 (the journal), printed as figures.

Run with ``make bench``. Nothing here asserts a time: it measures and prints, in one run,
each figure next to its goal (issue 8) and the reference it is measured against.

1. Replay throughput (bench/replay_bench.py): a 1,000-spin simulated trace through
   ``table-controller replay``
   (edges per second of the whole command), the controller's time against the time to
   read and check the trace (goal: at most 3×; CPU times printed beside), every spin
   accounted for, ``verify --full``.
2. Decision to commit on a durable journal (WAL, synchronous=FULL): each input that
   journals records, from its arrival to its transaction committed, against a bare SQLite
   synchronous=FULL commit measured in the same run (goal: p99 at most 1.5×).
3. The daemon (simulated table): fsyncs per spin (strace, else commits) and journal bytes
   per spin (goals: at most 8 and 5 KB; measured as bench/writes.py does).
4. Time to ready and peak memory at start, on journals of 10,000 and 1,000,000 records
   (roulette) and of 200 and 6,000 coups (Mini-Bacará) (goal: the large within 1.5×); on
   the million records, the CPU of the tools' check of the type index against that of
   ``tablectl status``'s own reading.
5. Resident memory of the controller after 100 and after 1,000 simulated spins.
6. Card shoe: codec lines per second against the 9600-baud line rate; last card of a coup
   to its ``coup_result`` committed (goal: p99 at most 2× the bare commit); the exact 4-deck
   enumeration.
7. Serial wheel (issue 12): status-line codec lines per second against the 9600-baud line
   rate; the state-5 line to its ``spin_result`` committed on a durable journal (p50, p99),
   next to a bare SQLite synchronous=FULL commit measured in the same run.
8. Draw poker (issue 10): the census of the 2,598,960 five-card hands through the table's
   ranking code, next to a bare loop that only enumerates them, in the same run.
7-9. Operations (issue 11, bench/ops.py): start to
   ``READY=1``; idle CPU and wake-ups of the daemon over 60 s (``BENCH_IDLE_S``); journal
   growth per spin, coup and day.
10. The table's screen (issue 17, bench/display_bench.py): commit to page in Chromium
   (p50, p99; goal p99 at most 250 ms), the display's memory over a day's journal (at
   most 80 MB, flat), its idle CPU (under 1 %), the first paint of ``/`` (at most 1 s).
12. ``tablectl stats`` (issue 21, bench/stats_bench.py) over 100,000 spins: wall time and
   peak memory (goals: at most 5 s and 100 MB); the pit page's redraw after one result.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(ROOT / "bench"))

from harness import Fitted, Run, Section, choose, met, write_json  # noqa: E402


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def _ms(values: list[float]) -> str:
    return (f"p50 {_percentile(values, 50) * 1e3:.2f} ms, p99 {_percentile(values, 99) * 1e3:.2f}"
            f" ms over {len(values)}")


def _bare_commit_s(path: Path, n: int = 300) -> list[float]:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE r (seq INTEGER PRIMARY KEY, body TEXT, hash TEXT)")
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        db.execute("INSERT INTO r VALUES (?, ?, ?)", (i, "x" * 200, "h" * 64))
        times.append(time.perf_counter() - t0)
    db.close()
    return times


def _timed_handle(table: Any, journal: Any, decided: list[float], handled: list[float],
                  written: list[float]) -> Any:
    """The table's ``handle``, timed for each input that committed a transaction: from its
    first record (the decision) to its commit in ``decided``, from the input's arrival to
    its commit in ``handled``, its SQLite transaction alone in ``written``."""
    def handle(event: Any) -> Any:
        commits = journal.commits
        t0 = time.perf_counter()
        result = table.handle(event)
        if journal.commits != commits:
            handled.append(time.perf_counter() - t0)
            decided.append(journal.last_commit_s)
            written.append(journal.last_write_s)
        return result

    return handle


def bench_commit(run: Run) -> None:
    """Decision to commit on a durable journal, against the bare commits of this run."""
    scratch = run.scratch
    from controller.cli.compose import compose, load_config, read_trace
    from controller.core.clock import VirtualClock
    from controller.core.config import apply_overrides
    from controller.core.logs import configure
    from controller.store.journal import Journal

    trace = scratch / "spins-60.jsonl"
    subprocess.run([BIN / "table-controller", "simulate", "--spins", "60", "--seed", "2",
                    "--out", trace], check=True)
    tr = read_trace(str(trace))
    config = apply_overrides(load_config(), tr.meta, str(trace))
    configure("error")
    journal = Journal(scratch / "commit.sqlite", durable=True)
    loop, table = compose(config, journal, VirtualClock())
    decisions: list[float] = []
    handled: list[float] = []
    written: list[float] = []
    loop.handler = _timed_handle(table, journal, decisions, handled, written)
    loop.run_events(tr.events)
    journal.close()
    bare = run.bare_commits(_bare_commit_s)
    print("== commit: decision to commit, durable journal (WAL, synchronous=FULL), 60 spins")
    print(f"   each input that journals records, its first record (the decision) to its "
          f"commit: {_ms(decisions)}")
    print(f"   of which the SQLite transaction alone (BEGIN to COMMIT, one fsync): "
          f"{_ms(written)}; its arrival to its commit: {_ms(handled)}")
    print(f"   bare SQLite insert+commit, same run: {_ms(bare)}")
    ratio = _percentile(decisions, 99) / _percentile(bare, 99)
    run.figure("decision_commit_p99_over_bare", ratio)
    print(f"   p99 {ratio:.2f}x the bare commit's (goal at most 1.5x: {met(ratio <= 1.5)})")


def bench_daemon(run: Run) -> None:
    """The daemon on its simulated roulette table, ``writes.SPEED`` times faster than life,
    for ``writes.RUN_S`` seconds (40, or ``BENCH_WRITES_S``), measured as the writes
    section measures it (bench/writes.py: held spins park and count, fsyncs by strace when
    installed): fsyncs and journal bytes per spin."""
    import writes

    got = writes.run_table(run.scratch, "daemon")
    spins = got["all_games"]
    syncs, size = got["fsyncs"] / spins, got["journal"] / got["games"]
    how = "strace: fsync + fdatasync" if got["strace"] else "commits, strace not installed"
    print(f"== daemon: the daemon: simulated roulette at {writes.SPEED:g}x for "
          f"{writes.RUN_S:g} s: {spins} spins, "
          f"{got['records']} records")
    run.figure("daemon_fsyncs_per_spin", syncs)
    print(f"   fsyncs ({how}): {got['fsyncs']} = {syncs:.1f} a spin "
          f"(goal at most 8: {met(syncs <= 8)})")
    run.figure("daemon_journal_bytes_per_spin", size)
    print(f"   journal: {got['journal'] / 1024:.0f} KB over the last {got['games']} spins = "
          f"{size / 1024:.1f} KB a spin "
          f"(goal at most 5 KB: {met(size <= 5 * 1024)})")


def bench_start(run: Run) -> None:
    scratch = run.scratch
    """Time to ready and peak memory at start on short and long journals."""
    from journals import tile, time_to_ready

    print("== start: time to ready and peak memory at start (a fresh process: open, verify "
          "from the last checkpoint, recover; the median of 5 starts)")
    base = scratch / "start-roulette.sqlite"
    trace = scratch / "spins-300.jsonl"
    subprocess.run([BIN / "table-controller", "simulate", "--spins", "300", "--seed", "4",
                    "--out", trace], check=True)
    subprocess.run([BIN / "table-controller", "replay", trace, "--journal", base],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    coups = scratch / "coups-200.jsonl"
    subprocess.run([BIN / "table-controller", "simulate", "--table", "mini_baccarat", "--coups",
                    "200", "--seed", "4", "--out", coups], check=True)
    mini = scratch / "start-mini.sqlite"
    subprocess.run([BIN / "table-controller", "replay", coups, "--journal", mini],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    per_copy = sqlite3.connect(mini).execute("SELECT count(*) FROM records").fetchone()[0]
    cases = (("roulette", base, 10_000, 1_000_000, "embedded:default.toml", "records"),
             ("Mini-Bacará", mini, per_copy, 30 * per_copy, "embedded:mini-baccarat-sim.toml",
              "coups"))
    for name, source, small_n, large_n, config, unit in cases:
        figures = []
        for n in (small_n, large_n):
            path = scratch / f"{source.stem}-{n}.sqlite"
            held = tile(source, path, n)
            figures.append((held, time_to_ready(path, config)))
            if unit == "records" and n == large_n:
                _print_index_check(path, config, held)
        (_, a), (_, b) = figures
        label = ((lambda n: f"{n:,} records") if unit == "records"
                 else (lambda n: f"{200 * n // per_copy:,} coups ({n:,} records)"))
        for n, f in figures:
            print(f"   {name}, {label(n)}: ready in {f['ready_s'] * 1e3:.0f} ms, peak "
                  f"{f['peak_mb']:.1f} MB (imports done: {f['before_mb']:.1f} MB)")
        time_ok = b["ready_s"] <= 1.5 * a["ready_s"]
        mem_ok = b["peak_mb"] <= 1.5 * a["peak_mb"]
        print(f"   {name}: the large {b['ready_s'] / a['ready_s']:.2f}x the time, "
              f"{b['peak_mb'] / a['peak_mb']:.2f}x the memory (goal within 1.5x: time "
              f"{met(time_ok)}, memory {met(mem_ok)})")
        for n, _ in figures:
            (scratch / f"{source.stem}-{n}.sqlite").unlink(missing_ok=True)
            (scratch / f"{source.stem}-{n}-start.sqlite").unlink(missing_ok=True)


def _print_index_check(journal: Path, config: str, records: int) -> None:
    """What the tools' check of the type index costs on a long journal (finding 7)."""
    from journals import index_check_cost

    check, answer = index_check_cost(journal, config)
    print(f"   tools' type-index check, {records:,} records: {check * 1e3:.1f} ms CPU, "
          f"{check / answer:.2f}x `tablectl status`'s own reading after it "
          f"({answer * 1e3:.1f} ms; the median of 5)")


_MEMORY_CHILD = r"""
import os, sys, tempfile
from dataclasses import replace
from controller.core.clock import VirtualClock
from controller.cli.compose import load_config
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
configure("error")  # the simulated faults are alarms at warning level: not the figures
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


_FLAT_MB = 0.5  # what the last third of the spins may add: the allocator's noise


def bench_memory(run: Run) -> None:
    scratch = run.scratch
    out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, scratch], capture_output=True,
                         text=True, check=True).stdout.split()
    samples = {int(k): float(v) for k, v in (item.split(":") for item in out)}
    first = min(k for k in samples if k >= 100)
    last = max(samples)
    print("== memory: resident memory of the controller (daemon code path: Table, spin tracker, "
          "state machine, journal; the simulator's spins in batches of 50, on trace time)")
    peak = max(v for k, v in samples.items() if k >= first)
    third = min(k for k in samples if k >= last * 2 // 3)
    late = max(samples[k] for k in samples if k >= third) - samples[third]
    run.figure("memory_peak_mb", peak)
    run.figure("memory_growth_last_third_mb", late)
    print(f"   after {first} spins: {samples[first]:.1f} MB; after {last} spins: "
          f"{samples[last]:.1f} MB; the most after {first}: {peak:.1f} MB (SQLite's page "
          "cache, 2 MB, fills meanwhile)")
    print(f"   goal under 60 MB: {met(peak < 60)}; flat: the last third of the spins "
          f"({third} on) added {late:+.1f} MB (at most {_FLAT_MB:g}: {met(late <= _FLAT_MB)})")


def bench_shoe(run: Run) -> None:
    scratch = run.scratch
    bare = run.bare_commits(_bare_commit_s)
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
    print("== shoe: card shoe")
    print(f"   codec: {len(lines) / dt:,.0f} lines/s; the 9600-baud line carries "
          f"{line_rate:.0f} lines/s ({len(lines) / dt / line_rate:,.0f} x headroom)")
    latency = _coup_latency(scratch)
    print(f"   coups concluded: {len(latency)} of {COUPS}")
    if latency:
        ratio = _percentile(latency, 99) / _percentile(bare, 99)
        print(f"   last card of a coup to its coup_result committed (durable journal): "
              f"{_ms(latency)} coups; p99 {ratio:.2f}x the bare commit's of section 2 (goal "
              f"at most 2x: {met(ratio <= 2)})")
    t0 = time.perf_counter()
    analyze(4, "draw")
    print(f"   exact 4-deck enumeration (analyze mini_baccarat --decks 4): "
          f"{time.perf_counter() - t0:.2f} s")


COUPS = 100
"""Coups of the simulated shoe in the coup latency figure."""


def _coup_latency(scratch: Path) -> list[float]:
    """Wall time from handing the last card of each coup to the table to its coup_result
    being committed, on a durable journal, over a simulated shoe: one figure per coup
    concluded (``COUPS`` when every bet was accepted)."""
    try:
        from controller.games.mini_baccarat.simulation import sim_config_from, simulate
    except ImportError:
        return []
    from controller.cli.compose import load_config
    from controller.core.clock import VirtualClock
    from controller.core.logs import configure
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.store.journal import Journal
    from controller.trace import trace_from_objects

    configure("error")
    config = load_config("embedded:mini-baccarat-sim.toml")
    # The simulated bets follow the limits of the config the events are replayed under:
    # a bet under its minimum is refused, and the coup dealt for it never concludes.
    sim = sim_config_from(config, misread_rate=0, warning_rate=0)
    objects = simulate(COUPS, 5, sim).objects
    trace = trace_from_objects("bench", enumerate(objects, 1), config.games)
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


def bench_wheel(run: Run) -> None:
    scratch = run.scratch
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
    print("== wheel: serial wheel (status lines)")
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
    from controller.cli.compose import load_config
    from controller.core.clock import VirtualClock
    from controller.core.logs import configure
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.games.roulette.simulation import simulate
    from controller.store.journal import Journal
    from controller.trace import trace_from_objects

    configure("error")  # the simulated wheel's habits are alarms: not printed here
    config = load_config(str(ROOT / "config" / "roulette-serial-sim.toml"))
    objects, _ = simulate(WHEEL_SPINS, 3, source="serial")
    trace = trace_from_objects("bench", enumerate(objects, 1), config.games, ("wheel",))
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
def bench_poker(run: Run) -> None:
    from controller.games.draw_poker.analysis import bare_enumeration, census

    hands, bare_s = bare_enumeration()
    result = census()
    print("== poker: draw poker: the census of five-card hands (tablectl analyze draw_poker)")
    print(f"   {result.hands:,} hands ranked by the table's code: {result.seconds:.2f} s; "
          f"the bare loop enumerating the {hands:,} hands: {bare_s:.2f} s "
          f"(ranking x{result.seconds / bare_s:.1f})")


def sections() -> dict[str, Section]:
    """Every section, by the name its heading gives, in the order a whole run takes."""
    import display_bench
    import floor
    import ops
    import replay_bench
    import sd
    import stats_bench
    import writes

    return {
        "replay": replay_bench.bench_replay, "commit": bench_commit, "daemon": bench_daemon,
        "start": bench_start, "memory": bench_memory, "shoe": bench_shoe,
        "wheel": bench_wheel, "poker": bench_poker,
        "ready": lambda run: ops.bench_ready(run.scratch),
        "idle": lambda run: ops.bench_idle(run.scratch),
        "growth": lambda run: ops.bench_growth(run.scratch),
        "stats": lambda run: stats_bench.bench_stats(run.scratch),
        "display": lambda run: display_bench.bench_display(run.scratch),
        "writes": writes.bench_writes,
        "floor": lambda run: floor.bench_floor(run.scratch),
        "verify": sd.bench_verify_memory, "replay-memory": sd.bench_replay_memory,
        "replay-vs-base": sd.bench_replay_vs_base,
        "pi": sd.bench_pi,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Throughput, latency, memory and write "
                                     "figures of this machine, each next to its goal.")
    parser.add_argument("--only", metavar="NAME[,NAME]",
                        help="run only these sections (the names in their headings)")
    parser.add_argument("--json", metavar="FILE", type=Path,
                        help="also write every figure as JSON to FILE")
    args = parser.parse_args(argv)
    sys.stdout = Fitted(sys.stdout)  # the figures fit an 80-column terminal
    every = sections()
    chosen = choose(every, args.only)
    print(f"table-controller benchmarks on {os.uname().machine}, {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]}; sections: {', '.join(chosen)}")
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        run = Run(Path(tmp))
        for name in chosen:
            every[name](run)
            sys.stdout.flush()
        if args.json is not None:
            write_json(args.json, run)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(bench process peak RSS {peak:.0f} MB; figures vary with the machine's load)")


if __name__ == "__main__":
    main()
