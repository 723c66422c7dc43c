"""The screen's state, kept up to date from the journal on a thread of its own.

:class:`Board` follows the journal read-only (:class:`controller.store.follow.Follower`,
woken by inotify, never polling), passes every record through
:class:`controller.cards.masking.LiveMask` before anything else reads it (no face-down
card gets further), feeds the game's view (its package's ``display.py``, named by its
``GameSpec.display``: this module names no game) and adds what every table shares: the
daemon running or not, the journal missing or replaced, the alarms since the daemon's
start, each sensor's faults and each port's health, and the status line. Each change is
one snapshot, JSON text, handed to ``publish``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from controller.cards.masking import LiveMask
from controller.cli.daemon.lock import daemon_state
from controller.core.contract import GameSpec, TableView
from controller.core.specs import load_attribute
from controller.store.follow import Follower
from display.config import DisplayConfig
from display.pitstats import PitStats
from display.words import WORDS

Record = dict[str, Any]
RECHECK_S = 5.0
"""Seconds between two looks at the daemon's lock and a missing journal when no write
wakes the board (a daemon killed writes nothing): a timeout, not a polling loop."""
ALARMS_KEPT = 50
SETTLE_S = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1)
"""The pauses between the reads after a wake that found nothing yet (:meth:`Board._settle`)."""


def make_view(spec: GameSpec, cfg: DisplayConfig) -> TableView:
    """The game's view, from its spec's ``display``."""
    view_class = load_attribute(spec.display)
    return view_class(cfg.table, cfg.language, cfg.history)


class Board:
    """The screen's state (see the module doc).

    Args:
        cfg: the display's settings.
        publish: called with each new snapshot (JSON text), on the board's thread.
    """

    def __init__(self, cfg: DisplayConfig, publish: Callable[[str], None]) -> None:
        self.cfg = cfg
        self.spec = cfg.table.spec
        self.words = WORDS[cfg.language]
        self.publish = publish
        self.snapshot = ""
        self.follower = Follower(cfg.journal)
        self._generation = 0
        self._reset()

    def _reset(self) -> None:
        self.view = make_view(self.spec, self.cfg)
        self.mask = LiveMask(self.spec.recall.start)
        self.seq = 0
        self.last_t: float | None = None
        self.alarms: deque[Record] = deque(maxlen=ALARMS_KEPT)
        self.alarm_count = 0
        self.faults: dict[str, dict[str, Any]] = {}
        self.ports: dict[str, Record] = {}
        self.last_game: str | None = None
        self.unreadable: str | None = None  # the last record the game's view could not read
        self.stats = PitStats(self.spec, self.cfg.table, self.cfg.stats_history)

    # -- reading ---------------------------------------------------------------------
    def catch_up(self) -> int:
        """Read every record committed since the last call; returns how many."""
        count = 0
        while True:
            rows = self.follower.rows(after=self.seq)
            if self.follower.generation != self._generation:
                if self._generation:  # the journal was replaced: start again from seq 0
                    self._reset()
                    rows = self.follower.rows(after=0)
                self._generation = self.follower.generation
            for row in rows:
                try:
                    self.feed(row.record())
                except (KeyError, TypeError, ValueError) as exc:  # damaged or forged
                    self.unreadable = f"record #{row.seq} cannot be read: {exc}"
                self.seq = row.seq
            count += len(rows)
            if len(rows) < 500:
                return count

    def feed(self, record: Record) -> None:
        """One committed record, masked first: nothing else here sees it whole."""
        shown = self.mask.view(record)
        kind = shown.get("type")
        if kind == "startup":
            self.alarms.clear()
            self.alarm_count, self.faults = 0, {}
        elif kind == "alarm":
            self._alarm(shown)
        elif kind == "port":
            self.ports[str(shown.get("port"))] = shown
        self.last_t = shown.get("t")
        try:
            if kind in self.spec.recall.last_game_types:
                self.last_game = self.spec.recall.summary(shown)
            self.view.feed(shown)
        except (KeyError, TypeError, ValueError) as exc:  # a record the view cannot read
            self.unreadable = f"record #{shown.get('seq')} ({kind}) not shown: {exc!r}"
        self.stats.feed(shown)  # the window's figures, without reading the journal again

    def _alarm(self, alarm: Record) -> None:
        message = str(alarm.get("message", ""))  # masked already (LiveMask)
        entry = {"seq": alarm.get("seq"), "t": alarm.get("t"), "code": alarm.get("code"),
                 "message": message}
        self.alarms.appendleft(entry)
        self.alarm_count += 1
        if alarm.get("code") == "sensor_fault":
            name = message.split(" ", 1)[0] or "?"
            fault = self.faults.setdefault(name, {"name": name, "count": 0})
            fault.update(count=fault["count"] + 1, message=message, seq=alarm.get("seq"))

    # -- the snapshot ----------------------------------------------------------------
    def build(self) -> dict[str, Any]:
        """The screen's state now: the game's view and what every table shares."""
        w = self.words
        daemon = daemon_state(self.cfg.journal)
        problem = self.follower.problem
        view = self.view.view()
        if daemon.running:
            daemon_text = w["daemon_running"].format(pid=daemon.pid)
        else:
            why = daemon.problem or ("stopped" if daemon.owner and daemon.owner.stopped
                                     else "killed, crashed or a power cut"
                                     if daemon.owner else "?")
            daemon_text = w["daemon_stopped"].format(why=why)
        alarms = (f"{self.alarm_count} alarm{'s' if self.alarm_count != 1 else ''} since "
                  "start" if self.alarm_count else "no alarm since start")
        last = "last " + self.last_game if self.last_game else self.spec.recall.none_yet
        status_line = (f"{self.cfg.table.table_name} ({self.spec.title}): "
                       f"{view.get('state_text')}; {last}; {alarms}")
        notice = (w["waiting"].format(problem=problem) if problem
                  else None if daemon.running else w["no_daemon"])
        return {
            **view,
            "game": self.spec.name, "title": self.spec.title, "seed": self.spec.seed,
            "table": self.cfg.table.table_name, "language": self.cfg.language,
            "seq": self.seq, "last_t": self.last_t, "problem": problem, "notice": notice,
            "daemon": {"running": daemon.running, "pid": daemon.pid, "text": daemon_text},
            "pit": {"status_line": status_line, "alarm_count": self.alarm_count,
                    "alarms": list(self.alarms), "sensor_faults": list(self.faults.values()),
                    # A game whose sensors' corrections are budgeted says so in its config.
                    "error_budget": getattr(self.cfg.table.rules, "sensor_error_budget",
                                            None),
                    "ports": [{"port": p, "up": bool(r.get("up")), "detail": r.get("detail")}
                              for p, r in sorted(self.ports.items())],
                    "unreadable": self.unreadable},
            "stats": self.stats.figures(),
        }

    def refresh(self) -> bool:
        """Catch up and publish the snapshot if it changed; whether it did."""
        self.catch_up()
        text = json.dumps(self.build(), sort_keys=True, ensure_ascii=False)
        if text == self.snapshot:
            return False
        self.snapshot = text
        self.publish(text)
        return True

    def run(self, stop: threading.Event) -> None:
        """Follow the journal until ``stop`` is set (the board's thread)."""
        while not stop.is_set():
            try:
                self.refresh()
                began = time.monotonic()
                self.follower.wait(RECHECK_S)
                if time.monotonic() - began < RECHECK_S:
                    self._settle()
            except Exception as exc:  # never a dead board: say it, try again after a pause
                print(f"table-display: the journal could not be followed: {exc!r}",
                      file=sys.stderr, flush=True)
                stop.wait(RECHECK_S)
        self.follower.close()

    def _settle(self) -> None:
        """After a write woke the board: the kernel reports the WAL's write before SQLite
        updates its index (``-shm``, written through memory: no event), so a read at once
        may not see the commit yet. Read again a few times in the next ~0.2 s, until
        something new comes: bounded, and only after a write."""
        generation = self.follower.generation
        if self.catch_up():
            return
        for delay in SETTLE_S:
            time.sleep(delay)
            if self.catch_up() or self.follower.generation != generation:
                return


def start(board: Board) -> tuple[threading.Thread, threading.Event]:
    """Run ``board`` on a daemon thread of its own; set the event to stop it."""
    stop = threading.Event()
    board.refresh()
    thread = threading.Thread(target=board.run, args=(stop,), name="board", daemon=True)
    thread.start()
    return thread, stop
