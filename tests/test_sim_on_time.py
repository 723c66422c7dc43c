"""The daemon's simulated wheel drives its mock pins on time (issue 20).

A real line's edge is stamped by the kernel when it happens, however late the controller
gets the CPU. A simulator that wakes a few milliseconds late on a loaded machine and
stamps its edges when it drives them makes its own spin's evidence uncertain: the spins
were held (``spin_held``, "the timing cannot be trusted"). Driven on time, each edge
carries the time it was due, and the same late wake-ups give the spin its result. What the
controller accepts as certain is unchanged: late stamps are still held
(tests/test_spin_timing.py).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import ORDERS, ReplayFn, one_spin

from controller.cli.compose import load_config
from controller.core.events import Event, GpioEdge
from drivers.gpio import GpioInputs, make_pin_factory
from sim.trace_player import TracePlayer

TRUE_POCKET = ORDERS["single_zero"].index("33")
LATE_INPUTS = ("rotor_a", "rotor_b", "ball_pocket")
SCALE = 10.0  # controller seconds a wall second, as a simulation faster than life


def played_late(on_time: bool, seed: int = 0, late: float = 0.1
                ) -> tuple[list[dict[str, Any]], list[float]]:
    """One spin resting in 33, its GPIO edges played into mock pins through the driver by
    a player that wakes late: at each rotor and pocket pass, a random 0 to ``late`` trace
    seconds after the pass was due (a pass's rise and fall alike, as
    tests/test_spin_timing.py stamps them). The trace's events with each edge at the time
    the driver stamped it, and the lateness of each edge."""
    tb, spin = one_spin(pocket=TRUE_POCKET, reads=2,
                        bets=({"t": 0.5, "bet": "straight", "box": 1, "amount": 10,
                               "numbers": ["16"]},))
    events = tb.events()
    edges = [e for e in events if "gpio" in e]
    rng = random.Random(seed)
    delay: dict[str, float] = {}
    lates = []
    for e in edges:
        if e["gpio"] in LATE_INPUTS and e["t"] >= spin.launch and e["level"] == 1:
            delay[e["gpio"]] = rng.uniform(0.0, late)
        lates.append(delay.get(e["gpio"], 0.0) if e["t"] >= spin.launch else 0.0)
    clock = [0.0]
    stamped: list[Event] = []
    gpio = GpioInputs(load_config().inputs, stamped.append, lambda: clock[0],
                      make_pin_factory("mock"), scale=SCALE)
    gpio.start()
    due = iter(zip(edges, lates, strict=True))
    drive = gpio.drive

    def drive_late(name: str, level: int, at: float | None = None) -> None:
        edge, lateness = next(due)
        clock[0] = edge["t"] + lateness  # the player woke this late
        drive(name, level, at)

    gpio.drive = drive_late  # type: ignore[method-assign]
    player = TracePlayer([GpioEdge(e["t"], e["gpio"], e["level"]) for e in edges],
                         lambda: clock[0], lambda s: 0.0, gpio, {}, stamped.append,
                         on_time=on_time)
    try:
        player.run()
    finally:
        gpio.close()
    assert [(e.input, e.level) for e in stamped] == [(e["gpio"], e["level"]) for e in edges]
    times = iter(round(e.t, 6) for e in stamped)
    out = [{**e, "t": next(times)} if "gpio" in e else e for e in events]
    return [out[0], *sorted(out[1:], key=lambda e: e["t"])], lates


def test_a_simulator_late_by_up_to_100_ms_still_gives_the_spin_its_result(
        replay: ReplayFn) -> None:
    events, lates = played_late(on_time=True)
    assert max(lates) > 0.05  # the player was late, and by more than the pocket allows
    res = replay(events)
    out = res.outcome()
    assert (out["type"], out["number"]) == ("spin_result", "33")
    first = out["pocket_readings"][0]
    assert first["angle_error_deg"] < first["edge_margin_deg"]
    assert not res.of("spin_held")


def test_the_same_player_stamping_when_it_drives_holds_the_spin(replay: ReplayFn) -> None:
    # What the daemon's simulator did before: the stamps are as late as the player.
    events, _ = played_late(on_time=False)
    (held,) = replay(events).of("spin_held")
    assert "cannot be trusted" in held["details"]["timing"]


def test_an_edge_driven_late_is_stamped_when_it_was_due() -> None:
    clock = [100.0]
    posted: list[Event] = []
    gpio = GpioInputs(load_config().inputs, posted.append, lambda: clock[0],
                      make_pin_factory("mock"), scale=50.0)
    gpio.start()
    try:
        gpio.drive("ball_a", 1, at=99.75)  # driven 0.25 s of the table's time late
        gpio.drive("ball_a", 0)  # and without a due time: stamped now
    finally:
        gpio.close()
    assert [e.t for e in posted] == [pytest.approx(99.75, abs=0.005),
                                     pytest.approx(100.0, abs=0.005)]


def test_the_daemon_s_simulated_wheel_drives_its_pins_on_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The daemon's simulator (sim.daemon) is what `make run` and the bench's daemon play:
    # its players stamp each edge when due.
    import threading

    import sim.daemon
    from controller.core.clock import VirtualClock

    made: list[TracePlayer] = []
    first = threading.Event()

    class Recorded(TracePlayer):
        def run(self) -> None:  # plays nothing: only how it was made is looked at
            made.append(self)
            first.set()
            self.done.set()

    monkeypatch.setattr(sim.daemon, "TracePlayer", Recorded)
    table = sim.daemon.SimulatedTable(load_config(), VirtualClock(), lambda e: None,
                                      sim.daemon.SimulatorResume())
    try:
        table.start(None)
        assert first.wait(30)
    finally:
        table.stop()
    assert made and all(player.on_time for player in made)
