"""The Mini-Bacará game's own mechanics that no article of seed 000 states: a misread card
waits for the dealer's correction (CONTRACT §4), and a record the journal refused changes
nothing (controller/core/contract.py, Durability). The articles' tests are in
tests/articles/test_seed_000_mini_baccarat*.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from mini_baccarat_helpers import GameTable, Refused

from controller.cards.card import parse_card
from controller.core.events import BetPlaced
from controller.games.mini_baccarat.game import MiniBaccarat
from controller.store.records import Record, unpack


def test_misread_waits_for_the_dealer_correction_entered_by_hand() -> None:
    table = GameTable()
    table.open([("punto", 1, 10), ("punto", 2, 10)])
    table.deal("3C")
    table.game.misread(0)
    assert table.of("misread")[0]["hand"] == "box 2"
    assert table.game.needs_card() == "box 2"
    with Refused("awaiting_correction"):
        table.game.card(0, parse_card("4D"))
    with Refused("awaiting_correction"):
        table.game.misread(0)
    table.game.card(0, parse_card("4D"), manual=True)
    assert table.game.needs_card() == "banca"
    table.deal("KH")
    manual = [(c["hand"], c["card"], c["manual"]) for c in table.of("card")]
    assert manual == [("box 1", "3C", False), ("box 2", "4D", True), ("banca", "KH", False)]


def test_a_journal_failure_leaves_the_card_slot_as_it_was() -> None:
    # controller/core/contract.py, Durability: the game acts only on a record the
    # journal accepted.
    failing = {"card": False}
    records: list[str] = []

    def emit(record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        if failing["card"] and type_ == "card":
            raise OSError("journal unavailable")
        records.append(type_)
        return {"type": type_, **fields}

    game = MiniBaccarat(emit)
    game.open_bets(0)
    game.place_bet(BetPlaced(0, "punto", 1, 10))
    game.no_more_bets(0)
    game.card(0, parse_card("2C"))
    failing["card"] = True
    with pytest.raises(OSError):
        game.card(0, parse_card("3C"))
    assert game.needs_card() == "banca"
    failing["card"] = False
    game.card(0, parse_card("3C"))
    assert game.needs_card() == "box 1"
