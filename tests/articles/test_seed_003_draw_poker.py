"""Seed 003 (draw poker, Montevideo, Reglamento de Poker): its numbered paragraphs, "num. 1" to
"num. 22", through the whole controller.

Each test writes a draw-poker trace (CONTRACT §2 and §7: the shuffles, the antes, the dealer's
inputs, the shoe's lines) and replays it with ``table-controller replay``; the replay prints
the public view of every record (a face-down card as "??"). Every expected rank, winner and
amount is worked out here from the seed's text, quoted where it helps, never taken from the
controller. Amounts are compared as ``Decimal`` to the cent. Names follow
tests/articles/README.md: ``test_num_8c_...`` tests num. 8 (c).
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from decimal import Decimal
from pathlib import Path

import pytest
from poker_traces import PokerTrace, codes, message, money, payouts, refusals, replay, result

from controller.games.draw_poker.analysis import command
from controller.store.journal import Journal

D = Decimal
FIVE_PERCENT = D("0.05")  # num. 15, 19: "una deducción del 5%"

# Three players, boxes 1-3 (num. 7: box 1's five cards first). Pairs of aces, queens, tens.
DEAL = {1: ("AS", "AH", "KD", "7C", "2S"),
        2: ("QS", "QH", "JD", "9C", "3S"),
        3: ("TS", "TH", "8D", "6C", "4S")}
DEALT = {c for cards in DEAL.values() for c in cards}


def played_hand() -> PokerTrace:
    """The hand of num. 15 and 19: box 1 bets 20, box 2 calls, box 3 raises to 30 (three
    antes, num. 8 c), box 1 calls, box 2 folds (num. 8 d); box 1 draws two (A-A-K-K-9, two
    pair), box 3 three (T-T-T-5-3, three of a kind); box 1 bets seven antes (num. 12), box 3
    calls; the showdown."""
    return (PokerTrace().hand(10, DEAL)
            .acts(("bet", 1, 20), ("call", 2), ("raise", 3, 30), ("call", 1), ("fold", 2))
            .discard(1, ["7C", "2S"], "KH", "9S")
            .discard(3, ["8D", "6C", "4S"], "TD", "5H", "3C")
            .acts(("bet", 1, 70), ("call", 3)))


def called(mano: int | None = None) -> PokerTrace:
    """The deal of ``DEAL``; Mano bets one ante, the others call: the draw is next."""
    return PokerTrace().hand(10, DEAL, mano=mano).called()


# -- num. 1: one French deck, no jokers ---------------------------------------------------
def test_num_1_a_joker_stops_play(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().open({1: 5, 2: 5}).cards("AS", "JK"))
    (alarm,) = [a for a in run.of("alarm") if a["code"] == "bad_card"]
    assert alarm["stops_play"] and "seed 003 num. 1" in alarm["message"]
    assert [c["hand"] for c in run.of("card")] == ["box 1"]  # the joker is dealt to nobody


def test_num_1_a_card_seen_twice_in_one_deck_stops_play(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().open({1: 5, 2: 5}).cards("AS", "KD", "AS"))
    (alarm,) = [a for a in run.of("alarm") if a["code"] == "card_over_count"]
    assert alarm["stops_play"] and "more than 1 times" in alarm["message"]
    assert len(run.of("card")) == 2


# -- num. 2: four shuffles before each hand, the cut offered to a player ----------------------
def test_num_2_the_hand_is_refused_before_the_fourth_shuffle(tmp_path: Path) -> None:
    trace = PokerTrace(shuffled=False).shuffles(3, cut=None).inp("open_bets")
    trace.shuffles(1).inp("open_bets").shuffles(1, cut=None)
    run = replay(tmp_path, trace)
    # The hand opened: the shuffles before it are over (a shuffle now is out of order).
    assert codes(run) == ["shoe_not_ready", "procedure_out_of_order"]
    assert [r.get("times") for r in run.of("shoe_procedure")] == [1, 2, 3, 4, None]
    assert len(run.of("hand_start")) == 1  # the second open_bets, after the fourth shuffle


@pytest.mark.parametrize("answer", ["box 3", "dealer"])
def test_num_2_the_cut_is_offered_and_no_hand_opens_before_its_answer(
        tmp_path: Path, answer: str) -> None:
    # "se le ofrecerá colocar la carta de corte a uno de los Jugadores de la Mesa": the
    # offer's answer is journaled, the player who cut or the dealer when they declined.
    trace = PokerTrace(shuffled=False).shuffles(4, cut=None).inp("open_bets")
    run = replay(tmp_path, trace.inp("procedure_step", step="cut", by=answer).inp("open_bets"))
    assert codes(run) == ["shoe_not_ready"]
    (cut,) = [r for r in run.of("shoe_procedure") if r["step"] == "cut"]
    assert cut["by"] == answer
    (start,) = run.of("hand_start")
    assert start["seq"] > cut["seq"]


def test_num_2_more_shuffles_and_the_cut_by_a_player_are_journaled(tmp_path: Path) -> None:
    trace = PokerTrace(shuffled=False).shuffles(5, cut=None)
    trace.inp("procedure_step", step="cut").inp("procedure_step", step="cut", by="player")
    run = replay(tmp_path, trace.inp("open_bets"))
    steps = [(r["step"], r.get("times"), r.get("by")) for r in run.of("shoe_procedure")]
    assert steps == [("shuffle", n, None) for n in range(1, 6)] + [("cut", None, "player")]
    assert codes(run) == ["procedure_step_by"]  # who cut must be said: a player, or the dealer
    assert len(run.of("hand_start")) == 1


def test_num_2_a_card_read_before_the_fourth_shuffle_is_dealt_to_nobody(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace(shuffled=False).shuffles(2, cut=None).cards("AS"))
    assert codes(run) == ["card_before_ready"] and not run.of("card")


def test_num_2_every_hand_needs_its_own_four_shuffles(tmp_path: Path) -> None:
    trace = played_hand().inp("open_bets").shuffles(4).inp("open_bets")
    run = replay(tmp_path, trace)
    assert result(run)["outcome"] == "showdown"
    assert codes(run) == ["shoe_not_ready"]
    assert [r["hand"] for r in run.of("hand_start")] == [1, 2]


# -- num. 3 and 7: players against each other; the house takes no cards ----------------------
def test_num_3_7_each_player_is_dealt_and_the_house_takes_no_card(tmp_path: Path) -> None:
    run = replay(tmp_path, played_hand())
    hand = result(run)
    assert {c["hand"] for c in run.of("card")} == {"box 1", "box 2", "box 3"}
    assert [b["box"] for b in hand["boxes"]] == [1, 2, 3]
    assert hand["winners"] == [3]  # a player, paid out of the others' stakes (num. 19)


# -- num. 4: the ante, 2 to 5 players ---------------------------------------------------------
def test_num_4_a_sixth_player_is_refused(tmp_path: Path) -> None:
    trace = PokerTrace().inp("open_bets")
    for box in (1, 2, 3, 4, 5, 6):
        trace.ante(box, 10)
    run = replay(tmp_path, trace)
    assert codes(run) == ["too_many_players"]
    assert "num. 4" in message(run, "too_many_players")
    assert [b["box"] for b in run.of("ante_placed")] == [1, 2, 3, 4, 5]


def test_num_4_a_hand_starts_with_two_players_at_least(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().inp("open_bets").ante(3, 10).inp("no_more_bets")
                 .ante(4, 10).inp("no_more_bets"))
    assert codes(run) == ["too_few_players"] and "num. 4" in message(run, "too_few_players")
    assert run.of("bets_closed")[0]["boxes"] == [3, 4]


def test_num_4_the_ante_is_the_same_for_every_player(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().inp("open_bets").ante(1, 10).ante(2, 20).ante(2, 10)
                 .ante(2, 10))
    assert codes(run) == ["ante_not_agreed", "ante_posted"]
    assert "num. 4" in message(run, "ante_not_agreed")
    assert [(a["box"], a["amount"]) for a in run.of("ante_placed")] == [(1, 10), (2, 10)]


def test_num_4_21_the_ante_is_at_least_the_house_minimum(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().inp("open_bets").ante(1, 4).ante(1, 5), limits=(5, 50))
    assert codes(run) == ["below_minimum"] and "num. 4, 21" in message(run, "below_minimum")
    assert [a["amount"] for a in run.of("ante_placed")] == [5]


def test_num_21_the_ante_is_at_most_the_house_maximum(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().inp("open_bets").ante(1, 51).ante(1, 50), limits=(5, 50))
    assert codes(run) == ["over_maximum"] and "num. 21" in message(run, "over_maximum")


def test_num_21_the_later_bets_are_within_the_house_s_minimum_and_maximum(
        tmp_path: Path) -> None:
    # "Los valores mínimos y máximos de las apuestas, 'Primera Apuesta' y 'Apuestas
    # Posteriores' serán fijados": later bets of 20 to 25 chips, under the cap of 3 antes.
    trace = PokerTrace()
    trace.events[0]["meta"].update(later_min_bet=20, later_max_bet=25)
    trace.hand(10, DEAL).act("bet", 1, 15).act("bet", 1, 30).act("bet", 1, 20)
    run = replay(tmp_path, trace)
    assert codes(run) == ["below_minimum", "over_maximum"]
    assert "num. 21" in message(run, "over_maximum")
    (start,) = run.of("hand_start")
    assert (start["min_later_bet"], start["max_later_bet"]) == (20, 25)
    assert [(a["action"], a["level"]) for a in run.of("round_action")] == [("bet", 20)]


def test_num_4_8b_a_new_hand_agrees_a_new_ante(tmp_path: Path) -> None:
    trace = PokerTrace().hand(10, DEAL).acts(("pass", 1), ("pass", 2), ("pass", 3))
    trace.shuffles().open({1: 25, 3: 25})
    run = replay(tmp_path, trace)
    assert run.of("bets_closed")[1]["ante"] == 25 and not codes(run)


# -- num. 5 and 6: "no va más", then no bet placed or changed --------------------------------
def test_num_5_no_ante_after_no_va_mas(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().open({1: 10, 2: 10}).ante(3, 10))
    assert codes(run) == ["bets_closed"] and "num. 5" in message(run, "bets_closed")


def test_num_5_the_deal_waits_for_no_va_mas_and_gathers_the_antes(tmp_path: Path) -> None:
    # A card read before "no va más" is no player's: play stops until the inspector
    # resumes it (issue 16), and the deal begins after it, box 1's first card the AH.
    trace = PokerTrace().inp("open_bets").ante(1, 10).ante(2, 10).cards("AS")
    trace.inp("no_more_bets").inp("inspector_clear", note="AS set aside")
    run = replay(tmp_path, trace.cards("AH"))
    assert codes(run) == ["card_without_place"]
    assert "before no_more_bets" in message(run, "card_without_place")
    assert [(c["hand"], c["card"]) for c in run.whole("card")] == [("box 1", "AH")]
    (closed,) = run.of("bets_closed")
    assert (closed["boxes"], closed["ante"], closed["antes"]) == ([1, 2], 10, 20)


def test_num_6_no_bet_is_placed_or_changed_once_the_first_card_is_out(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().open({1: 10, 2: 10}).cards("AS").ante(2, 10)
                 .ante(3, 10))
    assert codes(run) == ["bet_after_first_card"] * 2
    assert all("num. 6" in m for _, m in refusals(run))
    assert len(run.of("ante_placed")) == 2


# -- num. 7: five consecutive cards face down, box 1's first --------------------------------
def test_num_7_five_consecutive_cards_to_each_player_from_box_1(tmp_path: Path) -> None:
    hands = {b: DEAL[b] for b in (2, 3)} | {5: ("KS", "KH", "5D", "5C", "9H")}
    run = replay(tmp_path, PokerTrace().hand(10, hands, mano=3))
    assert [c["hand"] for c in run.of("card")] == ["box 2"] * 5 + ["box 3"] * 5 + ["box 5"] * 5
    assert all(c["face_down"] for c in run.of("card"))


def test_num_7_no_hole_card_is_public_before_the_showdown(tmp_path: Path) -> None:
    run = replay(tmp_path, played_hand())
    first_turn = next(i for i, r in enumerate(run.records) if r["type"] == "card_turned")
    before = run.records[:first_turn]
    dealt = DEALT | {"KH", "9S", "TD", "5H", "3C"}
    shown = [r for r in before if any(c in str(v) for c in dealt for v in r.values()
                                      if isinstance(v, str | list))]
    assert shown == []
    assert all(c["card"] == "??" for c in run.of("card"))
    # The journal keeps them whole (num. 5: the count of cards is checked).
    with Journal(run.journal) as journal:
        assert {r["card"] for r in journal.records(types=("card",))} == dealt
        assert [r["cards"] for r in journal.records(types=("input",))
                if r["action"] == "discard"] == [["7C", "2S"], ["8D", "6C", "4S"]]
    assert [r["cards"] for r in run.of("input") if r["action"] == "discard"] == [
        ["??"] * 2, ["??"] * 3]
    # The showdown shows the two hands called (num. 15); box 2 folded: never shown.
    boxes = {b["box"]: b for b in result(run)["boxes"]}
    assert boxes[2]["cards"] == ["??"] * 5 and boxes[2]["rank"] is None
    assert {t["card"] for t in run.of("card_turned")} == {
        "AS", "AH", "KD", "KH", "9S", "TS", "TH", "TD", "5H", "3C"}


# -- num. 8: the first round, from Mano ---------------------------------------------------
def test_num_8_the_first_round_waits_for_every_player_s_five_cards(tmp_path: Path) -> None:
    trace = PokerTrace().open({1: 10, 2: 10}).cards(*DEAL[1], *DEAL[2][:4]).act("pass", 1)
    run = replay(tmp_path, trace.cards(DEAL[2][4]).act("pass", 1))
    assert codes(run) == ["round_not_open"] and "num. 8" in message(run, "round_not_open")
    assert [(a["box"], a["action"]) for a in run.of("round_action")] == [(1, "pass")]


def test_num_8_8a_the_round_starts_at_mano_and_goes_clockwise(tmp_path: Path) -> None:
    hands = DEAL | {4: ("KS", "KH", "5D", "5C", "9H")}
    trace = PokerTrace().hand(10, hands, mano=3)
    trace.acts(("pass", 1), ("pass", 3), ("pass", 1), ("pass", 4), ("pass", 1), ("pass", 2))
    run = replay(tmp_path, trace)
    (start,) = run.of("round_start")
    assert start["order"] == [3, 4, 1, 2]  # Mano, then clockwise (num. 8 a)
    assert codes(run) == ["out_of_turn", "out_of_turn"]
    assert "num. 8" in refusals(run)[0][1]
    assert [a["box"] for a in run.of("round_action")] == [3, 4, 1, 2]


def test_num_8a_pass_once_a_bet_is_made_is_refused(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().hand(10, DEAL).acts(("pass", 1), ("bet", 2, 10),
                                                            ("pass", 3)))
    assert codes(run) == ["bet_pending"]


def test_num_8b_all_pass_mano_nula_returns_the_antes(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().hand(10, DEAL).acts(("pass", 1), ("pass", 2),
                                                            ("pass", 3)))
    (nula,) = run.of("mano_nula")
    assert nula["article"] == "num. 8 b"
    hand = result(run)
    assert (hand["outcome"], hand["winners"], hand["pot"]["rake"]) == ("mano_nula", [], 0)
    assert payouts(run) == {(b, "ante"): ("push", 0) for b in (1, 2, 3)}
    assert not run.of("draw_start") and not run.of("card_turned")
    assert run.of("shoe_closed")[-1]["reason"] == "game_finished"  # new shuffles (num. 2)


def test_num_8c_a_bet_over_three_antes_is_refused(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().hand(10, DEAL).acts(("bet", 1, 31), ("bet", 1, 30)))
    assert codes(run) == ["over_cap"] and "num. 8 c" in message(run, "over_cap")
    assert [a["level"] for a in run.of("round_action")] == [30]


def test_num_8c_a_smaller_bet_may_be_raised_up_to_the_cap_not_over(tmp_path: Path) -> None:
    trace = PokerTrace().hand(10, DEAL).acts(("bet", 1, 7), ("raise", 2, 31), ("raise", 2, 19),
                                             ("raise", 3, 30), ("raise", 1, 31))
    run = replay(tmp_path, trace)
    assert codes(run) == ["over_cap", "over_cap"]
    # In the first round any whole amount up to the cap: 7 and 19 are not multiples of 10.
    assert [(a["box"], a["level"]) for a in run.of("round_action")] == [(1, 7), (2, 19),
                                                                        (3, 30)]


def test_num_8d_who_does_not_match_folds_and_loses_what_he_bet(tmp_path: Path) -> None:
    run = replay(tmp_path, played_hand())
    assert payouts(run)[(2, "ante")] == ("lose", -10)
    assert payouts(run)[(2, "bet")] == ("lose", -20)  # his call of box 1's bet of 20
    assert result(run)["boxes"][1]["folded"]


def test_num_8d_the_last_player_left_wins_without_showing(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().hand(10, DEAL).acts(("bet", 1, 15), ("fold", 2),
                                                            ("fold", 3)))
    hand = result(run)
    assert (hand["outcome"], hand["winners"]) == ("folds", [1])
    assert not run.of("card_turned") and not run.of("draw_start")
    # Num. 19: the antes, 30, less 5% = 28.50; box 1 posted 10: he wins 18.50 on them. No
    # other player bet: his own bet of 15 comes back whole.
    assert payouts(run) == {(1, "ante"): ("win", 18.5), (1, "bet"): ("win", 0),
                            (2, "ante"): ("lose", -10), (3, "ante"): ("lose", -10)}


def test_num_8d_a_fold_with_nothing_to_match_is_refused(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().hand(10, DEAL).act("fold", 1))
    assert codes(run) == ["nothing_to_fold"] and "num. 8" in message(run, "nothing_to_fold")


# -- num. 9: one draw of up to four cards, in turn from Mano ---------------------------------
def test_num_9_replacements_are_dealt_in_turn_from_mano(tmp_path: Path) -> None:
    trace = called(mano=2)
    trace.discard(2, ["JD", "9C", "3S"], "QD", "QC", "5S")
    trace.discard(3, [])
    trace.discard(1, ["7C", "2S"], "KH", "KC")
    run = replay(tmp_path, trace)
    assert run.of("draw_start")[0]["order"] == [2, 3, 1]
    replacements = [c["hand"] for c in run.of("card")][15:]
    assert replacements == ["box 2"] * 3 + ["box 1"] * 2
    assert [(d["box"], d["discarded"]) for d in run.of("draw")] == [(2, 3), (3, 0), (1, 2)]
    assert not codes(run)


def test_num_9_a_discard_of_five_is_refused(tmp_path: Path) -> None:
    run = replay(tmp_path, called().inp("discard", box=1, cards=list(DEAL[1])))
    assert codes(run) == ["too_many_discards"] and "num. 9" in message(run,
                                                                      "too_many_discards")
    assert not run.of("draw")


def test_num_9_a_discard_out_of_turn_or_of_cards_not_held_is_refused(tmp_path: Path) -> None:
    trace = called().inp("discard", box=2, cards=["JD"])
    trace.inp("discard", box=1, cards=["QS"])
    run = replay(tmp_path, trace)
    assert codes(run) == ["out_of_turn", "not_his_card"]
    assert all("QS" not in m and "JD" not in m for _, m in refusals(run))  # never named


def test_num_9_there_is_one_draw_only(tmp_path: Path) -> None:
    trace = called().stand_pat()
    run = replay(tmp_path, trace.act("pass", 1).discard(2, ["JD"]))
    assert codes(run) == ["draw_over"] and "num. 9" in message(run, "draw_over")


# -- num. 10: a wrong number of cards voids the hand ------------------------------------------
def test_num_10_a_replacement_missing_voids_the_player_s_hand(tmp_path: Path) -> None:
    trace = called().discard(1, ["7C", "2S"], "KH")  # one card of two
    run = replay(tmp_path, trace.discard(2, []).discard(3, []).acts(("pass", 2), ("pass", 3)))
    (void,) = run.of("hand_void")
    assert (void["box"], void["reason"], void["cards_held"]) == (1, "wrong_count", 4)
    assert void["article"] == "num. 10"
    hand = result(run)
    assert hand["outcome"] == "showdown" and hand["boxes"][0]["void"]
    # Box 1's stake is returned (num. 10-11); box 2's pair of queens beats box 3's tens.
    assert payouts(run)[(1, "ante")] == ("push", 0) and payouts(run)[(1, "bet")] == ("push", 0)
    assert hand["winners"] == [2]


def test_num_10_a_card_too_many_voids_the_player_s_hand(tmp_path: Path) -> None:
    # Box 3 draws last (order from Mano: 1, 2, 3): no discard can still come to place a
    # second card, so it is one too many for him.
    trace = called().discard(1, []).discard(2, [])
    run = replay(tmp_path, trace.discard(3, ["4S"], "KH", "KC"))  # two cards for one
    (void,) = run.of("hand_void")
    assert (void["box"], void["reason"], void["cards_held"]) == (3, "wrong_count", 6)
    assert run.of("draw_start")[0]["order"] == [1, 2, 3] and not codes(run)


def test_num_9_10_a_card_after_his_replacements_waits_for_the_next_discard(
        tmp_path: Path) -> None:
    # Box 1 throws one and is dealt two: the second may be box 2's replacement, dealt
    # before box 2's discard was entered. It waits for that discard, which places it.
    trace = called().discard(1, ["7C"], "KH", "KC").discard(2, ["3S"])
    run = replay(tmp_path, trace)
    assert not run.of("hand_void")
    assert codes(run) == ["decision_missing"]
    assert [c["hand"] for c in run.whole("card")][15:] == ["box 1", "box 2"]


# -- num. 11: a card dealt face up, refused ---------------------------------------------------
def test_num_11_refusing_a_face_up_card_voids_the_hand_and_returns_the_stake(
        tmp_path: Path) -> None:
    trace = PokerTrace().open({1: 10, 2: 10, 3: 10}).cards("AS", "AH")
    trace.inp("refuse_card", box=1, card="AH")
    trace.cards(*DEAL[2], *DEAL[3]).acts(("bet", 2, 10), ("fold", 3))
    run = replay(tmp_path, trace)
    (void,) = run.of("hand_void")
    assert (void["box"], void["reason"], void["article"]) == (1, "refused_card", "num. 11")
    assert [c["hand"] for c in run.of("card")] == ["box 1"] * 2 + ["box 2"] * 5 + ["box 3"] * 5
    (turned,) = run.of("card_turned")  # dealt face up: the table saw it
    assert turned["card"] == "AH"
    assert payouts(run)[(1, "ante")] == ("push", 0)
    # The pot is boxes 2 and 3's antes, 20, less 5%: 19; box 2 posted 10.
    assert payouts(run)[(2, "ante")] == ("win", 9) and result(run)["pot"]["antes"] == 20


def test_num_11_a_refusal_leaving_one_player_voids_the_hand_for_all(tmp_path: Path) -> None:
    trace = PokerTrace().open({1: 10, 2: 10}).cards(*DEAL[1], "QS").inp("refuse_card", box=2)
    run = replay(tmp_path, trace)
    hand = result(run)
    assert (hand["outcome"], hand["winners"]) == ("void", [])
    assert payouts(run) == {(1, "ante"): ("push", 0), (2, "ante"): ("push", 0)}


def test_num_11_the_refusal_comes_before_the_second_round(tmp_path: Path) -> None:
    trace = called().stand_pat()
    run = replay(tmp_path, trace.act("pass", 1).inp("refuse_card", box=2))
    assert codes(run) == ["refusal_too_late"] and "num. 11" in message(run, "refusal_too_late")


# -- num. 12: the second round ------------------------------------------------------------
def test_num_12_a_bet_not_a_multiple_of_the_ante_is_refused(tmp_path: Path) -> None:
    trace = called().stand_pat()
    run = replay(tmp_path, trace.acts(("bet", 1, 15), ("bet", 1, 20), ("raise", 2, 35),
                                      ("raise", 2, 40)))
    assert codes(run) == ["not_a_multiple", "not_a_multiple"]
    assert all("num. 12" in m for _, m in refusals(run))
    assert [a["level"] for a in run.of("round_action") if a["round"] == 2] == [20, 40]


def test_num_12_a_bet_over_seven_antes_is_refused(tmp_path: Path) -> None:
    trace = called().stand_pat()
    run = replay(tmp_path, trace.acts(("bet", 1, 80), ("bet", 1, 70), ("raise", 2, 80)))
    assert codes(run) == ["over_cap", "over_cap"]
    assert all("num. 12" in m for _, m in refusals(run))


def test_num_12a_a_player_who_passed_may_call_or_raise_later(tmp_path: Path) -> None:
    trace = called().stand_pat()
    run = replay(tmp_path, trace.acts(("pass", 1), ("bet", 2, 20), ("fold", 3), ("raise", 1, 40),
                                      ("call", 2)))
    actions = [(a["box"], a["action"], a["level"]) for a in run.of("round_action")
               if a["round"] == 2]
    assert actions == [(1, "pass", 0), (2, "bet", 20), (3, "fold", 20), (1, "raise", 40),
                       (2, "call", 40)]
    assert result(run)["last_bettor"] == 1


def test_num_12b_a_fold_in_the_second_round_loses_both_rounds_bets(tmp_path: Path) -> None:
    trace = called().stand_pat()
    run = replay(tmp_path, trace.acts(("bet", 1, 30), ("call", 2), ("raise", 3, 40), ("call", 1),
                                      ("fold", 2)))
    # Box 2: his call of 10 in the first round and of 30 in the second, both lost.
    assert payouts(run)[(2, "bet")] == ("lose", -40)
    assert result(run)["boxes"][1]["folded"]


# -- num. 15, 19: the showdown and the payment ---------------------------------------------
def test_num_15_the_showdown_comes_by_itself_and_the_last_bettor_shows_first(
        tmp_path: Path) -> None:
    run = replay(tmp_path, played_hand())
    hand = result(run)
    assert (hand["outcome"], hand["last_bettor"], hand["winners"]) == ("showdown", 1, [3])
    assert [t["hand"] for t in run.of("card_turned")] == ["box 1"] * 5 + ["box 3"] * 5
    ranks = {b["box"]: b["rank"] for b in hand["boxes"]}
    assert ranks == {1: "two_pair", 2: None, 3: "three_of_a_kind"}


def test_num_15_19_the_winner_gets_the_antes_and_the_others_bets_less_5_percent(
        tmp_path: Path) -> None:
    run = replay(tmp_path, played_hand())
    antes = 3 * D(10)
    others = D(30 + 70) + D(20)  # box 1: 30 and 70; box 2: his call of 20
    own = D(30 + 70)
    pay = payouts(run)
    # "el monto total de la 'Primera Apuesta' ... deducido el 5%": 28.50, he posted 10.
    assert money(pay[(3, "ante")][1]) == antes * (1 - FIVE_PERCENT) - 10 == D("18.50")
    # "las Apuestas realizadas por los demás Jugadores deducido el 5%" (his own come back).
    assert money(pay[(3, "bet")][1]) == others * (1 - FIVE_PERCENT) == D("114")
    (win_ante,) = [s for s in run.of("settlement") if (s["box"], s["kind"]) == (3, "ante")]
    (win_bet,) = [s for s in run.of("settlement") if (s["box"], s["kind"]) == (3, "bet")]
    # Num. 20: each concept apart: the antes less 5%, the others' bets less 5%, his own whole.
    assert money(win_ante["antes_less_rake"]) == D("28.50")
    assert money(win_bet["others_bets_less_rake"]) == D("114")
    assert money(win_bet["own_bets_returned"]) == own
    assert {k: v for k, v in pay.items() if k[0] != 3} == {
        (1, "ante"): ("lose", -10), (1, "bet"): ("lose", -100),
        (2, "ante"): ("lose", -10), (2, "bet"): ("lose", -20)}


def test_num_19_the_5_percent_and_the_losing_chips_go_to_the_house(tmp_path: Path) -> None:
    run = replay(tmp_path, played_hand())
    (rake,) = run.of("rake")
    assert money(rake["rake"]) == (D(30) + D(120)) * FIVE_PERCENT == D("7.50")
    assert money(rake["losing_chips"]) == D(10 + 100 + 10 + 20)
    assert money(result(run)["pot"]["rake"]) == D("7.50")
    # What the players lose is what the winner and the house get.
    net = sum(money(s["payout"]) for s in run.of("settlement"))
    assert net + money(rake["rake"]) == 0


# -- num. 16-18: the ranking, at the showdown -------------------------------------------------
def test_num_16_a_straight_beats_three_of_a_kind(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().showdown({1: ("9S", "9H", "9D", "KC", "2S"),
                                     2: ("5S", "6H", "7D", "8C", "9C")}))
    assert result(run)["winners"] == [2]
    assert [b["rank"] for b in result(run)["boxes"]] == ["three_of_a_kind", "straight"]


def test_num_17_a_2_3_4_5_is_a_straight_below_2_3_4_5_6(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().showdown({1: ("AS", "2H", "3D", "4C", "5S"),
                                     2: ("2S", "3H", "4D", "5C", "6H")}))
    assert [b["rank"] for b in result(run)["boxes"]] == ["straight", "straight"]
    assert result(run)["winners"] == [2]


def test_num_17_18_a_flush_against_a_flush_is_decided_by_the_second_card(
        tmp_path: Path) -> None:
    # Both flushes ace high: "define la carta más alta siguiente", Q over J.
    run = replay(tmp_path, PokerTrace().showdown({1: ("AH", "JH", "9H", "6H", "3H"),
                                     2: ("AS", "QS", "8S", "5S", "2S")}))
    assert [b["rank"] for b in result(run)["boxes"]] == ["flush", "flush"]
    assert result(run)["winners"] == [2]


@pytest.mark.parametrize(("mano", "first_winner"), [(None, 1), (2, 2)])
def test_num_18_a_complete_tie_shares_after_the_5_percent_odd_cent_to_the_first_from_mano(
        tmp_path: Path, mano: int | None, first_winner: int) -> None:
    # Boxes 1 and 2: A-K-9-6-3 in other suits ("En ningún caso el 'palo' se tendrá en
    # cuenta"); box 3: Q-J-8-7-2, lower. Ante 5, Mano bets 3, all call, all pass.
    hands = {1: ("AS", "KH", "9D", "6C", "3S"), 2: ("AH", "KD", "9C", "6S", "3H"),
             3: ("QS", "JH", "8D", "7C", "2H")}
    trace = PokerTrace().hand(5, hands, mano=mano).called(3).stand_pat()
    trace.acts(*(("pass", box) for box in trace.order()))
    run = replay(tmp_path, trace)
    assert result(run)["winners"] == ([1, 2] if mano is None else [2, 1])
    second = 3 - first_winner
    # The pot after the 5%: antes 15 and box 3's bet 3, 18 less 5% = 17.10, shared as one
    # sum: 8.55 each. Handed over by concept (num. 20): the antes, 15 less 5% = 14.25, are
    # 7.13 and 7.12 (the odd cent to the first from Mano); the rest of each share, 1.42
    # and 1.43, is his part of box 3's bet. Each posted 5 and bet 3.
    pay = payouts(run)
    assert money(pay[(first_winner, "ante")][1]) == D("7.13") - 5
    assert money(pay[(second, "ante")][1]) == D("7.12") - 5
    assert money(pay[(first_winner, "bet")][1]) == D("1.42")
    assert money(pay[(second, "bet")][1]) == D("1.43")
    for box in (first_winner, second):
        assert money(pay[(box, "ante")][1]) + 5 + money(pay[(box, "bet")][1]) == D("8.55")
    assert pay[(3, "ante")] == ("lose", -5) and pay[(3, "bet")] == ("lose", -3)
    (rake,) = run.of("rake")
    assert money(rake["rake"]) == D(15 + 3) * FIVE_PERCENT == D("0.90")


def test_num_18_a_three_way_split_is_shared_as_one_sum_odd_cent_from_mano(
        tmp_path: Path) -> None:
    # Boxes 2, 3 and 4: A-K-Q-J-9 in other suits; box 1 (Mano): 8-7-5-3-2, lower. Ante 1,
    # Mano bets 1, all call, all stand pat, all pass. The pot after the 5%: antes 4 and
    # box 1's bet 1, 5 less 5% = 4.75, shared as one sum among three: 1.58 each and one
    # odd cent, to the first winner in dealing order from Mano (box 2): 1.59, 1.58, 1.58.
    # Shared concept by concept (3.80 and 0.95) it would be 1.59, 1.59, 1.57.
    hands = {1: ("8S", "7H", "5D", "3C", "2S"), 2: ("AS", "KH", "QD", "JC", "9S"),
             3: ("AH", "KD", "QC", "JS", "9H"), 4: ("AD", "KC", "QS", "JH", "9D")}
    trace = PokerTrace().hand(1, hands).called(1).stand_pat()
    trace.acts(*(("pass", box) for box in trace.order()))
    run = replay(tmp_path, trace)
    assert result(run)["winners"] == [2, 3, 4]
    pay = payouts(run)
    # What each winner takes from the pot: his ante's payout, his ante back (1), and his
    # part of the others' bets (his own bet of 1 comes back beside it).
    taken = [money(pay[(box, "ante")][1]) + 1 + money(pay[(box, "bet")][1])
             for box in (2, 3, 4)]
    assert taken == [D("1.59"), D("1.58"), D("1.58")]
    assert pay[(1, "ante")] == ("lose", -1) and pay[(1, "bet")] == ("lose", -1)
    (rake,) = run.of("rake")
    assert money(rake["rake"]) == D(5) * FIVE_PERCENT == D("0.25")


def test_num_18_identical_ranks_in_different_suits_tie(tmp_path: Path) -> None:
    run = replay(tmp_path, PokerTrace().showdown({1: ("KS", "KH", "7D", "7C", "4S"),
                                     4: ("KD", "KC", "7S", "7H", "4H")}))
    assert result(run)["winners"] == [1, 4]
    assert [b["rank"] for b in result(run)["boxes"]] == ["two_pair", "two_pair"]


@pytest.mark.slow
def test_num_16_17_18_the_census_of_every_five_card_hand() -> None:
    # C(52, 5) hands of one deck (num. 1), by the combinatorics of each category.
    out = io.StringIO()
    with redirect_stdout(out):
        assert command([], None) == 0
    printed = {" ".join(line.split()[:-1]): line.split()[-1]
               for line in out.getvalue().splitlines()[2:-1]}  # below its title
    assert printed == {
        "royal flush": "4", "straight flush": "36", "four of a kind": "624",
        "full house": "3,744", "flush": "5,108", "straight": "10,200",
        "three of a kind": "54,912", "two pair": "123,552", "one pair": "1,098,240",
        "high card": "1,302,540", "hands": "2,598,960", "distinct values": "7,462"}
    assert out.getvalue().splitlines()[-1].startswith("time ")
