"""``table-controller run``: the daemon systemd starts (``Type=notify``), as an object that
is built, started and run (:class:`Daemon`): its self-test, its components (journal, pins
and ports, control socket, sealer, watchdog) and its close."""

from __future__ import annotations

import os
import platform
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller import __version__
from controller.cli.compose import compose, load_config
from controller.cli.control import ControlServer
from controller.cli.daemon.health import StatusLine, Supervisor
from controller.cli.daemon.journal_guard import EXIT_RESTART, JournalGuard
from controller.cli.daemon.lifecycle import Hooks, Lifecycle
from controller.cli.daemon.lock import Owner, lock_journal, mark_stopped, write_owner
from controller.core.clock import ScaledClock, SystemClock
from controller.core.config import Config, check_for_daemon
from controller.core.contract import Sensing
from controller.core.errors import (
    InputError,
    JournalDamaged,
    JournalError,
    JournalWriteError,
    TableControllerError,
    is_damage,
    read_error,
)
from controller.core.logs import configure, get_logger
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal
from controller.store.seal import Sealer, key_path_for
from controller.store.shared import Alarm, Startup
from controller.store.verify import check_start

SELF_TEST_MIN_S = 60.0
SELF_TEST_S_PER_BYTE = 2e-6


def cmd_run(config_path: str, journal_override: str | None) -> int:
    """Run the controller until SIGTERM/SIGINT: the daemon systemd starts (``Type=notify``:
    ``READY=1`` once every component started, a status line, the watchdog, ``STOPPING=1``;
    see ``controller.cli.daemon.health``). A ``shutdown`` record with the signal's name is
    journaled before the journal closes.

    Returns 0 after a signal, 1 when the controller stopped on an error (a bug: it is
    logged with its traceback and systemd restarts the daemon), ``EXIT_RESTART`` (75) when
    the journal could not be written and can be again (systemd restarts the daemon, which
    recovers from the journal: ``controller.cli.daemon.journal_guard``).

    Raises:
        InputError: a bad config, or an empty ``--journal`` (exit 2).
        GpioError: the pin factory cannot be loaded (not a Pi), before the journal is made
            or written; or a pin cannot be set up (exit 1).
        JournalError: the journal cannot be made or opened (its folder is a file), or
            another controller holds it (exit 1).
        UnreadableRecord: a record recovery cannot read (exit 3: restarting cannot help).
        JournalDamaged: SQLite cannot read the journal's file (a damaged page), at start or
            later (exit 3, one line; nothing journaled at start).
        JournalWriteError: a commit failed, disk full or read-only (exit 4).
        ControlError: the control socket cannot be made (exit 1).
    """
    if journal_override is not None and not journal_override.strip():
        raise InputError("--journal", None, None, "empty: give the journal's file")
    config = load_config(config_path)
    configure(config.log_level, config.log_format, words=config.spec.log_words)
    check_for_daemon(config)  # what `tablectl config check` and the install check too
    journal_path = journal_override or config.journal_path
    try:
        daemon = Daemon(config, journal_path)
        daemon.build()
        return daemon.run()
    except sqlite3.DatabaseError as exc:  # a damaged page: exit 3, restarting cannot help
        raise read_error(journal_path, exc) from exc


