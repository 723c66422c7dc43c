"""One hand ("mano" or "pase") of draw poker, seed 003: its seats, antes, cards and draw, with
the checks of each move (raise ``RuleViolation``, change nothing). Pure: the statechart
(:mod:`controller.games.draw_poker.chart`) journals and changes it.

- Seats: boxes 1 to 5, in dealing order; a player sits in a box by posting its ante
  (num. 3: seated only; num. 4: 2 to 5 players, the ante agreed by them, the same for all,
  at least the house minimum).
- The deal (num. 7): five consecutive cards face down to each player, box 1's first, left to
  right ("5 cartas al primero, luego 5 al segundo"); the house takes none.
- The draw (num. 9): in turn from Mano, each player still in throws 0 to 4 of his cards
  (``discard``) and is dealt as many, before the next one throws. The discards delimit whose
  cards are whose, so a wrong count shows (num. 10): the next discard, or the second
  round's first action, coming before a player got all his replacements (he holds fewer than
  five), or a card read after his replacements and before the next discard (he holds six).
  Either voids his hand. Decision: in the deal the controller assigns the cards by count and
  cannot tell who was dealt one card too many; such a card is refused as unexpected.
- A void hand (num. 10, 11): the player leaves the hand with his cards; his stake is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.cards.card import Card, parse_card
from controller.core.errors import RuleViolation
from controller.core.words import given, one_of
from controller.games.draw_poker.betting import BettingRound, clockwise_from

BOXES = (1, 2, 3, 4, 5)
"""Num. 4: at most five players ("un máximo de hasta cinco (5) Jugadores")."""
MIN_PLAYERS = 2
"""Num. 4: "un mínimo de dos (2) Jugadores sentados"."""
CARDS = 5
"""Num. 7: "Cada jugador recibe 5 (cinco) cartas consecutivas tapadas"."""
MAX_DISCARD = 4
"""Num. 9: "un descarte posible de hasta 4 (cuatro) cartas"."""

IN, FOLDED, VOID = "in", "folded", "void"


@dataclass
class Seat:
    """A player in the hand: his ``ante`` and ``bets`` (per round) in chips, his ``cards``,
    and whether he is still ``in``, ``folded`` or ``void``."""

    box: int
    ante: int
    bets: list[int] = field(default_factory=lambda: [0, 0])
    cards: list[Card] = field(default_factory=list)
    status: str = IN
    void_reason: str = ""

    @property
    def label(self) -> str:
        return f"box {self.box}"


@dataclass
class Hand:
    """Hand ``number``: from its antes to its result."""

    number: int
    min_ante: int
    max_ante: int
    antes: dict[int, int] = field(default_factory=dict)
    mano_box: int | None = None
    seats: dict[int, Seat] = field(default_factory=dict)
    dealt: int = 0  # cards dealt so far, replacements included
    round: BettingRound | None = None
    rounds_closed: int = 0
    draw_order: list[int] = field(default_factory=list)
    drawn: dict[int, int] = field(default_factory=dict)  # box: replacements still owed
    serving: int | None = None  # the box whose replacements are being dealt
    awaiting_correction: bool = False

    # -- queries ----------------------------------------------------------------------
    @property
    def ante(self) -> int | None:
        """The ante agreed for this hand (the first one posted), None before any."""
        return next(iter(self.antes.values()), None)

    @property
    def mano(self) -> int:
        """The Mano: box 1 unless the dealer said otherwise (``mano``); the first seated box
        from it clockwise."""
        boxes = list(self.seats) or list(self.antes)
        start = self.mano_box or BOXES[0]
        return clockwise_from(start, boxes)[0] if boxes else start

    def live(self) -> list[int]:
        """The players still in, clockwise from Mano."""
        return clockwise_from(self.mano, [b for b, s in self.seats.items() if s.status == IN])

    def dealing_box(self) -> int | None:
        """The box the next card of the deal goes to (num. 7), None once all have five."""
        for box in sorted(self.seats):
            seat = self.seats[box]
            if seat.status == IN and len(seat.cards) < CARDS:
                return box
        return None

    def next_drawer(self) -> int | None:
        """The player whose discard is due (num. 9, in turn from Mano), None once all threw."""
        return next((b for b in self.draw_order
                     if b not in self.drawn and self.seats[b].status == IN), None)

    def replacement_box(self) -> int | None:
        """The box a replacement card is owed to now, or None."""
        box = self.serving
        if box is not None and self.drawn.get(box) and self.seats[box].status == IN:
            return box
        return None

    def short_drawer(self) -> int | None:
        """The player served last, still owed replacements: a card count gone wrong when
        the play moves on (num. 10)."""
        return self.replacement_box()

    def extra_card_box(self) -> int | None:
        """The box a card read now would be one too many for: the player served last, who
        has had all his replacements (num. 10)."""
        box = self.serving
        if box is not None and not self.drawn.get(box) and self.seats[box].status == IN:
            return box
        return None

    def stakes_lost(self) -> bool:
        """Whether a player lost his stake (folded): a hand that has a loser has a winner."""
        return any(s.status == FOLDED for s in self.seats.values())

    # -- checks -----------------------------------------------------------------------
    def check_ante(self, box: Any, amount: Any) -> None:
        """An ante (num. 4): a box of the table, one ante per player, whole chips, within
        the house's limits (num. 21), and the same as the ante already agreed."""
        if not isinstance(box, int) or isinstance(box, bool) or box < 1:
            raise RuleViolation("unknown_box", f"no box {given(box)} on the layout")
        if box not in BOXES:
            raise RuleViolation("too_many_players", f"no box {box}: a poker table seats at "
                                f"most {len(BOXES)} players, in boxes 1 to {len(BOXES)} "
                                "(num. 4)")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise RuleViolation("bad_amount", f"an ante is a whole number of chips: "
                                f"{given(amount)} (num. 14)")
        if box in self.antes:
            raise RuleViolation("ante_posted", f"box {box} has posted its ante of "
                                f"{self.antes[box]} already: one ante per player (num. 4)")
        if amount < self.min_ante:
            raise RuleViolation("below_minimum", f"an ante of {amount} is below the house "
                                f"minimum of {self.min_ante} (num. 4, 21)")
        if amount > self.max_ante:
            raise RuleViolation("over_maximum", f"an ante of {amount} is over the house "
                                f"maximum of {self.max_ante} (num. 21)")
        agreed = self.ante
        if agreed is not None and amount != agreed:
            raise RuleViolation("ante_not_agreed", f"an ante of {amount}: this hand's ante "
                                f"is {agreed}, the same for every player (num. 4)")

    def check_players(self) -> None:
        """No more bets: two to five players have posted the ante (num. 4)."""
        if len(self.antes) < MIN_PLAYERS:
            raise RuleViolation("too_few_players", f"{len(self.antes)} player(s) with an "
                                f"ante: a hand starts with {MIN_PLAYERS} to {len(BOXES)} "
                                "seated players (num. 4)")

    def check_mano(self, box: Any) -> None:
        """The Mano is a player of the hand (one who posted the ante)."""
        seated = self.seats or self.antes
        if box not in seated:
            raise RuleViolation("not_in_hand", f"box {given(box)} is not a player of hand "
                                f"{self.number}: Mano is one of boxes "
                                f"{one_of(sorted(seated))} (num. 8)")

    def check_discard(self, box: Any, cards: Any) -> list[Card]:
        """A discard (num. 9): the player whose turn it is throws 0 to 4 of his cards.
        Messages never name the cards (they are face down).

        Raises:
            RuleViolation: ``bad_input``, ``too_many_discards``, ``out_of_turn``,
                ``not_his_card``.
        """
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise RuleViolation("bad_input", "discard needs cards, a list such as "
                                "[\"7H\", \"2C\"] ([] stands pat)")
        if len(cards) > MAX_DISCARD:
            raise RuleViolation("too_many_discards", f"a discard of {len(cards)} cards: at "
                                f"most {MAX_DISCARD} (num. 9)")
        due = self.next_drawer()
        if box != due:
            raise RuleViolation("out_of_turn", f"it is box {due}'s discard, not box {box}'s: "
                                "in turn from Mano (num. 9)")
        try:
            thrown = [parse_card(c) for c in cards]
        except ValueError:
            raise RuleViolation("bad_card", "discard: not a card of a French deck") from None
        held = self.seats[box].cards
        if len(set(thrown)) != len(thrown) or any(c not in held for c in thrown):
            raise RuleViolation("not_his_card", f"discard: box {box} does not hold those "
                                "cards (each one of his, once)")
        return thrown

    def check_refusal(self, box: Any, card: Any) -> Card | None:
        """A card dealt face up refused (num. 11): a player still in who holds it.

        Raises:
            RuleViolation: ``not_in_hand``, ``no_cards``, ``bad_card``, ``not_his_card``.
        """
        seat = self.seats.get(box)
        if seat is None or seat.status != IN:
            raise RuleViolation("not_in_hand", f"box {given(box)} is not a player still in "
                                f"hand {self.number}")
        if not seat.cards:
            raise RuleViolation("no_cards", f"box {box} has no card yet (num. 11)")
        if card is None:
            return None
        try:
            exposed = parse_card(str(card))
        except ValueError:
            raise RuleViolation("bad_card", f"refuse_card: not a card: {given(card)}") from None
        if exposed not in seat.cards:
            raise RuleViolation("not_his_card", f"box {box} was not dealt {exposed} face up")
        return exposed

    def card_refusal(self, state: str) -> RuleViolation:
        """Why no card is due now, in words (no card is named: it may be face down)."""
        if self.awaiting_correction:
            return RuleViolation("awaiting_correction", "the card due was misread: enter it "
                                 "by hand first (input card)")
        return RuleViolation("unexpected_card", f"no card is due in hand {self.number} "
                             f"({state})")

    def stakes(self) -> list[tuple[int, int, int]]:
        """(box, ante, bets) of the players not void, in dealing order, in chips."""
        return [(s.box, s.ante, sum(s.bets)) for s in self.seats.values() if s.status != VOID]


def cards_of(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]
