"""What every card table's screen shares (``table-display``): the cards of the game in play
hand by hand, the table's state in words, the limits in force and play stopped for the
inspector. A game's own ``display.py`` builds on :class:`CardView` and adds its own panels.

Every record reaching it has been through :class:`controller.cards.masking.LiveMask`: a
card dealt face down is ``"??"`` until its ``card_turned`` record, which shows it in its
hand's place (the earliest hidden card of that hand: masking's rule). Nothing here can
show a card the journal's public view does not.
"""

from __future__ import annotations

from typing import Any

from controller.cards.masking import HIDDEN
from controller.core.config import Config

Record = dict[str, Any]

WORDS: dict[str, dict[str, str]] = {
    "es": {
        "closed": "mesa cerrada", "shoe": "mesa cerrada: procedimiento del sabot",
        "bets_open": "hagan sus apuestas", "in_play": "no va más: se reparten las cartas",
        "result": "resultado", "held": "juego detenido para el inspector",
        "stopped": "juego detenido: {message}",
        "decide": "tablectl input inspector_clear note=...",
    },
    "en": {
        "closed": "table closed", "shoe": "table closed: shoe procedure",
        "bets_open": "place your bets", "in_play": "no more bets: dealing",
        "result": "result", "held": "game held for the inspector",
        "stopped": "play stopped: {message}",
        "decide": "tablectl input inspector_clear note=...",
    },
}


class Hands:
    """The cards of the game in play, by hand (``"box 2"``, ``"banca"``), in deal order."""

    def __init__(self) -> None:
        self.cards: dict[str, list[str]] = {}

    def feed(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "card":
            self.cards.setdefault(str(record["hand"]), []).append(str(record["card"]))
        elif kind == "card_turned":
            hand = self.cards.get(str(record["hand"]), [])
            if HIDDEN in hand:  # the earliest hidden card of the hand is the one turned
                hand[hand.index(HIDDEN)] = str(record["card"])

    def clear(self) -> None:
        self.cards = {}


class CardView:
    """A card table's screen: the parts every card game shares.

    Args:
        config: the table's checked config (its ``[limits]`` until a game journals its own).
        language: ``"es"`` or ``"en"``.
        history: games the statistics cover (unused by the shared part).
        start: the record type that starts a game (``coup_start``, ``hand_start``).
        result: the record type that concludes one.
        limit_fields: the start record's fields of the minimum and maximum bet.
    """

    words: dict[str, dict[str, str]] = WORDS

    def __init__(self, config: Config, language: str, history: int, *, start: str,
                 result: str, limit_fields: tuple[str, str] = ("min_bet", "max_bet")) -> None:
        self.language = language
        self.history = history
        self.start, self.result_type, self.limit_fields = start, result, limit_fields
        self.limits: dict[str, int] | None = {"min_bet": config.limits.min_bet,
                                               "max_bet": config.limits.max_bet}
        self.hands = Hands()
        self.state = "closed"
        self.game: int | None = None
        self.stopped: list[Record] = []  # stopping alarms not yet cleared by the inspector
        self.result: str | None = None

    def word(self, key: str, **values: Any) -> str:
        return self.words[self.language][key].format(**values)

    def feed(self, record: Record) -> None:
        kind = record.get("type")
        self.hands.feed(record)
        if kind == self.start:
            self.hands.clear()
            self.result = None
            self.state = "bets_open"
            low, high = self.limit_fields
            self.limits = {"min_bet": int(record[low]), "max_bet": int(record[high])}
        elif kind == "bets_closed":
            self.state = "in_play"
        elif kind == self.result_type:
            self.state = "result"
        elif kind in ("shoe_closed", "shoe_procedure"):
            self.state = "shoe"
        elif kind == "alarm" and record.get("stops_play"):
            self.stopped.append(record)
        elif kind == "inspector_clear":
            self.stopped = []
        self.feed_game(record)

    def feed_game(self, record: Record) -> None:
        """The game's own records (overridden)."""

    def state_code(self) -> str:
        if self.stopped:
            return "held"
        return "closed" if self.state == "shoe" else self.state

    def held(self) -> list[dict[str, Any]]:
        return [{"game": self.game, "reason": alarm.get("message", alarm.get("code")),
                 "code": alarm.get("code"), "seq": alarm.get("seq"),
                 "decide": [self.word("decide")]} for alarm in self.stopped]

    def base_view(self) -> dict[str, Any]:
        """The shared keys of :meth:`controller.core.contract.TableView.view`."""
        code = self.state_code()
        text = (self.word("stopped", message=self.stopped[-1].get("message", ""))
                if self.stopped else self.word(self.state))
        return {"state": code, "state_text": text, "limits": self.limits,
                "pending_limits": None, "held": self.held(), "result": self.result,
                "game_number": self.game}

    def hand_panel(self, title: str, hands: list[tuple[str, str]],
                   totals: dict[str, str], outcomes: dict[str, str]) -> dict[str, Any]:
        """A ``hands`` panel: for each (hand, label) of ``hands``, its cards as dealt
        (``??`` face down), its total and outcome in words where known."""
        return {"kind": "hands", "title": title, "hands": [
            {"name": label, "cards": list(self.hands.cards.get(key, [])),
             "total": totals.get(key, ""), "outcome": outcomes.get(key, "")}
            for key, label in hands]}
