"""A Black Jack Plus or Pot Luck table's screen (``table-display``; seed 002 Art. 8, 10;
seed 004 Art. 7): the dealer's up card (the hole card face down until it is turned: seed 002
Art. 8), each box's cards and totals, insurance offered (Art. 10), each hand's outcome, and
at Pot Luck the pool's balance.

A total counts the cards the public sees (a hole card still ``"??"`` counts nothing):
the dealer's is its up card's until the hole card is turned.
"""

from __future__ import annotations

from typing import Any

from controller.cards.card import parse_card
from controller.cards.display import WORDS as CARD_WORDS
from controller.cards.display import CardView
from controller.cards.masking import HIDDEN
from controller.core.config import Config
from controller.games.blackjack.hands import DEALER
from controller.games.blackjack.rules import total

Record = dict[str, Any]

WORDS: dict[str, dict[str, str]] = {
    "es": {**CARD_WORDS["es"], "hands": "mano {n}", "dealer": "crupier", "box": "casilla {n}",
           "hand 2": "segunda mano", "win": "gana", "lose": "pierde", "push": "empate",
           "blackjack": "black jack", "bust": "se pasa", "surrender": "retiro",
           "insurance": "seguro ofrecido a las casillas {boxes}", "pool": "pozo",
           "pool_balance": "{n} fichas", "soft": "{low}/{high}"},
    "en": {**CARD_WORDS["en"], "hands": "coup {n}", "dealer": "dealer", "box": "box {n}",
           "hand 2": "second hand", "win": "wins", "lose": "loses", "push": "push",
           "blackjack": "blackjack", "bust": "bust", "surrender": "surrendered",
           "insurance": "insurance offered to boxes {boxes}", "pool": "pool",
           "pool_balance": "{n} chips", "soft": "{low}/{high}"},
}


class BlackjackView(CardView):
    """A Black Jack table's screen (see the module doc)."""

    words = WORDS

    def __init__(self, config: Config, language: str, history: int) -> None:
        super().__init__(config, language, history, start="coup_start", result="coup_result")
        self.pot_luck = config.rules.pool is not None
        self.pool: int | None = config.rules.pool.opening_balance if self.pot_luck else None
        self.outcomes: dict[str, str] = {}
        self.insurance: list[int] = []

    def feed_game(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "coup_start":
            self.game = int(record["coup"])
            self.outcomes, self.insurance = {}, []
            if isinstance(record.get("pool_balance"), int):
                self.pool = record["pool_balance"]
        elif kind == "insurance_offered":
            self.insurance = [int(b["box"]) for b in record.get("boxes", [])]
        elif kind == "decision" or kind == "dealer_turn":
            self.insurance = []
        elif kind == "pool_balance":
            self.pool = int(record["balance"])
        elif kind == "coup_result":
            self._result(record)

    def _result(self, record: Record) -> None:
        for box in record.get("boxes", []):
            for number, hand in enumerate(box.get("hands", []), 1):
                key = f"box {box['box']}" + (" hand 2" if number == 2 else "")
                words = [self.word(str(hand["outcome"]))]
                if hand.get("blackjack"):
                    words.append(self.word("blackjack"))
                elif hand.get("bust"):
                    words.append(self.word("bust"))
                elif hand.get("surrendered"):
                    words.append(self.word("surrender"))
                self.outcomes[key] = ", ".join(words)
        dealer = record.get("dealer", {})
        self.result = f"{self.word('dealer')} {dealer.get('total', '')}"

    def totals(self) -> dict[str, str]:
        """Each hand's total from the cards the public sees."""
        out = {}
        for hand, cards in self.hands.cards.items():
            shown = [parse_card(c) for c in cards if c != HIDDEN]
            if not shown:
                continue
            high, soft = total(shown)
            out[hand] = self.word("soft", low=high - 10, high=high) if soft else str(high)
        return out

    def _label(self, hand: str) -> str:
        if hand == DEALER:
            return self.word("dealer")
        box, _, rest = hand.removeprefix("box ").partition(" ")
        return self.word("box", n=box) + (f", {self.word(rest)}" if rest else "")

    def view(self) -> dict[str, Any]:
        view = self.base_view()
        dealer = self.hands.cards.get(DEALER, [])
        up = [c for c in dealer if c != HIDDEN]
        totals = self.totals()
        boxes = [h for h in self.hands.cards if h != DEALER]
        view.update(up_card=up[0] if up else None, dealer_cards=list(dealer),
                    hands={h: {"cards": list(self.hands.cards[h]), "total": totals.get(h),
                               "outcome": self.outcomes.get(h)} for h in boxes},
                    insurance_offered=list(self.insurance), pool=self.pool)
        order = [(DEALER, self._label(DEALER))] + [(h, self._label(h)) for h in boxes]
        panels: list[dict[str, Any]] = [self.hand_panel(
            self.word("hands", n=self.game or ""), order, totals, self.outcomes)]
        if self.insurance:
            panels.append({"kind": "lines", "title": "", "lines": [self.word(
                "insurance", boxes=", ".join(str(b) for b in self.insurance))]})
        if self.pot_luck:
            panels.append({"kind": "stats", "title": self.word("pool"), "id": "pool",
                           "rows": [[self.word("pool"),
                                     self.word("pool_balance", n=self.pool)]]})
        view["panels"] = panels
        return view
