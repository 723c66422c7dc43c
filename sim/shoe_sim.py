"""A Mini-Bacará shoe simulator: CONTRACT §2 trace events for a dealer working a shoe.

Pure and deterministic: everything is drawn from ``random.Random(seed)``; no I/O except
``simulate_shoe_trace``, which writes the trace. Another module plays the events into a
pseudo-terminal (``sim.daemon``) or the controller replays them (``replay``).

What the dealer does, in order (times in seconds):

1. New decks (seed 002 Art. 5): the dealer inputs ``procedure_step`` show, turn, scramble,
   shuffle, cut and load (Art. 5 a-f), then the shoe reads one burn card (Art. 5 g). The
   cut card is placed ``cut_card_min_remaining`` (40, Art. 5 e) to half a shoe from the
   bottom, uniformly.
2. Coups (seed 000 Art. 4-11): ``open_bets``; Punto and/or Banca bets on 1 to 5 boxes, whole
   chips within the limits (Art. 4-5); ``no_more_bets``; then the cards as
   ``[Game]<Card:RS>`` lines 0.5-1.2 s apart, exactly the cards the rules ask for: a
   ``controller.games.mini_baccarat.game.MiniBaccarat`` runs alongside and its ``needs_card()``
   says which hand the next card goes to, so the simulator never deals a card the rules do
   not need. Boxes on five with a Punto bet get a random ``five_choice`` before the Banca's
   second card (Art. 8); when the Banca's first card, turned, is a nine, some of the
   offered boxes take insurance, at most half their Punto bet (Art. 11).
3. The cut card: a ``[Cut]`` line when the dealing reaches it; the coup is finished, then
   the Art. 6 procedure (shuffle, cut, load) and a burn card before the next coup.

Optional noise (rates per card, default off so traces used in tests are clean unless
asked): a misread (``[Game]<Game>``) followed by the dealer's ``card`` correction a few
seconds later, and reader warnings (``<W0xNN>``). The Banca's face-down card is never
misread: a dealer cannot enter it by hand without exposing it (seed 000 Art. 6).

Decision: the procedure steps are compressed to 0.3-0.8 s each (a real shuffle takes
minutes) so that a simulated table shows coups within seconds of starting.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field, replace
from typing import Any, Final

from controller.cards.card import Card, full_deck
from controller.core.config import Config
from controller.core.events import BetPlaced, Event
from controller.games.mini_baccarat.game import MiniBaccarat, hand_total
from controller.trace import trace_from_objects

TraceObject = dict[str, Any]

DEFAULT_PORT: Final = "shoe"
CARD_PAUSE_S: Final = (0.5, 1.2)
"""Seconds between two cards drawn from the shoe (a dealer's rhythm)."""
STEP_PAUSE_S: Final = (0.3, 0.8)
"""Seconds between two procedure steps (compressed, see the module's Decision)."""
CHIPS: Final = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 5000)
"""Chip denominations a bettor stacks from (chips are the unit of every amount)."""
ART5_STEPS: Final = ("show", "turn", "scramble", "shuffle", "cut", "load")
"""Seed 002 Art. 5 a-f, declared by the dealer; g (the burn) is read from the shoe."""
ART6_STEPS: Final = ("shuffle", "cut", "load")
"""Seed 002 Art. 6: after the cut card; show, turn and scramble are optional, left out."""
DAEMON_BATCH_COUPS: Final = 200
"""Coups the daemon's simulator plays when ``[simulator] spins`` is 0."""
DAEMON_MISREAD_RATE: Final = 0.01
"""Misreads per card in the daemon's simulator: the dealer's correction gets exercised."""
DAEMON_WARNING_RATE: Final = 0.005
"""Reader warnings per card in the daemon's simulator."""
_WARNING_MASKS: Final = (0x01, 0x02, 0x04, 0x10)


@dataclass(frozen=True)
class ShoeSimConfig:
    """Settings of the simulated table.

    Attributes:
        decks: decks in the shoe (seed 000 Art. 2: four).
        limits: (minimum, maximum) bet per box and kind, in chips (Art. 5).
        cut_card_min_remaining: fewest cards below the cut card (seed 002 Art. 5 e: 40);
            the cut card is placed between this and half the shoe (at least this).
        insurance_pays_on: the game's insurance rule (``INSURANCE_RULES``).
        misread_rate: probability (0-1) that a card, other than the Banca's face-down
            card, is misread and entered by the dealer.
        warning_rate: probability (0-1) of a reader warning line after a card.
        insurance_rate: probability (0-1) that a box offered insurance takes it (Art. 11).
        port: the serial port name of the shoe in the config.
    """

    decks: int = 4
    limits: tuple[int, int] = (1, 1000)
    cut_card_min_remaining: int = 40
    insurance_pays_on: str = "natural_nine"
    misread_rate: float = 0.0
    warning_rate: float = 0.0
    insurance_rate: float = 0.5
    port: str = DEFAULT_PORT

    def __post_init__(self) -> None:
        if not 1 <= self.decks <= 8:
            raise ValueError(f"decks must be 1 to 8: {self.decks}")
        if not 1 <= self.limits[0] <= self.limits[1]:
            raise ValueError(f"limits must be 1 <= minimum <= maximum: {self.limits}")
        # A coup needs up to 18 cards (5 boxes x 3 + 3), all of them after the cut card.
        if not 18 <= self.cut_card_min_remaining < self.decks * 52 - 1:
            raise ValueError(f"cut_card_min_remaining out of range: {self.cut_card_min_remaining}")
        for name in ("misread_rate", "warning_rate", "insurance_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be a probability: {getattr(self, name)}")


