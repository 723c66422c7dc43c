"""The table's hardware as the config names it: GPIO inputs and serial ports, whatever the
game. Opened by the composition root (``table-controller run``, ``replay --realtime``) and
closed on exit; every stop is guarded on its own so one failing close skips no other."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from controller.core.config import Config
from controller.core.events import Event
from controller.core.logs import get_logger
from drivers.gpio import GpioInputs, make_pin_factory
from drivers.serial_port import SerialTransport

log = get_logger(component="hardware")


def open_pin_factory(config: Config, pin_factory: str | None = None,
                     inputs: dict[str, Any] | None = None) -> Any | None:
    """The gpiozero pin factory the table's GPIO inputs need (``pin_factory`` over the
    config's ``gpio.pin_factory``), or None when the table reads no GPIO input. The daemon
    loads it before it makes or writes its journal: a machine that cannot open the pins
    (no lgpio: not a Pi) is told so without a journal left behind.

    Raises:
        GpioError: the factory cannot be loaded or cannot start on this machine.
    """
    if not (config.inputs if inputs is None else inputs):
        return None
    return make_pin_factory(pin_factory or config.pin_factory)


class Hardware:
    """The GPIO inputs and serial transports of one table.

    Args:
        config: the checked config (``gpio.inputs``, ``serial``).
        post: the controller loop's thread-safe entry point.
        clock: the controller clock (``now()`` seconds; ``speed`` when scaled).
        urls: a port name -> URL to open instead of the config's (a simulator's
            pseudo-terminal), and ports to open that the config does not name.
        pin_factory: a gpiozero factory name overriding the config's (``mock``).
        inputs: the GPIO inputs to open instead of the config's.
        factory: the pin factory already loaded (:func:`open_pin_factory`); None: loaded
            at :meth:`start`.
    """

    def __init__(self, config: Config, post: Callable[[Event], None], clock: Any,
                 urls: dict[str, str] | None = None, pin_factory: str | None = None,
                 inputs: dict[str, Any] | None = None, factory: Any = None) -> None:
        self.config = config
        self.post = post
        self.clock = clock
        self.urls = {**{name: spec.url for name, spec in config.serial.items()}, **(urls or {})}
        self.pin_factory = pin_factory or config.pin_factory
        self.inputs = config.inputs if inputs is None else inputs
        self.factory = factory
        self.gpio: GpioInputs | None = None
        self.transports: list[SerialTransport] = []

    def start(self) -> None:
        """Open the inputs and ports (a serial port that is not there yet is retried by its
        transport, never an error here).

        Raises:
            GpioError: the pin factory cannot start or a pin cannot be set up.
        """
        scale = getattr(self.clock, "speed", 1.0)
        if self.inputs:
            factory = self.factory or make_pin_factory(self.pin_factory)
            self.gpio = GpioInputs(self.inputs, self.post, self.clock.now, factory,
                                   scale=scale)
            self.gpio.start()
        for name, url in self.urls.items():
            spec = self.config.serial.get(name)
            transport = SerialTransport(name, url, spec.baudrate if spec else 9600, self.post,
                                        self.clock)
            transport.start()
            self.transports.append(transport)

    def wait_open(self, timeout: float) -> list[str]:
        """Wait up to ``timeout`` wall seconds in all until every serial port has been
        opened by its reader; the names of those that were not."""
        deadline = time.monotonic() + timeout
        return [t.port_name for t in self.transports
                if not t.wait_open(max(0.0, deadline - time.monotonic()))]

    def sensors(self) -> dict[str, Any]:
        """Every GPIO input's live view (``GpioInputs.view``: level, edges, last edge,
        recent rises)."""
        gpio = self.gpio
        return gpio.view() if gpio is not None else {}

    def stop(self) -> None:
        """Close every port and pin; a failure of one is logged and the rest still close."""
        for transport in self.transports:
            try:
                transport.stop()
            except Exception as exc:
                log.error("serial port did not close", port=transport.port_name, error=str(exc))
        self.transports.clear()
        if self.gpio is not None:
            try:
                self.gpio.close()
            except Exception as exc:
                log.error("GPIO pins did not close", error=str(exc))
            self.gpio = None

    def alive(self) -> bool:
        return all(t.alive() for t in self.transports)
