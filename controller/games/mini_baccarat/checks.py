"""What a Mini-Bacará coup allows, and why it refuses the rest (seed 000 Art. 2, 4-5, 8,
11): the validators of the statechart (:mod:`controller.games.mini_baccarat.coup`).

Each raises :class:`~controller.core.errors.RuleViolation` with a code naming the rule and
the article in its message, and changes nothing.
"""

from __future__ import annotations

from controller.cards.card import Card
from controller.cards.consent import check_consent
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.core.words import given, one_of
from controller.games.mini_baccarat.rules import BET_KINDS, BOXES, FIVE_CHOICES, hand_total


class Checks:
    """The validators of a coup, over its data (``bets``: chips by (box, kind); the boxes
    ``in_play`` and their ``hands``; the table's ``limits``, low and high, in chips)."""

    bets: dict[tuple[int, str], int]
    in_play: list[int]
    hands: dict[int, list[Card]]
    limits: tuple[int, int]
    insurance_open: bool
    card_before_choice: bool

    def five_boxes(self) -> list[int]:
        """Boxes in play with five on their two cards (Art. 8)."""
        return [b for b in self.in_play if hand_total(self.hands[b]) == 5]


    def _check_bet_shape(self, bet: BetPlaced) -> None:
        if bet.kind not in BET_KINDS:
            raise RuleViolation("unknown_bet_kind", f"unknown bet kind {bet.kind!r}")
        if bet.box not in BOXES:
            raise RuleViolation("unknown_box", f"no box {given(bet.box)} on the layout (Art. 2)")
        if not isinstance(bet.amount, int) or isinstance(bet.amount, bool) or bet.amount <= 0:
            raise RuleViolation(
                "bad_amount", f"a bet is a positive number of chips: {given(bet.amount)}"
            )
        # Art. 4-5: "previa la respectiva autorización"; "Los apostadores de pie no pueden
        # apostar en casilleros sin apuestas. Sólo pueden acompañar aumentando las existentes".
        check_consent(bet, {kind for box, kind in self.bets if box == bet.box},
                      "seed 000 Art. 4-5")

    def check_table_bet(self, bet: BetPlaced) -> None:
        """Punto and Banca bets, before the first card, within the box limits (Art. 4-5)."""
        self._check_bet_shape(bet)
        if bet.kind == "insurance":
            raise RuleViolation(
                "insurance_not_offered",
                "insurance is only offered when the Banca's first card is a nine (Art. 11)",
            )
        low, high = self.limits
        if bet.amount < low:
            raise RuleViolation("below_minimum", f"{bet.amount} chips is below the minimum {low}")
        total = self.bets.get((bet.box, bet.kind), 0) + bet.amount
        if total > high:
            raise RuleViolation(
                "over_maximum",
                f"{bet.kind} on box {bet.box} would reach {total} chips, over the box maximum"
                f" {high} (Art. 5)",
            )

    def check_insurance_bet(self, bet: BetPlaced) -> None:
        """Insurance up to 50% of the box's Punto bet, while it is offered (Art. 11)."""
        self._check_bet_shape(bet)
        if bet.kind != "insurance":
            raise RuleViolation("bets_closed", "bets are made before the first card (Art. 4)")
        if not self.insurance_open:
            raise RuleViolation(
                "insurance_not_offered",
                "insurance is only offered when the Banca's first card is a nine (Art. 11)",
            )
        punto = self.bets.get((bet.box, "punto"), 0)
        if punto == 0:
            raise RuleViolation(
                "insurance_without_punto", f"box {bet.box} has no Punto bet to insure (Art. 11)"
            )
        total = self.bets.get((bet.box, "insurance"), 0) + bet.amount
        if 2 * total > punto:
            raise RuleViolation(
                "insurance_over_half",
                f"insurance of {total} chips on box {bet.box} is over 50% of its Punto bet"
                f" of {punto} (Art. 11)",
            )

    def check_boxes(self, boxes: list[int] | None) -> None:
        """The boxes in play: those named, or else those with bets; one is enough (Art. 5)."""
        with_bets = {box for box, _ in self.bets}
        if boxes is not None:
            for box in boxes:
                if box not in BOXES:
                    raise RuleViolation("unknown_box",
                                        f"no box {given(box)} on the layout (Art. 2)")
            missing = sorted(with_bets - set(boxes))
            if missing:
                raise RuleViolation(
                    "bet_on_box_not_in_play",
                    f"boxes {one_of(missing, 'and')} have bets but were not named"
                )
        if not (boxes or with_bets):
            raise RuleViolation("no_boxes_in_play", "no box in play: no bets and none named")

    def check_five_choice(self, box: int, choice: str, by: str = "dealer") -> None:
        """A five choice for a box on five with a Punto bet, before the Banca's second card
        (Art. 8: "antes de que el tallador se asigne su segunda carta descubierta"). Once
        that card came first (``card_before_choice``) the coup is held: a dealer's choice
        is too late; the inspector's (``by`` ``inspector``: the choice made in time, as he
        establishes it) places the card."""
        if by not in ("dealer", "inspector"):
            raise RuleViolation("bad_input", f"by is 'dealer' or 'inspector': {given(by)}")
        if self.card_before_choice and by != "inspector":
            raise RuleViolation(
                "late_five_choice", f"the Banca's second card was dealt before box "
                f"{given(box)}'s choice was entered: the choice is made \"antes de que el "
                "tallador se asigne su segunda carta descubierta\" (Art. 8); the coup is held "
                "for the inspector (five_choice with by inspector)")
        if by == "inspector" and not self.card_before_choice:
            raise RuleViolation("coup_not_held", "the inspector enters a five choice for a "
                                "coup held for him; the dealer enters it otherwise")
        if choice not in FIVE_CHOICES:
            raise RuleViolation("bad_five_choice", f"choice is 'draw' or 'stand': {given(choice)}")
        if box not in self.five_boxes():
            raise RuleViolation("not_a_five", f"box {given(box)} has no five on two cards (Art. 8)")
        if self.bets.get((box, "punto"), 0) == 0:
            raise RuleViolation(
                "five_without_punto",
                f"box {box} has no Punto bet: the dealer stands on five (Art. 8 Decision)",
            )
