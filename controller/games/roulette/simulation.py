"""The simulated roulette table, for ``simulate`` and the embedded default (seed 001 Art. 12,
13; CONTRACT §2, §5).

The wheel's physics, geometry and sensor faults are equipment, in ``sim/``
(:mod:`sim.wheel_sim`); this module plays roulette on it: the dealer's inputs (``open_bets``,
"no va más"), the players' bets on the layout (Art. 13), and which throw is which Art. 12
case, with the verdict a controller must reach for each scenario.

Scenarios (per spin; ``SimulatedSpin.expected`` says what a controller must conclude):
``valid``; two wheel habits, results too: ``rotor_reversed`` and ``rotor_stops_after_settle``;
``INVALID_SCENARIOS``, Art. 12 invalid spins (``too_few_revolutions`` (a), ``same_direction``
(b), ``ball_suspended`` (c), ``wheel_slow`` (f: a rotor below 5 rpm), ``wheel_stopped`` (g));
and ``FAULT_SCENARIOS``, a sensor fault (CONTRACT §5) in an otherwise valid spin: a result
while its corrections stay within the controller's error budget, held beyond it.

The same spins can be written as the GPIO sensors' edges or, for a serial wheel (issue 12),
as an automated wheel's status lines on the port ``wheel`` (:mod:`sim.wheel_serial`): the
same seed gives the same throws, bets and pockets either way. ``expected`` is the GPIO
wheel's verdict; a serial wheel's differs where it measures less (see
:func:`serial_expected`).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from controller.core.config import Config
from controller.core.errors import InputError
from controller.core.events import DealerInput, Event
from controller.core.words import one_of
from controller.games.roulette.layout import WHEEL_ORDERS, layout_for
from controller.trace import trace_from_objects
from controller.trace import write_trace as write_objects
from sim.wheel_serial import StatusLineSimConfig, status_lines
from sim.wheel_sim import FAULTS, WheelSimConfig, WheelSpin, run_wheel

TraceObject = dict[str, Any]

# Scenario -> the throw on the wheel (sim.wheel_sim.THROWS) that plays it.
_THROWS = {"valid": "normal", "rotor_reversed": "rotor_reversed",
           "rotor_stops_after_settle": "rotor_stops_after_settle",
           "too_few_revolutions": "weak_throw", "same_direction": "ball_with_rotor",
           "ball_suspended": "ball_never_settles", "wheel_slow": "slow_rotor",
           "wheel_stopped": "rotor_braked_in_run"}
# Scenario -> the CONTRACT §1 reason of its Art. 12 invalid spin.
_INVALID_REASON = {"too_few_revolutions": "too_few_revolutions", "same_direction": "same_direction",
                   "ball_suspended": "ball_suspended", "wheel_slow": "wheel_malfunction",
                   "wheel_stopped": "wheel_stopped"}

INVALID_SCENARIOS: tuple[str, ...] = tuple(_INVALID_REASON)
"""Scenarios whose true verdict is an Art. 12 invalid spin (``SimulatedSpin.reason``)."""

FAULT_SCENARIOS: tuple[str, ...] = FAULTS
"""Scenarios that inject a sensor fault into an otherwise valid spin (CONTRACT §5)."""

SCENARIOS: tuple[str, ...] = (
    "valid", "rotor_reversed", "rotor_stops_after_settle", *INVALID_SCENARIOS, *FAULT_SCENARIOS)
"""Every per-spin scenario :func:`simulate` accepts (``table-controller simulate --scenario``)."""

_OUTSIDE_BETS = ("red", "black", "even", "odd", "low", "high")
_SIM_BATCH = 50  # spins generated at a time when the simulator runs until stopped


@dataclass(frozen=True)
class RouletteSimConfig:
    """A simulated roulette table: its wheel, its dealer, and the wheel's equipment.

    Attributes:
        wheel: "single_zero" or "double_zero" (pocket order: ``layout.WHEEL_ORDERS``).
        no_more_bets_lap_s, no_more_bets_after_s: the dealer calls no more bets at the first
            ``ball_a`` activation ending a lap this long (seconds), or this long after the
            launch, whichever comes first.
        sensor_error_budget: the controller's corrections allowed per input in one spin
            (``[roulette] sensor_error_budget``, CONTRACT §5): a fault scenario needing more
            is expected to be held.
        equipment: the wheel's geometry and physics (``sim.wheel_sim.WheelSimConfig``).
    """

    wheel: str = "single_zero"
    no_more_bets_lap_s: float = 0.8
    no_more_bets_after_s: float = 3.0
    sensor_error_budget: int = 3
    equipment: WheelSimConfig = field(default_factory=WheelSimConfig)


@dataclass(frozen=True)
class SimulatedSpin:
    """The true outcome of one simulated spin, to check a controller against.

    Attributes:
        pocket_index: index in the wheel order of the pocket the ball settled in, or None
            if it never settled ("ball_suspended").
        number: that pocket's number ("0".."36", "00"), or None.
        ball_revolutions: ``ball_a`` activations from the launch until the ball left (the
            real passes, whether a faulty sensor recorded them or not).
        ball_direction, rotor_direction: "cw" or "ccw".
        rotor_rpm: rotor speed at the launch, rpm.
        scenario: one of ``SCENARIOS``.
        launch_t, leave_t, settle_t, remove_t: when the dealer released the ball, it left
            the track, came to rest in its pocket (None if it never did) and was taken out
            (seconds).
        expected: what a controller must conclude (CONTRACT §1, §5): "result" (``number``),
            "invalid" (``reason``) or "held" (``number`` is what the inspector would confirm).
        reason: the CONTRACT §1 reason of an invalid spin, "sensor_fault" if held, else None.
        faulty_input: the input a fault scenario strikes (its ``sensor_fault`` alarms name it).
        corrections: corrections of that input due before the second pocket reading confirms
            the pocket; held when over ``RouletteSimConfig.sensor_error_budget``.
        rotor_rest: (start, end) s when the rotor surely stood still (``WheelSpin``).
    """

    pocket_index: int | None
    number: str | None
    ball_revolutions: int
    ball_direction: str
    rotor_direction: str
    rotor_rpm: float
    scenario: str
    launch_t: float
    leave_t: float
    settle_t: float | None
    remove_t: float
    expected: str
    reason: str | None
    faulty_input: str | None
    corrections: int
    rotor_rest: tuple[float, float] | None


class RouletteDealer:
    """The simulated dealer and players of a roulette table (a ``sim.wheel_sim.Dealer``):
    bets open once (the table reopens them after each settlement), 1-4 bets on the layout
    before each launch (Art. 13), "no va más" as the ball slows down."""

    def __init__(self, config: RouletteSimConfig) -> None:
        self.config = config
        self.layout = layout_for(config.wheel)

    def opening(self) -> list[TraceObject]:
        return [{"t": 0, "input": "open_bets"}]

    def bets(self, rng: random.Random, t_lo: float, t_hi: float) -> list[TraceObject]:
        layout = self.layout
        splits = sorted(sorted(pair) for pair in layout.splits)  # sorted: frozenset order varies
        events: list[TraceObject] = []
        for t in sorted(rng.uniform(t_lo, t_hi) for _ in range(rng.randint(1, 4))):
            bet: TraceObject = {"t": round(t, 6)}
            kind = rng.choice(("straight", "straight", "split", "dozen", "column", "outside"))
            if kind == "straight":
                bet.update(bet="straight", numbers=[rng.choice(layout.order)])
            elif kind == "split":
                bet.update(bet="split", numbers=rng.choice(splits))
            elif kind in ("dozen", "column"):
                bet.update(bet=kind, which=rng.randint(1, 3))
            else:
                bet.update(bet=rng.choice(_OUTSIDE_BETS))
            bet.update(box=rng.randint(1, 5), amount=rng.choice((5, 10, 20, 50)))
            events.append(bet)
        return events

    def launched(self, launch_t: float, laps: Sequence[float]) -> list[TraceObject]:
        cfg = self.config
        t_nmb = launch_t + cfg.no_more_bets_after_s
        t_lap = launch_t
        for lap in laps:
            t_lap += lap
            if lap >= cfg.no_more_bets_lap_s:
                t_nmb = min(t_nmb, t_lap)
                break
        return [{"t": round(t_nmb, 6), "input": "no_more_bets"}]


def _expected(scenario: str, throw: WheelSpin, budget: int) -> tuple[str, str | None]:
    if scenario in _INVALID_REASON:
        return "invalid", _INVALID_REASON[scenario]
    if throw.corrections > budget:
        return "held", "sensor_fault"
    return "result", None


def serial_expected(spin: SimulatedSpin, extended: bool) -> tuple[str, str | None]:
    """What a serial wheel's controller must conclude of ``spin`` (issue 12): ``(expected,
    reason)`` as :class:`SimulatedSpin`'s. A status line says nothing of when the ball left
    the track, so a ball that never settles (Art. 12 c) is held; without the extended
    fields a weak throw is only the wheel's void-game flag 8, held for a person (with them,
    Art. 12 (a) from ``RR``); the GPIO sensors' faults do not exist there."""
    if spin.scenario == "ball_suspended":
        return "held", "sensor_fault"
    if spin.scenario == "too_few_revolutions" and not extended:
        return "held", "sensor_fault"
    if spin.scenario in FAULT_SCENARIOS:
        return "result", None
    return spin.expected, spin.reason


