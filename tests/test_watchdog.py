"""What systemd is told (``Type=notify``): READY=1 once started, a status line a person can
read, WATCHDOG=1 only while every component is alive and the event loop turns, STOPPING=1
on stop; a fake notify socket (a Unix datagram socket) stands in for systemd."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli.daemon.health import StatusLine, Supervisor
from controller.cli.daemon.lifecycle import Hooks, Lifecycle
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.loop import EventLoop
from controller.store.shared import Shutdown
from drivers.notify import Notifier

REPO = Path(__file__).resolve().parents[1]
DEFAULT = (REPO / "controller/data/default.toml").read_text()
INTERVAL_S = 10.0  # the unit's WatchdogSec


class FakeSystemd:
    """A notify socket in the abstract namespace (no path-length limit) that records what
    it receives."""

    def __init__(self, name: str) -> None:
        self.address = f"@table-controller-test-{os.getpid()}-{name}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + self.address[1:])
        self.sock.setblocking(False)

    def received(self) -> list[str]:
        """Every datagram sent since the last call."""
        got = []
        while True:
            try:
                got.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return got


@pytest.fixture
def systemd(request: pytest.FixtureRequest) -> Iterator[FakeSystemd]:
    fake = FakeSystemd(request.node.name[-40:])
    yield fake
    fake.sock.close()


class Daemon:
    """A Supervisor over a loop on trace time, a component that can die, a real Notifier
    on the fake socket and an injected monotonic clock (no sleeps)."""

    def __init__(self, systemd: FakeSystemd) -> None:
        self.clock = VirtualClock(100.0)
        self.loop = EventLoop(self.clock, lambda e: None)
        self.real = [1000.0]  # monotonic seconds
        self.shoe_alive = True
        self.lifecycle = Lifecycle()
        self.lifecycle.add("shoe port", Hooks(is_alive=lambda: self.shoe_alive))
        self.state = "closed"
        spec = registry.spec("roulette")
        self.status = StatusLine("roulette-1", spec, lambda: self.state, None)
        manager = Notifier({"NOTIFY_SOCKET": systemd.address,
                            "WATCHDOG_USEC": str(int(INTERVAL_S * 1e6))})
        self.supervisor = Supervisor(manager, self.lifecycle, self.loop.call_at, self.clock,
                                     self.status, monotonic=lambda: self.real[0])
        self.lifecycle.add("systemd", self.supervisor)
        # The watchdog thread is not started here: the tests run its rounds (check()).
        self.supervisor.ping_s = None
        self.lifecycle.start()

    def run(self, seconds: float) -> None:
        """Time passes: the loop turns (its timers fire) and real time moves the same."""
        self.real[0] += seconds
        self.clock.set(self.clock.now() + seconds)
        self.loop.run_timers_until(self.clock.now())


@pytest.fixture
def daemon(systemd: FakeSystemd) -> Daemon:
    daemon = Daemon(systemd)
    daemon.supervisor._heartbeat()  # as start() arms it when the watchdog thread runs
    return daemon


def test_ready_with_the_status_once_every_component_started(systemd: FakeSystemd,
                                                            daemon: Daemon) -> None:
    assert systemd.received() == [
        "READY=1\nSTATUS=roulette-1 (Roulette): closed; no spin yet; no alarm since start"]


def test_watchdog_sent_while_every_component_is_alive_and_the_loop_turns(
        systemd: FakeSystemd, daemon: Daemon) -> None:
    systemd.received()
    for _ in range(3):
        daemon.run(INTERVAL_S / 2)
        assert daemon.supervisor.check()
    assert systemd.received() == ["WATCHDOG=1"] * 3


def test_watchdog_stops_when_a_component_dies_and_the_status_says_why(
        systemd: FakeSystemd, daemon: Daemon) -> None:
    systemd.received()
    daemon.shoe_alive = False
    daemon.run(INTERVAL_S / 2)
    assert not daemon.supervisor.check()
    daemon.run(INTERVAL_S / 2)
    assert not daemon.supervisor.check()
    assert systemd.received() == [  # said once, and no WATCHDOG=1
        "STATUS=UNHEALTHY (not alive: shoe port); roulette-1 (Roulette): closed; no spin "
        "yet; no alarm since start"]
    daemon.shoe_alive = True
    assert daemon.supervisor.check()
    assert systemd.received() == [
        "STATUS=roulette-1 (Roulette): closed; no spin yet; no alarm since start",
        "WATCHDOG=1"]


def test_a_component_whose_health_check_fails_counts_as_dead(systemd: FakeSystemd,
                                                             daemon: Daemon) -> None:
    def broken() -> bool:
        raise OSError("the port vanished")

    daemon.lifecycle.started.insert(0, ("shoe reader", Hooks(is_alive=broken)))
    systemd.received()
    assert not daemon.supervisor.check()
    (status,) = systemd.received()
    assert status.startswith("STATUS=UNHEALTHY (a component's health check failed: the port "
                             "vanished)")


def test_watchdog_stops_when_the_event_loop_does_not_turn(systemd: FakeSystemd,
                                                          daemon: Daemon) -> None:
    systemd.received()
    daemon.real[0] += INTERVAL_S / 2 + 0.1  # real time passes, the loop's timers do not run
    assert not daemon.supervisor.check()
    (status,) = systemd.received()
    assert status.startswith("STATUS=UNHEALTHY (the event loop has not turned for 5.1 s)")
    daemon.run(INTERVAL_S / 4)  # the loop turns again: its heartbeat timer stamps the time
    assert daemon.supervisor.check()
    assert systemd.received()[-1] == "WATCHDOG=1"


def test_stopping_then_no_watchdog(systemd: FakeSystemd, daemon: Daemon) -> None:
    systemd.received()
    daemon.supervisor.stopping("SIGTERM")
    daemon.run(INTERVAL_S / 2)
    assert not daemon.supervisor.check()
    daemon.lifecycle.stop()
    assert systemd.received() == ["STOPPING=1\nSTATUS=stopping: SIGTERM"]


def test_status_follows_the_table_at_most_once_a_second(systemd: FakeSystemd,
                                                        daemon: Daemon) -> None:
    systemd.received()
    sup = daemon.supervisor
    daemon.state = "bets_open"
    sup.observe({"type": "state", "from": "closed", "to": "bets_open"})
    daemon.run(0.5)
    assert systemd.received() == []  # READY=1 went out less than a second ago
    daemon.run(0.5)
    assert systemd.received() == [
        "STATUS=roulette-1 (Roulette): bets_open; no spin yet; no alarm since start"]
    daemon.state = "settled"
    sup.observe({"type": "spin_result", "spin": 1, "number": "17", "ball_revolutions": 12,
                 "ball_direction": "ccw", "rotor_direction": "cw", "rotor_rpm": 20.5})
    sup.observe({"type": "alarm", "code": "sensor_fault", "message": "rotor_b missed"})
    sup.observe({"type": "alarm", "code": "clock_step", "message": "+2 s"})
    daemon.run(1.0)
    assert systemd.received() == [
        "STATUS=roulette-1 (Roulette): settled; last spin 1: 17 (12 ball revolutions, ball "
        "ccw, rotor cw at 20.5 rpm); 2 alarms since start, last clock_step"]
    sup.observe({"type": "bet", "box": 1})  # nothing the status shows changed
    daemon.run(2.0)
    assert systemd.received() == []


# -- the client ------------------------------------------------------------------------
def test_notifier_does_nothing_outside_systemd() -> None:
    notifier = Notifier({})
    assert not notifier.enabled and notifier.watchdog_s is None
    assert notifier.ready("x") is False


def test_notifier_sends_to_a_socket_path(tmp_path: Path) -> None:
    path = tmp_path / "notify"
    if len(str(path)) > 100:
        pytest.skip("the temporary folder's path is too long for a Unix socket")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    try:
        assert Notifier({"NOTIFY_SOCKET": str(path)}).stopping("done")
        assert sock.recv(100) == b"STOPPING=1\nSTATUS=done"
    finally:
        sock.close()


def test_a_manager_that_does_not_read_never_blocks_the_daemon(systemd: FakeSystemd) -> None:
    # A Unix datagram socket holds a few datagrams (net.unix.max_dgram_qlen, 10 by
    # default); a blocking send past them would hang the watchdog thread and the stop.
    notifier = Notifier({"NOTIFY_SOCKET": systemd.address})
    sent = [notifier.watchdog() for _ in range(5000)]
    assert sent[0] is True and sent[-1] is False  # the queue filled: dropped, not blocked
    assert systemd.received()[0] == "WATCHDOG=1"
    assert notifier.watchdog() is True  # read again: sent again


def test_watchdog_interval_is_for_this_process_only() -> None:
    env = {"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "3000000"}
    assert Notifier(env).watchdog_s == 3.0
    assert Notifier({**env, "WATCHDOG_PID": str(os.getpid())}).watchdog_s == 3.0
    assert Notifier({**env, "WATCHDOG_PID": "1"}).watchdog_s is None
    assert Notifier({**env, "WATCHDOG_USEC": "soon"}).watchdog_s is None


# -- the daemon, as systemd runs it ------------------------------------------------------
def mdwe_available() -> bool:
    """The kernel refuses writable-and-executable memory on request (PR_SET_MDWE, Linux
    6.3): the rule the unit's MemoryDenyWriteExecute= sets."""
    probe = subprocess.run([sys.executable, "-c", _MDWE + "print('ok')"],
                           capture_output=True, text=True, check=False)
    return probe.stdout.strip() == "ok"


