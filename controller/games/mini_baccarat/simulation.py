"""The simulated Mini-Bacará dealer on the simulated shoe, for ``simulate`` and the daemon."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from controller.core.config import Config
from controller.core.events import Event


def write_trace(config: Config, out: str, count: int, seed: int,
                scenarios: list[str] | None) -> None:
    """``table-controller simulate --table mini_baccarat``: ``count`` coups written to
    ``out``, following the config's decks, limits, cut card and insurance rule."""
    from sim.shoe_sim import simulate_shoe_trace

    simulate_shoe_trace(out, count, seed, config.rules.decks, config=config)


def daemon_events(config: Config, start: float, resume: Any) -> Iterator[list[Event]]:
    """The daemon's simulated shoe and dealer from ``start``, without what the journal holds
    already (``resume``: bytes read, inputs and bets journaled before a restart)."""
    from sim.daemon import resume_events
    from sim.shoe_sim import simulated_shoe_events

    yield resume_events(simulated_shoe_events(config, start, "shoe"), resume, start)
