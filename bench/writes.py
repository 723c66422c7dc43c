"""What each table's daemon writes to the SD card (issue 20, item 1): bytes and fsyncs.

Each table's daemon runs on its simulated table (the shipped ``*-sim`` config, the
simulator ``SPEED`` times faster than life) for ``RUN_S`` seconds of this machine's time.
The GPIO wheel's held spins park (``held_spin = "parks"``, as a serial wheel's do): a held
spin that stopped the table would leave the rest of the run to refused bets, not to games
(its simulator drives the pins on time, ``drivers/mock_pins.py``, so few are held now).
Each daemon runs in a folder of its own, on a new journal.
``*_bytes_*`` is the journal's growth (the database and its WAL, as issue 20's table) in
steady state: from a look at the journal a quarter into the run (past the start-up's
writes and its first pages; read only, beside the daemon) to its end, over the games
concluded in between; ``*_write_bytes_*`` what the daemon made the kernel put on the
disk, every file (journal, WAL, checkpoints): ``write_bytes`` of ``/proc/PID/io``, read
just before it is stopped, over the whole run's games, as the fsyncs are. SQLite writes whole
pages, so the second is many times the first: it is what wears a card. Fsyncs (fsync +
fdatasync) are counted by ``strace -f -c`` when strace is installed (Debian's
``strace``, in .ci/install-debian-packages.sh), else the daemon's commits (one fsync of
the WAL each) from its stop line. Games are the journal's conclusions (a spin's result,
void or hold, a coup's result). A busy day is hardware.md's: a game a minute for 16
hours; the serial wheel's lines come whatever the pace of its games, so its day is 16
hours of the journal's time (its records' ``t`` run at the simulator's speed), measured
from its first record to its last.

``measure()`` returns the figures (a dict: the keys below); ``main()`` prints them next to
the goals of issue 20's table. Run alone: ``.venv/bin/python bench/writes.py``.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ops import table_config

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RUN_S = float(os.environ.get("BENCH_WRITES_S", "40"))
SPEED = 50.0
DAY_S = 16 * 3600  # a busy day's hours of play
GAMES_PER_DAY = 60 * 16  # a game a minute for 16 hours
GAMES = ("spin_result", "spin_invalid", "spin_held", "coup_result")
TABLES = {  # name: (embedded config, what one game is)
    "daemon": ("default.toml", "spin"),
    "serial_wheel": ("roulette-serial-sim.toml", "game"),
    "card_table": ("mini-baccarat-sim.toml", "coup"),
}
GOALS = {  # key: (goal, at most), from issue 20's table
    "daemon_fsyncs_per_spin": 8.0,
    "daemon_bytes_per_spin": 5 * 1024.0,
    "serial_wheel_fsyncs_per_game": 10.0,
    "serial_wheel_bytes_per_day": 8 * 1024 * 1024.0,
}


def _config(scratch: Path, name: str, embedded: str) -> Path:
    """The shipped config, its journal and control socket in ``scratch``, ``SPEED``x; a
    held spin parks (see the module doc)."""
    config = table_config(scratch, name, embedded, SPEED)
    text = config.read_text()
    if "[roulette]\n" in text and "held_spin" not in text:
        config.write_text(text.replace("[roulette]\n", '[roulette]\nheld_spin = "parks"\n'))
    return config


def _empty_journal(scratch: Path) -> int:
    """The bytes of a journal with no record yet (its schema's pages)."""
    from controller.store.journal import Journal

    path = scratch / "empty" / "journal.sqlite"
    Journal(path).close()
    return sum(p.stat().st_size for p in path.parent.glob("journal.sqlite*"))


def _write_bytes(pid: int) -> int:
    """``write_bytes`` of ``/proc/PID/io``: bytes the process caused to go to storage."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/io has no write_bytes")


def _fsyncs(counts: Path) -> int:
    """fsync + fdatasync calls in an ``strace -c`` summary (its ``calls`` column)."""
    return sum(int(line.split()[3]) for line in counts.read_text().splitlines()
               if line.strip().endswith(("fsync", "fdatasync")))


def run_table(scratch: Path, name: str, run_s: float = RUN_S) -> dict[str, Any]:
    """One table's daemon for ``run_s`` seconds: games, bytes, fsyncs (see the module doc).

    Raises:
        RuntimeError: the daemon ended by itself, or made no game.
    """
    embedded, _ = TABLES[name]
    # A folder of its own: a journal another section left there is not this run's.
    scratch = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=scratch))
    config = _config(scratch, name, embedded)
    command = [str(BIN / "table-controller"), "run", "--config", str(config)]
    strace = shutil.which("strace")
    counts = scratch / f"{name}-strace.txt"
    if strace:
        command = [strace, "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(counts),
                   *command]
    log = scratch / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=scratch)
        time.sleep(run_s / 4)
        start = _snapshot(scratch / f"{name}.sqlite")  # past the start-up's writes
        time.sleep(run_s - run_s / 4)
        daemon = proc.pid
        if strace:  # the daemon is strace's child; SIGTERM to it ends strace too
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            daemon = int(children[0]) if children else proc.pid
        if proc.poll() is not None:
            raise RuntimeError(f"{name}: the daemon ended by itself (see {log})")
        written = _write_bytes(daemon)
        os.kill(daemon, signal.SIGTERM)
        proc.wait(timeout=60)
    end = _snapshot(scratch / f"{name}.sqlite")
    if end is None or not end[1]:
        raise RuntimeError(f"{name}: no game in {run_s:.0f} s (see {log})")
    if start is None or not start[1]:  # no game yet: from the empty journal
        start = (_empty_journal(scratch), 0, end[3], end[4])
    games, records = end[1] - start[1], end[2]
    journal = end[0] - start[0]
    commits = next((int(line.split("commits=")[1].split()[0]) for line in log.open()
                    if "commits=" in line), 0)
    syncs = _fsyncs(counts) if strace and counts.exists() else commits
    return {"games": games, "all_games": end[1], "records": records, "write_bytes": written,
            "journal": journal, "fsyncs": syncs, "strace": bool(strace),
            "simulated_s": end[3] - start[3], "all_simulated_s": end[3] - end[4]}


def _snapshot(path: Path) -> tuple[int, int, int, float, float] | None:
    """The journal as its daemon has committed it so far (read only, beside the daemon):
    its size (pages x page size, the WAL's frames included), its games, its records and
    the times of its last and first records (journal time, s); None before it exists."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            size = (db.execute("PRAGMA page_count").fetchone()[0]
                    * db.execute("PRAGMA page_size").fetchone()[0])
            marks = ",".join("?" * len(GAMES))
            games = db.execute(f"SELECT count(*) FROM records WHERE type IN ({marks})",
                               GAMES).fetchone()[0]
            records, first_t, last_t = db.execute(
                "SELECT count(*), min(t), max(t) FROM records").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return size, games, records, last_t or 0.0, first_t or 0.0


def measure(scratch: Path, run_s: float = RUN_S) -> dict[str, float]:
    """Every table's figures, with at least the keys of issue 20's bench JSON."""
    gpio = run_table(scratch, "daemon", run_s)
    wheel = run_table(scratch, "serial_wheel", run_s)
    cards = run_table(scratch, "card_table", run_s)
    day = wheel["simulated_s"] / DAY_S  # the share of a day the wheel's window was
    whole_day = wheel["all_simulated_s"] / DAY_S  # ... and its whole run
    return {
        "daemon_spins": gpio["all_games"],
        "serial_wheel_games": wheel["all_games"],
        "card_table_coups": cards["all_games"],
        "daemon_fsyncs_per_spin": gpio["fsyncs"] / gpio["all_games"],
        "daemon_bytes_per_spin": gpio["journal"] / gpio["games"],
        "daemon_write_bytes_per_spin": gpio["write_bytes"] / gpio["all_games"],
        "daemon_write_bytes_per_day": gpio["write_bytes"] / gpio["all_games"] * GAMES_PER_DAY,
        "serial_wheel_fsyncs_per_game": wheel["fsyncs"] / wheel["all_games"],
        "serial_wheel_bytes_per_day": wheel["journal"] / day,
        "serial_wheel_write_bytes_per_game": wheel["write_bytes"] / wheel["all_games"],
        "serial_wheel_write_bytes_per_day": wheel["write_bytes"] / whole_day,
        "card_table_fsyncs_per_coup": cards["fsyncs"] / cards["all_games"],
        "card_table_bytes_per_coup": cards["journal"] / cards["games"],
        "card_table_write_bytes_per_coup": cards["write_bytes"] / cards["all_games"],
        "card_table_write_bytes_per_day": (cards["write_bytes"] / cards["all_games"]
                                           * GAMES_PER_DAY),
    }


def _shown(key: str, value: float) -> str:
    text = f"{value / 1024 / 1024:.1f} MB" if "per_day" in key else (
        f"{value / 1024:.1f} KB" if "bytes" in key else
        f"{value:.0f}" if "per_" not in key else f"{value:.1f}")
    goal = GOALS.get(key)
    if goal is None:
        return f"   {key}: {text}"
    limit = f"{goal / 1024 / 1024:.0f} MB" if "per_day" in key else (
        f"{goal / 1024:.0f} KB" if "bytes" in key else f"{goal:g}")
    return f"   {key}: {text} (goal <= {limit}: {'met' if value <= goal else 'NOT met'})"


def bench_writes(run: Any) -> None:
    """The bench's ``writes`` section: every table's figures, kept in ``run``."""
    figures = measure(run.scratch)
    for key, value in figures.items():
        if key not in run.figures:  # the daemon section's GPIO figures win
            run.figure(key, value)
    _print(figures)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-writes-") as tmp:
        _print(measure(Path(tmp)))


def _print(figures: dict[str, float]) -> None:
    how = "strace -f -c" if shutil.which("strace") else "commits (strace not installed)"
    print(f"== writes: each table's daemon, simulated at {SPEED:g}x for {RUN_S:g} s "
          f"(bytes: /proc/PID/io write_bytes; fsyncs: {how})")
    for key, value in figures.items():
        print(_shown(key, value))


if __name__ == "__main__":
    main()
