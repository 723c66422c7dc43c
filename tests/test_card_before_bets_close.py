"""A card read before bets close (issue 16): it is in no hand, so play stops naming why,
on every card table, and the deal that follows gives it to nobody.

Each test is a trace through the whole controller (``table-controller replay``). The
hands are worked out here from the seeds' dealing order (seed 000 Art. 6, seed 002 and
004 Art. 8, seed 003 num. 7) with the early card left out: it went to no hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "articles"))
from card_traces import Run, Trace, play
from poker_traces import PokerTrace, replay

EARLY = "KH"  # read while bets are open


def stopped_for_it(run: Run) -> None:
    """Play stopped for the early card, naming why, never naming the card."""
    (stop,) = run.alarms("card_without_place")
    assert stop["stops_play"] is True
    assert "while bets are open, before no_more_bets" in stop["message"]
    assert EARLY not in stop["message"]
    assert EARLY not in [card for _, card in run.dealt()]


def early(trace: Trace, bets: tuple[tuple[str, int, int], ...]) -> Trace:
    trace.inp("open_bets")
    for kind, box, amount in bets:
        trace.bet(kind, box, amount)
    return trace.cards(EARLY).inp("no_more_bets")


def test_art_4_a_card_before_the_close_of_bets_stops_mini_baccarat(tmp_path: Path) -> None:
    trace = early(Trace(), (("punto", 1, 10),))
    # Stopped: the deal's first card is read while play is stopped, dealt to nobody.
    run = play(tmp_path, trace.cards("8S"))
    stopped_for_it(run)
    assert not run.dealt() and "card_while_stopped" in run.codes()


def test_art_4_after_the_inspector_the_deal_begins_with_the_next_card(tmp_path: Path) -> None:
    trace = early(Trace(), (("punto", 1, 10),)).inp("inspector_clear", note="KH set aside")
    # Box 1 8S 9D = 7 stands; the Banca TH QC = 0 draws against it (0-5): 5H. 7 beats 5.
    run = play(tmp_path, trace.cards("8S", "TH", "9D", "QC", "5H"))
    stopped_for_it(run)
    assert run.dealt() == [("box 1", "8S"), ("banca", "TH"), ("box 1", "9D"),
                           ("banca", "QC"), ("banca", "5H")]
    assert run.settlements() == [(1, "punto", 10, "win", 10)]


@pytest.mark.parametrize("table", ["blackjack_plus", "pot_luck"])
def test_art_7_a_card_before_the_close_of_bets_stops_black_jack(tmp_path: Path,
                                                                  table: str) -> None:
    bets = (("main", 1, 10), ("pool", 1, 1)) if table == "pot_luck" else (("main", 1, 10),)
    trace = early(Trace(table=table), bets).inp("inspector_clear", note="KH set aside")
    # Art. 8: box 1 9S, the dealer 7C, box 1 4H, the dealer TD; 13 stands against 17.
    run = play(tmp_path, trace.cards("9S", "7C", "4H", "TD").inp("stand", box=1))
    stopped_for_it(run)
    assert run.dealt() == [("box 1", "9S"), ("dealer", "7C"), ("box 1", "4H"),
                           ("dealer", "TD")]
    assert (1, "main", 10, "lose", -10) in run.settlements()


def test_num_7_a_card_before_no_va_mas_stops_draw_poker(tmp_path: Path) -> None:
    trace = PokerTrace().inp("open_bets").ante(1, 10).ante(2, 10).cards(EARLY)
    trace.inp("no_more_bets").inp("inspector_clear", note="KH set aside")
    hands = {1: ("AS", "AH", "KD", "7C", "2S"), 2: ("QS", "QH", "JD", "9C", "3S")}
    run = replay(tmp_path, trace.deal(hands))
    stopped_for_it(run)
    assert run.dealt() == [(f"box {b}", c) for b in (1, 2) for c in hands[b]]
