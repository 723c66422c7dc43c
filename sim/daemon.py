"""Simulated hardware for the daemon's embedded default: the game's simulator plays into
gpiozero's mock pins and pseudo-terminals, read back by the real drivers.

The game's registry entry names its simulator (``GameSpec.daemon_simulator``): a function
that yields batches of trace events from a start time. This module knows no game.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from controller.core.config import Config
from controller.core.events import BetPlaced, DealerInput, Event, SerialData
from controller.core.loop import start_thread
from controller.games import registry
from sim.trace_player import TracePlayer


@dataclass(frozen=True)
class SimulatorResume:
    """Where a simulated dealer had got to before a restart, counted in the journal: shoe
    bytes read, dealer inputs and bets journaled, and whether the table was open. The same
    simulated session then goes on from there, as a real dealer goes on dealing."""

    serial_bytes: int = 0
    inputs: int = 0
    bets: int = 0
    table_open: bool = False


def resume_events(events: list[Event], resume: SimulatorResume, start: float) -> list[Event]:
    """``events`` without what the journal already holds, the rest moved to ``start``."""
    left_bytes, left_inputs, left_bets = resume.serial_bytes, resume.inputs, resume.bets
    out: list[Event] = []
    for event in events:
        if isinstance(event, SerialData) and left_bytes:
            if len(event.data) <= left_bytes:
                left_bytes -= len(event.data)
                continue
            event = replace(event, data=event.data[left_bytes:])
            left_bytes = 0
        elif isinstance(event, DealerInput) and left_inputs:
            left_inputs -= 1
            continue
        elif isinstance(event, BetPlaced) and left_bets:
            left_bets -= 1
            continue
        out.append(event)
    if not out or out is events:
        return out
    shift = start - out[0].t
    return [replace(e, t=e.t + shift) for e in out]


class SimulatedTable:
    """Pseudo-terminals for the game's serial ports and a player thread for its simulator.

    Make it before the hardware (its ``urls`` replace the config's ports), start it once
    the hardware is open (it drives the hardware's mock pins).
    """

    def __init__(self, config: Config, clock: Any, post: Callable[[Event], None],
                 resume: SimulatorResume) -> None:
        self.config = config
        self.clock = clock
        self.post = post
        self.resume = resume
        self.spec = registry.spec(config.game)
        self.fds: list[int] = []
        self.masters: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        for port in sorted({*self.spec.ports(config), *config.serial}):
            master, slave = os.openpty()
            self.fds += [master, slave]
            self.masters[port] = master
            self.urls[port] = os.ttyname(slave)
        self._stop = threading.Event()
        self._player: TracePlayer | None = None
        self._thread: threading.Thread | None = None

    def start(self, gpio: Any) -> None:
        """Play the game's simulated events into ``gpio`` (mock pins) and the ptys."""
        batches: Callable[[Config, float, SimulatorResume], Iterator[list[Event]]] = (
            registry.load_callable(self.spec.daemon_simulator))  # type: ignore[assignment]

        def play() -> None:
            for events in batches(self.config, self.clock.now() + 1.0, self.resume):
                if self._stop.is_set():
                    return
                self._player = TracePlayer(events, self.clock.now, self.clock.to_wall, gpio,
                                           self.masters, self.post)
                if self._stop.is_set():  # stopped while the player was being made
                    return
                self._player.run()

        self._thread = start_thread(play, "simulator")

    def stop(self) -> None:
        self._stop.set()
        if self._player is not None:
            self._player.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()

    def alive(self) -> bool:
        return self._thread is None or self._thread.is_alive() or self._stop.is_set()
