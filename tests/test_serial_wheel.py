"""The serial wheel (issue 12): status lines to spins through the whole controller, the link's
silence, bad input, the config, the sensors view, and the same simulated spins replayed as
GPIO edges and as status lines.

Traces come from tests/wheel_lines.py (the issue's protocol, written out) or the simulator;
expected values from the issue's text, CONTRACT §5 and the simulator's truth.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Replay, ReplayFn
from wheel_lines import SERIAL_CONFIG, WheelScript, status_text

from controller.cli.compose import load_config
from controller.core import registry
from controller.core.errors import ConfigError
from controller.games.roulette.config import check_daemon
from controller.games.roulette.simulation import SimulatedSpin, serial_expected, simulate
from sim.wheel_serial import StatusLineSimConfig

GAMES = registry.games()

ROULETTE = registry.spec("roulette")

SERIAL_TOML = (REPO / "config" / "roulette-serial-sim.toml").read_text()


def run(replay: ReplayFn, ws: WheelScript | list[dict[str, Any]]) -> Replay:
    res = replay(ws.events() if isinstance(ws, WheelScript) else ws, config=SERIAL_CONFIG)
    assert res.rc == 0, res.stderr
    return res


def states(res: Replay) -> list[str]:
    return [r["to"] for r in res.of("state")]


def surprises(res: Replay) -> list[dict[str, Any]]:
    """The alarms, but the ``wheel_disconnected`` that follows the trace's last line (a
    replay runs time on after it, as the daemon would: the link is then silent)."""
    last = max(r["t"] for r in res.of("serial"))
    return [a for a in res.alarms() if not (a["code"] == "wheel_disconnected" and a["t"] > last)]


# -- lines to spins -----------------------------------------------------------------
def test_the_issues_example_lines_make_one_spin(replay: ReplayFn) -> None:
    # The issue's three examples (idle, bets open, ball in the rim; the counter may change
    # between games), then the same game's no more bets and winning number.
    ws = WheelScript().line("*X;6;117;13;0;002;0").line("*X;2;094;33;0;163;0")
    ws.line("*X;3;241;32;0;137;0").line("*X;4;241;32;0;137;0").line("17")
    res = run(replay, ws.line("*X;5;241;17;0;130;0"))
    assert len(res.of("spin_start")) == 1
    out = res.outcome()
    # NN 32 in state 3 is the last game's number; the spin's is state 5's. SSS 137 was the
    # speed in play: 13.7 rpm (tenths of rpm).
    assert (out["number"], out["rotor_rpm"]) == ("17", pytest.approx(13.7))
    assert not surprises(res)


def test_repeated_states_are_acted_on_once(replay: ReplayFn) -> None:
    res = run(replay, WheelScript().status(2, 5).status(3, 8).status(4, 30).line("5")
              .status(5, 12, number="5"))
    assert len(res.of("spin_start")) == 1 and len(res.outcomes) == 1
    assert states(res).count("no_more_bets") == 1  # state 4 is one "no va más"
    assert res.outcome()["number"] == "5" and not surprises(res)


def test_blank_and_space_padded_numbers(replay: ReplayFn) -> None:
    # NN blank until the first result; " 0" is zero; "00" on a double-zero wheel.
    ws = WheelScript(number=None).spin("0").spin("9")
    texts = [e["text"] for e in ws.events() if "serial" in e]
    assert "*X;2;094;  ;0;160;0\r" in texts and "*X;5;094; 0;0;160;0\r" in texts
    assert [o["number"] for o in run(replay, ws).outcomes] == ["0", "9"]
    dz = WheelScript(wheel="double_zero", number=None).spin("00")
    assert run(replay, dz).outcome()["number"] == "00"
    sz = WheelScript(number=None).spin("00")  # no double zero on a single-zero wheel
    assert run(replay, sz).of("spin_held")[0]["details"]["wheel_number"]


def test_interleaved_command_answers_change_nothing(replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2).status(3, 2).line("*P OK").line("*o BUSY").status(4, 2)
    ws.line("*u OK").line("*T s 14.0 17.5").line("*V 4.12").line("32").line("*P NO")
    ws.status(5, 2, number="32")
    res = run(replay, ws)
    assert res.outcome()["number"] == "32" and not surprises(res)


def test_a_bare_number_that_disagrees_with_state_5_holds_the_spin(replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2).status(3, 2).status(4, 2).line("31").status(5, 2,
                                                                                number="32")
    rec = run(replay, ws).of("spin_held")[0]
    # The two lines disagree: both are candidates, neither is the number the wheel gave.
    assert "31" in rec["details"]["wheel_number"] and rec["candidate"] is None
    assert rec["candidates"] == ["31", "32"]


# -- impossible transitions: alarms, never a result ---------------------------------
def test_state_5_without_state_3_is_an_alarm_never_a_result(replay: ReplayFn) -> None:
    res = run(replay, WheelScript().status(2, 3).status(5, 3, number="17").status(1, 1))
    assert not res.outcomes and not res.of("spin_start")
    assert "no state 3" in res.alarms("wheel_impossible")[0]["message"]


def test_state_4_without_state_3_is_an_alarm(replay: ReplayFn) -> None:
    res = run(replay, WheelScript().status(2, 3).status(4, 2).status(5, 2, number="17"))
    assert not res.outcomes and len(res.alarms("wheel_impossible")) == 1


@pytest.mark.parametrize("state", [6, 7])
def test_state_6_or_7_in_play_holds_the_spin(replay: ReplayFn, state: int) -> None:
    res = run(replay, WheelScript().status(2, 2).status(3, 2).status(state, 2))
    assert res.alarms("wheel_impossible") and "wheel_state" in res.of("spin_held")[0]["details"]


def test_a_game_counter_that_jumps_in_play_holds_the_spin(replay: ReplayFn) -> None:
    ws = WheelScript(game=94).status(2, 2).status(3, 2).status(4, 2, game=1)
    ws.status(5, 2, number="32")
    res = run(replay, ws)
    assert res.alarms("wheel_counter_jump") and not res.outcomes
    assert "wheel_counter" in res.of("spin_held")[0]["details"]


def test_a_game_with_no_state_5_is_held_never_the_number_of_the_next_games_lines(
        replay: ReplayFn) -> None:
    # The state-5 lines and the bare number lost (a garbled stretch, under the silence
    # limit); the next game's state 1 already shows the new number as its NN "last
    # number", with the same counter: the spin is held, that NN is never its result.
    ws = WheelScript(game=190).status(2, 2).status(3, 2).status(4, 4)
    res = run(replay, ws.status(1, 3, number="30").status(2, 2))
    assert not res.outcomes or all(o.get("number") is None for o in res.outcomes)
    (held,) = res.of("spin_held")
    assert held["spin"] == 1 and "wheel_number" in held["details"]


def test_the_counter_does_not_identify_a_game(replay: ReplayFn) -> None:
    # The same counter for two games (the first ended without a number and was voided).
    ws = WheelScript(game=50).status(2, 2).status(3, 2).inp("void", reason="foreign_object")
    ws.status(4, 2).status(1, 1).inp("open_bets").spin("8", next_game=False)
    res = run(replay, ws)
    assert [(o["spin"], o.get("number")) for o in res.outcomes] == [(1, None), (2, "8")]


def test_state_5_right_after_state_3_holds_the_spin(replay: ReplayFn) -> None:
    # No state 4: the wheel never closed bets.
    rec = run(replay, WheelScript().status(2, 2).status(3, 3).status(5, 2, number="4")
              ).of("spin_held")[0]
    assert rec["candidate"] == "4" and "wheel_state" in rec["details"]


def test_a_ball_in_play_at_the_first_line_is_not_a_spin(replay: ReplayFn) -> None:
    res = run(replay, WheelScript().status(4, 3).status(5, 3, number="2").status(1, 1)
              .spin("3"))
    assert [o["number"] for o in res.outcomes] == ["3"]
    assert [a["code"] for a in surprises(res)] == ["wheel_unseen_ball"]


# -- bad input --------------------------------------------------------------------
def test_bad_unknown_and_overlong_lines_are_counted_alarms(replay: ReplayFn) -> None:
    # Each among good lines: no gap in the lines of play longer than wheel_burst_gap_s.
    ws = WheelScript().status(2, 2).status(3, 2).line("*X;4;14*X;*X;4;146; 9;0;158;0")
    ws.status(3, 1).line("HELLO").status(3, 1).line("*X;9;094;33;0;163;0").status(4, 1)
    ws.line("Z" * 400).status(4, 1).line("32").status(5, 2, number="32")
    res = run(replay, ws)
    assert res.outcome()["number"] == "32"
    bad = res.alarms("wheel_bad_line")
    assert [a["message"].split(" from")[0] for a in bad] == ["bad status line #1",
                                                            "bad status line #2"]
    assert len(res.alarms("wheel_unknown_line")) == 1
    assert "400 bytes" in res.alarms("wheel_line_too_long")[0]["message"]


def test_lines_that_cannot_be_used_in_a_row_in_play_are_a_gap(replay: ReplayFn) -> None:
    # Four lines of play in a row the codec cannot use: 2.5 s with no valid line, more
    # than wheel_burst_gap_s: what the wheel reported then is not known.
    ws = WheelScript().status(2, 2).status(3, 2)
    for _ in range(4):
        ws.line("*X;3;094;33;0;16")
    res = run(replay, ws.status(4, 2).line("32").status(5, 2, number="32"))
    rec = res.of("spin_held")[0]
    assert not res.outcomes and "wheel_link" in rec["details"]


def test_gpio_edges_for_a_serial_wheel_are_one_alarm_per_input(replay: ReplayFn) -> None:
    ws = WheelScript().spin("32")
    for t in (1.0, 1.1, 1.2):
        ws.tb.add({"t": t, "gpio": "ball_a", "level": 1}, {"t": t + 0.01, "gpio": "ball_a",
                                                           "level": 0})
    res = run(replay, ws)
    assert len(res.alarms("unexpected_input")) == 1 and res.outcome()["number"] == "32"


# -- the link -----------------------------------------------------------------------
def test_a_single_state_5_line_then_silence(replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2).status(3, 2).status(4, 2).line("32")
    ws.status(5, 1, number="32").wait(20.0).status(1, 2, game=95).spin("17")
    res = run(replay, ws)
    assert [o["number"] for o in res.outcomes] == ["32", "17"]
    down, up = res.alarms("wheel_disconnected")[0], res.alarms("wheel_reconnected")[0]
    assert down["t"] == pytest.approx(res.outcomes[0]["t"] + 5.0)  # wheel_silence_s
    assert up["t"] > down["t"]


def test_a_silent_link_holds_the_spin_in_play_and_stops_new_spins(replay: ReplayFn) -> None:
    ws = WheelScript().status(2, 2).status(3, 3).wait(30.0).inp("open_bets")
    ws.status(4, 2).status(5, 2, number="32").status(1, 1, game=95)
    res = run(replay, ws)
    rec = res.of("spin_held")[0]
    assert "wheel_link" in rec["details"] and not res.outcomes
    assert res.alarms("wheel_disconnected") and res.alarms("wheel_reconnected")
    # The rest of that ball, after the silence, is not taken for anything.
    assert not res.alarms("wheel_impossible")


def test_no_new_spin_while_silent_and_again_once_it_talks(replay: ReplayFn) -> None:
    ws = WheelScript().spin("32").wait(10.0).inp("close_table").wait(1.0).inp("open_bets")
    res = run(replay, ws.wait(0.5).status(2, 1).inp("open_bets").spin("4", next_game=False))
    refused = res.alarms("input_refused")
    assert refused and "wheel_disconnected" in refused[0]["message"]
    assert [o["number"] for o in res.outcomes] == ["32", "4"]


def test_a_launch_in_the_burst_after_a_silence_is_held(replay: ReplayFn) -> None:
    # The link held the lines back: they come at once, a whole game in one read.
    ws = WheelScript().status(2, 2)
    burst = "".join(status_text(s, 94, "33" if s < 5 else "32", 0, 160, 0) + "\r"
                    for s in (2, 3, 3, 4, 4, 5))
    ws.wait(20.0).raw(burst[:17]).raw(burst[17:], t=ws.t + 0.001)
    rec = run(replay, ws).of("spin_held")[0]
    assert rec["candidate"] == "32" and "wheel_link" in rec["details"]


def test_the_silence_is_timed_on_the_trace_clock(replay: ReplayFn) -> None:
    # 4.9 s between two lines is not the 5 s limit: no alarm; 5.5 s is.
    res = run(replay, WheelScript().status(2, 1).wait(4.4).status(2, 1).spin("1"))
    assert not surprises(res)
    res = run(replay, WheelScript().status(2, 1).wait(5.0).status(2, 1).spin("1"))
    assert [a["t"] for a in surprises(res) if a["code"] == "wheel_disconnected"] == [
        pytest.approx(0.2 + 5.0)]


# -- config -------------------------------------------------------------------------
def config_error(tmp_path: Path, text: str) -> ConfigError:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_config(str(path))
    return exc.value


def test_a_serial_wheel_needs_its_port(tmp_path: Path) -> None:
    text = SERIAL_TOML.replace("[serial.wheel]", "[serial.other]")
    assert config_error(tmp_path, text).field == "serial.wheel"


def test_a_serial_wheels_port_needs_a_wheel_codec(tmp_path: Path) -> None:
    exc = config_error(tmp_path, SERIAL_TOML.replace('codec = "status_line"',
                                                     'codec = "reference"'))
    assert exc.field == "serial.wheel.codec" and "status_line" in str(exc)


def test_a_serial_wheel_reads_no_gpio_wheel_input(tmp_path: Path) -> None:
    exc = config_error(tmp_path, SERIAL_TOML + "\n[gpio.inputs.ball_a]\npin = 17\n")
    assert exc.field == "gpio.inputs.ball_a"


def test_a_gpio_wheel_reads_no_wheel_port(tmp_path: Path) -> None:
    text = SERIAL_TOML.replace('wheel_source = "serial"', 'wheel_source = "gpio"')
    assert config_error(tmp_path, text).field == "serial.wheel"


def test_the_wheel_source_is_one_of_gpio_or_serial(tmp_path: Path) -> None:
    text = SERIAL_TOML.replace('wheel_source = "serial"', 'wheel_source = "usb"')
    assert config_error(tmp_path, text).field == "roulette.wheel_source"


def test_a_serial_wheel_takes_no_gpio_wheel_setting(tmp_path: Path) -> None:
    text = SERIAL_TOML.replace("boxes = 8", "boxes = 8\ndrop_timeout_factor = 2.0")
    exc = config_error(tmp_path, text)
    assert exc.field == "roulette.drop_timeout_factor" and "GPIO" in str(exc)


def test_a_gpio_wheel_takes_no_serial_wheel_setting(tmp_path: Path) -> None:
    text = (REPO / "config" / "roulette-sim.toml").read_text().replace(
        "boxes = 8", "boxes = 8\nwheel_silence_s = 5.0", 1)
    exc = config_error(tmp_path, text)
    assert exc.field == "roulette.wheel_silence_s" and "serial" in str(exc)


def test_the_burst_gap_is_below_the_silence_limit(tmp_path: Path) -> None:
    text = SERIAL_TOML.replace("wheel_silence_s = 5.0", "wheel_silence_s = 5.0\n"
                               "wheel_burst_gap_s = 5.0")
    exc = config_error(tmp_path, text)
    assert exc.field == "roulette.wheel_burst_gap_s" and "wheel_silence_s" in str(exc)


def test_a_rotor_speed_above_the_plausible_maximum_is_a_bad_field(replay: ReplayFn) -> None:
    # SSS 999 is 99.9 rpm, above wheel_max_rotor_rpm (60): the ball's state-3 lines are
    # not used, so its state 4 comes with no state 3: never a result.
    ws = WheelScript().status(2, 2).status(3, 3, speed=999).status(4, 3, speed=160)
    res = run(replay, ws.line("32").status(5, 2, number="32"))
    assert not res.outcomes and not res.of("spin_start")
    bad = res.alarms("wheel_bad_line")
    assert len(bad) == 3 and all("SSS" in a["message"] and "99.9 rpm" in a["message"]
                                 for a in bad)
    # In state 6 SSS is not a speed (a self-test): no alarm.
    res = run(replay, WheelScript().status(6, 3, speed=999).status(2, 2, speed=160).spin("4"))
    assert res.outcome()["number"] == "4" and not res.alarms("wheel_bad_line")


def test_the_daemon_runs_a_serial_wheel_with_no_gpio_input() -> None:
    check_daemon(load_config(SERIAL_CONFIG))  # raises nothing
    assert load_config("embedded:roulette-serial-sim.toml").rules.wheel_source == "serial"


# -- the sensors view ---------------------------------------------------------------
def test_tablectl_sensors_shows_the_last_status_line_and_its_age() -> None:
    from controller.cli.control import ControlServer
    from controller.cli.tablectl.sensors import device_line
    from controller.core.events import SerialData
    from controller.games.roulette.config import RouletteConfig
    from controller.games.roulette.serial_wheel import SerialWheelTracker

    class Listener:
        def alarm(self, code: str, message: str) -> None: ...

    tracker = SerialWheelTracker(RouletteConfig(wheel_source="serial"), ("0",),
                                 lambda t, cb: None, Listener())  # type: ignore[arg-type]
    tracker.serial(SerialData(10.0, "wheel", b"*V 4.12\r*X;6;001;  ;4;000;0\r"))
    server = ControlServer("x.sock", None, lambda e, r: None, lambda: 12.5, lambda: {},
                           ROULETTE, ("wheel",), lambda: tracker.sensors(12.5), games=GAMES)
    reply = server.answer(b'{"query": "sensors"}\n')
    view = reply["serial"]["wheel"]
    assert (view["last_line"], view["age_s"], view["version"]) == (
        "*X;6;001;  ;4;000;0", 2.5, "4.12")
    shown = device_line("wheel", view)
    assert shown.startswith("wheel") and "'*X;6;001;  ;4;000;0'  2.5 s ago" in shown
    # An extended line's blank fields end it: they stay inside the quotes, apart from the age.
    tracker.serial(SerialData(12.0, "wheel", b"*X;5;100;17;0;120;0;  ; \r"))
    shown = device_line("wheel", tracker.sensors(12.5)["wheel"])
    assert "'*X;5;100;17;0;120;0;  ; '  0.5 s ago" in shown


# -- the same simulated spins, both ways --------------------------------------------
SCENARIO_MIX = (["valid"] * 8 + ["rotor_reversed", "rotor_stops_after_settle",
                                 "too_few_revolutions", "same_direction", "wheel_slow",
                                 "missed_pass", "chatter_ball_a", "chatter_rotor_a"]) * 6
SCENARIO_MIX = (SCENARIO_MIX + ["valid"] * 4)[:100]


def verdicts(res: Replay) -> list[tuple[int, str, str | None]]:
    return [(o["spin"], o["type"], o.get("number") or o.get("reason")) for o in res.outcomes]


def truth(spins: list[SimulatedSpin]) -> list[tuple[int, str, str | None]]:
    kinds = {"result": "spin_result", "invalid": "spin_invalid"}
    out = []
    for i, s in enumerate(spins, 1):
        expected, reason = serial_expected(s, extended=True)
        out.append((i, kinds[expected], s.number if expected == "result" else reason))
    return out


def test_a_100_spin_trace_as_gpio_edges_and_as_status_lines(replay: ReplayFn) -> None:
    gpio, spins = simulate(100, 12, scenarios=SCENARIO_MIX)
    serial, same = simulate(100, 12, scenarios=SCENARIO_MIX, source="serial",
                            serial=StatusLineSimConfig(extended=True))
    assert same == spins  # one seed, the same spins
    assert not any(e.get("gpio") for e in serial) and any(e.get("serial") for e in serial)
    by_gpio = replay(gpio)
    by_serial = run(replay, serial)
    assert verdicts(by_gpio) == verdicts(by_serial) == truth(spins)
    # Every invalid spin's reasons, not only the first, agree.
    assert ([o["reasons"] for o in by_gpio.of("spin_invalid")]
            == [o["reasons"] for o in by_serial.of("spin_invalid")])


@pytest.mark.realtime
def test_replay_realtime_reads_the_wheel_through_a_pseudo_terminal(replay: ReplayFn) -> None:
    # CONTRACT §3: the lines written into a pseudo-terminal as time passes and read back by
    # the real serial driver give the same spins as the virtual-time replay.
    ws = WheelScript().spin("32").spin("0", flags4=2).spin("17", next_game=False)
    fast = run(replay, ws)
    live = replay(ws.events(), "--realtime", "--speed", "20", config=SERIAL_CONFIG)
    assert live.rc == 0, live.stderr
    assert verdicts(live) == verdicts(fast) == [(1, "spin_result", "32"),
                                                (2, "spin_invalid", "same_direction"),
                                                (3, "spin_result", "17")]
