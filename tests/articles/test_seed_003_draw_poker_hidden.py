"""Seed 003 num. 7 ("5 cartas consecutivas tapadas"), num. 8 d and 12 b (a player who does
not match leaves "entregando sus cartas"), num. 9 (the discards) and num. 15 (only those
who called show): a card no player was shown is named in no public view, whatever names it
(held-out finding 4): a dealer's refused ``refuse_card``.

The public views of a journal are tests/conftest.py ``public_views`` (the table's screen,
the feed's messages, ``tablectl`` export, recall and status), with what the table printed
and logged. The journal keeps what recovery needs. Names follow tests/articles/README.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import REPO, public_views
from poker_traces import PokerTrace, codes, replay

from controller.store.journal import Journal

CONFIG = str(REPO / "config" / "draw-poker-sim.toml")
# Boxes 1 to 3, in dealing order (num. 7).
HANDS = {1: ("AS", "AD", "KC", "8H", "3D"),
         2: ("QC", "QD", "JS", "7H", "2D"),
         3: ("KH", "KD", "7S", "7C", "9D")}


def shown(views: dict[str, str], cards: set[str]) -> dict[str, list[str]]:
    """The views that name any of ``cards``, and which."""
    found = {name: sorted(c for c in cards if re.search(rf"\b{c}\b", text))
             for name, text in views.items()}
    return {name: names for name, names in found.items() if names}


def test_num_7_11_a_refused_refusal_names_no_card_of_a_face_down_hand(tmp_path: Path) -> None:
    # Box 3, facing a bet in the second round, says a card of his deal (KH) was dealt face
    # up and refuses it: too late (num. 11), refused. His five cards are still face down.
    trace = PokerTrace().hand(5, HANDS).called().stand_pat()
    trace.acts(("bet", 1, 35), ("call", 2)).inp("refuse_card", box=3, card="KH")
    run = replay(tmp_path, trace)
    assert codes(run)[-1] == "refusal_too_late"
    views = public_views(run.journal, CONFIG) | {"replay's output": json.dumps(run.records)}
    assert shown(views, {"KH"}) == {}
    with Journal(run.journal, readonly=True) as journal:  # the evidence, whole
        assert [r.get("card") for r in journal.records(types=("input",))
                if r["action"] == "refuse_card"] == ["KH"]