def simulate(spins: int, seed: int, config: RouletteSimConfig | None = None,
             scenarios: Sequence[str] | None = None, source: str = "gpio",
             serial: StatusLineSimConfig | None = None
             ) -> tuple[list[TraceObject], list[SimulatedSpin]]:
    """Simulate ``spins`` consecutive spins at a roulette table: their trace and true outcomes.

    Args:
        spins: number of spins, >= 0.
        seed: seeds the only random source, so equal arguments give equal results.
        config: the table (default: a single-zero wheel, the default dealer and equipment).
        scenarios: one of ``SCENARIOS`` per spin; None means all "valid".
        source: "gpio" (the sensors' edges) or "serial" (the automated wheel's status
            lines on port ``wheel``; the wheel calls "no va más" itself, so the dealer's
            input is not in the trace; ``meta`` says ``wheel_source``).
        serial: the automated wheel's firmware and habits (default: all habits on); its
            habits draw from a random stream of their own, so the spins stay the same.

    Returns:
        (events, spins): CONTRACT §2 trace objects sorted by ``t`` (s, rounded to µs),
        starting with ``{"t": 0, "meta": ...}`` and ``open_bets``; one ``SimulatedSpin`` a
        spin.

    Raises:
        ValueError: an unknown wheel, scenario or source, or ``scenarios`` of the wrong
            length.
    """
    cfg = config or RouletteSimConfig()
    if source not in ("gpio", "serial"):
        raise ValueError(f"unknown wheel source {source!r}; expected gpio or serial")
    if cfg.wheel not in WHEEL_ORDERS:
        raise ValueError(f"unknown wheel {cfg.wheel!r}; expected {one_of(sorted(WHEEL_ORDERS))}")
    plan = list(scenarios) if scenarios is not None else ["valid"] * spins
    if len(plan) != spins:
        raise ValueError(f"scenarios has {len(plan)} entries for {spins} spins")
    for name in plan:
        if name not in SCENARIOS:
            raise ValueError(f"unknown scenario {name!r}; the scenarios: {', '.join(SCENARIOS)}")
    order = WHEEL_ORDERS[cfg.wheel]
    equipment = cfg.equipment
    run = run_wheel(spins, seed, len(order), equipment,
                    [_THROWS.get(name, name) for name in plan], RouletteDealer(cfg))
    events, throws = run.events, run.throws
    # The wheel source too: a replay on a config of the other source is refused by it.
    meta: dict[str, Any] = {"table": "roulette", "wheel": cfg.wheel, "wheel_source": source}
    if source == "serial":
        calls = [e["t"] for e in events if e.get("input") == "no_more_bets"]
        lines = status_lines(throws, run.rotor, calls, order, random.Random(f"{seed}:wheel"),
                             serial)
        kept = [e for e in events if "gpio" not in e and e.get("input") != "no_more_bets"]
        events = sorted([*kept, *lines], key=lambda e: e["t"])
    defaults = WheelSimConfig()
    for key in ("ball_b_deg", "rotor_b_deg", "ball_pocket_deg"):  # if not the default
        if getattr(equipment, key) != getattr(defaults, key):
            meta[key] = getattr(equipment, key)
    truth = []
    for name, throw in zip(plan, throws, strict=True):
        expected, reason = _expected(name, throw, cfg.sensor_error_budget)
        index = throw.pocket_index
        truth.append(SimulatedSpin(
            pocket_index=index, number=order[index] if index is not None else None,
            ball_revolutions=throw.ball_revolutions, ball_direction=throw.ball_direction,
            rotor_direction=throw.rotor_direction, rotor_rpm=throw.rotor_rpm, scenario=name,
            launch_t=throw.launch_t, leave_t=throw.leave_t, settle_t=throw.settle_t,
            remove_t=throw.remove_t, expected=expected, reason=reason,
            faulty_input=throw.faulty_input, corrections=throw.corrections,
            rotor_rest=throw.rotor_rest))
    return [{"t": 0, "meta": meta}, *events], truth


