"""A Black Jack coup's hands and what is due next (seed 002 Art. 8; CONTRACT §6): plain data the
statechart (:mod:`controller.games.blackjack.chart`) keeps, and the dealing order read off it.

After the two-card deal everything that happens by itself follows from the hands alone: a
split hand's second card, a doubled hand's one card, the end of a hand that busts or
reaches 21, a blackjack that gets no decision, split aces one card each, the dealer's turn
when the last hand is finished (:meth:`Coup.due`). So the card the shoe gives next always
has one place, and none is dealt that the rules do not ask for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from controller.cards.card import Card
from controller.games.blackjack.rules import Rules, is_blackjack, is_bust, total

DEALER = "dealer"
"""The dealer's hand label in the records."""

Due = Literal["card", "decision", "dealer"]


@dataclass
class PlayerHand:
    """One hand of a box: its cards, the box's ``bet`` on it (chips), and what was done.

    ``number`` is 1 for the box's hand (after a split, its first hand) and 2 for the hand a
    split made (settled as ``split``, CONTRACT §6).
    """

    box: int
    number: int
    bet: int
    cards: list[Card] = field(default_factory=list)
    from_split: bool = False
    doubled: bool = False
    surrendered: bool = False
    stood: bool = False
    hit_pending: bool = False

    @property
    def label(self) -> str:
        """The hand in the records: "box 2", and "box 2 hand 2" for the hand a split made."""
        return f"box {self.box}" if self.number == 1 else f"box {self.box} hand 2"

    @property
    def stake(self) -> int:
        """Chips at risk on the hand: its bet, twice when doubled."""
        return self.bet * (2 if self.doubled else 1)

    def blackjack(self) -> bool:
        return is_blackjack(self.cards, self.from_split)

    def needs_card(self) -> bool:
        """A card is due to the hand: its second after a split, a hit's, a double's one."""
        return len(self.cards) < 2 or self.hit_pending or (self.doubled and len(self.cards) == 2)

    def finished(self, rules: Rules) -> bool:
        """The hand takes no more decisions: stood, surrendered, a blackjack, bust or 21, its
        double's card dealt, or a split ace's one card dealt (RULES.md §4 Decision)."""
        if self.needs_card():
            return False
        split_ace = (self.from_split and rules.split_aces_one_card
                     and self.cards[0].rank == "A")
        return (self.stood or self.surrendered or self.blackjack() or total(self.cards)[0] >= 21
                or self.doubled or split_ace)

    def live(self) -> bool:
        """Still against the dealer's hand: not bust, not surrendered, not a blackjack (the
        dealer draws only when a hand is live, CONTRACT §6)."""
        return not (self.surrendered or self.blackjack() or is_bust(self.cards))


@dataclass
class Box:
    """A box in play: its bets by kind (``main``, ``pool``, ``bonus``, ``insurance``; chips)
    and its hands (one, two after a split). Art. 7: one hand per box, whoever joined it."""

    number: int
    bets: dict[str, int]
    hands: list[PlayerHand] = field(default_factory=list)
    acted: bool = False  # a decision of the box's (Art. 9: it surrenders before its first)

    @property
    def split(self) -> bool:
        return len(self.hands) > 1


@dataclass
class Coup:
    """The cards and hands of one coup.

    ``up_index`` is which of the dealer's two cards is his up card once it is turned (0, his
    first, turned when the deal ends, its record journaled with the dealer's next input
    (``chart``); 1 when the second was exposed by mistake, Art. 8); None during the deal.
    ``insurance_open``: the dealer has asked for insurance (Art. 10) and not closed the
    question yet. ``acted``: something was done on the up card (an insurance bet, the
    question closed, a decision): an exposed second card is said before.
    ``card_waits``: a card read after the deal waits for the decision that places it
    (``controller.cards.waiting``): nothing is settled until it has its place.
    """

    number: int
    boxes: list[Box] = field(default_factory=list)
    dealer: list[Card] = field(default_factory=list)
    up_index: int | None = None
    insurance_open: bool = False
    acted: bool = False
    hole_turned: bool = False
    awaiting_correction: bool = False
    card_waits: bool = False

    def hands(self) -> list[PlayerHand]:
        """Every hand, in box order and, within a box, hand 1 then hand 2."""
        return [hand for box in self.boxes for hand in box.hands]

    def box(self, number: int) -> Box | None:
        return next((b for b in self.boxes if b.number == number), None)

    # -- the two-card deal (Art. 8) -----------------------------------------------------
    def deal_order(self) -> list[str]:
        """Art. 8: a card up to each box left to right, one down to the dealer, and again."""
        boxes = [f"box {b.number}" for b in self.boxes]
        return [*boxes, DEALER, *boxes, DEALER]

    def cards_dealt(self) -> int:
        return len(self.dealer) + sum(len(h.cards) for h in self.hands())

    def deal_complete(self) -> bool:
        return len(self.dealer) >= 2

    # -- after the deal ------------------------------------------------------------------
    def due(self, rules: Rules) -> tuple[Due, PlayerHand | None]:
        """What comes next, once the deal is complete: a card to the first hand that needs
        one, else a decision of the first unfinished hand (box order; a box's hand 1 before
        its hand 2: "after a split, its first hand, then its second"), else the dealer."""
        for hand in self.hands():
            if hand.needs_card():
                return "card", hand
            if not hand.finished(rules):
                return "decision", hand
        return "dealer", None

    def up_card(self) -> Card:
        """The dealer's up card: the one turned, or the first (Art. 8) while neither is."""
        return self.dealer[self.up_index or 0]

    def hole_card(self) -> Card:
        """The dealer's other card: his second, or his first when the second was exposed."""
        return self.dealer[1 - (self.up_index or 0)]

    def any_live(self) -> bool:
        return any(hand.live() for hand in self.hands())
