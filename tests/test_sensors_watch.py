"""Sensor checks (issue 11): the GPIO driver counts every edge (a 4 ms ball pass between two
looks is seen), and ``tablectl sensors --watch`` shows per input the level, the edges per
second, the time since the last edge and the periods of a running ball's laps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli.compose import load_config
from controller.cli.control import ControlServer
from controller.cli.tablectl import main as tablectl_main
from controller.core import registry
from drivers.gpio import GpioInputs, make_pin_factory

GAMES = registry.games()

ROULETTE = registry.spec("roulette")


def test_the_driver_counts_a_4_ms_pass_that_a_look_at_the_levels_misses() -> None:
    config = load_config()
    posted: list[Any] = []
    clock = [100.0]
    gpio = GpioInputs(config.inputs, posted.append, lambda: clock[0], make_pin_factory("mock"))
    gpio.start()
    try:
        before = gpio.view()["ball_a"]
        gpio.drive("ball_a", 1)  # the ball reaches the sensor...
        clock[0] = 100.004
        gpio.drive("ball_a", 0)  # ...and is gone 4 ms later
        after = gpio.view()["ball_a"]
    finally:
        gpio.close()
    assert before == {"level": 0, "edges": 0, "last_edge_t": None, "rises": []}
    assert after["level"] == 0  # a look at the level alone sees nothing
    assert after["edges"] == 2 and after["rises"] == [pytest.approx(100.0, abs=0.01)]
    assert after["last_edge_t"] == pytest.approx(100.004, abs=0.01)
    assert [e.level for e in posted] == [1, 0]


class Sensors:
    """The daemon's side: successive views of the driver's counts, on a controller clock."""

    def __init__(self) -> None:
        self.looks = 0
        self.now = 200.0

    def view(self) -> dict[str, Any]:
        self.looks += 1
        if self.looks > 1:
            self.now = 200.5
        laps = [190.0, 190.52, 191.07, 191.65, 192.27]  # the ball before it
        running = [198.0, 198.6, 199.25, 199.95]  # the ball's laps, still running
        return {
            "ball_a": {"level": 0, "edges": 20 if self.looks == 1 else 22,
                       "last_edge_t": 199.95, "rises": laps + running},
            "rotor_a": {"level": 1, "edges": 6, "last_edge_t": 199.6,
                        "rises": [189.0, 194.3, 199.6]},
            "ball_pocket": {"level": 0, "edges": 0, "last_edge_t": None, "rises": []},
        }


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Path, Sensors]]:
    sensors = Sensors()
    srv = ControlServer(str(tmp_path / "c.sock"), None, lambda e, r=None: None,
                        lambda: sensors.now, sensors.view, ROULETTE, games=GAMES)
    srv.start()
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "{srv.path}"\n')
    yield config, sensors
    srv.stop()


def test_watch_shows_levels_rates_last_edges_and_a_running_balls_laps(
        daemon: tuple[Path, Sensors], capsys: pytest.CaptureFixture[str]) -> None:
    config, sensors = daemon
    assert tablectl_main(["--config", str(config), "sensors", "--watch", "--count", "1",
                          "--interval", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sensors.looks == 2  # a refresh: the rate is between two looks
    assert lines[0].split() == ["input", "level", "edges/s", "last", "edge", "periods"]
    rows = {line.split()[0]: line for line in lines[2:] if line.strip()}
    assert rows["ball_a"].split()[:6] == ["ball_a", "idle", "4.0", "0.6", "s", "ago"]
    assert rows["ball_a"].endswith("0.600, 0.650, 0.700 s (running)")
    assert rows["rotor_a"].split()[:4] == ["rotor_a", "ACTIVE", "0.0", "0.9"]
    assert rows["rotor_a"].endswith("5.300, 5.300 s (running)")
    assert rows["ball_pocket"].split() == ["ball_pocket", "idle", "0.0", "never"]


def test_sensors_json_gives_the_same_figures(daemon: tuple[Path, Sensors],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import json

    config, _ = daemon
    assert tablectl_main(["--config", str(config), "sensors", "--watch", "--count", "1",
                          "--interval", "0.1", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)["sensors"]["ball_a"]
    assert (view["edges_per_s"], view["last_edge_ago_s"], view["running"]) == (4.0, 0.55, True)
    assert view["periods_s"] == [0.6, 0.65, 0.7]


def test_a_bad_interval_is_one_line(daemon: tuple[Path, Sensors],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    config, _ = daemon
    assert tablectl_main(["--config", str(config), "sensors", "--watch", "--interval",
                          "0"]) == 2
    assert "--interval" in capsys.readouterr().err