def write_trace(config: Config, out: str, count: int, seed: int,
                scenarios: list[str] | None) -> tuple[str, str]:
    """``table-controller simulate``: ``count`` spins (``--spins``) written to ``out``.

    Returns:
        (outcomes, alarms): what a controller is expected to make of them, in words
        (:func:`expected_words`).

    Raises:
        InputError: ``count`` below 1, or an unknown scenario.
    """
    if count < 1:
        raise InputError("--spins", None, None, f"must be at least 1, got {count}")
    if scenarios is not None and len(scenarios) == 1:
        scenarios = scenarios * count
    source = config.rules.wheel_source
    try:
        events, truth = simulate(count, seed, RouletteSimConfig(wheel=config.rules.wheel),
                                 scenarios, source)
    except ValueError as exc:
        raise InputError("--scenario", None, None, str(exc)) from exc
    # The dealer closes the table at the end of the session: time runs on past the
    # last spin, so a verdict that waits for a timeout (a stopped rotor) is reached. A
    # serial wheel's idle lines run on long after its last spin: closed after them.
    after = 0.4 if source == "serial" else 30.0
    end = {"t": round(max(e["t"] for e in events) + after, 6), "input": "close_table"}
    write_objects(out, [*events, end])
    return expected_words(truth, source)


def expected_words(truth: Sequence[SimulatedSpin], source: str) -> tuple[str, str]:
    """What a controller is expected to make of the simulated spins ``truth``, read from
    the wheel ``source`` ("gpio" or "serial"), for ``simulate``'s summary line.

    Returns:
        (outcomes, alarms): the verdicts, ``"27 valid, 2 invalid (wheel_malfunction), 1
        held"`` (the reasons of the invalid spins in parentheses, which ``simulate``
        leaves out where its line has no room); the alarms the simulator injects: a
        sensor fault of ``FAULT_SCENARIOS`` on the GPIO sensors, the automated wheel's
        habits (:class:`~sim.wheel_serial.StatusLineSimConfig`, on by default).
    """
    extended = StatusLineSimConfig().extended
    verdicts = [serial_expected(spin, extended) if source == "serial"
                else (spin.expected, spin.reason) for spin in truth]
    faults = sum(spin.scenario in FAULT_SCENARIOS for spin in truth)
    if source == "serial":
        alarms = "wheel habits (alarms)"
    elif faults:
        alarms = f"{faults} sensor fault{'s' if faults > 1 else ''} (alarms)"
    else:
        alarms = "no fault injected"
    counts = Counter(expected for expected, _ in verdicts)
    reasons = ", ".join(dict.fromkeys(r for e, r in verdicts if e == "invalid" and r))
    words = {"result": "valid", "invalid": f"invalid ({reasons})", "held": "held"}
    outcomes = ", ".join(f"{counts[key]} {word}" for key, word in words.items() if counts[key])
    return outcomes, alarms


