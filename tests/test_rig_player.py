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

from controller.cli.compose import games, load_config, read_trace
from controller.core import registry
from controller.core.events import DealerInput, GpioEdge
from drivers.gpio import GpioInputs, GpioOutputs, make_pin_factory
from sim.rig_player import RigPlayer, lines_for

GAMES = registry.games()

ROULETTE = registry.spec("roulette")

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
    # At 1000 times the speed a millisecond late is a second of trace time: a loose bound.
    done = subprocess.run([sys.executable, "-m", "sim.rig_player", str(trace),
                           "--pin-factory", "mock", "--speed", "1000",
                           "--max-late-ms", "1000000"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-3].startswith("player: worst lateness ")
    assert lines[-1].endswith("within the bound")
    assert all(len(line) <= 80 for line in lines[-3:])
    edges = sum(1 for line in trace.read_text().splitlines() if '"gpio"' in line)
    assert done.stdout.startswith(f"played {trace}: {edges} edges on 5 lines, 0 shoe bytes, "
                                  "0 requests to the table;")
    bad = subprocess.run([sys.executable, "-m", "sim.rig_player", str(trace), "--pin",
                          "ball_z=5", "--pin-factory", "mock"], capture_output=True, text=True,
                         cwd=REPO, timeout=60)
    assert bad.returncode == 2 and "ball_z=5" in bad.stderr


def test_the_player_refuses_a_trace_the_table_does_not_read(tmp_path: Path) -> None:
    # A serial wheel's status lines, played for the default table (a GPIO wheel): the
    # table would read none of it, as a replay with its config says; nothing is played.
    trace = tmp_path / "serial-wheel.jsonl"
    subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", "--spins", "1",
                    "--wheel", "serial", "--out", str(trace)], check=True, cwd=REPO,
                   capture_output=True, timeout=60)
    done = subprocess.run([sys.executable, "-m", "sim.rig_player", str(trace),
                           "--pin-factory", "mock", "--serial", "wheel=loop://"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert str(trace) in line and "serial" in line and "line " in line, line


class SlowLines:
    """Output lines that take ``cost`` wall seconds to drive (a loaded rig)."""

    def __init__(self, clock: Clock, cost: float, lines: tuple[str, ...]) -> None:
        self.clock, self.cost, self.lines = clock, cost, lines

    def set(self, name: str, level: int) -> None:
        self.clock.t += self.cost


@pytest.mark.parametrize(("cost_ms", "over"), [(0.5, False), (8.0, True)])
def test_the_player_measures_how_late_it_drove_each_edge(cost_ms: float, over: bool) -> None:
    # Each line takes cost_ms to drive: every edge is that late, and the ones after a
    # burst of edges (a pass's rise and fall of two inputs) later still.
    builder, _ = one_spin()
    trace = trace_of(builder.events())
    clock = Clock()
    lines = ("ball_a", "ball_b", "rotor_a", "rotor_b", "ball_pocket")
    played = RigPlayer(trace.events, SlowLines(clock, cost_ms / 1000, lines), {}, None,
                       clock=clock.now, sleep=clock.sleep).run()
    late = played.lateness
    assert late.count == played.edges > 0
    assert late.worst_s >= cost_ms / 1000 - 1e-9
    assert late.over is over
    assert late.line().endswith("over the bound: not a comparison with the trace"
                                if over else "within the bound")


def test_a_player_behind_the_bound_exits_5(tmp_path: Path) -> None:
    builder, _ = one_spin()
    trace = write_trace(tmp_path / "spin.jsonl", builder.events())
    done = subprocess.run([sys.executable, "-m", "sim.rig_player", str(trace),
                           "--pin-factory", "mock", "--speed", "1000",
                           "--max-late-ms", "0.000001"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 5, done.stderr
    lines = done.stdout.splitlines()
    assert "over the bound" in lines[-2]
    # No control socket: nothing could journal it, and the player says so.
    assert lines[-1] == ("player: no --control-socket: no player_late alarm journaled; "
                         "discard this run")
    assert all(len(line) <= 80 for line in lines[-4:])


def trace_of(events: list[dict[str, Any]]) -> Any:
    from controller.trace import trace_from_objects

    return trace_from_objects("trace", enumerate(events, 1), games())


@pytest.mark.parametrize(("max_late_ms", "rc"), [("0.000001", 5), ("1000000", 0)])
def test_a_rig_player_past_its_bound_has_the_table_journal_player_late(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], max_late_ms: str, rc: int) -> None:
    # The rig's player on the table's Pi (mock pins here), its requests to the real table
    # through its control socket: past the bound (a millionth of a millisecond: every run
    # is later than that) the table journals player_late and the player exits 5, as
    # `replay --realtime` does (issue 16, item 5); within it, no alarm and exit 0.
    from controller.cli.compose import compose
    from controller.cli.control import ControlServer
    from controller.core.clock import SystemClock
    from controller.core.logs import configure
    from controller.core.loop import start_thread
    from controller.store.journal import Journal
    from sim.rig_player import main

    builder, _ = one_spin()
    trace = write_trace(tmp_path / "spin.jsonl", builder.events())
    configure("error")
    sock = tmp_path / "c.sock"
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ngame = "roulette"\n[control]\nsocket = "{sock}"\n')
    config = load_config(str(path))
    clock = SystemClock()
    with Journal(tmp_path / "journal.sqlite", durable=False) as journal:
        loop, _ = compose(config, journal, clock)
        srv = ControlServer(config.control_socket, None, loop.post, clock.now, dict,
                            ROULETTE, games=GAMES)
        srv.start()
        thread = start_thread(loop.run_forever, "loop")
        try:
            got = main([str(trace), "--pin-factory", "mock", "--speed", "1000",
                        "--max-late-ms", max_late_ms, "--control-socket", str(sock)])
        finally:
            loop.stop()
            thread.join()
            srv.stop()
        alarms = [r for r in journal.records(types=("alarm",)) if r["code"] == "player_late"]
    out = capsys.readouterr().out.splitlines()
    assert got == rc
    if rc:
        (alarm,) = alarms
        assert "not a comparison with the trace" in alarm["message"]
        assert out[-2].endswith("over the bound: not a comparison with the trace")
        assert out[-1] == "player: the table journaled a player_late alarm"
    else:
        assert not alarms and out[-1].endswith("within the bound")

