"""A stalled process never changes a verdict (CONTRACT §5; seed 001 Art. 12).

Under load the whole process can stop for a while (reproduced with a 150 ms SIGSTOP of
``replay --realtime`` mid-spin): no thread runs, the monotonic clock runs on. Here the
stall is the clock of ``replay --realtime`` jumping ahead mid-spin while the player, the
drivers and the loop all see it at once, as after a SIGCONT; no test sleeps for it.

- An edge carries the time it happened (the driver's stamp, as a line's kernel stamps
  it), not the time a late thread drove or read it: the journaled evidence holds the
  trace's times.
- The verdict is the trace's own, or the spin is held for a person: never a wrong
  number, reason or ball revolution count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import TRACES, run_replay, write_trace

from controller.core.clock import ScaledClock

EXAMPLE = TRACES / "roulette-two-spins.jsonl"
SPEED = "10"


def spin_one(tmp: Path) -> Path:
    """The example's first spin alone (CONTRACT §2; traces README: 13 revolutions, 20)."""
    lines = [json.loads(x) for x in EXAMPLE.read_text().splitlines() if x.strip()]
    return write_trace(tmp / "spin1.jsonl", [e for e in lines if e["t"] <= 24.0])


def stalling_clock(at: float, jump: float) -> type[ScaledClock]:
    """A ``ScaledClock`` that jumps ``jump`` trace seconds ahead once past ``at``: what
    every thread of a process sees when it resumes after a stall."""

    class Stalling(ScaledClock):
        def now(self) -> float:
            t = super().now()
            return t + jump if t >= at else t

    return Stalling


def outcomes(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    keys = ("type", "spin", "number", "reason", "ball_revolutions", "ball_direction",
            "rotor_direction")
    return [tuple(r.get(k) for k in keys) for r in records
            if r["type"] in ("spin_result", "spin_invalid", "spin_held")]


@pytest.mark.realtime
@pytest.mark.parametrize("at", [4.0, 7.0])
def test_a_stall_mid_spin_gives_the_true_verdict_or_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: float) -> None:
    # 1.5 s of trace time (150 ms at 10x) while the ball laps in 0.6-0.7 s: ball edges
    # are due while nothing runs, and the ball's drop timeout falls inside the stall.
    trace = spin_one(tmp_path)
    truth = run_replay(trace, tmp_path / "virtual.sqlite")
    assert outcomes(truth.records) == [("spin_result", 1, "20", None, 13, "ccw", "cw")]
    monkeypatch.setattr("controller.cli.main.ScaledClock", stalling_clock(at, 1.5))
    got = run_replay(trace, tmp_path / "stalled.sqlite", "--realtime", "--speed", SPEED,
                     "--evidence")
    assert got.rc in (0, 5), got.stderr
    # Every edge journaled carries its trace time (to the player's 5 ms lateness bound:
    # a late stamp here is the stall, 1.5 s).
    want = [(e["t"], e["gpio"], e["level"]) for e in map(json.loads,
            trace.read_text().splitlines()) if "gpio" in e]
    edges = [(r["t"], r["input"], r["level"]) for r in got.records if r["type"] == "gpio"]
    assert [e[1:] for e in edges] == [e[1:] for e in want]
    late = [(w, e) for w, e in zip(want, edges, strict=True) if abs(e[0] - w[0]) > 0.005]
    assert not late, late[:3]
    # The verdict: the trace's, or held for a person with the reason.
    for o in outcomes(got.records):
        assert o[0] == "spin_held" or o == outcomes(truth.records)[0], o


