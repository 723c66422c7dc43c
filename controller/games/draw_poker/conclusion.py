"""The end of a draw-poker hand (seed 003 num. 8 b, 15-20): the showdown, the rake, the
``hand_result`` and the settlements, journaled in that order.

How a hand ends:

- ``mano_nula``: the first round closed with nobody betting (num. 8 b). Decision: the seed
  says a new hand starts with a new ante and nothing of the old antes; nobody won or lost,
  so every ante is returned (``push``), and no rake is taken.
- ``showdown``: the second round closed with two players or more still in (num. 15): the
  last bettor shows first, then those who called him, clockwise from him (from Mano when
  all passed); each card shown is turned (``card_turned``); the best hand wins (num.
  16-18), equal hands share.
- ``folds``: all but one player folded (num. 8 d, 12 b), or were void: he wins the pot
  without showing.
- ``void``: no player is left to play against the last one and none lost his stake (every
  other hand void, num. 10-11): nobody won; every stake is returned. Decision: the seed's
  payment is that of a winner over losers (num. 19); with no loser there is none.

Payment (num. 19, :mod:`controller.games.draw_poker.payment`): settlements ``ante`` and
``bet`` per player (CONTRACT §7; a void hand's are ``push``, returned); the ``rake`` record
gives the house's 5% and the losing chips integrated into the Banca.

What the public sees: the cards of the hands shown at the showdown. The other hands (folded,
void, a winner by folds, a Mano Nula) are never shown: ``hand_result`` gives each of their
cards as ``"??"`` and no rank; the journal's ``card`` records hold them whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.cards.masking import HIDDEN
from controller.cards.records import CardTurned
from controller.core.contract import Emit
from controller.games.draw_poker.betting import clockwise_from
from controller.games.draw_poker.hand import FOLDED, VOID, Hand, Seat, cards_of
from controller.games.draw_poker.payment import CENTS, Concept, Payment, Stake, chips, pay
from controller.games.draw_poker.ranking import HandValue, rank_hand
from controller.games.draw_poker.ranking import winners as best_of
from controller.games.draw_poker.records import (
    TAGS,
    HandResult,
    ManoNula,
    Rake,
    SettlementShares,
)
from controller.store.records import ABSENT

OUTCOMES = ("showdown", "folds", "mano_nula", "void")


def outcome_of(hand: Hand) -> str:
    """How ``hand`` ended (see the module doc); called once it is decided."""
    live = hand.live()
    if len(live) >= 2:
        return "mano_nula" if hand.rounds_closed == 0 else "showdown"
    return "folds" if live and hand.stakes_lost() else "void"


def conclude(hand: Hand, emit: Emit, t: float) -> str:
    """Journal the end of ``hand`` at ``t``: ``mano_nula``, or the showdown's
    ``card_turned`` records and the ``rake``; then ``hand_result`` and the settlements.
    Returns the outcome."""
    outcome = outcome_of(hand)
    number = hand.number
    shown: list[int] = []
    values: dict[int, HandValue] = {}
    winners: list[int] = []
    last_bettor = hand.round.last_bettor if hand.round is not None else None
    if outcome == "mano_nula":
        emit(ManoNula(hand=number, article="num. 8 b",
                      message="all passed: Mano Nula, a new hand with a new ante (num. 8 b)"),
             t=t)
    elif outcome == "showdown":
        live = hand.live()
        first = last_bettor if last_bettor in live else hand.mano
        shown = clockwise_from(first, live)
        for box in shown:
            seat = hand.seats[box]
            for card in seat.cards:
                emit(CardTurned(hand=seat.label, card=str(card), tag=TAGS.of_cards(number)), t=t)
        values = {box: rank_hand(hand.seats[box].cards) for box in hand.live()}
        winners = best_of(values)
    elif outcome == "folds":
        winners = hand.live()
    payment = _payment(hand, winners) if winners else None
    if payment is not None:
        emit(Rake(hand=number, antes=chips(payment.antes),
                  losers_bets=chips(payment.losers_bets),
                  base=chips(payment.antes + payment.losers_bets),
                  rake_antes=chips(payment.rake_antes), rake_bets=chips(payment.rake_bets),
                  rake=chips(payment.rake), losing_chips=chips(payment.losing_chips),
                  percent=5, article="num. 15, 19"), t=t)
    kept = [s for s in hand.seats.values() if s.status != VOID]
    emit(HandResult(hand=number, outcome=outcome, mano=hand.mano, ante=hand.ante,
                    last_bettor=last_bettor,
                    boxes=[_box(s, s.box in shown, values) for s in hand.seats.values()],
                    winners=winners,
                    pot={"antes": sum(s.ante for s in kept),
                         "bets": sum(sum(s.bets) for s in kept),
                         "rake": chips(payment.rake) if payment else 0}), t=t)
    for seat in hand.seats.values():
        _settle(emit, t, number, seat, payment)
    return outcome


def _payment(hand: Hand, winners: Sequence[int]) -> Payment:
    stakes = [Stake(box, ante * CENTS, bets * CENTS) for box, ante, bets in hand.stakes()]
    return pay(stakes, winners)


def _box(seat: Seat, shown: bool, values: dict[int, HandValue]) -> dict[str, Any]:
    value = values.get(seat.box)
    return {
        "box": seat.box,
        "cards": cards_of(seat.cards) if shown else [HIDDEN] * len(seat.cards),
        "rank": value.category.name if shown and value is not None else None,
        "shown": shown,
        "folded": seat.status == FOLDED,
        "void": seat.status == VOID,
        **({"void_reason": seat.void_reason} if seat.status == VOID else {}),
    }


def _settle(emit: Emit, t: float, number: int, seat: Seat, payment: Payment | None) -> None:
    """The settlements of one player: ``ante``, and ``bet`` when he bet (CONTRACT §7)."""
    bets = sum(seat.bets)
    concept = _concept(payment, seat.box)
    if payment is None or seat.status == VOID:  # returned: nobody won, or his hand is void
        outcome_ante = outcome_bet = "push"
        payout_ante = payout_bet = 0
    elif concept is None:  # a loser (folded, or beaten at the showdown)
        outcome_ante = outcome_bet = "lose"
        payout_ante, payout_bet = -seat.ante * CENTS, -bets * CENTS
    else:
        outcome_ante = outcome_bet = "win"
        payout_ante, payout_bet = concept.antes - seat.ante * CENTS, concept.bets
    emit(SettlementShares(game=number, box=seat.box, kind="ante", amount=seat.ante,
                          outcome=outcome_ante, payout=chips(payout_ante),
                          antes_less_rake=chips(concept.antes) if concept else ABSENT), t=t)
    if bets or (concept is not None and concept.bets):
        emit(SettlementShares(
            game=number, box=seat.box, kind="bet", amount=bets, outcome=outcome_bet,
            payout=chips(payout_bet),
            others_bets_less_rake=chips(concept.bets) if concept else ABSENT,
            own_bets_returned=chips(concept.own_bets) if concept else ABSENT), t=t)


def _concept(payment: Payment | None, box: int) -> Concept | None:
    if payment is None:
        return None
    return next((c for c in payment.paid if c.box == box), None)
