"""The simulated Mini-Bacará dealer and bettors on the simulated shoe (``sim.shoe_sim``), for
``table-controller simulate --table mini_baccarat`` and the daemon's embedded default.

Pure and deterministic: everything is drawn from ``random.Random(seed)``; no I/O except
``write_trace``, which writes the trace. ``sim.daemon`` plays the events into a
pseudo-terminal, or the controller replays them (``replay``).

What the dealer does, in order (times in seconds):

1. New decks (seed 002 Art. 5): the dealer inputs ``procedure_step`` show, turn, scramble,
   shuffle, cut and load (Art. 5 a-f), then the shoe reads one burn card (Art. 5 g).
2. Coups (seed 000 Art. 4-11): ``open_bets``; Punto and/or Banca bets on 1 to 5 boxes, whole
   chips within the limits (Art. 4-5); ``no_more_bets``; then the cards, 0.5-1.2 s apart,
   exactly the cards the rules ask for: a :class:`MiniBaccarat` runs alongside and its
   ``needs_card()`` says which hand the next card goes to, so the simulator never deals a
   card the rules do not need. Boxes on five with a Punto bet get a random ``five_choice``
   before the Banca's second card (Art. 8); when the Banca's first card, turned, is a nine,
   some of the offered boxes take insurance, at most half their Punto bet (Art. 11).
3. The cut card: a ``[Cut]`` line when the dealing reaches it; the coup is finished, then
   the count-out (seed 002 Art. 4: the cards left in the shoe read, ``count_out_done``),
   the Art. 6 procedure (shuffle, cut, load) and a burn card before the next coup.

Optional noise (rates per card, default off so traces used in tests are clean unless
asked): a misread followed by the dealer's ``card`` correction a few seconds later, and
reader warnings. The Banca's face-down card is never misread: a dealer cannot enter it by
hand without exposing it (Art. 6).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Final

from controller.cards.card import Card
from controller.core.config import Config
from controller.core.events import BetPlaced, Event
from controller.games.mini_baccarat.game import MiniBaccarat, hand_total
from controller.games.mini_baccarat.rules import DECKS
from controller.games.mini_baccarat.shoe import CUT_CARD, NEW_DECKS
from controller.store.records import Record, unpack
from controller.trace import trace_from_objects
from controller.trace import write_trace as write_jsonl
from sim.shoe_sim import (
    CARD_PAUSE_S,
    DEFAULT_PORT,
    ShoeDealer,
    SimResult,
    TraceObject,
    check_settings,
)
from sim.shoe_sim import REFUSED_INPUTS as SHOE_REFUSED

REFUSED_INPUTS: Final = SHOE_REFUSED
"""The inputs of a person this simulated table cannot follow (``sim.daemon``)."""

CHIPS: Final = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 5000)
"""Chip denominations a bettor stacks from (chips are the unit of every amount)."""
DAEMON_BATCH_COUPS: Final = 200
"""Coups the daemon's simulator plays when ``[simulator] spins`` is 0."""
DAEMON_MISREAD_RATE: Final = 0.01
"""Misreads per card in the daemon's simulator: the dealer's correction gets exercised."""
DAEMON_WARNING_RATE: Final = 0.005
"""Reader warnings per card in the daemon's simulator."""


@dataclass(frozen=True)
class SimConfig:
    """Settings of the simulated table.

    Attributes:
        decks: decks in the shoe: the decree's four (seed 000 Art. 2), no other.
        limits: (minimum, maximum) bet per box and kind, in chips (Art. 5).
        cut_card_min_remaining: fewest cards below the cut card (seed 002 Art. 5 e: 40);
            the cut card is placed between this and half the shoe (at least this).
        insurance_pays_on: the game's insurance rule (``INSURANCE_RULES``).
        misread_rate: probability (0-1) that a card, other than the Banca's face-down
            card, is misread and entered by the dealer.
        warning_rate: probability (0-1) of a reader warning line after a card.
        insurance_rate: probability (0-1) that a box offered insurance takes it (Art. 11).
        port: the serial port name of the shoe in the config.
        count_out: the dealer counts out each shoe closed at the cut card (``[cards]``).

    Raises:
        ValueError: a setting the simulated dealer cannot work with.
    """

    decks: int = 4
    limits: tuple[int, int] = (1, 1000)
    cut_card_min_remaining: int = 40
    insurance_pays_on: str = "natural_nine"
    misread_rate: float = 0.0
    warning_rate: float = 0.0
    insurance_rate: float = 0.5
    port: str = DEFAULT_PORT
    count_out: bool = True

    def __post_init__(self) -> None:
        if self.decks != DECKS:  # the decree's sabot, as the config insists
            raise ValueError(f"{self.decks} decks: a Mini-Bacará sabot is {DECKS} decks "
                             "(seed 000 Art. 2)")
        check_settings(self, ("misread_rate", "warning_rate", "insurance_rate"))
        # A coup needs up to 18 cards (5 boxes x 3 + 3), all of them after the cut card.
        if not 18 <= self.cut_card_min_remaining < self.decks * 52 - 1:
            raise ValueError(f"cut_card_min_remaining out of range: {self.cut_card_min_remaining}")


