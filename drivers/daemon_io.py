"""The daemon's hardware: GPIO inputs, serial ports, and the simulators that stand in for
them on the embedded default config. Built by ``table-controller run``; closed on exit."""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from controller.config import Config, SerialConfig
from controller.core.events import BetPlaced, DealerInput, Event, SerialData
from controller.core.loop import EventLoop, start_thread
from controller.trace import trace_from_objects
from drivers.gpio import GpioInputs, make_pin_factory
from sim.trace_player import TracePlayer

_SIM_BATCH = 50  # spins generated at a time when the simulator runs until stopped


class Hardware:
    """What ``run`` started: :meth:`close` stops the threads and releases the pins/ports."""

    def __init__(self) -> None:
        self.gpio: GpioInputs | None = None
        self.transports: list[Any] = []
        self.players: list[TracePlayer] = []
        self.threads: list[threading.Thread] = []
        self.fds: list[int] = []

    def close(self) -> None:
        for player in self.players:
            player.stop()
        for thread in self.threads:
            thread.join(timeout=5)
        for transport in self.transports:
            transport.stop()
        if self.gpio is not None:
            self.gpio.close()
        for fd in self.fds:
            os.close(fd)


@dataclass(frozen=True)
class SimulatorResume:
    """How far a simulated dealer got before a restart, counted in the journal: shoe bytes
    read, dealer inputs and bets journaled. The same simulated shoe then goes on from there,
    as a real dealer goes on dealing the same shoe."""

    serial_bytes: int = 0
    inputs: int = 0
    bets: int = 0


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


def start_hardware(config: Config, loop: EventLoop, clock: Any, stop: threading.Event,
                   table_open: bool = False,
                   resume: SimulatorResume = SimulatorResume()) -> Hardware:
    """Open the configured inputs and ports (and the simulator when enabled).

    ``table_open``: the table was already open when the daemon (re)started, so the
    simulated dealer does not open it again. ``resume``: where the simulated shoe's dealer
    had got to (card tables).
    """
    hw = Hardware()
    scale = getattr(clock, "speed", 1.0)
    if config.inputs:
        hw.gpio = GpioInputs(config.inputs, loop.post, clock.now,
                             make_pin_factory(config.pin_factory), scale=scale)
        hw.gpio.start()
    sim = config.simulator
    if config.game == "roulette":
        if sim.enabled:
            assert hw.gpio is not None, "the roulette simulator needs the wheel inputs"
            _start_wheel_simulator(config, hw, loop, clock, stop, table_open)
    else:
        from drivers.serial_port import SerialTransport

        ports = list(config.serial.values())
        if sim.enabled and "shoe" not in config.serial:
            # The simulator supplies the shoe itself: its own pseudo-terminal, 9600 8N1.
            ports.append(SerialConfig("shoe", "simulated"))
        for port in ports:
            url = port.url
            if sim.enabled:
                master, slave = os.openpty()
                hw.fds += [master, slave]
                url = os.ttyname(slave)
                _start_shoe_simulator(config, hw, loop, clock, master, port.name, resume)
            transport = SerialTransport(port.name, url, port.baudrate, loop.post, clock)
            transport.start()
            hw.transports.append(transport)
    return hw


def _simulated_spins(config: Config, start: float, table_open: bool = False
                     ) -> Iterator[list[Event]]:
    from sim.wheel_sim import INVALID_SCENARIOS, WheelSimConfig, simulate

    sim = config.simulator
    sim_config = WheelSimConfig(wheel=config.roulette.wheel)
    # Now and then a sensor-detectable invalid spin, so the table shows its rejections.
    rng = random.Random(sim.seed)
    invalid = list(INVALID_SCENARIOS)  # never a held spin: nobody decides it in `make run`
    batch_index = 0
    offset = start
    remaining = sim.spins
    while sim.spins == 0 or remaining > 0:
        count = _SIM_BATCH if sim.spins == 0 else min(remaining, _SIM_BATCH)
        scenarios = [rng.choice(invalid) if rng.random() < sim.invalid_rate else "valid"
                     for _ in range(count)]
        objects, _ = simulate(count, sim.seed + batch_index, sim_config, scenarios)
        trace = trace_from_objects("simulator", enumerate(objects, 1))
        events = [replace(e, t=e.t + offset) for e in trace.events]
        if batch_index > 0 or table_open:
            # The table is already open (from the previous batch, or before a restart).
            events = [e for e in events
                      if not (isinstance(e, DealerInput) and e.action == "open_bets")]
        yield events
        offset = events[-1].t + 1.0
        batch_index += 1
        remaining -= count


def _start_wheel_simulator(config: Config, hw: Hardware, loop: EventLoop, clock: Any,
                           stop: threading.Event, table_open: bool) -> None:
    def play() -> None:
        for events in _simulated_spins(config, clock.now() + 1.0, table_open):
            if stop.is_set():
                return
            player = TracePlayer(events, clock.now, clock.to_wall, hw.gpio, {}, loop.post)
            hw.players.append(player)
            if stop.is_set():  # stopped while the player was being registered
                return
            player.run()
            hw.players.remove(player)

    hw.threads.append(start_thread(play, "wheel-simulator"))


def _start_shoe_simulator(config: Config, hw: Hardware, loop: EventLoop, clock: Any,
                          master: int, port: str, resume: SimulatorResume) -> None:
    from sim.shoe_sim import simulated_shoe_events

    def play() -> None:
        start = clock.now() + 1.0
        events = resume_events(simulated_shoe_events(config, start, port), resume, start)
        player = TracePlayer(events, clock.now, clock.to_wall, None, {port: master}, loop.post)
        hw.players.append(player)
        player.run()

    hw.threads.append(start_thread(play, "shoe-simulator"))