@dataclass
class SimulatedShoe:
    """One loaded shoe: its cards top first, and the cut card's place.

    ``cut_index`` is how many cards are drawn (burn included) before the cut card comes
    up: ``len(cards) - cut_index`` cards lie below it (seed 002 Art. 5 e). ``drawn`` are the
    cards actually drawn, in order: always a prefix of ``cards``.
    """

    cards: list[Card]
    cut_index: int
    drawn: list[Card] = field(default_factory=list)
    cut_seen: bool = False

    @property
    def below_cut(self) -> int:
        """Cards below the cut card (count)."""
        return len(self.cards) - self.cut_index


@dataclass
class ShoeSimResult:
    """What :func:`simulate_shoe` made: the trace objects and the shoes behind them."""

    objects: list[TraceObject]
    shoes: list[SimulatedShoe]
    coups: int


class _Dealer:
    """Writes the events of one simulation; keeps the trace clock ``t`` (seconds)."""

    def __init__(self, seed: int, cfg: ShoeSimConfig, start: float) -> None:
        self.rng = random.Random(seed)
        self.cfg = cfg
        self.t = start
        self.objects: list[TraceObject] = [
            {"t": round(start, 3), "meta": {"table": "mini_baccarat", "decks": cfg.decks}}
        ]
        self.shoes: list[SimulatedShoe] = []
        self.records: list[tuple[str, dict[str, Any]]] = []
        self._seen = 0
        # The rules engine dealt alongside: its needs_card() drives the dealing.
        self.game = MiniBaccarat(self._record, cfg.decks, cfg.insurance_pays_on, cfg.limits)
        self.hands: dict[str, list[Card]] = {}
        self.bets: dict[tuple[int, str], int] = {}

    def _record(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        self.records.append((type_, fields))
        return {"type": type_, **fields}

    def new_records(self) -> list[tuple[str, dict[str, Any]]]:
        fresh = self.records[self._seen:]
        self._seen = len(self.records)
        return fresh

    # -- output --------------------------------------------------------------------------
    def wait(self, pause: tuple[float, float]) -> float:
        self.t += self.rng.uniform(*pause)
        return self.t

    def put(self, obj: TraceObject) -> None:
        self.objects.append({"t": round(self.t, 3), **obj})

    def line(self, text: str) -> None:
        self.put({"serial": self.cfg.port, "text": text + "\r\n"})

    def dealer(self, action: str, **args: Any) -> None:
        self.put({"input": action, **args})

    # -- the shoe ------------------------------------------------------------------------
    def load_shoe(self, steps: tuple[str, ...]) -> None:
        """A procedure (Art. 5 or 6): the dealer's steps, a fresh shuffle, one burn card."""
        for step in steps:
            self.wait(STEP_PAUSE_S)
            self.dealer("procedure_step", step=step)
        cards = full_deck() * self.cfg.decks
        self.rng.shuffle(cards)
        size = len(cards)
        lowest = self.cfg.cut_card_min_remaining
        below = self.rng.randint(lowest, max(lowest, size // 2))
        shoe = SimulatedShoe(cards, size - below)
        self.shoes.append(shoe)
        self.wait(STEP_PAUSE_S)
        self.line(f"[Burn]<Card:{self.draw()}>")

    @property
    def shoe(self) -> SimulatedShoe:
        return self.shoes[-1]

    def draw(self) -> Card:
        """The next card of the shoe; the cut card's line first when it is on top."""
        shoe = self.shoe
        if len(shoe.drawn) == shoe.cut_index and not shoe.cut_seen:
            shoe.cut_seen = True
            self.line("[Cut]")
            self.wait((0.3, 0.6))
        card = shoe.cards[len(shoe.drawn)]
        shoe.drawn.append(card)
        return card

    # -- a coup --------------------------------------------------------------------------
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
        cfg, rng, game = self.cfg, self.rng, self.game
        face_down = label == "banca" and not self.hands["banca"]
        self.wait(CARD_PAUSE_S)
        card = self.draw()
        if not face_down and rng.random() < cfg.misread_rate:
            self.line("[Game]<Game>")
            game.misread(self.t)
            self.wait((2.0, 5.0))  # the dealer looks at the card and types it in
            self.dealer("card", card=str(card))
            game.card(self.t, card, manual=True)
        else:
            self.line(f"[Game]<Card:{card}>")
            game.card(self.t, card)
        self.hands[label].append(card)
        if rng.random() < cfg.warning_rate:
            self.wait((0.05, 0.3))
            self.line(f"<W0x{rng.choice(_WARNING_MASKS):02X}>")
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


def simulate_shoe(coups: int, seed: int, config: ShoeSimConfig | None = None,
                  start: float = 0.0) -> ShoeSimResult:
    """Simulate ``coups`` Mini-Bacará coups from new decks (see the module doc).

    Args:
        coups: how many coups (at least 1).
        seed: seeds ``random.Random``; the same arguments give the same trace.
        config: the table's settings (default ``ShoeSimConfig()``: 4 decks, no noise).
        start: the time of the first line, seconds.

    Returns:
        the trace objects (first the ``meta`` line), every shoe loaded, and ``coups``.

    Raises:
        ValueError: ``coups`` < 1.
    """
    if coups < 1:
        raise ValueError(f"coups must be at least 1: {coups}")
    cfg = config or ShoeSimConfig()
    dealer = _Dealer(seed, cfg, start)
    dealer.load_shoe(ART5_STEPS)
    for number in range(coups):
        if number and dealer.shoe.cut_seen:
            dealer.load_shoe(ART6_STEPS)
        dealer.coup()
    return ShoeSimResult(dealer.objects, dealer.shoes, coups)


def shoe_events(coups: int, seed: int, decks: int = 4, *, misread_rate: float = 0.0,
                start: float = 0.0, warning_rate: float = 0.0,
                port: str = DEFAULT_PORT) -> list[TraceObject]:
    """The CONTRACT §2 objects of ``coups`` simulated coups on a ``decks``-deck shoe.

    The first object is the meta line ``{"table": "mini_baccarat", "decks": decks}``; times
    are seconds from ``start``. ``misread_rate`` and ``warning_rate`` are probabilities per
    card (default 0: a clean trace).
    """
    cfg = ShoeSimConfig(decks=decks, misread_rate=misread_rate, warning_rate=warning_rate,
                        port=port)
    return simulate_shoe(coups, seed, cfg, start).objects


def write_objects(path: str | os.PathLike[str], objects: list[TraceObject]) -> None:
    """Write trace objects as JSON Lines (the format of ``sim.wheel_sim.write_trace``)."""
    from sim.wheel_sim import write_trace

    write_trace(path, objects)


def simulate_shoe_trace(path: str | os.PathLike[str], coups: int, seed: int,
                        decks: int = 4, config: Config | None = None) -> None:
    """``table-controller simulate --table mini_baccarat``: write a clean trace to ``path``.

    With ``config`` (the table's loaded config) the trace follows its decks, limits, cut
    card and insurance rule, so that replaying it under that config refuses no bet (a bet
    under the table minimum would leave its box out of the coup while the simulated dealer
    deals it); ``decks`` is then ignored. Without it: ``ShoeSimConfig`` defaults.
    """
    if config is None:
        write_objects(path, shoe_events(coups, seed, decks))
        return
    cfg = sim_config_from(config, misread_rate=0, warning_rate=0)
    write_objects(path, simulate_shoe(coups, seed, cfg).objects)


def sim_config_from(config: Config, port: str = DEFAULT_PORT, *,
                    misread_rate: float = DAEMON_MISREAD_RATE,
                    warning_rate: float = DAEMON_WARNING_RATE) -> ShoeSimConfig:
    """The simulator's settings for a table's config (decks, limits, cut card, insurance)."""
    mini = config.rules
    return ShoeSimConfig(decks=mini.decks, limits=(config.limits.min_bet, config.limits.max_bet),
                         cut_card_min_remaining=mini.cut_card_min_remaining,
                         insurance_pays_on=mini.insurance_pays_on, misread_rate=misread_rate,
                         warning_rate=warning_rate, port=port)


def simulated_shoe_events(config: Config, start: float, port: str = DEFAULT_PORT
                          ) -> list[Event]:
    """The daemon's simulated shoe: events from ``start`` (seconds of the controller clock).

    Plays ``[simulator] spins`` coups (0: ``DAEMON_BATCH_COUPS``) with seed ``[simulator]
    seed``, with occasional misreads and reader warnings, checked by the same code as a
    trace file (``trace_from_objects``).

    Building 200 coups takes about a second and a half of wall time (the rules engine runs
    alongside), i.e. 30 s of a clock at ``[simulator] speed`` 20: the events are shifted by
    that time, so the first ones are not already overdue when the player gets them (overdue
    events would be played in a burst, and dealer inputs, posted directly, would overtake
    the shoe's bytes on their way through the pseudo-terminal). The daemon's clock runs at
    ``[simulator] speed`` (``controller.cli.main.cmd_run``).
    """
    began = time.monotonic()
    sim = config.simulator
    cfg = sim_config_from(config, port)
    coups = sim.spins or DAEMON_BATCH_COUPS
    objects = simulate_shoe(coups, sim.seed, cfg).objects
    events = trace_from_objects("shoe simulator", enumerate(objects, 1), (port,)).events
    shift = start + (time.monotonic() - began) * sim.speed
    return [replace(event, t=event.t + shift) for event in events]
