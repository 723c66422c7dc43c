"""A trace's ``meta`` (CONTRACT §2: its table and optional config overrides) and the config
a replay runs with (README, "Replay and simulation").

- Without ``--config`` (the embedded default) the meta chooses the table and its settings:
  ``replay TRACE`` works for every table's trace (CONTRACT §3 and the README use it so).
- With ``--config FILE`` the test engineer said which table to run: a trace of another
  table, or one whose meta gives that config what its own checks refuse (a serial wheel on
  a config with no ``[serial.wheel]``, a GPIO wheel on one that has it), is one error
  naming the trace, its line 1 and the meta field, with the config's own complaint; exit
  2 and nothing replayed, never a silent run of another table than the config's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, run_replay, write_trace

from controller.cli import main as cli
from controller.core import registry

CONFIG = REPO / "config"
STATUS = "*X;2;100;  ;0;120;0\r"  # an automated wheel's idle status line (hardware.md §2b)


def trace_of(tmp_path: Path, meta: dict[str, object], *events: dict[str, object]) -> Path:
    return write_trace(tmp_path / "t.jsonl", [{"t": 0, "meta": meta}, *events])


def serial_trace(tmp_path: Path) -> Path:
    return trace_of(tmp_path, {"table": "roulette", "wheel_source": "serial"},
                    {"t": 0.5, "serial": "wheel", "text": STATUS},
                    {"t": 1.0, "input": "open_bets"})


def refused(tmp_path: Path, trace: Path, config: Path) -> str:
    res = run_replay(trace, tmp_path / "j.sqlite", "--config", str(config))
    assert res.rc == 2 and res.records == []
    (line,) = res.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize("game", registry.names())
def test_every_table_s_trace_replays_with_the_default_config(tmp_path: Path,
                                                             game: str) -> None:
    res = run_replay(trace_of(tmp_path, {"table": game}, {"t": 1, "input": "open_bets"}),
                     tmp_path / "j.sqlite")
    assert res.rc == 0, res.stderr
    assert [r["action"] for r in res.of("input")] == ["open_bets"]


def test_a_serial_wheel_trace_replays_with_the_default_config(tmp_path: Path) -> None:
    res = run_replay(serial_trace(tmp_path), tmp_path / "j.sqlite")
    assert res.rc == 0, res.stderr
    assert [r["port"] for r in res.of("serial")] == ["wheel"]


def test_a_serial_wheel_trace_replays_with_a_serial_wheel_config(tmp_path: Path) -> None:
    # The README's command: replay var/wheel.jsonl --config config/roulette-serial-sim.toml
    res = run_replay(serial_trace(tmp_path), tmp_path / "j.sqlite", "--config",
                     str(CONFIG / "roulette-serial-sim.toml"))
    assert res.rc == 0, res.stderr


def test_a_serial_wheel_trace_on_a_gpio_wheel_config_is_one_error(tmp_path: Path) -> None:
    # The adversary's: replay traces/s00_normal.jsonl --config config/roulette-sim.toml.
    trace = serial_trace(tmp_path)
    config = CONFIG / "roulette-sim.toml"
    line = refused(tmp_path, trace, config)
    assert line.startswith(f"table-controller: {trace}:1: field 'meta.wheel_source': ")
    assert str(config) in line and "serial.wheel" in line


def test_a_gpio_wheel_trace_on_a_serial_wheel_config_is_one_error(tmp_path: Path) -> None:
    trace = trace_of(tmp_path, {"table": "roulette", "wheel_source": "gpio"})
    line = refused(tmp_path, trace, CONFIG / "roulette-serial-sim.toml")
    assert f"{trace}:1: field 'meta.wheel_source'" in line and "serial.wheel" in line


@pytest.mark.parametrize("game, config", [
    ("mini_baccarat", "roulette-sim.toml"),
    ("roulette", "mini-baccarat-sim.toml"),
    ("pot_luck", "blackjack-plus-sim.toml"),
])
def test_a_trace_of_another_table_than_the_config_s_is_one_error(
        tmp_path: Path, game: str, config: str) -> None:
    trace = trace_of(tmp_path, {"table": game})
    line = refused(tmp_path, trace, CONFIG / config)
    assert f"{trace}:1: field 'meta.table'" in line
    assert repr(game) in line and str(CONFIG / config) in line


def test_meta_settings_of_the_config_s_own_table_apply(tmp_path: Path) -> None:
    # A 2-deck Black Jack shoe (meta decks 2) on the shipped 6-deck config: a third AS is
    # one more than the shoe holds (seed 002 Art. 4).
    trace = trace_of(tmp_path, {"table": "blackjack_plus", "decks": 2},
                     *[{"t": 0.1 * (i + 1), "input": "procedure_step", "step": step}
                       for i, step in enumerate(("show", "turn", "scramble", "shuffle", "cut",
                                                 "load"))],
                     {"t": 1, "serial": "shoe", "text": "[Burn]<Card:AS>\r\n" * 3})
    res = run_replay(trace, tmp_path / "j.sqlite", "--config",
                     str(CONFIG / "blackjack-plus-sim.toml"))
    assert res.rc == 0, res.stderr
    assert [a["code"] for a in res.alarms()] == ["card_over_count"]


def test_simulate_may_still_choose_another_table_than_its_config_s(tmp_path: Path) -> None:
    out = tmp_path / "coups.jsonl"
    assert cli.main(["simulate", "--table", "mini_baccarat", "--coups", "1", "--config",
                     str(CONFIG / "roulette-sim.toml"), "--out", str(out)]) == 0
    res = run_replay(out, tmp_path / "j.sqlite")
    assert res.rc == 0 and res.of("coup_result")


@pytest.mark.parametrize("wheel, other", [("gpio", "roulette-serial-sim.toml"),
                                          ("serial", "roulette-sim.toml")])
def test_a_simulated_trace_on_the_other_wheel_s_config_is_one_error(
        tmp_path: Path, wheel: str, other: str) -> None:
    # The newcomer's: simulate --spins 20 --seed 7 (a GPIO wheel), then replay it with
    # --config config/roulette-serial-sim.toml: was exit 0, every bet refused.
    trace = tmp_path / "spins.jsonl"
    assert cli.main(["simulate", "--spins", "2", "--seed", "7", "--wheel", wheel,
                     "--out", str(trace)]) == 0
    line = refused(tmp_path, trace, CONFIG / other)
    assert line.startswith(f"table-controller: {trace}:1: field 'meta.wheel_source': ")


@pytest.mark.parametrize("config, event, field", [
    ("roulette-serial-sim.toml", {"gpio": "rotor_a", "level": 1}, "gpio"),
    ("roulette-sim.toml", {"serial": "wheel", "text": STATUS}, "serial"),
])
def test_a_meta_without_the_wheel_source_is_judged_by_the_trace_s_inputs(
        tmp_path: Path, config: str, event: dict[str, object], field: str) -> None:
    # Sensor edges for a serial wheel's config, or a serial wheel's lines for a GPIO
    # wheel's: each would be an alarm and no spin would ever run.
    trace = trace_of(tmp_path, {"table": "roulette", "wheel": "single_zero"},
                     {"t": 0.5, "input": "open_bets"}, {"t": 1.0, **event})
    line = refused(tmp_path, trace, CONFIG / config)
    assert line.startswith(f"table-controller: {trace}:3: field '{field}': ")
    assert str(CONFIG / config) in line
