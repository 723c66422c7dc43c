"""What each bet of a finished Black Jack coup wins or loses (CONTRACT §6 ``settlement``; RULES.md
§4 Decisions; seed 002 Art. 9-10; seed 004 Art. 7): pure functions from the hands to the
settlements, journaled by the statechart.

A settlement is ``(kind, amount, outcome, payout, extra)``: ``kind`` ``main`` (the box's
first hand), ``split`` (its second), ``insurance``, ``pool`` or ``bonus``; ``amount`` the
chips staked (a doubled hand's doubled stake); ``outcome`` ``win``, ``lose``, ``push`` or
``surrender``; ``payout`` the net chips won (0 on a push, minus the stake on a loss, minus
half the bet on a surrender); ``extra`` the fields the record adds (:class:`Extra`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TypedDict

from controller.cards.card import Card
from controller.games.blackjack.hands import Box, PlayerHand
from controller.games.blackjack.paytable import HandPattern, PayTable, pool_prize
from controller.games.blackjack.rules import (
    INSURANCE_PAYS,
    Rules,
    chips,
    insurance_wins,
    is_blackjack,
    settle_hand,
)


class Extra(TypedDict, total=False):
    """What a Black Jack settlement adds (``records.SettlementPool``): a stake ``returned``
    against a dealer blackjack or a refused box, the qualifying ``hand`` and a pool
    bet's ``prize``."""

    returned: int
    hand: str
    prize: int


Settlement = tuple[str, int, str, int | float, Extra]


def surrender(hand: PlayerHand) -> Settlement:
    """Seed 002 Art. 9: "el jugador debe pagar la mitad de su apuesta", at once."""
    return "main", hand.bet, "surrender", chips(-Fraction(hand.bet, 2)), {}


def insurance(amount: int, hole_card: Card) -> Settlement:
    """Seed 002 Art. 10: a ten or a figure as the hole card pays 2 to 1; else it loses."""
    if insurance_wins(hole_card):
        return "insurance", amount, "win", INSURANCE_PAYS * amount, {}
    return "insurance", amount, "lose", -amount, {}


def hand(hand: PlayerHand, dealer: Sequence[Card], rules: Rules) -> Settlement:
    """A finished hand that did not surrender, against the dealer's finished hand.

    The dealer does not check for blackjack before the players act (RULES.md §4), so with
    ``dealer_blackjack_takes = "original_bets"`` his blackjack takes only the box's original
    bet: the first hand loses its bet (a double on it is returned: ``returned``), the hand
    a split made is returned whole (a push); a player's blackjack pushes. A blackjack wins
    ``rules.blackjack_pays`` per chip; any other win even money on the stake.
    """
    kind = "main" if hand.number == 1 else "split"
    mine = hand.blackjack()
    if is_blackjack(dealer) and rules.dealer_blackjack_takes == "original_bets" and not mine:
        if hand.number == 2:
            return kind, hand.stake, "push", 0, {"returned": hand.stake}
        extra: Extra = {"returned": hand.bet} if hand.doubled else {}
        return kind, hand.bet, "lose", -hand.bet, extra
    outcome = settle_hand(hand.cards, hand.from_split, dealer)
    if outcome == "win":
        won = hand.bet * rules.blackjack_pays if mine else Fraction(hand.stake)
        return kind, hand.stake, "win", chips(won), {}
    if outcome == "lose":
        return kind, hand.stake, "lose", -hand.stake, {}
    return kind, hand.stake, "push", 0, {}


def qualifying(box: Box, table: PayTable) -> HandPattern | None:
    """The best pattern of ``table`` any of the box's hands, as played and not surrendered,
    is (:mod:`controller.games.blackjack.paytable`)."""
    return table.best([(h.cards, h.from_split) for h in box.hands if not h.surrendered])


def bonus(box: Box, table: PayTable) -> Settlement | None:
    """Pot Luck's bonus, if the box placed one: its multiple "to 1" when a hand qualifies."""
    amount = box.bets.get("bonus", 0)
    if not amount:
        return None
    found = qualifying(box, table)
    if found is None:
        return "bonus", amount, "lose", -amount, {}
    return "bonus", amount, "win", chips(found.prize * amount), {"hand": found.name}


def pool(boxes: Sequence[Box], table: PayTable, balance: int
         ) -> tuple[list[tuple[int, Settlement]], int, int, int]:
    """Pot Luck's pool for one coup: every box's pool bet goes in, then the qualifying boxes
    are paid in box order, each its share of the pool as it stands (whole chips, rounded
    down).

    Returns:
        (box, settlement) for every pool bet, the chips put in, the chips paid out, and the
        balance after.
    """
    contributed = sum(b.bets.get("pool", 0) for b in boxes)
    balance += contributed
    paid = 0
    settled: list[tuple[int, Settlement]] = []
    for box in boxes:
        amount = box.bets.get("pool", 0)
        if not amount:
            continue
        found = qualifying(box, table)
        if found is None:
            settled.append((box.number, ("pool", amount, "lose", -amount, {})))
            continue
        prize = pool_prize(found.prize, balance)
        balance -= prize
        paid += prize
        settled.append((box.number, ("pool", amount, "win", prize - amount,
                                     {"hand": found.name, "prize": prize})))
    return settled, contributed, paid, balance
