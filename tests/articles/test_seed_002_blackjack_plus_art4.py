"""Seed 002 (Black Jack Plus) Art. 4: the decks checked complete, by the count-out.

"El personal del explotador ... verificará que las barajas nuevas estén completas", and
"el cambio de barajas se realizará ... por no existir el número completo de cartas". The
cards behind the cut card never pass the reader while the shoe is dealt, so the decks are
checked at the shoe's close (controller/cards/count_out.py): the dealer runs the cards left
in the shoe through the reader (``Trace.count_out``) and ends with ``count_out_done``;
every card of the 6 decks must then have been seen once a deck. Each test replays a
``blackjack_plus`` trace (tests/articles/card_traces.py); the counts expected are worked
out here from the shoe's 312 cards, never taken from the controller.
"""

from __future__ import annotations

from pathlib import Path

from card_traces import CUT_CARD, NEW_DECKS, Run, Trace, play, two_card_deal

DECKS = 6
PACK = DECKS * 52
BEFORE_CUT = PACK // 2 + 2  # cards left when the cut card's coup opens
# Box 1 AS KD, a blackjack; the dealer 9H 8C = 17 stands: 3 to 2 on 10 is 15.
DEAL = two_card_deal([("AS", "KD")], ("9H", "8C"))
LEFT = BEFORE_CUT - len(DEAL)  # cards in the shoe when it closes
BLACKJACK = (1, "main", 10, "win", 15)


def cut_card_coup(**meta: object) -> Trace:
    """A 6-deck shoe burnt down to ``BEFORE_CUT``, then a coup in which the cut card comes
    out after two cards: the shoe closes when the coup ends (Art. 6)."""
    trace = Trace(table="blackjack_plus", decks=DECKS, **meta).burn_until(BEFORE_CUT)
    trace.inp("open_bets").bet("main", 1, 10).inp("no_more_bets").cards(*DEAL[:2])
    return trace.line("[Cut]").cards(*DEAL[2:])


def next_coup(trace: Trace) -> Trace:
    """The procedure after the cut card (Art. 6), its burn, and the same coup again."""
    trace.procedure(CUT_CARD, burn="KD")
    return trace.coup((("main", 1, 10),), *DEAL)


def shortfall(run: Run) -> dict[str, object]:
    (alarm,) = [a for a in run.alarms("decks_incomplete") if "missing" in a]
    return alarm


def test_art_4_the_cards_left_in_the_closed_shoe_are_counted_out_to_no_hand(
        tmp_path: Path) -> None:
    run = play(tmp_path, next_coup(cut_card_coup().count_out()))
    assert not run.alarms()
    (closed,) = run.of("shoe_closed")
    (counted,) = run.of("count_out")
    counted_out = run.of("count_out_card")
    assert len(counted_out) == counted["cards"] == LEFT
    assert counted["seen"] == PACK and counted["missing"] == []
    assert closed["seq"] < counted_out[0]["seq"] < counted["seq"]
    # Dealt to no hand: the only cards dealt are the two coups'.
    coup = [("box 1", "AS"), ("dealer", "9H"), ("box 1", "KD"), ("dealer", "8C")]
    assert run.dealt() == coup * 2
    assert run.settlements(1) == run.settlements(2) == [BLACKJACK]


def test_art_4_no_shuffle_and_no_coup_before_the_count_out(tmp_path: Path) -> None:
    # The discards go to the shuffle only once the shoe's cards are counted out.
    run = play(tmp_path, next_coup(cut_card_coup()))
    assert run.codes()[:3] == ["count_out_due"] * 3  # shuffle, cut, load refused
    assert not run.steps("cut_card")
    assert "shoe_not_ready" in run.codes()
    assert len(run.of("coup_start")) == 1 and not run.of("count_out")


def test_art_4_a_card_never_seen_is_an_alarm_naming_it_and_new_decks_are_due(
        tmp_path: Path) -> None:
    # The count-out leaves out one 7H and two QS: 3 of the 312 cards never seen.
    trace = cut_card_coup().count_out(missing=("7H", "QS", "QS"))
    trace = next_coup(trace)  # the same decks again: refused
    trace.procedure(NEW_DECKS[:1], burn=None)  # their Art. 5 procedure too, before new_shoe
    trace.inp("new_shoe", reason="7H and QS missing").procedure(NEW_DECKS, burn="2C")
    run = play(tmp_path, trace.coup((("main", 1, 10),), *DEAL))
    (counted,) = run.of("count_out")
    assert sorted(counted["missing"]) == ["7H", "QS", "QS"]
    assert counted["seen"] == PACK - 3 and counted["cards"] == LEFT - 3
    alarm = shortfall(run)
    assert sorted(alarm["missing"]) == ["7H", "QS", "QS"]  # type: ignore[call-overload]
    message = str(alarm["message"])
    assert "7H" in message and "QS (2 of its 6)" in message and "seed 002 Art. 4" in message
    assert "new_shoe" in message and "seed 002 Art. 5" in message
    # Not a reshuffle of the same decks: every Art. 6 step is refused, the coup too.
    refused = [a for a in run.alarms("decks_incomplete") if "missing" not in a]
    assert len(refused) == len(CUT_CARD) + 1 and not run.steps("cut_card")
    assert run.steps("new_decks")[len(NEW_DECKS) + 1:] == [*NEW_DECKS, "burn"]
    assert [c["reason"] for c in run.of("shoe_closed")] == ["cut_card", "decks_changed"]
    # With new decks (Art. 5) the next coup is dealt and settled.
    (second,) = [s for s in run.of("coup_start") if s["coup"] == 2]
    assert second["seq"] > run.of("shoe_closed")[1]["seq"]
    assert run.settlements(2) == [BLACKJACK]


def test_art_4_a_card_counted_out_beyond_the_decks_stops_play(tmp_path: Path) -> None:
    # A seventh AS in six decks: seen more often than the composition allows.
    trace = cut_card_coup().count_out(done=False).cards("AS").inp("count_out_done")
    run = play(tmp_path, next_coup(trace))
    (over,) = run.alarms("card_over_count")
    assert over["stops_play"] is True and over["card"] == "AS"
    (counted,) = run.of("count_out")
    assert counted["missing"] == [] and counted["cards"] == LEFT  # the extra not counted
    assert "play_stopped" in run.codes() and len(run.of("coup_start")) == 1


def test_art_4_a_misread_card_of_the_count_out_waits_for_its_face(tmp_path: Path) -> None:
    # Never guessed: the count-out ends once the dealer has entered the misread card.
    trace = cut_card_coup().count_out(missing=("5D",), done=False).line("[Game]<Game>")
    trace.inp("count_out_done").inp("card", card="5D").inp("count_out_done")
    run = play(tmp_path, next_coup(trace))
    assert run.codes() == ["awaiting_correction"]
    (counted,) = run.of("count_out")
    assert counted["missing"] == [] and counted["cards"] == LEFT
    assert run.settlements(2) == [BLACKJACK]


def test_art_4_a_table_without_the_count_out_goes_on_to_the_art_6_procedure(
        tmp_path: Path) -> None:
    # [cards] count_out = false: the operator's reader cannot take the cards back.
    run = play(tmp_path, next_coup(cut_card_coup(cards={"count_out": False})))
    assert not run.alarms() and not run.of("count_out", "count_out_card")
    assert run.steps("cut_card") == [*CUT_CARD, "burn"]
    assert run.settlements(2) == [BLACKJACK]
