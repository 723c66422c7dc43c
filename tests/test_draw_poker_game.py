"""Properties of every draw-poker hand (controller/games/draw_poker), whatever the players do.

Hypothesis plays whole hands on the game: a shuffled deck, two to five players, an ante, and
at each step one of the moves the rules take then (a card from the shoe, a pass, a bet, a
raise, a fold, a discard, a card refused face up, a replacement missing or one too many),
found by asking the game itself whether it takes it (verify). Then:

- every card dealt is in exactly one place: a player's final hand or the discards;
- the chips are conserved: what the players lose is what the winners and the house get
  (the settlements' payouts and the rake add up to nothing), to the cent.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from controller.cards.card import Card, full_deck
from controller.core.contract import can
from controller.core.events import BetPlaced, DealerInput
from controller.games.draw_poker.game import DrawPoker
from controller.store.records import Record, unpack


class Records:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def __call__(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        record = {"type": type_, **fields}
        self.records.append(record)
        return record

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == type_]


def candidates(game: DrawPoker, data: st.DataObject) -> list[DealerInput]:
    """Dealer inputs the game takes now (a sample of amounts and discards)."""
    hand = game.hand
    ante = hand.ante or 1
    level = hand.round.level if hand.round is not None else 0
    amounts = {1, ante, 2 * ante, 3 * ante, 7 * ante, level + 1, level + ante, 8 * ante}
    moves = []
    for box in hand.seats:
        moves += [DealerInput(0, a, {"box": box}) for a in ("pass", "call", "fold")]
        moves += [DealerInput(0, a, {"box": box, "amount": n}) for a in ("bet", "raise")
                  for n in sorted(amounts)]
        if data.draw(st.integers(0, 39)) == 0:  # now and then a card dealt face up
            moves.append(DealerInput(0, "refuse_card", {"box": box}))
    drawer = hand.next_drawer() if game.state == "draw" else None
    if drawer is not None:
        held = [str(c) for c in hand.seats[drawer].cards]
        count = data.draw(st.integers(0, min(4, len(held))))
        thrown = data.draw(st.permutations(held))[:count]
        moves.append(DealerInput(0, "discard", {"box": drawer, "cards": thrown}))
    return [m for m in moves if can(game.verify_input, m)]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_every_card_in_one_place_and_the_chips_conserved(data: st.DataObject) -> None:
    records = Records()
    game = DrawPoker(records, (1, 100))
    deck: list[Card] = data.draw(st.permutations(full_deck()))
    seats = sorted(data.draw(st.lists(st.integers(1, 5), min_size=2, max_size=5, unique=True)))
    ante = data.draw(st.integers(1, 100))
    game.dealer_input(DealerInput(0, "open_bets"))
    for box in seats:
        game.place_bet(BetPlaced(0, "ante", box, ante))
    if data.draw(st.booleans()):
        game.dealer_input(DealerInput(0, "mano", {"box": data.draw(st.sampled_from(seats))}))
    game.dealer_input(DealerInput(0, "no_more_bets"))
    thrown: list[str] = []
    shoe = iter(deck)
    for _ in range(400):
        if not game.under_way():
            break
        # A card due is dealt, but now and then the play moves on first (a replacement
        # missing), or a card comes that is not due (one too many).
        card_due = game.next_hand() is not None
        extra = game.state == "draw" and game.hand.extra_card_box() is not None
        odd = data.draw(st.integers(0, 29)) == 0
        moves: list[Any] = ["card"] if card_due or (extra and odd) else []
        if not card_due or odd:
            moves += candidates(game, data)
        move = data.draw(st.sampled_from(moves))
        if move == "card":
            game.card(0, next(shoe))
            continue
        game.dealer_input(move)
        if move.action == "discard":
            thrown += move.args["cards"]
    assert not game.under_way()
    dealt = [r["card"] for r in records.of("card")]
    held = [str(c) for seat in game.hand.seats.values() for c in seat.cards]
    assert len(set(dealt)) == len(dealt)
    assert Counter(held + thrown) == Counter(dealt)
    payouts = [Decimal(str(s["payout"])) for s in records.of("settlement")]
    rake = sum((Decimal(str(r["rake"])) for r in records.of("rake")), Decimal(0))
    lost = -sum(p for p in payouts if p < 0)
    won = sum(p for p in payouts if p > 0)
    assert lost == won + rake
    assert all(p == p.quantize(Decimal("0.01")) for p in payouts)
    (result,) = records.of("hand_result")
    event(f"{result['outcome']}, voids {[s.void_reason for s in game.hand.seats.values()]}")
    kept = [s for s in game.hand.seats.values() if s.status != "void"]
    assert result["pot"]["antes"] == ante * len(kept)