@pytest.mark.realtime
def test_realtime_reads_the_shoe_lines_written_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pyserial's open() flushes what the port holds: a reader thread that opened its
    # pseudo-terminal after the player's first bytes lost them. The reader here opens as
    # late as it can (once the player wrote, or after a second); the player must not
    # start before every port is open.
    import threading
    import types

    import serial

    import sim.trace_player

    written = threading.Event()

    def write(fd: int, data: bytes) -> int:
        n = os_write(fd, data)
        written.set()
        return n

    os_write = sim.trace_player.os.write
    monkeypatch.setattr(sim.trace_player, "os", types.SimpleNamespace(write=write))
    opener = serial.serial_for_url

    def late_open(*args: Any, **kwargs: Any) -> Any:
        written.wait(1.0)  # the stimulus, not a timed assertion
        return opener(*args, **kwargs)

    monkeypatch.setattr("drivers.serial_port.serial.serial_for_url", late_open)
    lines = ["[Game]<Card:4S>", "[Game]<Card:KH>", "[Burn]<Card:2D>"]
    trace = write_trace(tmp_path / "shoe.jsonl", [
        {"t": 0, "meta": {"table": "mini_baccarat", "decks": 4}},
        *({"t": 0.001 * i, "serial": "shoe", "text": line + "\r\n"}
          for i, line in enumerate(lines))])
    got = run_replay(trace, tmp_path / "j.sqlite", "--realtime", "--speed", "10")
    assert got.rc == 0, got.stderr
    assert [r["text"].strip() for r in got.records if r["type"] == "serial"] == lines


def replay_doubted(tmp_path: Path, until: float, at: float,
                   times: int = 1) -> list[dict[str, Any]]:
    """The first spin replayed on trace time, the loop telling the table ``times`` times,
    once the events up to ``until`` s are handled, that an edge stamped ``at`` s came
    after a timeout it precedes (EventLoop.on_doubt); the records shown."""
    from controller.cli.compose import compose, load_config
    from controller.core.clock import VirtualClock
    from controller.core.config import apply_overrides
    from controller.store.journal import Journal
    from controller.trace import read_trace

    tmp_path.mkdir(exist_ok=True)
    path = spin_one(tmp_path)
    base = load_config()
    trace = read_trace(str(path), base.games, serial_ports=base.serial, and_games=True)
    config = apply_overrides(base, trace.meta, str(path))
    shown: list[dict[str, Any]] = []
    with Journal(str(tmp_path / "j.sqlite"), durable=False) as journal:
        clock = VirtualClock()
        loop, table = compose(config, journal, clock, lambda body: shown.append(
            json.loads(body)))
        table.recover()
        events = list(trace.events)
        loop.run_events(e for e in events if e.t <= until)
        loop.run_until_idle(until)
        assert loop.on_doubt is not None
        for _ in range(times):
            loop.on_doubt(at, "the controller stalled")
        loop.run_events(e for e in events if e.t > until)
        loop.run_until_idle(trace.duration + 600)
    return shown


def test_a_spin_in_play_when_the_timing_is_doubted_is_held(tmp_path: Path) -> None:
    # CONTRACT §5: the loop told the table it stalled mid-spin (EventLoop.on_doubt): the
    # spin is held for a person with the reason, never decided; bets wait with it.
    shown = replay_doubted(tmp_path, 7.0, 7.0)
    held = [r for r in shown if r["type"] == "spin_held"]
    assert [(r["spin"], r["reason"]) for r in held] == [(1, "sensor_fault")]
    assert held[0]["details"]["stall"] == "the controller stalled"
    assert not [r for r in shown if r["type"] in ("spin_result", "spin_invalid")]
    (alarm,) = [r for r in shown if r["type"] == "alarm" and r["code"] == "timing_doubt"]
    assert "spin 1 is held" in alarm["message"]


def test_an_edge_from_before_a_verdict_that_comes_after_it_is_alarmed_once(
        tmp_path: Path) -> None:
    # The verdict was journaled (and paid) before an edge stamped earlier reached the
    # controller: it stands (nothing journaled is changed), and one timing_doubt alarm
    # names the spin for a person to check, however many such edges come.
    plain = replay_doubted(tmp_path / "plain", 24.0, 0.0, times=0)
    (result,) = [r for r in plain if r["type"] == "spin_result"]
    shown = replay_doubted(tmp_path / "doubted", 24.0, result["t"] - 0.5, times=3)
    assert [r for r in shown if r["type"] == "spin_result"] == [result]
    (alarm,) = [r for r in shown if r["type"] == "alarm" and r["code"] == "timing_doubt"]
    assert f"spin 1 was concluded at {result['t']:.3f} s without it" in alarm["message"]
    assert "for a person to check" in alarm["message"]
    # An edge stamped after the verdict says nothing of it.
    later = replay_doubted(tmp_path / "later", 24.0, result["t"] + 0.1)
    assert not [r for r in later if r["type"] == "alarm" and r["code"] == "timing_doubt"]
