"""The rig's player (sim/rig_player.py) drives output lines from a trace: on gpiozero's
MockFactory the rig's outputs are wired to the table's inputs (MockConnectedPin), and the
table's real GPIO driver reads back every change of the trace, in order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import one_spin, write_trace
from gpiozero.pins.mock import MockConnectedPin

from controller.core.config import load_config
from controller.core.events import DealerInput, GpioEdge
from controller.trace import read_trace
from drivers.gpio import GpioInputs, GpioOutputs, make_pin_factory
from sim.rig_player import RigPlayer, lines_for

REPO = Path(__file__).resolve().parents[1]
RIG_PINS = {"ball_a": 5, "ball_b": 6, "rotor_a": 12, "rotor_b": 13, "ball_pocket": 19}


class Clock:
    """Wall time that passes only when the player sleeps (no real waiting)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.slept = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds
        self.slept += seconds


def test_the_rig_drives_the_lines_the_tables_driver_reads(tmp_path: Path) -> None:
    builder, _ = one_spin()
    trace = read_trace(str(write_trace(tmp_path / "spin.jsonl", builder.events())))
    config = load_config()
    factory = make_pin_factory("mock")
    clock = Clock()
    # The table's inputs, read by its real driver...
    seen: list[GpioEdge] = []
    table = GpioInputs(config.inputs, seen.append, clock.now, factory)
    table.start()
    # ...and the rig's outputs, each wired to one of them.
    for name, number in RIG_PINS.items():
        factory.pin(number, pin_class=MockConnectedPin,
                    input_pin=factory.pin(config.inputs[name].pin))
    rig = GpioOutputs(lines_for(config, [f"{n}={p}" for n, p in RIG_PINS.items()]), factory)
    rig.start()
    sent: list[dict[str, Any]] = []
    try:
        played = RigPlayer(trace.events, rig, {}, lambda m: sent.append(m) or {"ok": True},
                           clock=clock.now, sleep=clock.sleep).run()
    finally:
        rig.close()
        table.close()
    edges = [e for e in trace.events if isinstance(e, GpioEdge)]
    assert [(e.input, e.level) for e in seen] == [(e.input, e.level) for e in edges]
    # At the trace's own times (the wall clock started at 1000 s). The driver takes off the
    # real time between the pin's change and its callback: microseconds, but milliseconds on
    # a loaded machine, so the bound is loose (the order is checked exactly above).
    assert [e.t - 1000.0 for e in seen] == pytest.approx([e.t - trace.events[0].t
                                                         for e in edges], abs=0.05)
    inputs = [e for e in trace.events if isinstance(e, DealerInput)]
    assert sent == [{"input": e.action, **e.args} for e in inputs]
    assert (played.edges, played.requests, played.not_played) == (len(edges), len(inputs), 0)


def test_an_active_low_line_rests_high_and_goes_low_for_its_target() -> None:
    factory = make_pin_factory("mock")
    rig = GpioOutputs({"ball_a": (5, "low"), "open_bets": (6, "high")}, factory)
    rig.start()
    try:
        idle = (factory.pin(5).state, factory.pin(6).state)
        rig.set("ball_a", 1)
        rig.set("open_bets", 1)
        active = (factory.pin(5).state, factory.pin(6).state)
    finally:
        rig.close()
    assert idle == (1, 0) and active == (0, 1)


def test_the_player_runs_on_mock_pins_from_the_command_line(tmp_path: Path) -> None:
    builder, _ = one_spin()
    trace = write_trace(tmp_path / "spin.jsonl", builder.events())
    done = subprocess.run([sys.executable, "-m", "sim.rig_player", str(trace),
                           "--pin-factory", "mock", "--speed", "1000"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    edges = sum(1 for line in trace.read_text().splitlines() if '"gpio"' in line)
    assert done.stdout.startswith(f"played {trace}: {edges} edges on 5 lines, 0 shoe bytes, "
                                  "0 requests to the table;")
    bad = subprocess.run([sys.executable, "-m", "sim.rig_player", str(trace), "--pin",
                          "ball_z=5", "--pin-factory", "mock"], capture_output=True, text=True,
                         cwd=REPO, timeout=60)
    assert bad.returncode == 2 and "ball_z=5" in bad.stderr
