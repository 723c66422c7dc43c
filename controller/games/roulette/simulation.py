"""The simulated roulette wheel and its dealer, for ``simulate`` and the embedded default.

The physics, the geometry and the sensor faults are in ``sim/`` (equipment, no game); this
module throws the spins of a roulette table: scenarios, bets, and the dealer's inputs.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from controller.core.config import Config
from controller.core.errors import InputError
from controller.core.events import DealerInput, Event
from controller.trace import trace_from_objects
from controller.trace import write_trace as write_objects

_SIM_BATCH = 50  # spins generated at a time when the simulator runs until stopped


def write_trace(config: Config, out: str, count: int, seed: int,
                scenarios: list[str] | None) -> None:
    """``table-controller simulate``: ``count`` spins (``--spins``) written to ``out``.

    Raises:
        InputError: ``count`` below 1, or an unknown scenario.
    """
    from sim.wheel_sim import WheelSimConfig, simulate

    if count < 1:
        raise InputError("--spins", None, None, f"must be at least 1, got {count}")
    sim_config = WheelSimConfig(wheel=config.rules.wheel)
    if scenarios is not None and len(scenarios) == 1:
        scenarios = scenarios * count
    try:
        events, _ = simulate(count, seed, sim_config, scenarios)
    except ValueError as exc:
        raise InputError("--scenario", None, None, str(exc)) from exc
    # The dealer closes the table at the end of the session: time runs on past the
    # last spin, so a verdict that waits for a timeout (a stopped rotor) is reached.
    end = {"t": round(max(e["t"] for e in events) + 30.0, 6), "input": "close_table"}
    write_objects(out, [*events, end])


def daemon_events(config: Config, start: float, resume: Any) -> Iterator[list[Event]]:
    """The daemon's simulated spins, in batches, from ``start`` (controller clock seconds).

    A quarter of them (``[simulator] invalid_rate``) are thrown invalid, each an Art. 12
    case the sensors see, never a held spin (nobody decides it in ``make run``). When the
    table was already open (``resume.table_open``: a restart), the dealer does not open it
    again.
    """
    from sim.wheel_sim import INVALID_SCENARIOS, WheelSimConfig, simulate

    sim = config.simulator
    sim_config = WheelSimConfig(wheel=config.rules.wheel)
    rng = random.Random(sim.seed)
    invalid = list(INVALID_SCENARIOS)
    batch_index = 0
    offset = start
    remaining = sim.spins
    while sim.spins == 0 or remaining > 0:
        count = _SIM_BATCH if sim.spins == 0 else min(remaining, _SIM_BATCH)
        scenarios = [rng.choice(invalid) if rng.random() < sim.invalid_rate else "valid"
                     for _ in range(count)]
        objects, _ = simulate(count, sim.seed + batch_index, sim_config, scenarios)
        trace = trace_from_objects("simulator", enumerate(objects, 1))
        events = [replace(e, t=e.t + offset) for e in trace.events]
        if batch_index > 0 or resume.table_open:
            # The table is already open (from the previous batch, or before a restart).
            events = [e for e in events
                      if not (isinstance(e, DealerInput) and e.action == "open_bets")]
        yield events
        offset = events[-1].t + 1.0
        batch_index += 1
        remaining -= count
