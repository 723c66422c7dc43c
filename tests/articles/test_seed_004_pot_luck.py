"""Seed 004 (Pot Luck Black Jack, Peru 2000): the deck and shoe procedures of Art. 4-6.

There is no ``pot_luck`` game yet: Art. 3, 7 and 8 have no test, and the audit shows them
"not implemented". Art. 4-6 are the shared card shoe's procedures (the same text as seed
002's, RULES.md §3); these tests replay them on the ``mini_baccarat`` table
(tests/articles/card_traces.py), the only card table so far, on cases seed 002's tests
leave aside. Names follow tests/articles/README.md: ``test_art_6d_...`` tests Art. 6 (d).
"""

from __future__ import annotations

from pathlib import Path

from card_traces import CUT_CARD, NEW_DECKS, PACK, Trace, play

HALF_PACK = PACK // 2


# -- Art. 4: complete decks ----------------------------------------------------------------
def test_art_4_a_card_seen_more_often_than_the_4_decks_hold_stops_play(tmp_path: Path) -> None:
    # The burn is a 7H; the coup's four 7H make five, one more than 4 decks hold: the
    # decks are not complete and correct, and play stops until the inspector clears.
    trace = Trace(ready=False).procedure(NEW_DECKS, burn="7H")
    trace.coup((("punto", 1, 10),), "7H", "7H", "7H", "7H")
    trace.inp("open_bets").inp("inspector_clear", note="decks checked").cards("QD", "5C")
    run = play(tmp_path, trace)
    (over,) = run.alarms("card_over_count")
    assert over["stops_play"] is True
    assert len(run.alarms("play_stopped")) == 1  # the open_bets while stopped
    # The fifth 7H is not dealt: the Banca's second card is the QD read after the clearance.
    assert [(c["hand"], c["card"]) for c in run.of("card")] == [
        ("box 1", "7H"), ("banca", "??"), ("box 1", "7H"), ("banca", "QD"), ("box 1", "5C")]
    assert run.settlements() == [(1, "punto", 10, "win", 10)]  # 7H 7H 5C = 9 against 7


# -- Art. 6: after the cut card ----------------------------------------------------------------
def test_art_6_show_turn_and_scramble_may_come_before_the_shuffle(tmp_path: Path) -> None:
    # "queda a criterio del personal ... mostrar, voltear y revolver antes de barajar".
    trace = Trace().burn_until(HALF_PACK).line("[Cut]")
    trace.procedure(("show", "turn", "scramble", *CUT_CARD), burn="KD").inp("open_bets")
    run = play(tmp_path, trace)
    assert not run.alarms()
    assert run.steps("cut_card") == ["show", "turn", "scramble", *CUT_CARD, "burn"]
    assert len(run.of("coup_start")) == 1


def test_art_6_show_after_the_shuffle_is_out_of_order(tmp_path: Path) -> None:
    trace = Trace().burn_until(HALF_PACK).line("[Cut]").procedure(("shuffle", "show"), burn=None)
    run = play(tmp_path, trace)
    assert run.codes() == ["procedure_out_of_order"]
    assert run.steps("cut_card") == ["shuffle"]


def test_art_6d_no_game_before_the_burn_ends_the_procedure(tmp_path: Path) -> None:
    trace = Trace().burn_until(HALF_PACK).line("[Cut]").procedure(CUT_CARD, burn=None)
    trace.inp("open_bets").cards("KD", line="Burn").inp("open_bets")
    run = play(tmp_path, trace)
    assert run.codes() == ["shoe_not_ready"]
    assert run.steps("cut_card") == [*CUT_CARD, "burn"]
    (start,) = run.of("coup_start")
    assert start["seq"] > run.alarms()[0]["seq"]
