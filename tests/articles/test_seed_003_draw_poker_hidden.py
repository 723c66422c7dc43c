"""Seed 003 num. 7 ("5 cartas consecutivas tapadas"), num. 8 d and 12 b (a player who does
not match leaves "entregando sus cartas"), num. 9 (the discards) and num. 15 (only those
who called show): a card no player was shown is named in no public view, whatever names it
(held-out findings 4 and 5): a dealer's refused ``refuse_card``, a checkpoint's count of
the cards the hand dealt.

The public views of a journal are tests/conftest.py ``public_views`` (the table's screen,
the feed's messages, ``tablectl`` export, recall and status), with what the table printed
and logged. The journal keeps what recovery needs. Names follow tests/articles/README.md.
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr
from pathlib import Path

from conftest import REPO, public_views
from poker_traces import PokerTrace, codes, replay

from controller.cli.compose import load_config, read_trace
from controller.core.clock import VirtualClock
from controller.core.logs import configure
from controller.core.loop import EventLoop
from controller.core.table import Table
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


def played_with_checkpoints(tmp_path: Path, trace: PokerTrace) -> tuple[Path, str, str]:
    """``trace`` through a table that takes a checkpoint at every boundary it may, as a
    daemon does after enough records: (the journal, what the table printed, its log)."""
    path = tmp_path / "hand.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    events = read_trace(str(path)).events
    printed: list[str] = []
    log = io.StringIO()
    with redirect_stderr(log):
        configure("info", "json")
    try:
        with Journal(tmp_path / "hand.sqlite", durable=False) as journal:
            clock = VirtualClock()
            loop = EventLoop(clock, lambda e: None)
            table = Table(load_config("embedded:draw-poker-sim.toml"), journal, loop.call_at,
                          clock.now, printed.append)
            table.checkpoint_every = 1
            loop.handler = table.handle
            loop.run_events(events)
    finally:
        configure("warning", "console")
    return tmp_path / "hand.sqlite", "\n".join(printed), log.getvalue()


def test_num_8d_9_15_a_checkpoint_names_no_card_that_was_never_shown(tmp_path: Path) -> None:
    # Box 1 (Mano) bets 5, box 2 folds (num. 8 d: he leaves with his cards), box 3 calls.
    # Box 1 throws 8H 3D for QS 4C, box 3 throws 9D for 7D; both pass: the showdown shows
    # boxes 1 and 3 (num. 15). Then the next hand's shuffles: the shoe closed, a checkpoint.
    trace = PokerTrace().hand(5, HANDS).acts(("bet", 1, 5), ("fold", 2), ("call", 3))
    trace.discard(1, ["8H", "3D"], "QS", "4C").discard(3, ["9D"], "7D")
    trace.acts(("pass", 1), ("pass", 3)).shuffles()
    journal, printed, log = played_with_checkpoints(tmp_path, trace)
    with Journal(journal, readonly=True) as read:
        records = list(read.records())
    checkpoints = [r for r in records if r["type"] == "checkpoint"]
    assert checkpoints, "no checkpoint to look at"
    never_shown = {*HANDS[2], "8H", "3D", "9D"}
    # The journal keeps the hand's cards for recovery (the shoe's count) ...
    assert never_shown <= set(checkpoints[-1]["state"]["shoe"]["counts"])
    # ... no public view names them.
    views = public_views(journal, CONFIG) | {"printed": printed, "log": log}
    assert shown(views, never_shown) == {}
    # Box 1 A-A-K-Q-4 (a pair of aces) loses to box 3's K-K-7-7-7 (a full house).
    (result,) = [r for r in records if r["type"] == "hand_result"]
    assert result["winners"] == [3]
