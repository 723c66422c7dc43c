"""Wheel sensors and dealer buttons on GPIO, through gpiozero pins (CONTRACT §1).

The pin factory is chosen by the config's ``gpio.pin_factory`` or the
``GPIOZERO_PIN_FACTORY`` variable: ``lgpio`` on a Raspberry Pi, ``mock`` (gpiozero's
MockFactory) in tests, in simulation and in ``replay --realtime``. Pins are used directly
(not ``DigitalInputDevice``) because a pin's ``when_changed`` gives the edge's own
timestamp ("ticks"), taken where the factory reads the line. A callback only converts the
physical level to the logical one, timestamps the edge on the controller's clock, counts it
(``tablectl sensors --watch``: every edge, so a 4 ms ball pass between two looks is still
seen) and posts it: nothing else runs on a driver thread.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from controller.core.config import InputPin
from controller.core.errors import TableControllerError
from controller.core.events import Event, GpioEdge

TICKS_TOGETHER_S = 50e-6  # a mock pin's tick and the clock, read this close together
RISES_KEPT = 16  # per input: a ball's laps, a rotor's turns between two looks


@dataclass
class EdgeCount:
    """What the driver saw of one input: edges, the last one's time, the recent rises."""

    edges: int = 0
    last_edge_t: float | None = None
    rises: deque[float] = field(default_factory=lambda: deque(maxlen=RISES_KEPT))


# What a machine without the Pi's pin library is missing, and what runs without pins.
_HINT = ("on a Raspberry Pi install lgpio: sudo apt install python3-lgpio; elsewhere run a "
         "simulated table's config, or set GPIOZERO_PIN_FACTORY=mock")


class GpioError(TableControllerError):
    """The pin factory cannot be loaded or a pin cannot be set up (names both)."""


def make_pin_factory(name: str | None) -> Any:
    """The gpiozero pin factory called ``name`` (or ``GPIOZERO_PIN_FACTORY``, or gpiozero's
    default order: lgpio, rpigpio, pigpio, native).

    Raises:
        GpioError: no such factory, or it cannot start on this machine.
    """
    name = name or os.environ.get("GPIOZERO_PIN_FACTORY")
    try:
        if name is None:
            from gpiozero import Device

            return Device._default_pin_factory()
        for ep in entry_points(group="gpiozero_pin_factories"):
            if ep.name.lower() == name.lower():
                return _stamped(ep.load()())
    except Exception as exc:  # gpiozero raises many kinds: report one clear error
        raise GpioError(f"pin factory {name or 'default'!r} cannot start: {exc} ({_HINT})"
                        ) from exc
    raise GpioError(f"unknown pin factory {name!r}")


def _stamped(factory: Any) -> Any:
    """``factory``; a mock one makes pins that a simulator can drive on time
    (:class:`drivers.mock_pins.StampedMockPin`) unless ``GPIOZERO_MOCK_PIN_CLASS`` names
    a class of its own."""
    from gpiozero.pins.mock import MockFactory, MockPin

    if isinstance(factory, MockFactory) and factory.pin_class is MockPin:
        from drivers.mock_pins import StampedMockPin

        factory.pin_class = StampedMockPin
    return factory