def session_seed(seed: int, games: int) -> int:
    """The seed of the daemon's simulated session that begins after spin ``games`` of its
    journal: ``seed`` (``[simulator] seed``) on a fresh journal, else one drawn from both,
    so a restart throws spins it has not played (the same journal gives the same ones)."""
    if games == 0:
        return seed
    return int.from_bytes(hashlib.sha256(f"{seed}:{games}".encode()).digest()[:8], "big")


def daemon_events(config: Config, start: float, resume: Any,
                  table_state: Callable[[], str | None] | None = None
                  ) -> Iterator[list[Event]]:
    """The daemon's simulated spins, one spin at a time, from ``start`` (controller clock
    seconds); ``table_state()`` is the table's newest state when the next spin is asked for.

    A quarter of them (``[simulator] invalid_rate``) are thrown invalid, each an Art. 12
    case the sensors see, never a held spin (nobody decides it in ``make run``): so never
    two in a row, nor the first after a start (an invalid ball often ends unread, and a
    second unread in a row is a failed ``ball_pocket`` to the table: held). When the
    table was already open (``resume.table_open``: a restart), the dealer does not open it
    again; after spins already journaled (``resume.games``) the throws are new ones
    (:func:`session_seed`). A serial wheel's (``wheel_source = "serial"``) are status lines
    with the extended fields, its idle stretch short; a ball suspended (Art. 12 c) is not
    among them (a serial wheel holds it).

    The table reopens bets itself after a settled spin; it stays closed after a void (its
    ball may still run: hardware.md §2) or when its ``open_bets`` was refused (a wheel not
    talking yet). This dealer never closes it, so a closed table before a spin is one a
    dealer must open: ``open_bets`` is played first, at the spin's first event (refused
    again while the wheel is silent; the next spin tries again).
    """
    sim = config.simulator
    table = RouletteSimConfig(wheel=config.rules.wheel)
    seed = session_seed(sim.seed, resume.games)
    rng = random.Random(seed)
    source = config.rules.wheel_source
    serial = StatusLineSimConfig(extended=True, idle_lines=20, burst_silence_s=30.0)
    invalid = [s for s in INVALID_SCENARIOS if source == "gpio" or s != "ball_suspended"]
    batch_index = 0
    offset = start
    remaining = sim.spins
    last = "invalid"  # the spin before the first is not known: it may have ended unread
    while sim.spins == 0 or remaining > 0:
        count = _SIM_BATCH if sim.spins == 0 else min(remaining, _SIM_BATCH)
        scenarios = []
        for _ in range(count):
            drawn = rng.choice(invalid) if rng.random() < sim.invalid_rate else "valid"
            last = "valid" if last != "valid" else drawn
            scenarios.append(last)
        if source == "serial":
            objects, truth = simulate(count, seed + batch_index, table, scenarios, source,
                                      serial)
        else:
            objects, truth = simulate(count, seed + batch_index, table, scenarios)
        trace = trace_from_objects("simulator", enumerate(objects, 1), config.games,
                                   tuple(config.serial))
        events = [replace(e, t=e.t + offset) for e in trace.events]
        if batch_index > 0 or resume.table_open:
            # The table is already open (from the previous batch, or before a restart).
            events = [e for e in events
                      if not (isinstance(e, DealerInput) and e.action == "open_bets")]
        for chunk in _per_spin(events, [spin.remove_t + offset for spin in truth]):
            if (table_state is not None and table_state() == "closed"
                    and not any(_opens(e) for e in chunk)):
                chunk = [DealerInput(chunk[0].t, "open_bets"), *chunk]
            yield chunk
        offset = events[-1].t + 1.0
        batch_index += 1
        remaining -= count


def _opens(event: Event) -> bool:
    return isinstance(event, DealerInput) and event.action == "open_bets"


def _per_spin(events: list[Event], removed: Sequence[float]) -> Iterator[list[Event]]:
    """``events`` cut after each spin's ball removal (``removed``: its times, s) but the
    last: one chunk a spin (the last one runs on to the end), the same events in order."""
    first = 0
    for remove_t in removed[:-1]:
        end = first
        while end < len(events) and events[end].t <= remove_t:
            end += 1
        if end > first:
            yield events[first:end]
        first = end
    if first < len(events):
        yield events[first:]
