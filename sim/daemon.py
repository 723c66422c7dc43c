"""Simulated hardware for the daemon's embedded default: the game's simulator plays into
gpiozero's mock pins and pseudo-terminals, read back by the real drivers.

The game's spec names its simulator (``GameSpec.daemon_simulator``): a function
that yields batches of trace events from a start time, and may look at the table's newest
state between them (:class:`TableState`), as a dealer looks at the table before the next
game. This module knows no game.

The simulated equipment does what the table asks, or refuses the input with one line:

- A simulated dealer's input waits until the serial driver has posted every shoe byte the
  simulator wrote before it (:meth:`SimulatedTable.reading`), as a real dealer enters a
  decision once its card is out: posted straight to the loop, an input would otherwise
  overtake the card it follows on a loaded machine (a hit before its card). The loop
  takes events in the order posted, so the card comes first.
- A person's input that the simulator cannot follow (its module's ``REFUSED_INPUTS``,
  action -> why: a card table's simulated dealer deals one session from the shoe it made
  at the start and cannot carry out ``new_shoe``) is refused before it reaches the table
  (:meth:`SimulatedTable.screen`): nothing is done, the reply says why in one line.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from controller.core.config import Config
from controller.core.contract import RecallSpec, Verdict
from controller.core.events import BetPlaced, DealerInput, Event, SerialData
from controller.core.loop import start_thread
from controller.core.specs import load_attribute
from controller.store.journal import Journal
from sim.trace_player import TracePlayer

READ_WAIT_S = 2.0
"""Wall seconds a simulated dealer's input waits, at most, for the shoe bytes before it to
be read; past it the input goes anyway (the port is down: the table says so)."""


@dataclass(frozen=True)
class SimulatorResume:
    """Where a simulated dealer had got to before a restart, from the journal: the shoe
    bytes read (only the simulator writes its ports), the dealer inputs and bets journaled
    in order (:func:`taken_key` of each: the simulator's own and any a person sent through
    ``tablectl``), whether the table was open, and ``games``: the number of the last game
    started (0: none). The same simulated session then goes on from there, as a real dealer
    goes on dealing; a simulator that cannot skip what was played (a wheel's throws) starts
    a session of its own from ``games``."""

    serial_bytes: int = 0
    taken: tuple[tuple[Any, ...], ...] = ()
    table_open: bool = False
    games: int = 0


def taken_key(item: Event | dict[str, Any], bet_record: str = "") -> tuple[Any, ...] | None:
    """What identifies a dealer input or a bet, from its event or its journal record (an
    ``input`` record, an accepted ``bet_record`` or the ``alarm`` that refused a bet, with
    its ``bet``): ``("input", action, args)`` or ``("bet", kind, box, amount)``; None for
    anything else."""
    if isinstance(item, DealerInput):
        return ("input", item.action, json.dumps(item.args, sort_keys=True))
    if isinstance(item, BetPlaced):
        return ("bet", item.kind, item.box, item.amount)
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "input":
        args = {k: v for k, v in item.items() if k not in ("type", "seq", "t", "action")}
        return ("input", item.get("action"), json.dumps(args, sort_keys=True))
    bet = item if kind == bet_record else item.get("bet") if kind == "alarm" else None
    if isinstance(bet, dict):
        return ("bet", bet.get("kind"), bet.get("box"), bet.get("amount"))
    return None


def resume_from_journal(journal: Journal, table_open: bool, bet_record: str,
                        recall: RecallSpec | None = None) -> SimulatorResume:
    """How far the simulated dealer got before a restart (see :class:`SimulatorResume`);
    ``recall`` (the game's) says which records start and number its games."""
    serial = 0
    taken: list[tuple[Any, ...]] = []
    for rec in journal.records(types=("serial", "input", "alarm", bet_record)):
        if rec["type"] == "serial":
            serial += len(rec["text"].encode("latin-1"))
        elif (key := taken_key(rec, bet_record)) is not None:
            taken.append(key)
    start = journal.last_of(recall.start) if recall is not None else None
    number = start.get(recall.number) if start is not None and recall is not None else None
    return SimulatorResume(serial, tuple(taken), table_open,
                           number if type(number) is int else 0)


def resume_events(events: list[Event], resume: SimulatorResume) -> list[Event]:
    """``events`` (a simulated session) without what the journal already holds.

    The shoe's bytes are skipped by count. The dealer inputs and bets are matched in order
    against those journaled: the simulator's own come in its order, so each is looked for
    after the last one matched, and a journaled one that is not the simulator's next (a
    person's, typed through ``tablectl``) is passed over; the first of the simulator's not
    found, and all after it, are still to play. What is left plays when the session would
    have begun (``events[0].t``): no burst of overdue events.
    """
    left_bytes = resume.serial_bytes
    taken, position, matching = resume.taken, 0, True
    out: list[Event] = []
    for event in events:
        if isinstance(event, SerialData) and left_bytes:
            if len(event.data) <= left_bytes:
                left_bytes -= len(event.data)
                continue
            event = replace(event, data=event.data[left_bytes:])
            left_bytes = 0
        elif isinstance(event, DealerInput | BetPlaced) and matching:
            key = taken_key(event)
            found = next((i for i in range(position, len(taken)) if taken[i] == key), None)
            if found is not None:
                position = found + 1
                continue
            matching = False
        out.append(event)
    if not out or out[0] is events[0]:
        return out
    shift = events[0].t - out[0].t
    return [replace(e, t=e.t + shift) for e in out]


DaemonSimulator = Callable[[Config, float, SimulatorResume, Callable[[], str | None]],
                          Iterator[list[Event]]]
"""A game's ``GameSpec.daemon_simulator``: ``(config, start, resume, table_state)`` yields
batches of events (times in controller clock seconds from ``start``, in order);
``table_state()`` is the table's newest state when the next batch is asked for."""


class TableState:
    """The table's newest state, as its records show it: the ``to`` of the newest ``state``
    record (None before any, unless given). A ``Table`` observer (:meth:`observe`, on the
    controller thread); the simulator's thread reads it by calling it. What a state means
    is the game's simulator's to say."""

    def __init__(self, state: str | None = None) -> None:
        self._state = state

    def observe(self, record: dict[str, Any]) -> None:
        """A record the table showed: a ``state`` record's ``to`` is the newest state."""
        if record.get("type") == "state" and isinstance(record.get("to"), str):
            self._state = record["to"]  # one reference swapped: no lock needed

    def __call__(self) -> str | None:
        return self._state

    def reset(self, state: str | None) -> None:
        """The table's state as its start recovered it (no record shows it)."""
        self._state = state


class SimulatedTable:
    """Pseudo-terminals for the game's serial ports and a player thread for its simulator.

    Make it before the hardware (its ``urls`` replace the config's ports), add
    :meth:`observe` to the table's observers, start it once the hardware is open (it drives
    the hardware's mock pins). ``state`` is the table's state when it starts (its game's
    ``state``); the simulator sees the newest one after that (:class:`TableState`).
    """

    def __init__(self, config: Config, clock: Any, post: Callable[[Event], None],
                 resume: SimulatorResume, state: str | None = None) -> None:
        self.config = config
        self.clock = clock
        self.post = post
        self.resume = resume
        self.table_state = TableState(state)
        self.spec = config.spec
        self.fds: list[int] = []
        self.masters: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        for port in sorted({*self.spec.ports(config), *config.serial}):
            master, slave = os.openpty()
            self.fds += [master, slave]
            self.masters[port] = master
            self.urls[port] = os.ttyname(slave)
        self._stop = threading.Event()
        self._read = threading.Condition()
        self._bytes_read = 0  # shoe bytes the serial drivers posted
        self._bytes_written = 0  # shoe bytes the simulator's batches hold so far
        self._due: deque[int] = deque()  # bytes written before each input and bet, in order
        self._player: TracePlayer | None = None
        self._thread: threading.Thread | None = None

    def observe(self, record: dict[str, Any]) -> None:
        """A ``Table`` observer: the table's state for the simulated dealer; and a restart
        that stopped play for ``lost_cards`` (the shoe unread while the daemon was down) is
        answered with none: the simulated shoe stopped with the daemon, it dealt nothing
        meanwhile."""
        self.table_state.observe(record)
        if record.get("type") == "alarm" and record.get("code") == "restart_input_lost":
            self.post(DealerInput(self.clock.now(), "lost_cards", {"cards": []}))

    def resume_at(self, resume: SimulatorResume, state: str | None) -> None:
        """Where the simulated dealer goes on from, once the table's start is journaled
        (the ports are made before it, so that a start that fails journals nothing)."""
        self.resume = resume
        self.table_state.reset(state)

    def refused_inputs(self) -> dict[str, str]:
        """The inputs the game's simulator cannot follow: action -> why, in words."""
        path = self.spec.daemon_simulator
        if not path:
            return {}
        module = sys.modules.get(path.partition(":")[0])
        if module is None:
            load_attribute(path)
            module = sys.modules[path.partition(":")[0]]
        refused = getattr(module, "REFUSED_INPUTS", {})
        return dict(refused) if isinstance(refused, dict) else {}

    def screen(self, post: Callable[..., None]) -> Callable[..., None]:
        """``post`` (the loop's, for the control socket) refusing the inputs the simulator
        cannot follow, with their one line, before they reach the table."""
        refused = self.refused_inputs()

        def screened(event: Event, reply: Callable[[Any], None] | None = None) -> None:
            if isinstance(event, DealerInput) and event.action in refused:
                if reply is not None:
                    reply(Verdict(False, "simulator_cannot", refused[event.action]))
                return
            post(event, reply)

        return screened

    def reading(self, post: Callable[..., None]) -> Callable[..., None]:
        """``post`` (the loop's, for the hardware) counting the serial bytes the drivers
        post, once posted: an input posted after the count is behind them in the loop."""
        def counted(event: Event, *rest: Any) -> None:
            post(event, *rest)
            if isinstance(event, SerialData):
                with self._read:
                    self._bytes_read += len(event.data)
                    self._read.notify_all()

        return counted

    def _expect(self, events: list[Event]) -> None:
        """Note, for each input and bet of a batch, the shoe bytes written before it."""
        for event in events:
            if isinstance(event, SerialData):
                self._bytes_written += len(event.data)
            elif isinstance(event, DealerInput | BetPlaced):
                self._due.append(self._bytes_written)

    def _post_after_the_shoe(self, event: Event) -> None:
        """Post a simulated dealer's input once the shoe's bytes before it are read (see
        the module doc); anything else at once."""
        if isinstance(event, DealerInput | BetPlaced) and self._due:
            due = self._due.popleft()
            with self._read:
                if not self._read.wait_for(
                        lambda: self._bytes_read >= due or self._stop.is_set(), READ_WAIT_S):
                    # Bytes lost (the port went down): count them read, or every input
                    # after would wait in vain.
                    self._bytes_read = due
        self.post(event)

    def start(self, gpio: Any) -> None:
        """Play the game's simulated events into ``gpio`` (mock pins) and the ptys."""
        batches: DaemonSimulator = load_attribute(self.spec.daemon_simulator)

        def play() -> None:
            # The generator goes on only once the batch before has been played: what it
            # sees of the table (``table_state``) is the table after that batch.
            for events in batches(self.config, self.clock.now() + 1.0, self.resume,
                                  self.table_state):
                if self._stop.is_set():
                    return
                self._expect(events)
                # The simulated wheel's edges stamped when due, as a line's kernel
                # stamps them (sim.trace_player): a late wake-up is not uncertain evidence.
                self._player = TracePlayer(events, self.clock.now, self.clock.to_wall, gpio,
                                           self.masters, self._post_after_the_shoe,
                                           on_time=True)
                if self._stop.is_set():  # stopped while the player was being made
                    return
                self._player.run()

        self._thread = start_thread(play, "simulator")

    def stop(self) -> None:
        self._stop.set()
        with self._read:
            self._read.notify_all()
        if self._player is not None:
            self._player.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()

    def alive(self) -> bool:
        return self._thread is None or self._thread.is_alive() or self._stop.is_set()