class GpioInputs:
    """The configured inputs as gpiozero pins, posting :class:`GpioEdge` events.

    Args:
        inputs: the config's ``gpio.inputs`` (BCM pin, pull, active level, debounce s).
        post: the controller loop's thread-safe entry point.
        now: the controller clock (seconds).
        factory: a gpiozero pin factory (see :func:`make_pin_factory`).
        scale: controller seconds per wall second (``replay --speed``).

    Raises:
        GpioError: a pin cannot be set up (in use, not on this board).
    """

    def __init__(self, inputs: dict[str, InputPin], post: Callable[[Event], None],
                 now: Callable[[], float], factory: Any, scale: float = 1.0) -> None:
        self.inputs = inputs
        self.post = post
        self.now = now
        self.factory = factory
        self.scale = scale
        self.pins: dict[str, Any] = {}
        # Strong references: gpiozero keeps only a weak reference to when_changed.
        self._callbacks: dict[str, Callable[[int, int], None]] = {}
        self._counts: dict[str, EdgeCount] = {name: EdgeCount() for name in inputs}
        self._count_lock = threading.Lock()

    def start(self) -> None:
        for name, spec in self.inputs.items():
            try:
                pin = self.factory.pin(spec.pin)
                pin.function = "input"
                pin.pull = "floating" if spec.pull == "none" else spec.pull
                if spec.debounce_s > 0:
                    pin.bounce = spec.debounce_s
                pin.edges = "both"
            except Exception as exc:
                raise GpioError(f"input {name!r} on BCM pin {spec.pin}: {exc}") from exc
            callback = self._callback(name, spec.active == "high")
            self._callbacks[name] = callback
            pin.when_changed = callback
            self.pins[name] = pin

    def _callback(self, name: str, active_high: bool) -> Callable[[int, int], None]:
        factory, post, now, scale = self.factory, self.post, self.now, self.scale

        count, lock = self._counts[name], self._count_lock

        def on_change(ticks: int, state: int) -> None:
            lag = factory.ticks_diff(factory.ticks(), ticks) if ticks is not None else 0.0
            level = int(bool(state) == active_high)
            t = now() - lag * scale
            with lock:
                count.edges += 1
                count.last_edge_t = t
                if level:
                    count.rises.append(t)
            post(GpioEdge(t, name, level))

        return on_change

    def view(self) -> dict[str, dict[str, Any]]:
        """Each input's live view for the control socket's sensors query: ``level`` now
        (1 active), ``edges`` counted since start, ``last_edge_t`` and the last
        ``RISES_KEPT`` ``rises`` (activations), in seconds of the controller clock."""
        with self._count_lock:
            counts = {name: (c.edges, c.last_edge_t, list(c.rises))
                      for name, c in self._counts.items() if name in self.pins}
        return {name: {"level": self.level(name), "edges": edges, "last_edge_t": last,
                       "rises": rises} for name, (edges, last, rises) in counts.items()}

    def level(self, name: str) -> int:
        """The logical level (1 active) of an input now: for the live sensor view."""
        spec = self.inputs[name]
        return int(bool(self.pins[name].state) == (spec.active == "high"))

    def drive(self, name: str, level: int, at: float | None = None) -> None:
        """Set a mock pin to a logical level (simulator and realtime replay only).

        With ``at`` (controller clock seconds) the edge is stamped at that time, as the
        kernel stamps a real line's edge when it happens, however late the caller drives
        it (a pin that cannot be driven so, gpiozero's plain ``MockPin``: stamped now).
        """
        spec = self.inputs[name]
        physical_high = bool(level) == (spec.active == "high")
        pin = self.pins[name]
        if at is not None and hasattr(pin, "drive_at"):
            pin.drive_at(physical_high, self._ticks_at(at))
        elif physical_high:
            pin.drive_high()
        else:
            pin.drive_low()

    def _ticks_at(self, at: float) -> float:
        """The factory's ticks (a mock factory's: monotonic seconds) at controller time
        ``at``: the ticks and the clock read together (again when the thread was
        preempted between them, which would shift the stamp by the pause times the
        clock's scale)."""
        ticks, now = self.factory.ticks, self.now
        for _ in range(5):
            before = ticks()
            clock = now()
            if self.factory.ticks_diff(ticks(), before) < TICKS_TOGETHER_S:
                break
        return before - (clock - at) / self.scale

    def close(self) -> None:
        for pin in self.pins.values():
            pin.when_changed = None
            pin.close()
        self.pins.clear()
        self._callbacks.clear()


class GpioOutputs:
    """Output lines that stand in for the table's sensors: the hardware-in-the-loop rig
    (``sim/rig_player.py``) drives each wired line as its sensor would, so the table's
    own inputs read it.

    Args:
        lines: input name -> (BCM pin of the rig's output, ``active`` level "low"/"high"
            of the table's input: an active-low sensor pulls its line low when it sees its
            target).
        factory: a gpiozero pin factory (``make_pin_factory``: ``lgpio`` on the rig's Pi,
            ``mock`` here).

    Raises:
        GpioError: a pin cannot be set up as an output.
    """

    def __init__(self, lines: dict[str, tuple[int, str]], factory: Any) -> None:
        self.lines = lines
        self.factory = factory
        self.pins: dict[str, Any] = {}

    def start(self) -> None:
        for name, (number, active) in self.lines.items():
            try:
                pin = self.factory.pin(number)
                pin.function = "output"
                pin.state = active == "low"  # idle: the sensor sees nothing
            except Exception as exc:
                raise GpioError(f"rig output for {name!r} on BCM pin {number}: {exc}") from exc
            self.pins[name] = pin

    def set(self, name: str, level: int) -> None:
        """Show logical ``level`` (1: the sensor sees its target) on ``name``'s line."""
        self.pins[name].state = bool(level) == (self.lines[name][1] == "high")

    def close(self) -> None:
        for pin in self.pins.values():
            pin.close()
        self.pins.clear()
