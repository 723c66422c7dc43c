"""Every wheel-simulator scenario through the whole controller (CONTRACT §1, §3, §5; issue 6).

Each trace is ``controller.games.roulette.simulation.simulate`` of three spins (a valid one,
the scenario, a valid one), written with ``write_trace`` and replayed by ``table-controller
replay`` in virtual time.
What the controller must conclude is the simulator's truth, ``SimulatedSpin.expected``: the
true number for a result, the Art. 12 reason for an invalid spin, a ``spin_held`` record and
no settlement for a held one. It is never taken from the controller's output. A held spin is
decided after the ball's removal by the inspector's ``confirm_result`` with the true number
(CONTRACT §5), so the next spin is played and judged too. The simulator's Art. 12 invalid
throws are seed 001's article tests (tests/articles/test_seed_001_roulette_art12_verdicts.py);
the helpers are tests/conftest.py's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import SIM_SEEDS, Replay, ReplayFn, assert_concluded, run_simulated, sim_wheel

from controller.games.roulette.simulation import (
    FAULT_SCENARIOS,
    INVALID_SCENARIOS,
    SCENARIOS,
    RouletteSimConfig,
    SimulatedSpin,
    simulate,
)

Event = dict[str, Any]

HABITS = ("valid", "rotor_reversed", "rotor_stops_after_settle")


def assert_sensor_fault_alarm(res: Replay, truth: SimulatedSpin) -> None:
    """A ``sensor_fault`` alarm naming the faulty input, journaled during the faulty spin."""
    assert truth.faulty_input is not None
    alarms = [a for a in res.alarms("sensor_fault")
              if truth.launch_t <= a["t"] <= truth.remove_t]
    assert any(a["message"].startswith(truth.faulty_input) for a in alarms), alarms


@pytest.mark.parametrize("seed", SIM_SEEDS)
@pytest.mark.parametrize("scenario", HABITS)
def test_wheel_habit_gives_the_true_result(scenario: str, seed: int, replay: ReplayFn,
                                           tmp_path: Path) -> None:
    res, truth, events = run_simulated(scenario, seed, replay, tmp_path)
    assert truth[1].expected == "result"
    for k, spin in enumerate(truth, 1):
        assert_concluded(res, k, spin, events)


@pytest.mark.parametrize("seed", SIM_SEEDS)
@pytest.mark.parametrize("scenario", FAULT_SCENARIOS)
def test_sensor_fault_never_changes_the_verdict(scenario: str, seed: int, replay: ReplayFn,
                                                tmp_path: Path) -> None:
    res, truth, events = run_simulated(scenario, seed, replay, tmp_path)
    for k, spin in enumerate(truth, 1):
        assert_concluded(res, k, spin, events)
    assert_sensor_fault_alarm(res, truth[1])


@pytest.mark.parametrize("seed", [s for s in range(12) if simulate(
    3, s, RouletteSimConfig(wheel=sim_wheel(s)), ["valid", "rotor_b_dead", "valid"]
)[1][1].expected == "held"][:2])
def test_rotor_b_dead_over_the_budget_is_held(seed: int, replay: ReplayFn,
                                              tmp_path: Path) -> None:
    # The seeds where more than 3 rotor revolutions lack rotor_b before the pocket is
    # confirmed (the simulator's geometry says which): CONTRACT §5 holds the spin.
    res, truth, events = run_simulated("rotor_b_dead", seed, replay, tmp_path)
    assert truth[1].corrections > 3
    assert_concluded(res, 2, truth[1], events)
    assert_sensor_fault_alarm(res, truth[1])


def test_make_run_draws_only_invalid_scenarios(monkeypatch: pytest.MonkeyPatch) -> None:
    # An unattended `make run` never throws a spin that waits for an inspector.
    import dataclasses

    from controller.cli.compose import load_config
    from controller.games.roulette import simulation
    from controller.games.roulette.simulation import daemon_events
    from sim.daemon import SimulatorResume

    drawn: list[str] = []
    real = simulation.simulate

    def spy(spins: int, seed: int, config: RouletteSimConfig | None = None,
            scenarios: list[str] | None = None) -> tuple[list[Event], list[SimulatedSpin]]:
        drawn.extend(scenarios or [])
        return real(spins, seed, config, scenarios)

    monkeypatch.setattr(simulation, "simulate", spy)
    config = load_config(str(Path(__file__).resolve().parents[1] / "config/roulette-sim.toml"))
    config = dataclasses.replace(config, simulator=dataclasses.replace(
        config.simulator, spins=40, invalid_rate=0.8))
    for _ in daemon_events(config, 0.0, SimulatorResume()):
        pass
    assert len(drawn) == 40
    assert {s for s in drawn if s != "valid"} <= set(INVALID_SCENARIOS)
    assert len(set(drawn)) > 3
    assert set(SCENARIOS) > set(drawn)
