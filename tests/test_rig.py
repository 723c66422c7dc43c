"""Hardware-in-the-loop tests: only on the rig (TABLE_RIG=1, TABLE_RIG_CONFIG=table.toml).

The rig drives the Pi's input lines; here the controller's side checks that every
configured input opens on the real pin factory and reads a level.
"""

from __future__ import annotations

import os
import time

import pytest

from controller.cli.compose import load_config

pytestmark = [
    pytest.mark.rig,
    pytest.mark.skipif(os.environ.get("TABLE_RIG") != "1",
                       reason="needs the hardware-in-the-loop rig (set TABLE_RIG=1)"),
]


def test_every_configured_input_opens_on_the_real_pin_factory() -> None:
    from drivers.gpio import GpioInputs, make_pin_factory

    config = load_config(os.environ.get("TABLE_RIG_CONFIG", "config/roulette-table.toml"))
    events: list[object] = []
    gpio = GpioInputs(config.inputs, events.append, time.time,
                      make_pin_factory(config.pin_factory))
    gpio.start()
    try:
        assert {name: gpio.level(name) in (0, 1) for name in config.inputs} == {
            name: True for name in config.inputs}
    finally:
        gpio.close()