class Daemon:
    """The daemon of ``config`` on the journal at ``journal_path``: :meth:`build` makes
    every part and does everything that can fail before anything is journaled (the pins'
    library, the lock, the journal's self-test, the sealing key, the table's recovery
    checks); :meth:`run` starts the components in order (the start journaled among them,
    ``READY=1`` last) and runs the loop until a signal, then stops them in reverse. SQLite's
    errors reading the journal are raised as they come (:func:`cmd_run` says what they
    mean)."""

    def __init__(self, config: Config, journal_path: str) -> None:
        self.config = config
        self.journal_path = journal_path
        self.log = get_logger(table=config.table_name)
        self.stopped_by: list[str] = []  # why the loop stopped: a signal's name, an error
        self.started = False  # the start is journaled
        self.lifecycle = Lifecycle()
        self.simulated: Any = None

    def build(self) -> None:
        """Make every part; nothing is journaled yet.

        Raises:
            as :func:`cmd_run`, for what can fail before the start is journaled.
        """
        config, journal_path, log = self.config, self.journal_path, self.log
        spec = config.spec
        log.info("startup", **_banner(config, journal_path))
        from drivers.hardware import Hardware, open_pin_factory
        from drivers.notify import Notifier

        # The pins' library first: a machine that cannot open them (no lgpio: not a Pi)
        # stops here, before a journal is made or written.
        pin_factory = open_pin_factory(config)

        notifier = Notifier()
        # The journal's checks read all of it: months of journal may outlast systemd's
        # start timeout on a slow Pi, so ask for the time they may take.
        notifier.extend_timeout(_self_test_allowance_s(journal_path),
                                "self-test: checking the journal's integrity and hash chain")
        self.lock = lock_journal(journal_path)
        self.owner = Owner(os.getpid(), time.time(), _absolute(config.source),
                           str(Path(config.control_socket).resolve()))
        write_owner(self.lock, self.owner)  # tablectl status: who runs on it, since when
        self.journal = journal = Journal(journal_path, durable=True)
        sim = config.simulator
        # A simulation faster than life runs ahead of the wall clock: start after the
        # journal's last record, so that times never go back across a restart.
        self.clock: SystemClock | ScaledClock = (
            ScaledClock(sim.speed, origin=max(SystemClock().wall(), journal.last_t))
            if sim.enabled and sim.speed != 1.0 else SystemClock())
        self.guard = guard = JournalGuard(self.clock.now)
        # Everything that can fail comes before anything is journaled: the sealing key,
        # the table's recovery (run when the start is journaled, after the components),
        # the pins, ports and control socket (a start that fails journals no restart, no
        # voided spin).
        self.sealer = Sealer.load(key_path_for(journal_path, config.seal_key),
                                  config.seal_interval_s)
        self.loop, self.table, self.journal_start = prepare_table(
            config, journal, self.clock, log, guard)
        table = self.table
        self.status_line = StatusLine(config.table_name, spec, lambda: str(table.game.state),
                                      _newest(journal, spec.recall.last_game_types),
                                      guard.problem, _dealer(journal))
        self.supervisor = Supervisor(notifier, self.lifecycle, self.loop.call_at, self.clock,
                                     self.status_line)
        table.observers.append(self.supervisor.observe)
        guard.on_change = self.supervisor.refresh
        guard.on_back = self._journal_back
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        # The shutdown record (with the signal's name) and the last seal are journaled
        # just before the journal closes, whatever stopped the daemon once its start was
        # journaled (unless the journal fails).
        self.lifecycle.add("journal", Hooks(on_stop=self._close))
        urls = self._simulator()
        # The simulated dealer's inputs wait for the shoe bytes before them (sim.daemon).
        loop, simulated = self.loop, self.simulated
        hardware_post = simulated.reading(loop.post) if simulated is not None else loop.post
        self.hardware = Hardware(config, hardware_post, self.clock, urls,
                                 factory=pin_factory)
        self.lifecycle.add("hardware", self.hardware)
        # A simulated table refuses what its simulator cannot follow (sim.daemon).
        post = simulated.screen(loop.post) if simulated is not None else loop.post
        control = ControlServer(config.control_socket, config.control_group, post,
                                self.clock.now, self.hardware.sensors, config.spec,
                                tuple(config.serial), _devices_view(table, self.clock.now),
                                self._status, config.games)
        self.lifecycle.add("control socket", control)
        self.lifecycle.add("journal start", Hooks(on_start=self.start))
        self.lifecycle.add("systemd notification", self.supervisor)  # last: READY=1

    def _simulator(self) -> dict[str, str]:
        """The embedded simulator's ports, when the config enables it; its URLs by port."""
        if not self.config.simulator.enabled:
            return {}
        from sim.daemon import SimulatedTable, SimulatorResume

        self.simulated = SimulatedTable(self.config, self.clock, self.loop.post,
                                        SimulatorResume())
        self.table.observers.append(self.simulated.observe)  # its dealer sees the table
        self.lifecycle.add("simulator ports", Hooks(on_stop=self.simulated.stop,
                                                    is_alive=self.simulated.alive))
        return dict(self.simulated.urls)

    def start(self) -> None:
        """The start journaled (startup, recovery), the first seal; the simulated dealer
        goes on from the recovered table. A component of the lifecycle (after the others,
        before ``READY=1``).

        Raises:
            JournalDamaged: the journal's file cannot be read (exit 3).
        """
        try:
            self.journal_start()
        except JournalWriteError as exc:  # a full disk at start: run, refuse, retry
            if exc.__cause__ is not None and is_damage(exc.__cause__):
                raise JournalDamaged(self.journal_path, exc.__cause__) from exc
            self.guard.fail(exc)  # it takes no event until the restart rebuilds the table
        self.started = True
        if self.sealer is None:
            self.log.warning("journal not sealed", reason="no sealing key",
                             make_one=f"tablectl --config {self.config.source} seal-init")
        elif self.guard.failing is None:
            self.table.start_sealing(self.sealer)
        if self.simulated is not None:
            from sim.daemon import resume_from_journal

            spec = self.config.spec
            game = self.table.game
            self.simulated.resume_at(resume_from_journal(
                self.journal, game.state != "closed", spec.bet_record, spec.recall),
                str(game.state))

    def run(self) -> int:
        """Start the components and run the loop until a signal (or the journal writable
        again, or an error); then stop them in reverse. Returns :func:`cmd_run`'s exit
        status."""
        lifecycle = self.lifecycle
        try:
            lifecycle.start()
            if self.simulated is not None:
                self.simulated.start(self.hardware.gpio)
            speed = self.clock.speed if isinstance(self.clock, ScaledClock) else 1.0
            self.loop.run_forever(grace=0.02 * speed)
        except (TableControllerError, sqlite3.DatabaseError) as exc:  # one line from main()
            self.stopped_by.append(_stopped_on(exc, lifecycle))
            raise
        except Exception as exc:
            self.stopped_by.append(_stopped_on(exc, lifecycle))
            self.log.exception("the controller stopped on an error",
                               effect="systemd restarts it")
            return 1
        finally:
            self.supervisor.stopping(_shutdown_reason(self.stopped_by, lifecycle)[0])
            lifecycle.stop()
        return EXIT_RESTART if _restarting(self.stopped_by) else 0

    def _journal_back(self) -> None:
        self.stopped_by.append("the journal is writable again: restart to recover from it")
        self.loop.stop()

    def _on_signal(self, signum: int, frame: object) -> None:
        # Nothing is sent from here: the handler may interrupt a send on this thread.
        self.stopped_by.append(signal.Signals(signum).name)
        self.loop.stop()

    def _status(self) -> dict[str, Any]:
        return {"line": str(self.status_line), "journal_failing": self.guard.failing}

    def _close(self) -> None:
        guard = self.guard
        _close_journal(self.table, self.lock, self.owner, self.log,
                       *_shutdown_reason(self.stopped_by, self.lifecycle),
                       guard.failing is None or guard.writable_again, self.started)