_MDWE = ("import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); "
         "sys.exit(3) if libc.prctl(65, 1, 0, 0, 0) != 0 else None; ")


def wait_for(systemd: FakeSystemd, seen: list[str], prefix: str, limit_s: float) -> str:
    """The first datagram starting with ``prefix``, waiting ``limit_s`` real seconds at
    most (the daemon is a real process)."""
    end = time.monotonic() + limit_s
    while True:
        for message in systemd.received():
            seen.append(message)
        found = [m for m in seen if m.startswith(prefix)]
        if found:
            return found[0]
        assert time.monotonic() < end, f"no {prefix} within {limit_s} s; got {seen}"
        time.sleep(0.05)


def test_daemon_tells_systemd_ready_alive_and_stopping(tmp_path: Path,
                                                       systemd: FakeSystemd) -> None:
    journal = tmp_path / "journal.sqlite"
    config = tmp_path / "table.toml"
    config.write_text(DEFAULT.replace('path = "var/journal.sqlite"', f'path = "{journal}"')
                      + f'\n[control]\nsocket = "{tmp_path / "c.sock"}"\n')
    env = {**os.environ, "NOTIFY_SOCKET": systemd.address, "WATCHDOG_USEC": "1000000",
           "PYTHONPATH": str(REPO)}
    # Under the unit's MemoryDenyWriteExecute= where the kernel can impose it.
    prefix = _MDWE if mdwe_available() else ""
    run = (prefix + "import sys; from controller.cli.main import main; "
           f"sys.exit(main(['run', '--config', {str(config)!r}]))")
    proc = subprocess.Popen([sys.executable, "-c", run], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: list[str] = []
    try:
        ready = wait_for(systemd, seen, "READY=1", 30)
        # Before it: more time asked for the journal's checks (a new journal: a minute).
        assert seen[0] == ("EXTEND_TIMEOUT_USEC=60000000\nSTATUS=self-test: checking the "
                           "journal's integrity and hash chain")
        assert ready == ("READY=1\nSTATUS=sim-roulette (Roulette): closed; no spin yet; "
                         "no alarm since start")
        wait_for(systemd, seen, "WATCHDOG=1", 5)
        wait_for(systemd, seen, "STATUS=sim-roulette (Roulette): bets_open", 10)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()
    assert wait_for(systemd, seen, "STOPPING=1", 1) == "STOPPING=1\nSTATUS=stopping: SIGTERM"
    assert not [m for m in seen[seen.index("STOPPING=1\nSTATUS=stopping: SIGTERM"):]
                if m == "WATCHDOG=1"]
    db = sqlite3.connect(journal)
    last: Any = db.execute("SELECT body FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    db.close()
    record = json.loads(last[0])
    assert record["type"] == "shutdown" and record["reason"] == "SIGTERM"
    # A stop asked for is no error: journalctl -p err does not show it.
    shutdown = [x for x in err.decode().splitlines() if " shutdown " in x]
    assert len(shutdown) == 1 and " info  shutdown " in shutdown[0], shutdown


def test_the_daemon_needs_no_writable_and_executable_memory() -> None:
    if not mdwe_available():
        pytest.skip("this kernel has no PR_SET_MDWE (Linux 6.3)")
    # The daemon's imports (pyserial, gpiozero, structlog, sqlite3, the games) pass under
    # the rule; a writable and executable mapping, made on purpose, is refused.
    probe = subprocess.run(
        [sys.executable, "-c", _MDWE + "import controller.cli.main, drivers.hardware, "
         "sim.daemon, drivers.notify, mmap; print('imported', flush=True); "
         "mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    assert probe.stdout == "imported\n"
    assert probe.stderr.strip().endswith("PermissionError: [Errno 13] Permission denied")


# -- the shutdown record and a restart ---------------------------------------------------
def card_table_session(path: Path, objects: list[dict[str, Any]], start: float) -> None:
    """A daemon's life on a card table, in trace time: recover from the journal, handle
    ``objects``, then journal its ``shutdown`` record as a SIGTERM does."""
    from controller.cli.compose import games, load_config
    from controller.core.table import Table
    from controller.store.journal import Journal
    from controller.trace import trace_from_objects

    trace = trace_from_objects("session", enumerate(
        [{"t": 0, "meta": {"table": "mini_baccarat"}}, *objects], 1), games())
    with Journal(path, durable=False) as journal:
        clock = VirtualClock(start)
        loop = EventLoop(clock, lambda e: None)
        table = Table(load_config("embedded:mini-baccarat-sim.toml"), journal, loop.call_at,
                      clock.now, None)
        loop.handler = table.handle
        table.recover()
        loop.run_events(trace.events)
        table.emit(Shutdown(reason="SIGTERM"))


def test_shutdown_records_do_not_disturb_a_card_tables_recovery(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    steps = ("show", "turn", "scramble", "shuffle", "cut", "load")
    card_table_session(path, [{"t": n + 1, "input": "procedure_step", "step": step}
                              for n, step in enumerate(steps)], 0.0)
    card_table_session(path, [{"t": 8, "serial": "shoe", "text": "[Burn]<Card:3D>\r\n"},
                              {"t": 9, "input": "open_bets"}], 7.0)
    card_table_session(path, [], 10.0)
    db = sqlite3.connect(path)
    bodies = [json.loads(b) for (b,) in db.execute("SELECT body FROM records ORDER BY seq")]
    db.close()
    recoveries = [r for r in bodies if r["type"] == "recovery"]
    assert [r["mismatch"] for r in recoveries] == [None, None]
    assert recoveries[-1]["state"] != "idle"  # bets were open: the coup is resumed
    assert [r["reason"] for r in bodies if r["type"] == "shutdown"] == ["SIGTERM"] * 3


@pytest.mark.parametrize(("game", "word"), [("mini_baccarat", "coup"), ("blackjack_plus", "coup"),
                                            ("pot_luck", "coup"), ("draw_poker", "hand"),
                                            ("roulette", "spin")])
def test_a_table_with_no_game_yet_says_so_in_its_own_word(game: str, word: str) -> None:
    line = str(StatusLine("t-1", registry.spec(game), lambda: "idle", None))
    assert f"idle; no {word} yet; no alarm since start" in line
    assert "none" not in line


def test_an_invalid_spin_gives_each_reason_once_in_the_status_line() -> None:
    record = {"type": "spin_invalid", "seq": 9, "spin": 1, "reason": "too_few_revolutions",
              "reasons": ["too_few_revolutions"]}
    line = str(StatusLine("roulette-1", registry.spec("roulette"), lambda: "bets_open", record))
    assert "; last spin 1: INVALID, too_few_revolutions; no alarm" in line
    two = {**record, "reasons": ["too_few_revolutions", "same_direction"],
           "decided_by": "inspector"}
    assert registry.spec("roulette").recall.summary(two) == (
        "spin 1: INVALID, too_few_revolutions, same_direction, decided by inspector")
