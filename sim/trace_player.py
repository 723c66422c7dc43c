"""Plays a trace into the hardware seams as time passes (``replay --realtime``, the rig).

GPIO changes drive gpiozero mock pins, so they come back through the real driver
callbacks; serial bytes are written to the master side of a pseudo-terminal, so they come
back through the real serial reader; dealer inputs and bets are posted as the maintenance
interface would. A change a pin cannot show (a level it already has) is posted as the edge
itself, stamped now, so that both replay modes see the same events.

``on_time`` (``replay --realtime``, the daemon's simulated wheel): each edge is stamped at
its trace time, as a real line's kernel stamps an edge when it happens
(``GpioInputs.drive``'s ``at``), so a player that woke late on a loaded machine (a stalled
process) does not move its own spin's evidence. The edge still reaches the table when it
is driven: late, as a stalled driver's would.

After each GPIO edge it measures how late it drove it against the trace
(:class:`sim.lateness.Lateness`, trace seconds): ``lateness`` holds the worst.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, SerialData
from drivers.gpio import GpioInputs
from sim.lateness import BOUND_S, Lateness


class TracePlayer:
    """Plays ``events`` on ``now`` (a scaled clock): call :meth:`run` on its own thread.

    Args:
        events: trace events in time order (seconds of trace time).
        now: the controller clock; ``to_wall`` converts clock seconds to wall seconds.
        gpio: mock-pin inputs to drive, or None when the trace has no GPIO.
        serial_fds: port name -> file descriptor of the pty master to write to.
        post: the loop's entry point, for inputs and bets.
    """

    def __init__(self, events: Sequence[Event], now: Callable[[], float],
                 to_wall: Callable[[float], float], gpio: GpioInputs | None,
                 serial_fds: dict[str, int], post: Callable[[Event], None],
                 bound_s: float = BOUND_S, on_time: bool = False) -> None:
        self.events = events
        self.now = now
        self.to_wall = to_wall
        self.gpio = gpio
        self.serial_fds = serial_fds
        self.post = post
        self._stop = threading.Event()
        self.done = threading.Event()
        self.lateness = Lateness(bound_s)
        self.on_time = on_time

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        try:
            for event in self.events:
                wait = self.to_wall(event.t - self.now())
                if wait > 0 and self._stop.wait(wait):
                    return
                self._play(event)
        finally:
            self.done.set()

    def _play(self, event: Event) -> None:
        if isinstance(event, GpioEdge):
            gpio = self.gpio
            at = event.t if self.on_time else None
            if gpio is not None and gpio.level(event.input) != event.level:
                gpio.drive(event.input, event.level, at)
            else:
                self.post(replace(event, t=self.now() if at is None else at))
            self.lateness.record(f"{event.input} edge", event.t, self.now() - event.t)
        elif isinstance(event, SerialData):
            data = event.data
            fd = self.serial_fds[event.port]
            while data:
                data = data[os.write(fd, data):]
        elif isinstance(event, DealerInput | BetPlaced):
            self.post(replace(event, t=self.now()))