def _restarting(stopped_by: list[str]) -> bool:
    return bool(stopped_by) and stopped_by[0].startswith("the journal is writable again")


def _banner(config: Config, journal_path: str) -> dict[str, Any]:
    """The start banner's fields: what runs, where its files are, how to stop it."""
    by_systemd = "INVOCATION_ID" in os.environ
    return {
        "version": __version__, "python": platform.python_version(),
        "platform": platform.platform(), "config": config.source,
        "pin_factory": ((config.pin_factory or os.environ.get("GPIOZERO_PIN_FACTORY")
                         or "gpiozero's default") if config.inputs else "none (no GPIO inputs)"),
        "table": config.table_name, "game": config.game, "simulated": config.simulator.enabled,
        "journal": str(Path(journal_path).resolve()),
        "control_socket": str(Path(config.control_socket).resolve()),
        "control_group": config.control_group,
        "stop": "systemctl stop table-controller" if by_systemd else "Ctrl-C",
    }


def _self_test_allowance_s(journal_path: str) -> float:
    """Seconds the journal's checks at start (``PRAGMA integrity_check``, the hash chain)
    may take: a minute, and 2 µs a byte of journal (a PC takes 0.04 µs: room for a slow Pi
    fifty times slower)."""
    try:
        size = os.path.getsize(journal_path)
    except OSError:  # not there yet: a new journal
        size = 0
    return SELF_TEST_MIN_S + SELF_TEST_S_PER_BYTE * size


def _newest(journal: Journal, types: Sequence[str]) -> dict[str, Any] | None:
    found = [rec for kind in types if (rec := journal.last_of(kind)) is not None]
    return max(found, key=lambda rec: rec["seq"], default=None)


def _dealer(journal: Journal) -> str | None:
    """Who deals: the newest ``dealer`` record's name (issue 21), or None."""
    rec = journal.last_of("dealer")
    return None if rec is None else str(rec.get("name", ""))


def _shutdown_reason(stopped_by: list[str], lifecycle: Lifecycle) -> tuple[str, bool]:
    """Why the daemon stops, in words: the signal's name, else the error being raised (a
    component that failed to start, a bug), else the end of the run; and whether it stops
    on an error (not a signal, nor the restart once the journal is writable again)."""
    if stopped_by:
        calm = stopped_by[0] in signal.Signals.__members__ or _restarting(stopped_by)
        return stopped_by[0], not calm
    exc = sys.exc_info()[1]
    return (_stopped_on(exc, lifecycle), True) if exc is not None else ("end of run", False)


