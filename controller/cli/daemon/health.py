"""What the daemon tells its service manager (systemd): ready, a status line, alive, stopping.

The :class:`Supervisor` is the daemon's last component. Started, it says ``READY=1`` (the
journal was opened and verified, the config loaded, the drivers opened: every component
before it started). With a watchdog (``WatchdogSec=``), two things must hold for it to say
``WATCHDOG=1``: every component is alive (``Lifecycle.alive()``) and the event loop turns.
The loop proves it turns with a heartbeat timer that stamps the time on the loop thread;
a thread of its own sends ``WATCHDOG=1`` every half interval only while that stamp is fresh
and every component alive, else it stops sending, logs why and puts it in the status, and
systemd restarts the daemon when the interval runs out. Nothing polls: a timer on the loop
and a blocking wait on the thread.

The status line (``systemctl status``) is the table, its state, its last game and the
alarms since start; it is sent when it changes, at most once a second (``STATUS_EVERY_S``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from controller.cli.daemon.lifecycle import Lifecycle
from controller.core.contract import GameSpec, TimerHandle
from controller.core.logs import get_logger

STATUS_EVERY_S = 1.0  # wall seconds between two status lines at most
SUMMARY_CHARS = 80  # a last game's summary is cut to this in the status line


class ServiceManager(Protocol):
    """The notification client (``drivers.notify.Notifier``): each call returns whether it
    was sent; ``watchdog_s`` is the watchdog interval in seconds, None without one."""

    watchdog_s: float | None

    @property
    def enabled(self) -> bool: ...

    def ready(self, status: str = "") -> bool: ...

    def status(self, text: str) -> bool: ...

    def watchdog(self) -> bool: ...

    def stopping(self, status: str = "") -> bool: ...


class StatusLine:
    """The table's status in one line, kept up to date from the records it is shown.

    Args:
        table: the table's name (``[table] name``).
        spec: its game's registry entry (``recall.last_game_types`` and ``summary``).
        state: the table's state now (the game's ``state``).
        last_game: the newest record of its last game in the journal at start, or None.
        alert: what must head the line, or None (a journal that cannot be written:
            ``JournalGuard.problem``).
        dealer: who deals, from the newest ``dealer`` record at start (None: nobody was
            named); a ``dealer`` record shown later changes it.
    """

    def __init__(self, table: str, spec: GameSpec, state: Callable[[], str],
                 last_game: dict[str, Any] | None,
                 alert: Callable[[], str | None] = lambda: None,
                 dealer: str | None = None) -> None:
        self.table = table
        self.dealer = dealer
        self.spec = spec
        self.state = state
        self.alert = alert
        self._last_types = frozenset(spec.recall.last_game_types)
        self.last_game = last_game
        self.alarms = 0
        self.last_alarm = ""

    def observe(self, record: dict[str, Any]) -> None:
        """Note a record the table showed (its public view)."""
        kind = record.get("type")
        if kind in self._last_types:
            self.last_game = record
        elif kind == "dealer":
            self.dealer = str(record.get("name", ""))
        elif kind == "alarm":
            self.alarms += 1
            self.last_alarm = str(record.get("code", ""))

    def __str__(self) -> str:
        last = self.spec.recall.none_yet
        if self.last_game is not None:
            last = "last " + self.spec.recall.summary(self.last_game)
            if len(last) > SUMMARY_CHARS:
                last = last[: SUMMARY_CHARS - 1] + "…"
        alarms = ("no alarm since start" if not self.alarms else
                  f"{self.alarms} alarm{'s' if self.alarms > 1 else ''} since start, "
                  f"last {self.last_alarm}")
        dealer = f"; dealer {self.dealer}" if self.dealer else ""
        line = f"{self.table} ({self.spec.title}): {self.state()}{dealer}; {last}; {alarms}"
        alert = self.alert()
        return f"{alert}; {line}" if alert else line


class Supervisor:
    """The component that keeps the service manager told (see the module doc).

    Args:
        manager: the notification client; when it is not ``enabled`` nothing is done.
        lifecycle: the daemon's components (their ``alive()``).
        schedule: the loop's timer, ``schedule(deadline, callback)`` on the loop clock.
        clock: the loop's clock (``now()``, ``to_wall()``: a simulation may run faster).
        status: the status line (``str(status)``), or None for none.
        monotonic: real seconds for the heartbeat's age (injected in tests).

    Thread use: :meth:`start`, :meth:`observe` and the heartbeat run on the loop thread;
    :meth:`check` on the watchdog thread; :meth:`stopping` in the signal handler.
    """

    def __init__(self, manager: ServiceManager, lifecycle: Lifecycle,
                 schedule: Callable[[float, Callable[[], None]], TimerHandle], clock: Any,
                 status: StatusLine | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.manager = manager
        self.lifecycle = lifecycle
        self.schedule = schedule
        self.clock = clock
        self.status = status
        self.monotonic = monotonic
        self.log = get_logger(component="watchdog")
        interval = manager.watchdog_s if manager.enabled else None
        self.interval_s = interval
        # Sent every half interval; the loop beats twice as often, and a beat older than
        # half the interval means the loop is stuck (systemd's limit is the whole interval).
        self.ping_s = interval / 2 if interval else None
        self.beat_s = interval / 4 if interval else None
        self.stale_s = interval / 2 if interval else None
        self._beat = monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._withheld: str | None = None
        self._sent_status = ""
        self._status_timer: TimerHandle | None = None
        self._status_at = float("-inf")  # loop clock
        self._stopping = False

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        """Arm the heartbeat, start the watchdog thread, say ``READY=1`` with the status."""
        if not self.manager.enabled:
            return
        if self.ping_s is not None:
            self._heartbeat()
            self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
            self._thread.start()
        line = self._line()
        self._sent_status = line
        self._status_at = self.clock.now()
        self.manager.ready(line)
        self.log.info("ready", watchdog_s=self.interval_s)

    def stop(self) -> None:
        self.stopping("stopped")
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def alive(self) -> bool:
        return self._thread is None or self._thread.is_alive()

    def stopping(self, why: str) -> None:
        """Say ``STOPPING=1`` (once) with ``why`` in the status; no ``WATCHDOG=1`` after."""
        if self._stopping or not self.manager.enabled:
            return
        self._stopping = True
        self._stop.set()
        self.manager.stopping(f"stopping: {why}")

    # -- the status line -------------------------------------------------------------
    def observe(self, record: dict[str, Any]) -> None:
        """A record the table showed: the status may have changed (sent within a second)."""
        if self.status is None:
            return
        self.status.observe(record)  # tablectl status shows it, under systemd or not
        self.refresh()

    def refresh(self) -> None:
        """The status may have changed (sent within a second); on the loop thread."""
        if self.status is None or not self.manager.enabled:
            return
        if self._status_timer is None and not self._stopping:
            due = self._status_at + STATUS_EVERY_S / self._clock_scale()
            self._status_timer = self.schedule(max(due, self.clock.now()), self._send_status)

    def _send_status(self) -> None:
        self._status_timer = None
        line = self._line()
        if line != self._sent_status and not self._stopping:
            self._sent_status = line
            self._status_at = self.clock.now()
            self.manager.status(line)

    def _line(self) -> str:
        line = str(self.status) if self.status is not None else ""
        withheld = self._withheld
        return f"UNHEALTHY ({withheld}); {line}" if withheld else line

    def _clock_scale(self) -> float:
        """Real seconds per second of the loop clock (below 1 when a simulation is fast)."""
        return self.clock.to_wall(1.0) or 1.0

    # -- the watchdog ----------------------------------------------------------------
    def _heartbeat(self) -> None:
        """On the loop thread: stamp the time and come back in ``beat_s`` real seconds."""
        self._beat = self.monotonic()
        assert self.beat_s is not None
        self.schedule(self.clock.now() + self.beat_s / self._clock_scale(), self._heartbeat)

    def _run(self) -> None:
        assert self.ping_s is not None
        while not self._stop.wait(self.ping_s):
            self.check()

    def problem(self) -> str | None:
        """Why the daemon is not healthy, in words, or None when it is."""
        try:
            alive = self.lifecycle.alive()
        except Exception as exc:  # a component that cannot say is not alive
            return f"a component's health check failed: {exc}"
        dead = [name for name, ok in alive.items() if not ok]
        if dead:
            return f"not alive: {', '.join(dead)}"
        age = self.monotonic() - self._beat
        if self.stale_s is not None and age > self.stale_s:
            return f"the event loop has not turned for {age:.1f} s"
        return None

    def check(self) -> bool:
        """One watchdog round: ``WATCHDOG=1`` when healthy (returns True); else nothing is
        sent, and the reason is logged and put in the status when it changes."""
        if self._stopping:
            return False
        problem = self.problem()
        if problem is None:
            if self._withheld is not None:
                self.log.warning("watchdog resumed", was=self._withheld)
                self._withheld = None
                self.manager.status(self._line())
            self.manager.watchdog()
            return True
        if problem != self._withheld:
            self._withheld = problem
            self.log.error("watchdog withheld", reason=problem,
                           effect="systemd restarts the daemon when the interval runs out")
            self.manager.status(self._line())
        return False
