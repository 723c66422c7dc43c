"""Benchmarks of issue 11 (operations), printed by ``make bench`` (bench/bench.py, 7-9;
6 is draw poker's, issue 10).

7. Start to ``READY=1``: the daemon started as systemd starts it (``NOTIFY_SOCKET`` a fake
   notify socket, the unit's ``WATCHDOG_USEC``), from the exec to the READY datagram.
8. Idle CPU over ``IDLE_S`` seconds of two idle daemons side by side, the simulator off:
   a GPIO roulette table (mock pins) and a Mini-Bacará table whose shoe is a
   pseudo-terminal nobody writes. CPU from ``/proc/PID/stat``, wake-ups from each thread's
   context switches (``/proc/PID/task/*/status``). It must not poll: aim under 0.5 %.
9. Journal growth: bytes a simulated busy table adds per spin and per coup (the journal of
   a replay of simulated games, every GPIO edge and shoe byte in it), and per day at a
   busy table's pace.
"""

from __future__ import annotations

import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
IDLE_S = float(os.environ.get("BENCH_IDLE_S", "60"))
WATCHDOG_USEC = "10000000"  # the unit's WatchdogSec=10
SPINS_PER_DAY = 60 * 16  # a busy roulette table (hardware.md §9): a spin a minute, 16 hours
COUPS_PER_DAY = 60 * 16  # a busy Mini-Bacará table: a coup a minute, 16 hours


def table_config(scratch: Path, name: str, embedded: str, speed: float | None = None
                 ) -> Path:
    """An embedded config, its journal and socket in ``scratch``: with ``speed``, its
    simulator on at that speed; else the simulator off."""
    text = (ROOT / "controller" / "data" / embedded).read_text()
    if speed is None:
        text = text.replace("enabled = true", "enabled = false")
    else:
        text = re.sub(r"^speed = 1\.0$", f"speed = {speed}", text, flags=re.M)
    text = re.sub(r'^path = ".*"$', f'path = "{scratch / name}.sqlite"', text, flags=re.M)
    socket_line = f'socket = "{scratch / name}.sock"'
    if re.search(r"^socket = ", text, flags=re.M):
        text = re.sub(r'^socket = ".*"$', socket_line, text, flags=re.M)
    else:
        text += f"\n[control]\n{socket_line}\n"
    config = scratch / f"{name}.toml"
    config.write_text(text)
    return config


class _Notify:
    """A fake notify socket (abstract namespace) that waits for READY=1."""

    def __init__(self, name: str) -> None:
        self.address = f"@table-controller-bench-{os.getpid()}-{name}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + self.address[1:])

    def ready(self, limit_s: float = 60.0) -> bool:
        """Wait for READY=1, then go on reading as systemd does (on a thread)."""
        self.sock.settimeout(limit_s)
        try:
            while not self.sock.recv(4096).startswith(b"READY=1"):
                pass
        except TimeoutError:
            return False
        self.sock.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()
        return True

    def _read(self) -> None:
        try:
            while self.sock.recv(4096):
                pass
        except OSError:
            return  # closed


def _start(config: Path, name: str) -> tuple[subprocess.Popen[bytes], float, _Notify]:
    notify = _Notify(name)
    env = {**os.environ, "NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": WATCHDOG_USEC,
           "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([BIN / "table-controller", "run", "--config", config],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not notify.ready():
        proc.terminate()
        raise RuntimeError(f"{name}: no READY=1 within a minute")
    return proc, time.perf_counter() - t0, notify


def _stop(proc: subprocess.Popen[bytes], notify: _Notify) -> None:
    proc.terminate()
    proc.wait(timeout=30)
    notify.sock.close()


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _switches(pid: int) -> int:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                total += int(line.split()[1])
    return total


def bench_ready(scratch: Path) -> None:
    config = table_config(scratch, "ready", "default.toml")
    times = []
    for i in range(3):
        proc, took, notify = _start(config, f"ready{i}")
        times.append(took)
        _stop(proc, notify)
    print("== ready: start to READY=1 (GPIO roulette on mock pins, fake notify socket; the "
          "journal verified first)")
    print(f"   median {statistics.median(times):.2f} s, slowest {max(times):.2f} s "
          f"over {len(times)} starts (a Pi 4 is about 5x slower)")


def bench_idle(scratch: Path) -> None:
    master, slave = os.openpty()
    tables = {
        "GPIO roulette (mock pins)": table_config(scratch, "idle-gpio", "default.toml"),
        "Mini-Bacará (shoe on a pty)": table_config(scratch, "idle-shoe",
                                               "mini-baccarat-sim.toml"),
    }
    shoe = tables["Mini-Bacará (shoe on a pty)"]
    shoe.write_text(shoe.read_text().replace('url = "loop://"', f'url = "{os.ttyname(slave)}"'))
    running = {label: _start(config, f"idle{i}") for i, (label, config)
               in enumerate(tables.items())}
    time.sleep(1.0)  # past the start
    before = {label: (_cpu_s(p.pid), _switches(p.pid)) for label, (p, _, _) in running.items()}
    t0 = time.perf_counter()
    time.sleep(IDLE_S)
    span = time.perf_counter() - t0
    after = {label: (_cpu_s(p.pid), _switches(p.pid)) for label, (p, _, _) in running.items()}
    for proc, _, notify in running.values():
        _stop(proc, notify)
    os.close(master)
    os.close(slave)
    print(f"== idle: idle CPU over {span:.0f} s (no simulator, watchdog on as under the unit; "
          "goal < 0.5 %)")
    for label in tables:
        cpu = after[label][0] - before[label][0]
        wakes = after[label][1] - before[label][1]
        print(f"   {label}: {100 * cpu / span:.3f} % CPU, {wakes / span:.1f} wake-ups/s "
              "(context switches of all its threads)")


def bench_growth(scratch: Path) -> None:
    sizes = {}
    for kind, args in (("spin", ["--spins", "300"]),
                       ("coup", ["--table", "mini_baccarat", "--coups", "300"])):
        trace = scratch / f"growth-{kind}.jsonl"
        journal = scratch / f"growth-{kind}.sqlite"
        subprocess.run([BIN / "table-controller", "simulate", *args, "--seed", "5", "--out",
                        trace], check=True)
        subprocess.run([BIN / "table-controller", "replay", trace, "--journal", journal],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sizes[kind] = journal.stat().st_size / 300
    print("== growth: journal growth (replays of 300 simulated spins and coups into a journal: "
          "decision records, evidence batches, checkpoints)")
    print(f"   roulette: {sizes['spin'] / 1024:.1f} KiB a spin (edges in evidence batches); "
          f"{SPINS_PER_DAY} spins a day: {sizes['spin'] * SPINS_PER_DAY / 2**20:.0f} MiB a "
          f"day, {sizes['spin'] * SPINS_PER_DAY * 365 / 2**30:.1f} GiB a year")
    print(f"   Mini-Bacará: {sizes['coup'] / 1024:.1f} KiB a coup; {COUPS_PER_DAY} coups a "
          f"day: {sizes['coup'] * COUPS_PER_DAY / 2**20:.0f} MiB a day, "
          f"{sizes['coup'] * COUPS_PER_DAY * 365 / 2**30:.1f} GiB a year")