class _Dealer(ShoeDealer):
    """The Mini-Bacará dealer: coups, bets and choices on the simulated shoe."""

    def __init__(self, seed: int, cfg: SimConfig, start: float) -> None:
        super().__init__(random.Random(seed), {"table": "mini_baccarat", "decks": cfg.decks},
                         cfg.decks, cfg.cut_card_min_remaining, cfg.port, start,
                         cfg.count_out)
        self.cfg = cfg
        self.records: list[tuple[str, dict[str, Any]]] = []
        self._seen = 0
        # The rules engine dealt alongside: its needs_card() drives the dealing.
        self.game = MiniBaccarat(self._record, cfg.decks, cfg.insurance_pays_on, cfg.limits)
        self.hands: dict[str, list[Card]] = {}
        self.bets: dict[tuple[int, str], int] = {}

    def _record(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        self.records.append((type_, fields))
        return {"type": type_, **fields}

    def new_records(self) -> list[tuple[str, dict[str, Any]]]:
        fresh = self.records[self._seen:]
        self._seen = len(self.records)
        return fresh

    def coup(self) -> None:
        game = self.game
        self.wait((1.0, 3.0))
        self.dealer("open_bets")
        game.open_bets(self.t)
        self.hands = {"banca": []}
        self.bets = {}
        self.place_bets()
        self.wait((0.5, 1.5))
        self.dealer("no_more_bets")
        game.no_more_bets(self.t)
        while game.state != "coup_over":
            label = game.needs_card()
            if label is None:
                if game.state != "five_options":
                    raise AssertionError(f"the simulator is stuck in state {game.state}")
                self.five_choices()
                continue
            self.deal(label)
        self.new_records()
        # Losing bets collected, winners paid (Art. 9 g) before the next coup.
        self.wait((2.0, 4.0))

    def place_bets(self) -> None:
        rng = self.rng
        count = rng.choices((1, 2, 3, 4, 5), weights=(30, 25, 20, 15, 10))[0]
        for box in sorted(rng.sample(range(1, 6), count)):
            self.hands[f"box {box}"] = []
            roll = rng.random()
            kinds = ("punto",) if roll < 0.45 else ("banca",) if roll < 0.9 else ("punto", "banca")
            for kind in kinds:
                self.bet(kind, box, self.stake())

    def stake(self) -> int:
        """A whole number of chips within the limits: one denomination, one to three chips."""
        low, high = self.cfg.limits
        chips = [c for c in CHIPS if low <= c <= high] or [low]
        return min(high, self.rng.choice(chips) * self.rng.randint(1, 3))

    def bet(self, kind: str, box: int, amount: int) -> None:
        self.wait((0.2, 0.8))
        self.put({"bet": kind, "box": box, "amount": amount})
        self.game.place_bet(BetPlaced(self.t, kind, box, amount))
        self.bets[(box, kind)] = self.bets.get((box, kind), 0) + amount
        self.after_action()

    def five_choices(self) -> None:
        """Art. 8: every box on five with a Punto bet says draw or stand, left to right."""
        for label, hand in self.hands.items():
            if label == "banca" or len(hand) != 2 or hand_total(hand) != 5:
                continue
            box = int(label.split()[1])
            if not self.bets.get((box, "punto")):
                continue  # the dealer stands for it (Art. 8 Decision), no input
            self.wait((0.8, 2.5))
            choice = self.rng.choice(("draw", "stand"))
            self.dealer("five_choice", box=box, choice=choice)
            self.game.five_choice(self.t, box, choice)
            self.after_action()

    def deal(self, label: str) -> None:
        cfg, game = self.cfg, self.game
        face_down = label == "banca" and not self.hands["banca"]
        self.wait(CARD_PAUSE_S)
        card = self.draw()
        if not face_down and self.rng.random() < cfg.misread_rate:
            self.misread()
            game.misread(self.t)
            self.wait((2.0, 5.0))  # the dealer looks at the card and types it in
            self.dealer("card", card=str(card))
            game.card(self.t, card, manual=True)
        else:
            self.read(card)
            game.card(self.t, card)
        self.hands[label].append(card)
        self.reader_warning(cfg.warning_rate)
        self.after_action()

    def after_action(self) -> None:
        """Insurance when the game offered it (Art. 11): the card was just turned."""
        for type_, fields in self.new_records():
            if type_ != "insurance_offered":
                continue
            self.wait((0.5, 1.5))  # the dealer calls insurance
            for offer in fields["boxes"]:
                if self.rng.random() < self.cfg.insurance_rate:
                    # Up to half the Punto bet; the table minimum when the half allows it.
                    low = min(self.cfg.limits[0], offer["max"])
                    self.bet("insurance", offer["box"], self.rng.randint(low, offer["max"]))


def simulate(coups: int, seed: int, config: SimConfig | None = None,
             start: float = 0.0) -> SimResult:
    """Simulate ``coups`` Mini-Bacará coups from new decks (see the module doc).

    Args:
        coups: how many coups (at least 1).
        seed: seeds ``random.Random``; the same arguments give the same trace.
        config: the table's settings (default ``SimConfig()``: 4 decks, no noise).
        start: the time of the first line, seconds.

    Returns:
        the trace objects (first the ``meta`` line), every shoe loaded, and ``coups``.

    Raises:
        ValueError: ``coups`` < 1.
    """
    if coups < 1:
        raise ValueError(f"coups must be at least 1: {coups}")
    cfg = config or SimConfig()
    dealer = _Dealer(seed, cfg, start)
    dealer.load_shoe(NEW_DECKS.dealer_steps())
    for number in range(coups):
        if number and dealer.shoe.cut_seen:
            dealer.reload_shoe(CUT_CARD.dealer_steps())
        dealer.coup()
    return SimResult(dealer.objects, dealer.shoes, coups)


def coup_events(coups: int, seed: int, decks: int = 4, *, misread_rate: float = 0.0,
                start: float = 0.0, warning_rate: float = 0.0,
                port: str = DEFAULT_PORT) -> list[TraceObject]:
    """The CONTRACT §2 objects of ``coups`` simulated coups on a ``decks``-deck shoe.

    The first object is the meta line ``{"table": "mini_baccarat", "decks": decks}``; times
    are seconds from ``start``. ``misread_rate`` and ``warning_rate`` are probabilities per
    card (default 0: a clean trace).
    """
    cfg = SimConfig(decks=decks, misread_rate=misread_rate, warning_rate=warning_rate,
                    port=port)
    return simulate(coups, seed, cfg, start).objects


def sim_config_from(config: Config, port: str = DEFAULT_PORT, *,
                    misread_rate: float = DAEMON_MISREAD_RATE,
                    warning_rate: float = DAEMON_WARNING_RATE) -> SimConfig:
    """The simulator's settings for a table's config (decks, limits, cut card, insurance)."""
    mini = config.rules
    return SimConfig(decks=mini.decks, limits=(config.limits.min_bet, config.limits.max_bet),
                     cut_card_min_remaining=mini.cut_card_min_remaining,
                     insurance_pays_on=mini.insurance_pays_on, misread_rate=misread_rate,
                     warning_rate=warning_rate, port=port,
                     count_out=config.cards is None or config.cards.count_out)


def write_trace(config: Config, out: str, count: int, seed: int,
                scenarios: list[str] | None) -> tuple[str, str]:
    """``table-controller simulate --table mini_baccarat``: ``count`` clean coups written to
    ``out``, following the config's decks, limits, cut card and insurance rule, so that
    replaying the trace under that config refuses no bet (a bet under the table minimum
    would leave its box out of the coup while the simulated dealer deals it).

    Returns the words of ``simulate``'s summary line: every coup ends in its
    ``coup_result``; no misread or reader warning is injected, so no alarm is expected.
    """
    cfg = sim_config_from(config, misread_rate=0, warning_rate=0)
    write_jsonl(out, simulate(count, seed, cfg).objects)
    return f"{count} coup_result", "no fault injected (0 alarms)"


def simulated_events(config: Config, start: float, port: str = DEFAULT_PORT) -> list[Event]:
    """The daemon's simulated shoe: events from ``start`` (seconds of the controller clock).

    Plays ``[simulator] spins`` coups (0: ``DAEMON_BATCH_COUPS``) with seed ``[simulator]
    seed``, with occasional misreads and reader warnings, checked by the same code as a
    trace file (``trace_from_objects``).

    Building 200 coups takes about a second and a half of wall time (the rules engine runs
    alongside), i.e. 30 s of a clock at ``[simulator] speed`` 20: the events are shifted by
    that time, so the first ones are not already overdue when the player gets them (overdue
    events would be played in a burst, and dealer inputs, posted directly, would overtake
    the shoe's bytes on their way through the pseudo-terminal). The daemon's clock runs at
    ``[simulator] speed`` (``controller.cli.daemon.run.cmd_run``).
    """
    began = time.monotonic()
    sim = config.simulator
    coups = sim.spins or DAEMON_BATCH_COUPS
    objects = simulate(coups, sim.seed, sim_config_from(config, port)).objects
    events = trace_from_objects("shoe simulator", enumerate(objects, 1), config.games,
                                (port,)).events
    shift = start + (time.monotonic() - began) * sim.speed
    return [replace(event, t=event.t + shift) for event in events]


def daemon_events(config: Config, start: float, resume: Any,
                  table_state: Any = None) -> Iterator[list[Event]]:
    """The daemon's simulated shoe and dealer from ``start``, without what the journal holds
    already (``resume``: bytes read, inputs and bets journaled before a restart)."""
    from sim.daemon import resume_events

    yield resume_events(simulated_events(config, start, DEFAULT_PORT), resume)
