"""Seed 002 (Black Jack Plus, Peru 2016): the shoe procedures of Art. 4-6.

There is no ``blackjack_plus`` game yet: its articles 7-10 have no test, and the audit
shows them "not implemented". The deck and shoe procedures of Art. 4-6 belong to the shared
card shoe, which every card table follows (RULES.md §3); these tests replay them on the
``mini_baccarat`` table (tests/articles/card_traces.py), the only card table so far.
Names follow tests/articles/README.md: ``test_art_5e_...`` tests Art. 5 (e).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from card_traces import CUT_CARD, NEW_DECKS, PACK, Trace, play

HALF_PACK = PACK // 2  # Art. 5 e, 6 b: "la mitad del paquete"
# Box 1 9S TC = 9 against the Banca's 3H 4D = 7 (seed 000): a coup that is over once dealt.
COUP = ((("punto", 1, 10),), "9S", "3H", "TC", "4D")


# -- Art. 4: jokers are never used -------------------------------------------------------
def test_art_4_a_joker_read_from_the_shoe_stops_play_until_the_inspector_clears(
        tmp_path: Path) -> None:
    trace = Trace().coup((("punto", 1, 10),), "9S", "JK")
    trace.cards("3H").inp("inspector_clear", note="joker removed").cards("3H", "TC", "4D")
    run = play(tmp_path, trace)
    (joker,) = run.alarms("bad_card")
    assert joker["stops_play"] is True
    assert [a["card"] for a in run.alarms("card_while_stopped")] == ["3H"]
    assert [(c["hand"], c["face_down"]) for c in run.of("card")] == [
        ("box 1", False), ("banca", True), ("box 1", False), ("banca", False)]
    assert run.settlements() == [(1, "punto", 10, "win", 10)]


# -- Art. 5: new decks, (a)-(g) in this order --------------------------------------------------
@pytest.mark.parametrize("left_out", NEW_DECKS)
def test_art_5abcdef_a_step_left_out_keeps_the_first_game_from_opening(
        tmp_path: Path, left_out: str) -> None:
    steps = [s for s in NEW_DECKS if s != left_out]
    run = play(tmp_path, Trace(ready=False).procedure(steps, burn="2C").coup(*COUP))
    # Without "load" the burn card comes before the shoe holds any cards.
    assert (("card_before_ready" if left_out == "load" else "procedure_out_of_order")
            in run.codes())
    assert run.alarms("shoe_not_ready")  # "antes de empezar la distribución de las cartas"
    assert not run.of("coup_start") and not run.of("card")


def test_art_5_steps_out_of_order_are_an_alarm_and_not_journaled(tmp_path: Path) -> None:
    run = play(tmp_path, Trace(ready=False).procedure(("show", "shuffle", "turn"), burn=None))
    (alarm,) = run.alarms()
    assert alarm["code"] == "procedure_out_of_order"
    assert run.steps("new_decks") == ["show", "turn"]


def test_art_5g_the_burn_read_from_the_shoe_completes_the_procedure(tmp_path: Path) -> None:
    trace = Trace(ready=False).procedure(NEW_DECKS, burn=None).inp("open_bets")  # no burn
    trace.cards("5C", line="Burn").coup(*COUP)
    run = play(tmp_path, trace)
    assert run.codes() == ["shoe_not_ready"]
    assert run.steps("new_decks") == [*NEW_DECKS, "burn"]
    assert len(run.of("coup_start")) == 1
    assert run.settlements() == [(1, "punto", 10, "win", 10)]


def test_art_5e_6b_cut_card_with_more_than_half_the_pack_left_stops_play(
        tmp_path: Path) -> None:
    run = play(tmp_path, Trace().line("[Cut]").coup(*COUP))  # 207 of 208 cards left
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == PACK - 1 and cut["early"] is True
    (early,) = run.alarms("cut_card_early")
    assert early["stops_play"] is True
    assert not run.of("coup_start")


def test_art_5e_6b_cut_card_with_half_the_pack_left_is_in_place(tmp_path: Path) -> None:
    run = play(tmp_path, Trace().burn_until(HALF_PACK).line("[Cut]"))
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == HALF_PACK and not cut["early"] and not cut["late"]
    assert not run.alarms()


# -- Art. 6: after the cut card --------------------------------------------------------------
def test_art_6abcd_after_the_cut_card_no_game_before_shuffle_cut_load_and_burn(
        tmp_path: Path) -> None:
    trace = Trace().burn_until(HALF_PACK).line("[Cut]").inp("open_bets")  # refused
    trace.procedure(CUT_CARD, burn="KD").coup(*COUP)
    run = play(tmp_path, trace)
    (closed,) = run.of("shoe_closed")
    (refused,) = run.alarms()
    assert refused["code"] == "shoe_not_ready" and refused["seq"] > closed["seq"]
    assert run.steps("cut_card") == [*CUT_CARD, "burn"]
    assert run.settlements() == [(1, "punto", 10, "win", 10)]
