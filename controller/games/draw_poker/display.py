"""A draw-poker table's screen (``table-display``; seed 003): the antes, each box's bets, the
pot and the house's 5% (num. 15, 19), the betting round and the draw; no player's card
ever (num. 6: every card is dealt face down), until the showdown turns the hands that are
shown (a folded hand stays ``"??"``).
"""

from __future__ import annotations

from typing import Any

from controller.cards.display import WORDS as CARD_WORDS
from controller.cards.display import CardView
from controller.cards.masking import HIDDEN
from controller.core.config import Config
from controller.core.words import words as number_words

Record = dict[str, Any]

WORDS: dict[str, dict[str, str]] = {
    "es": {**CARD_WORDS["es"], "hands": "mano {n}", "box": "casilla {n}",
           "bets_open": "luz: hagan sus apuestas",
           "shoe": "mesa cerrada: se baraja", "pot": "pozo", "antes": "luces",
           "bets": "apuestas", "rake": "5 % de la casa", "ante": "luz {n}",
           "round": "ronda de apuestas {n}", "draw": "descarte", "wins": "gana",
           "folded": "no va", "void": "mano nula", "mano_nula": "Mano Nula: nadie apostó",
           "winner": "gana la casilla {boxes}", "fold": "no va", "bet": "apuesta",
           "call": "iguala", "raise": "sube", "pass": "pasa", "discarded": "descarta {n}"},
    "en": {**CARD_WORDS["en"], "hands": "hand {n}", "box": "box {n}",
           "bets_open": "antes: place your bets",
           "shoe": "table closed: shuffling", "pot": "pot", "antes": "antes",
           "bets": "bets", "rake": "the house's 5 %", "ante": "ante {n}",
           "round": "betting round {n}", "draw": "the draw", "wins": "wins",
           "folded": "folded", "void": "void hand", "mano_nula": "Mano Nula: all passed",
           "winner": "box {boxes} wins", "fold": "folds", "bet": "bets",
           "call": "calls", "raise": "raises", "pass": "passes", "discarded": "discards {n}"},
}

# The ranking's categories (num. 16; controller.games.draw_poker.ranking.Category) in words.
RANKS: dict[str, dict[str, str]] = {
    "es": {"high_card": "carta mayor", "one_pair": "par simple", "two_pair": "par doble",
           "three_of_a_kind": "trío", "straight": "escalera", "flush": "color",
           "full_house": "full", "four_of_a_kind": "póker",
           "straight_flush": "escalera color", "royal_flush": "escalera real"},
    "en": {"high_card": "high card", "one_pair": "one pair", "two_pair": "two pair",
           "three_of_a_kind": "three of a kind", "straight": "straight", "flush": "flush",
           "full_house": "full house", "four_of_a_kind": "four of a kind",
           "straight_flush": "straight flush", "royal_flush": "royal flush"},
}


class DrawPokerView(CardView):
    """A draw-poker table's screen (see the module doc)."""

    words = WORDS

    def __init__(self, config: Config, language: str, history: int) -> None:
        super().__init__(config, language, history, start="hand_start", result="hand_result",
                         limit_fields=("min_ante", "max_ante"))
        self._reset()

    def _reset(self) -> None:
        self.boxes: list[int] = []
        self.antes: dict[int, float] = {}
        self.bets: dict[int, float] = {}
        self.pot: float = 0
        self.rake: float | None = None
        self.ante: float | None = None
        self.phase = ""
        self.last_action: dict[int, str] = {}
        self.outcomes: dict[str, str] = {}

    def feed_game(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "hand_start":
            self._reset()
            self.game = int(record["hand"])
        elif kind == "ante_placed":
            self.antes[int(record["box"])] = record["ante"]
            self.pot = sum(self.antes.values())
        elif kind == "bets_closed":
            self.boxes = [int(b) for b in record.get("boxes", [])]
            self.ante, self.pot = record.get("ante"), record.get("antes", self.pot)
        elif kind == "round_start":
            self.phase = self.word("round", n=record["round"])
        elif kind == "round_action":
            box = int(record["box"])
            self.bets[box] = self.bets.get(box, 0) + record.get("put", 0)
            self.pot = record.get("pot", self.pot)
            self.last_action[box] = self.word(str(record["action"]))
        elif kind == "draw_start":
            self.phase = self.word("draw")
        elif kind == "draw":
            self._draw(record)
        elif kind == "rake":
            self.rake = record.get("rake")
        elif kind == "hand_result":
            self._result(record)

    def _draw(self, record: Record) -> None:
        """A discard: that many of the box's cards leave it (all still face down)."""
        box, n = int(record["box"]), int(record.get("discarded", 0))
        hand = self.hands.cards.get(f"box {box}", [])
        for _ in range(n):
            if HIDDEN in hand:
                hand.remove(HIDDEN)
        self.last_action[box] = self.word("discarded", n=n)

    def _result(self, record: Record) -> None:
        winners = [int(b) for b in record.get("winners", [])]
        for box in record.get("boxes", []):
            key = f"box {box['box']}"
            if box.get("folded"):
                self.outcomes[key] = self.word("folded")
            elif box.get("void"):
                self.outcomes[key] = self.word("void")
            elif box.get("rank"):
                won = f", {self.word('wins')}" if box["box"] in winners else ""
                rank = str(box["rank"])
                self.outcomes[key] = RANKS[self.language].get(rank, rank) + won
        if record.get("outcome") == "mano_nula":
            self.result = self.word("mano_nula")
        elif winners:
            self.result = self.word("winner", boxes=number_words(winners))
        pot = record.get("pot") or {}
        self.rake = pot.get("rake", self.rake)

    def view(self) -> dict[str, Any]:
        view = self.base_view()
        view.update(pot=self.pot, rake=self.rake, ante=self.ante,
                    antes={str(b): a for b, a in self.antes.items()},
                    bets={str(b): a for b, a in self.bets.items()},
                    hands={h: list(c) for h, c in self.hands.cards.items()})
        order = [(f"box {b}", self.word("box", n=b)) for b in self.boxes]
        notes = {f"box {b}": a for b, a in self.last_action.items()}
        panels: list[dict[str, Any]] = [self.hand_panel(
            self.word("hands", n=self.game or ""), order,
            {k: v for k, v in notes.items() if k not in self.outcomes}, self.outcomes)]
        rows = [[self.word("pot"), _chips(self.pot)]]
        if self.ante is not None:
            rows.append([self.word("ante", n="").strip(), _chips(self.ante)])
        rows += [[self.word("box", n=b) + f" ({self.word('antes')}, {self.word('bets')})",
                  f"{_chips(self.antes.get(b, 0))}, {_chips(self.bets.get(b, 0))}"]
                 for b in self.boxes]
        if self.rake is not None:
            rows.append([self.word("rake"), _chips(self.rake)])
        panels.append({"kind": "stats", "title": self.phase or self.word("pot"),
                       "id": "pot", "rows": rows})
        view["panels"] = panels
        return view


def _chips(amount: float | None) -> str:
    """Chips as the journal has them: 23.75 stays 23.75, 25.0 reads 25."""
    if amount is None:
        return ""
    return f"{amount:g}" if isinstance(amount, float) else str(amount)