def _stopped_on(exc: BaseException, lifecycle: Lifecycle) -> str:
    """``the control socket could not start: var/control.sock: another controller is
    listening there``; a bug says its exception's class (``ZeroDivisionError``), which is
    all the words it has."""
    what = str(exc) if isinstance(exc, TableControllerError) else (
        f"unexpected {type(exc).__name__}{': ' + str(exc) if str(exc) else ''}")
    if lifecycle.failed is not None and lifecycle.failed[1] is exc:
        return f"the {lifecycle.failed[0]} could not start: {what}"
    return f"stopped on an error: {what}"


def _devices_view(table: Table, now: Callable[[], float]) -> Callable[[], dict[str, Any]]:
    """What the game's serial devices last reported, for ``tablectl sensors`` (a serial
    wheel's last status line and its age); {} for a game that shows none. The game's
    ``sensors(now)`` is safe to call from the control socket's thread."""
    game = table.game
    if not isinstance(game, Sensing):
        return dict
    return lambda: game.sensors(now())


def start_table(config: Config, journal: Journal, clock: Any, log: Any,
                guard: JournalGuard | None = None) -> tuple[EventLoop, Table]:
    """The daemon's start on ``journal`` (:func:`prepare_table`), journaled at once.

    Raises:
        UnreadableRecord, JournalDamaged: as :func:`prepare_table`'s start.
        JournalError: the start could not be journaled (a full disk).
    """
    loop, table, start = prepare_table(config, journal, clock, log, guard)
    start()
    return loop, table


def prepare_table(config: Config, journal: Journal, clock: Any, log: Any,
                  guard: JournalGuard | None = None
                  ) -> tuple[EventLoop, Table, Callable[[], None]]:
    """The daemon's table on ``journal``, and its start, to call once nothing else can
    fail: check the checkpoint it recovers from (its own record, its seal) and the chain
    from it to the head (``controller.store.verify``) now; the start journals, as one
    input, the ``startup`` record, an alarm if the chain is broken, and the recovery from
    that checkpoint (an edited one is passed over). Time and memory depend on the records
    since the last checkpoint, not on the journal's size (``tablectl verify --full``
    checks it all).

    Raises:
        JournalDamaged: SQLite cannot read the records to check (exit 3).
        The start raises UnreadableRecord: a record recovery cannot read (nothing is
        journaled; exit 3); JournalError: the start could not be journaled (a full
        disk): the daemon's guard takes it (``controller.cli.daemon.journal_guard``).
    """
    check = check_start(journal)
    if check.chain.damaged is not None:  # before anything is journaled: exit 3
        raise JournalDamaged(journal.path, check.chain.damaged)
    log.info("journal", records=journal.last_seq, verified_from=check.chain.first,
             verified=check.chain.records, head_seq=journal.last_seq,
             head_hash=journal.last_hash, chain_ok=check.ok, format=journal.format)
    loop, table = compose(config, journal, clock, wall=True, guard=guard)

    def start() -> None:
        table.emit(Startup(version=__version__, config=config.source, game=config.game,
                           simulated=config.simulator.enabled))
        if not check.ok:
            # Edited records stay in the journal as evidence; play goes on, the alarm is loud.
            table.emit(Alarm(code="journal_chain_broken",
                             message=f"the journal's hash chain is broken: {check.message}; "
                             "it was altered outside the controller"))
        table.game.recover_from(journal)

    return loop, table, lambda: table.as_input(start)


def _close_journal(table: Table, lock: Any, owner: Owner, log: Any, reason: str,
                   error: bool, writable: bool, started: bool = True) -> None:
    """The shutdown record and the last seal (``writable``), then the journal closed. A
    daemon whose start was never journaled (``started``: a component could not start)
    journals nothing: it logs why at error level (``journalctl -p err``)."""
    journal = table.journal
    if not started:
        log.error("start failed", reason=reason, effect="nothing was journaled; the table "
                  "recovers from the journal once a start succeeds")
    elif writable:
        try:
            table.shutdown(reason, error)
            table.seal()
        except JournalError as exc:  # the disk that stopped the daemon: nothing more to write
            log.error("journal", error=str(exc))
    journal.close()
    # The head of the chain, in journald: a cut at the end of the journal shows there.
    log.info("stopped", head_seq=journal.last_seq, head_hash=journal.last_hash,
             commits=journal.commits)
    mark_stopped(lock, owner)
    lock.close()


def _absolute(source: str) -> str:
    """A config's path as status shows it: absolute, or the embedded name."""
    return source if source.startswith("embedded:") else str(Path(source).resolve())
