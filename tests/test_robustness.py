"""Inputs and situations an adversarial tester found: each is now handled as the contract
says (exit 2 naming file, line and field; an alarm record; or the right verdict)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    REAL_LAPS,
    REAL_PERIOD,
    ReplayFn,
    Rotor,
    TraceBuilder,
    one_spin,
    power_cut,
    run_replay,
    write_trace,
)

from controller.cli import main as cli

META = {"t": 0, "meta": {"table": "roulette"}}


def _exit2(tmp_path: Path, lines: list[str], field: str) -> None:
    trace = tmp_path / "bad.jsonl"
    trace.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 2
    assert res.stderr.count("\n") == 1 and field in res.stderr, res.stderr
    assert res.records == []


@pytest.mark.parametrize("line, field", [
    ('{"t":1,"input":"close_table","type":"spin_result","number":"17"}', "field 'type'"),
    ('{"t":1,"input":"close_table","seq":1}', "field 'seq'"),
    ('{"t":1,"input":"void","action":"x","reason":"foreign_object"}', "field 'action'"),
    ('{"t":1,"input":"inspector_clear","note":NaN}', "NaN is not a number"),
    ('{"t":1,"bet":"red","box":1,"amount":Infinity}', "Infinity is not a number"),
    ('{"t":1,"x":' + "[" * 50000 + "]" * 50000 + "}", "nested too deep"),
])
def test_trace_lines_that_would_poison_the_journal_are_refused(tmp_path: Path, line: str,
                                                               field: str) -> None:
    _exit2(tmp_path, [json.dumps(META), line], field)


def test_a_line_separator_inside_serial_text_is_not_a_line_end(replay: ReplayFn) -> None:
    # U+0085 is byte 0x85 of the shoe's line; U+2028 is a JSON string character.
    res = replay([{"t": 0, "meta": {"table": "mini_baccarat"}},
                  {"t": 1, "serial": "shoe", "text": "x\u0085y\r\n"},
                  {"t": 2, "input": "inspector_clear", "note": "a\u2028b"}])
    assert res.rc == 0, res.stderr
    assert [r["text"] for r in res.of("serial")] == ["x\u0085y\r\n"]


def test_non_utf8_trace_names_the_line(tmp_path: Path) -> None:
    trace = tmp_path / "bad.jsonl"
    trace.write_bytes(json.dumps(META).encode() + b'\n{"t":1,"input":"open_bets"}\n\xff\n')
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 2 and "bad.jsonl:3:" in res.stderr


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_non_finite_threshold_is_a_config_error(tmp_path: Path, value: str,
                                                  replay: ReplayFn) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f"[roulette]\nmin_rotor_rpm = {value}\n")
    res = replay([META], config=str(config))
    assert res.rc == 2
    assert "table.toml:2: field 'roulette.min_rotor_rpm'" in res.stderr


def test_a_wheel_order_of_integers_is_a_config_error(tmp_path: Path, replay: ReplayFn) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[roulette]\norder = ["0", 32, 15]\n')
    res = replay([META], config=str(config))
    assert res.rc == 2 and "field 'roulette.order'" in res.stderr


@pytest.mark.parametrize("speed", ["nan", "inf", "1e-300", "0"])
def test_a_replay_speed_out_of_range_is_refused(tmp_path: Path, speed: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    trace = write_trace(tmp_path / "t.jsonl", [META])
    assert cli.main(["replay", str(trace), "--realtime", "--speed", speed]) == 2
    assert "--speed" in capsys.readouterr().err


def test_run_without_wheel_inputs_is_a_config_error(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    assert cli.main(["run", "--config", str(config)]) == 2
    assert "gpio.inputs" in capsys.readouterr().err


def test_two_rotor_activations_at_one_instant_are_an_alarm_not_a_crash(
        replay: ReplayFn) -> None:
    events: list[dict[str, Any]] = [META]
    for level in (1, 0, 1, 0):
        events.append({"t": 1.0, "gpio": "rotor_a", "level": level})
    res = replay(events)
    assert res.rc == 0
    # CONTRACT §5: chatter, merged into one pass and named.
    assert [a["message"].split()[0] for a in res.alarms("sensor_fault")] == ["rotor_a"]


def test_a_rotor_reversed_between_spins_is_read_from_its_fresh_sensor_pair(
        replay: ReplayFn) -> None:
    # Art. 12 (b): the rotor turned cw, the dealer reverses it; the ball is thrown cw
    # (against the new ccw rotor) before the rotor completes a revolution the new way.
    tb = TraceBuilder()
    tb.inp(0.1, "open_bets")
    before = Rotor.turning(1.0, [REAL_PERIOD], "cw", until=12.0)
    tb.add(*before.events())
    after = Rotor.turning(13.0, [REAL_PERIOD], "ccw", until=60.0)
    tb.add(*after.events())
    tb.ball(after.a[0] + 0.5, REAL_LAPS, "cw")
    res = replay(tb)
    (outcome,) = res.outcomes  # the spin is decided, and not as "same direction"
    assert "same_direction" not in outcome.get("reasons", [])
    assert outcome["rotor_direction"] == "ccw" and outcome["ball_direction"] == "cw"


def test_after_a_restart_mid_spin_no_late_bet_and_no_spin_from_the_same_throw(
        tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    tb, spin = one_spin(pocket=8)
    cut = spin.launch + 4.0
    events = tb.events()
    assert run_replay(write_trace(tmp_path / "a.jsonl",
                                  [e for e in events if e["t"] <= cut]), db).rc == 0
    power_cut(db, cut)
    rest = [events[0], *[e for e in events[1:] if e["t"] > cut],
            {"t": cut + 0.5, "bet": "straight", "box": 5, "amount": 10, "numbers": ["8"]}]
    res = run_replay(write_trace(tmp_path / "b.jsonl",
                                 sorted(rest, key=lambda e: e["t"])), db)
    assert [o["reason"] for o in res.outcomes] == ["interrupted"]
    assert not res.of("spin_start")
    assert [a["code"] for a in res.alarms("bet_refused")] == ["bet_refused"]


def test_a_missed_ball_pass_does_not_make_a_second_spin_of_one_throw(
        replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=8, laps=(0.5, 0.52, 0.55, 0.6, 0.7, 1.2, 1.3, 1.4))
    missed = spin.ball_a[4]
    tb._events = [e for e in tb._events
                  if not (e.get("gpio") == "ball_a" and abs(e["t"] - missed) < 0.01)]
    res = replay(tb)
    assert len(res.of("spin_start")) == 1


def test_a_simulated_stopped_wheel_is_decided_within_the_trace(
        tmp_path: Path, replay: ReplayFn) -> None:
    trace = tmp_path / "stopped.jsonl"
    assert cli.main(["simulate", "--spins", "1", "--seed", "4", "--scenario",
                     "wheel_stopped", "--out", str(trace)]) == 0
    res = replay(trace)
    assert [o["reason"] for o in res.outcomes] == ["wheel_stopped"]
