"""A Mini-Bacará table's screen (``table-display``; seed 000): the cards of the coup as they
are turned, box by box and the Banca's (Art. 6: the Banca's first card face down until the
dealer turns it), each box's outcome against the Banca (Art. 9), insurance offered (Art.
11), the shoe's counts and the five roads (:mod:`controller.games.mini_baccarat.roads`).

Each box plays the Banca on its own (Art. 9), so a coup has as many outcomes as boxes.
Decision (the seed has no scoreboard): the roads follow one hand per coup, the first box
dealt (the lowest in play: Art. 6 deals left to right), the hand of the classic game's
Punto; the shoe's counts count every box's outcome (``banca``, ``punto``, ``standoff``)
and every natural, the Banca's and the boxes'. The roads and counts start again with each
shoe (the first coup after a ``shoe_closed``).
"""

from __future__ import annotations

from typing import Any

from controller.cards.display import WORDS as CARD_WORDS
from controller.cards.display import CardView
from controller.core.config import Config
from controller.games.mini_baccarat.roads import Roads, drawn, window

Record = dict[str, Any]
BEAD_WIDTH = 12  # columns of the bead plate on screen
ROAD_WIDTH = 24  # columns of the big road and of each derived road on screen

WORDS: dict[str, dict[str, str]] = {
    "es": {**CARD_WORDS["es"], "hands": "jugada {n}", "banca": "Banca", "box": "casilla {n}",
           "punto": "Punto", "standoff": "empate", "natural": "natural",
           "shoe_title": "sabot", "coups": "jugadas", "naturals": "naturales",
           "insurance": "seguro ofrecido a las casillas {boxes}",
           "bead_plate": "bead plate", "big_road": "big road", "big_eye_boy": "big eye boy",
           "small_road": "small road", "cockroach_pig": "cockroach pig",
           "B": "B", "P": "P", "T": "E"},
    "en": {**CARD_WORDS["en"], "hands": "coup {n}", "banca": "Banca", "box": "box {n}",
           "punto": "Punto", "standoff": "standoff", "natural": "natural",
           "shoe_title": "shoe", "coups": "coups", "naturals": "naturals",
           "insurance": "insurance offered to boxes {boxes}",
           "bead_plate": "bead plate", "big_road": "big road", "big_eye_boy": "big eye boy",
           "small_road": "small road", "cockroach_pig": "cockroach pig",
           "B": "B", "P": "P", "T": "T"},
}
_LETTER = {"banca": "B", "punto": "P", "standoff": "T"}


class MiniBaccaratView(CardView):
    """A Mini-Bacará table's screen (see the module doc)."""

    words = WORDS

    def __init__(self, config: Config, language: str, history: int) -> None:
        super().__init__(config, language, history, start="coup_start", result="coup_result")
        self.boxes: list[int] = []
        self.totals: dict[str, str] = {}
        self.outcomes: dict[str, str] = {}
        self.insurance: list[int] = []
        self.roads = Roads()
        self.counts = _no_counts()
        self._new_shoe = False

    def feed_game(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "coup_start":
            self.game = int(record["coup"])
            self.boxes, self.totals, self.outcomes, self.insurance = [], {}, {}, []
            if self._new_shoe:
                self.roads, self.counts, self._new_shoe = Roads(), _no_counts(), False
        elif kind == "shoe_closed":
            self._new_shoe = True
        elif kind == "bets_closed":
            self.boxes = [int(b) for b in record.get("boxes", [])]
        elif kind == "insurance_offered":
            self.insurance = [int(b["box"]) for b in record.get("boxes", [])]
        elif kind == "insurance_closed":
            self.insurance = []
        elif kind == "box_result":
            self._box(record)
        elif kind == "coup_result":
            self._coup(record)

    def _box(self, record: Record) -> None:
        key = f"box {record['box']}"
        self.totals[key] = str(record["total"])
        self.outcomes[key] = self.word(str(record["outcome"]))
        self.totals["banca"] = str(record["banca_total"])

    def _coup(self, record: Record) -> None:
        banca = record["banca"]
        self.totals["banca"] = str(banca["total"])
        boxes = record.get("boxes", [])
        for box in boxes:
            self._box({**box, "banca_total": banca["total"]})
        self.counts["coups"] += 1
        self.counts["naturals"] += int(bool(banca.get("natural")))
        for box in boxes:
            self.counts[str(box["outcome"])] += 1
            self.counts["naturals"] += int(bool(box.get("natural")))
        if boxes:
            self.roads.add(str(boxes[0]["outcome"]))
            first = boxes[0]
            self.result = (f"{self.word('box', n=first['box'])}: {first['total']}, "
                           f"{self.word('banca')}: {banca['total']} — "
                           f"{self.word(str(first['outcome']))}")

    def view(self) -> dict[str, Any]:
        view = self.base_view()
        roads = self.roads.as_json()
        view.update(roads=roads, shoe_counts=dict(self.counts), boxes=list(self.boxes),
                    insurance_offered=list(self.insurance))
        hands = [("banca", self.word("banca"))] + [
            (f"box {b}", self.word("box", n=b)) for b in self.boxes]
        panels: list[dict[str, Any]] = [
            self.hand_panel(self.word("hands", n=self.game or ""), hands, self.totals,
                            self.outcomes)]
        if self.insurance:
            panels.append({"kind": "lines", "title": "", "lines": [self.word(
                "insurance", boxes=", ".join(str(b) for b in self.insurance))]})
        panels.append({"kind": "stats", "title": self.word("shoe_title"), "id": "shoe-counts",
                       "rows": [[self.word(k), str(self.counts[k])] for k in
                                ("coups", "banca", "punto", "standoff", "naturals")]})
        panels += [self._grid("bead_plate", roads["bead_plate"], BEAD_WIDTH),
                   self._grid("big_road", roads["big_road"], ROAD_WIDTH)]
        panels += [self._grid(name, roads[name], ROAD_WIDTH)
                   for name in ("big_eye_boy", "small_road", "cockroach_pig")]
        view["panels"] = panels
        return view

    def _grid(self, name: str, columns: list[list[Any]], width: int) -> dict[str, Any]:
        """A road as the screen draws it: its last ``width`` drawn columns."""
        if name == "bead_plate":
            cells = [(x, y, e) for x, col in enumerate(columns) for y, e in enumerate(col)]
        else:
            cells = drawn(columns)
        shown = []
        for x, y, entry in window(cells, width):
            if isinstance(entry, str):  # a derived road's red or blue
                shown.append({"x": x, "y": y, "cls": entry, "text": ""})
            else:
                ties = entry["ties"]
                text = (self.word(_LETTER[entry["winner"]]) if name == "bead_plate"
                        else (str(ties) if ties else ""))
                shown.append({"x": x, "y": y, "cls": entry["winner"], "text": text})
        return {"kind": "grid", "title": self.word(name), "id": name.replace("_", "-"),
                "style": "bead" if name == "bead_plate" else (
                    "big" if name == "big_road" else "derived"),
                "width": width, "height": 6, "cells": shown}


def _no_counts() -> dict[str, int]:
    return {"coups": 0, "banca": 0, "punto": 0, "standoff": 0, "naturals": 0}
