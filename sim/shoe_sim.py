"""A simulated card shoe and the dealer's hands on it: CONTRACT §2 trace events, no game.

Pure and deterministic: everything is drawn from the ``random.Random`` it is given; no I/O.
A game's simulated dealer (in its own package, ``controller/games/<game>/simulation.py``)
builds on :class:`ShoeDealer`: it decides which cards the rules need, and this module draws
them from shuffled decks and writes them as the reference reader's lines (CONTRACT §4).

What the shoe does:

- a procedure: the dealer announces its steps (``procedure_step``), the decks are shuffled,
  the cut card placed ``cut_card_min_remaining`` (seed 002 Art. 5 e: 40) to half the shoe
  from the bottom, uniformly, and one burn card is read (``[Burn]<Card:RS>``);
- each card drawn is read as ``[Game]<Card:RS>``, or misread (``[Game]<Game>``) for the
  dealer to enter by hand; the cut card, when the dealing reaches it, is a ``[Cut]`` line
  before the next card; the reader may add a warning (``<W0xNN>``);
- the count-out, once the shoe has closed at the cut card (seed 002 / 004 Art. 4, the decks
  checked complete: ``controller.cards.count_out``): every card left in the shoe is read,
  then the dealer's ``count_out_done``; then the procedure after the cut card. A table
  whose ``[cards] count_out`` is false has none, and its trace's meta says so.

Decision: the procedure steps are compressed to 0.3-0.8 s each (a real shuffle takes
minutes) so that a simulated table shows games within seconds of starting.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final

from controller.cards.card import Card, full_deck

TraceObject = dict[str, Any]

DEFAULT_PORT: Final = "shoe"
REFUSED_INPUTS: Final = {
    "new_shoe": "new_shoe: the simulated dealer deals one session from the decks it loaded "
                "at the start and cannot change them; nothing was done (a real shoe takes "
                "it)",
    "count_out_done": "count_out_done: the simulated dealer counts out each shoe himself "
                      "and ends the count-out when its last card is read; nothing was done",
}
"""The inputs a simulated card table refuses (``sim.daemon``): its dealer's session is made
up front, so it would go on dealing the old shoe into a table waiting for new decks."""
CARD_PAUSE_S: Final = (0.5, 1.2)
"""Seconds between two cards drawn from the shoe (a dealer's rhythm)."""
COUNT_OUT_PAUSE_S: Final = 0.2
"""Seconds between two cards of the count-out (compressed, as the procedure steps); fixed,
so that the count-out draws nothing from the random sequence and a seed deals the same
coups with or without it."""
STEP_PAUSE_S: Final = (0.3, 0.8)
"""Seconds between two procedure steps (compressed, see the module's Decision)."""
WARNING_MASKS: Final = (0x01, 0x02, 0x04, 0x10)
"""Warning bitmasks the simulated reader reports (their meaning: the reader's manual)."""


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
class SimResult:
    """What a card game's ``simulate`` made: the trace objects, the shoes behind them, and
    how many coups or hands."""

    objects: list[Any]
    shoes: list[SimulatedShoe]
    coups: int


def check_settings(settings: Any, rates: tuple[str, ...]) -> None:
    """The checks every simulated card table's settings share: ``settings.limits`` (house
    minimum, maximum in chips) and each attribute named in ``rates`` a probability.

    Raises:
        ValueError: limits not 1 <= minimum <= maximum, or a rate outside 0 to 1.
    """
    if not 1 <= settings.limits[0] <= settings.limits[1]:
        raise ValueError(f"limits must be 1 <= minimum <= maximum: {settings.limits}")
    for name in rates:
        if not 0.0 <= getattr(settings, name) <= 1.0:
            raise ValueError(f"{name} must be a probability: {getattr(settings, name)}")


class ShoeDealer:
    """Writes the trace of a dealer working a shoe; keeps the trace clock ``t`` (seconds).

    Args:
        rng: every random choice of the simulation is drawn from it, in order.
        meta: the trace's ``meta`` object (its first line), e.g. the table and its decks.
        decks: decks in the shoe.
        cut_card_min_remaining: fewest cards below the cut card (cards).
        port: the serial port of the shoe in the config.
        start: the time of the first line, seconds.
        count_out: the table counts out each shoe closed at the cut card (``[cards]``).
    """

    def __init__(self, rng: random.Random, meta: dict[str, Any], decks: int,
                 cut_card_min_remaining: int, port: str = DEFAULT_PORT,
                 start: float = 0.0, count_out: bool = True) -> None:
        if not count_out:
            meta = {**meta, "cards": {"count_out": False}}
        self.count_out_on = count_out
        self.rng = rng
        self.decks = decks
        self.cut_card_min_remaining = cut_card_min_remaining
        self.port = port
        self.t = start
        self.objects: list[TraceObject] = [{"t": round(start, 3), "meta": meta}]
        self.shoes: list[SimulatedShoe] = []

    # -- the trace -----------------------------------------------------------------------
    def wait(self, pause: tuple[float, float]) -> float:
        self.t += self.rng.uniform(*pause)
        return self.t

    def put(self, obj: TraceObject) -> None:
        self.objects.append({"t": round(self.t, 3), **obj})

    def line(self, text: str) -> None:
        """One line of the reader, CR LF ended (CONTRACT §4)."""
        self.put({"serial": self.port, "text": text + "\r\n"})

    def dealer(self, action: str, **args: Any) -> None:
        self.put({"input": action, **args})

    # -- the shoe ------------------------------------------------------------------------
    def load_shoe(self, steps: tuple[str, ...]) -> None:
        """A procedure: the dealer's ``steps``, a fresh shuffle, the cut card, one burn."""
        for step in steps:
            self.wait(STEP_PAUSE_S)
            self.dealer("procedure_step", step=step)
        self.fill_shoe()
        self.wait(STEP_PAUSE_S)
        self.line(f"[Burn]<Card:{self.draw()}>")

    def reload_shoe(self, steps: tuple[str, ...]) -> None:
        """The shoe closed at the cut card: its count-out (where the table has one), then
        the procedure after the cut card, ``steps`` (:meth:`load_shoe`)."""
        if self.count_out_on:
            self.count_out()
        self.load_shoe(steps)

    def count_out(self) -> None:
        """The dealer runs every card left in the closed shoe through the reader, one by
        one, then ends the count-out (``count_out_done``): the decks are complete."""
        shoe = self.shoe
        for card in shoe.cards[len(shoe.drawn):]:
            self.t += COUNT_OUT_PAUSE_S
            shoe.drawn.append(card)
            self.read(card)
        self.t += COUNT_OUT_PAUSE_S
        self.dealer("count_out_done")

    def fill_shoe(self, cut_card: bool = True) -> SimulatedShoe:
        """A fresh shuffle of the decks into a new shoe, with the cut card placed
        ``cut_card_min_remaining`` to half the shoe from the bottom, or none (a pack dealt
        without one). Returns the shoe (its ``cards`` may be rearranged before the deal)."""
        cards = full_deck() * self.decks
        self.rng.shuffle(cards)
        size = len(cards)
        if cut_card:
            lowest = self.cut_card_min_remaining
            below = self.rng.randint(lowest, max(lowest, size // 2))
            self.shoes.append(SimulatedShoe(cards, size - below))
        else:
            self.shoes.append(SimulatedShoe(cards, size, cut_seen=True))
        return self.shoe

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

    def read(self, card: Card) -> None:
        """The reader reads ``card`` as it is drawn."""
        self.line(f"[Game]<Card:{card}>")

    def misread(self) -> None:
        """A card passed the reader unread (the dealer then enters it: ``dealer("card")``)."""
        self.line("[Game]<Game>")

    def reader_warning(self, rate: float) -> None:
        """With probability ``rate``, a reader warning shortly after (one draw always)."""
        if self.rng.random() < rate:
            self.wait((0.05, 0.3))
            self.line(f"<W0x{self.rng.choice(WARNING_MASKS):02X}>")
