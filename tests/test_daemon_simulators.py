"""Every game's daemon simulator (``GameSpec.daemon_simulator``, the embedded defaults and
``config/*-sim.toml``) plays from the controller clock's ``start``: an event in the past
would be played at once, a burst in which a dealer input overtakes the cards it follows
(the simulated draw-poker table dealt its players' passes before their cards)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from controller.core.config import load_config
from controller.games import registry
from sim.daemon import SimulatorResume, TableState

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "config").glob("*-sim.toml"))
START = 5000.0  # seconds of the controller clock: a daemon started long after boot


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_the_simulated_session_begins_at_start_in_time_order(path: Path) -> None:
    config = load_config(str(path))
    config = replace(config, simulator=replace(config.simulator, spins=2))
    spec = registry.spec(config.game)
    play = registry.load_callable(spec.daemon_simulator)
    # As SimulatedTable calls it: with what it sees of the table (closed at the start).
    batch = next(iter(play(config, START, SimulatorResume(), TableState("closed"))))
    assert batch, f"{path.name}: no event"
    times = [event.t for event in batch]
    assert min(times) >= START, f"{path.name}: an event at {min(times)} s, before {START} s"
    assert times == sorted(times)
