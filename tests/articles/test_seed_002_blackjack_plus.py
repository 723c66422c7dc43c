"""Seed 002 (Black Jack Plus, Peru 2016): Art. 4-10 through the whole controller.

Each test writes a ``blackjack_plus`` trace (CONTRACT §2 and §6: dealer inputs, bets, shoe
lines of CONTRACT §4; a 6-deck shoe) and replays it with ``table-controller replay``
(tests/articles/card_traces.py). The cards are put in the shoe in the order Art. 8 deals
them (``two_card_deal``), then the cards the players' decisions and the dealer's rule ask
for; every total and payout expected is worked out here from the articles and the
decisions of RULES.md §4 (blackjack 3 to 2, the dealer stands on all 17s), never taken from
the controller. What a replay prints is what the public sees (the dealer's face-down cards
as "??"); the journal keeps every card (``Run.dealt``). Names follow
tests/articles/README.md: ``test_art_5e_...`` tests Art. 5 (e).
"""

from __future__ import annotations

import json
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path

import pytest
from card_traces import CUT_CARD, NEW_DECKS, Run, Trace, bj_total, play, two_card_deal
from conftest import REPO

from controller.cli import tablectl
from controller.cli.compose import load_config, read_trace
from controller.core.clock import VirtualClock
from controller.core.logs import configure
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

DECKS = 6
PACK = DECKS * 52
HALF_PACK = PACK // 2  # Art. 5 e, 6 b: "la mitad del paquete"
BOX1 = (("main", 1, 10),)
# Box 1 AS KD, a blackjack (no decision); the dealer 9H 8C = 17 stands: 3 to 2 on 10 is 15.
COUP = (BOX1, *two_card_deal([("AS", "KD")], ("9H", "8C")))
SIM_CONFIG = str(REPO / "config" / "blackjack-plus-sim.toml")  # limits 5 to 1000


def table(ready: bool = True) -> Trace:
    return Trace(ready, table="blackjack_plus", decks=DECKS)


def one_box(hand: tuple[str, str], dealer: tuple[str, str], bet: int = 10) -> Trace:
    """Bets open, box 1's ``bet``, no more bets, and the two-card deal (Art. 8)."""
    return table().coup((("main", 1, bet),), *two_card_deal([hand], dealer))


def turned(run: Run) -> list[tuple[str, bool]]:
    return [(r["card"], r["up_card"]) for r in run.of("card_turned")]


# -- Art. 4: jokers never used; the decks complete --------------------------------------------
def test_art_4_a_joker_read_from_the_shoe_stops_play_until_the_inspector_clears(
        tmp_path: Path) -> None:
    trace = table().coup(BOX1, "9S", "JK")
    trace.cards("3H").inp("inspector_clear", note="joker removed").cards("3H", "TC", "4D")
    trace.inp("stand", box=1).cards("KS")  # the dealer's 3H 4D = 7 draws KS: 17
    run = play(tmp_path, trace)
    (joker,) = run.alarms("bad_card")
    assert joker["stops_play"] is True
    stopped = [a for a in run.whole("alarm") if a["code"] == "card_while_stopped"]
    assert [a["card"] for a in stopped] == ["3H"]
    # Read during the deal, it could be the hole card: the public never sees it.
    assert [a["card"] for a in run.alarms("card_while_stopped")] == ["??"]
    assert run.dealt() == [("box 1", "9S"), ("dealer", "3H"), ("box 1", "TC"),
                           ("dealer", "4D"), ("dealer", "KS")]
    assert run.settlements() == [(1, "main", 10, "win", 10)]  # 19 against 17


def test_art_4_a_card_seen_more_often_than_the_decks_hold_stops_play(tmp_path: Path) -> None:
    # Two decks (meta decks 2): a third AS cannot be in them.
    trace = Trace(table="blackjack_plus", decks=2).coup(BOX1, "AS", "AS", "AS")
    run = play(tmp_path, trace)
    (over,) = [a for a in run.whole("alarm") if a["code"] == "card_over_count"]
    assert over["stops_play"] is True and over["card"] == "AS"
    assert run.dealt() == [("box 1", "AS"), ("dealer", "AS")]


def test_art_4_new_decks_on_request_need_the_art_5_procedure(tmp_path: Path) -> None:
    trace = table().inp("new_shoe", reason="a marked card").coup(*COUP)
    run = play(tmp_path, trace)
    (closed,) = run.of("shoe_closed")
    assert closed["reason"] == "decks_changed"
    (refused,) = run.alarms("shoe_not_ready")
    assert refused["seq"] > closed["seq"] and "seed 002" in refused["message"]
    assert not run.of("coup_start")


def test_art_4_decks_are_changed_between_coups_never_in_the_middle_of_one(
        tmp_path: Path) -> None:
    # A fault found with two cards out: the coup is not finished with another shoe's
    # cards. The change is refused with the reason; the coup ends on its own shoe; asked
    # again once the coup is over, the decks change (hardware.md §4).
    trace = table().inp("open_bets").bet("main", 1, 10).inp("no_more_bets").cards("AS", "9H")
    trace.inp("new_shoe", reason="a marked card").cards("KD", "8C")
    trace.inp("new_shoe", reason="a marked card")
    run = play(tmp_path, trace)
    (refused,) = run.alarms()
    assert refused["code"] == "game_under_way" and "seed 002 Art. 4" in refused["message"]
    assert run.dealt() == [("box 1", "AS"), ("dealer", "9H"), ("box 1", "KD"),
                           ("dealer", "8C")]
    assert run.settlements() == [(1, "main", 10, "win", 15)]  # the blackjack against 17
    (result,) = run.of("coup_result")
    (closed,) = run.of("shoe_closed")
    assert closed["reason"] == "decks_changed" and closed["seq"] > result["seq"]


# -- Art. 5: new decks, (a)-(g) in this order ---------------------------------------------------
@pytest.mark.parametrize("left_out", NEW_DECKS)
def test_art_5abcdef_a_step_left_out_keeps_the_first_game_from_opening(
        tmp_path: Path, left_out: str) -> None:
    steps = [s for s in NEW_DECKS if s != left_out]
    run = play(tmp_path, table(ready=False).procedure(steps, burn="2C").coup(*COUP))
    first = run.alarms()[0]
    if left_out == "load":
        # Without "load" the burn card comes before the shoe holds any cards: refused,
        # neither a burn nor the procedure's last step.
        assert first["code"] == "card_before_ready" and first["burn"] is True
        assert not run.of("burn")
    else:
        assert first["code"] == "procedure_out_of_order"
    assert run.alarms("shoe_not_ready")  # "antes de empezar la distribución de las cartas"
    assert not run.of("coup_start") and not run.of("card")


def test_art_5f_a_card_read_before_the_load_is_refused_and_not_counted(
        tmp_path: Path) -> None:
    # "Colocar las cartas en el zapato": the cards count from the load on.
    trace = table(ready=False).procedure(NEW_DECKS[:-1], burn="2C")
    run = play(tmp_path, trace.procedure(("load",), burn="3C").coup(*COUP))
    (early,) = run.alarms()
    assert early["code"] == "card_before_ready" and early["burn"] is True
    (burn,) = run.of("burn")
    assert burn["card"] == "3C" and burn["cards_left"] == PACK - 1
    assert run.settlements() == [(1, "main", 10, "win", 15)]


def test_art_5_steps_out_of_order_are_an_alarm_and_not_journaled(tmp_path: Path) -> None:
    run = play(tmp_path, table(ready=False).procedure(("show", "shuffle", "turn"), burn=None))
    (alarm,) = run.alarms()
    assert alarm["code"] == "procedure_out_of_order" and "seed 002 Art. 5" in alarm["message"]
    assert run.steps("new_decks") == ["show", "turn"]


def test_art_5g_the_burn_read_from_the_shoe_completes_the_procedure(tmp_path: Path) -> None:
    trace = table(ready=False).procedure(NEW_DECKS, burn=None).inp("open_bets")  # no burn
    trace.cards("5C", line="Burn").coup(*COUP)
    run = play(tmp_path, trace)
    assert run.codes() == ["shoe_not_ready"]
    assert run.steps("new_decks") == [*NEW_DECKS, "burn"]
    assert len(run.of("coup_start")) == 1
    assert run.settlements() == [(1, "main", 10, "win", 15)]


def test_art_5e_6b_cut_card_with_more_than_half_the_pack_left_stops_play(
        tmp_path: Path) -> None:
    run = play(tmp_path, table().line("[Cut]").coup(*COUP))  # 311 of 312 cards left
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == PACK - 1 and cut["early"] is True
    (early,) = run.alarms("cut_card_early")
    assert early["stops_play"] is True and "seed 002 Art. 5 e, 6 b" in early["message"]
    assert not run.of("coup_start")


def test_art_5e_6b_cut_card_with_half_the_pack_left_is_in_place(tmp_path: Path) -> None:
    run = play(tmp_path, table().burn_until(HALF_PACK).line("[Cut]"))
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == HALF_PACK and not cut["early"] and not cut["late"]
    assert not run.alarms()


def test_art_5e_6b_cut_card_with_fewer_than_40_cards_left_stops_play(tmp_path: Path) -> None:
    # "a no menos de 40 cartas de la base": a coup dealt to 39 cards left (the reserve's
    # own alarm stops play), then the cut card.
    trace = table().burn_until(41).inp("open_bets").bet("main", 1, 10).inp("no_more_bets")
    run = play(tmp_path, trace.cards("5C", "6C").line("[Cut]"))
    assert run.codes()[0] == "cut_card_missing"
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == 39 and cut["late"] is True
    (late,) = run.alarms("cut_card_late")
    assert late["stops_play"] is True and "seed 002 Art. 5 e" in late["message"]


def test_art_5e_6b_no_cut_card_before_the_last_40_cards_stops_play(tmp_path: Path) -> None:
    run = play(tmp_path, table().burn_until(39))  # "a no menos de 40 cartas de la base"
    (missing,) = run.alarms()
    assert missing["code"] == "cut_card_missing" and missing["stops_play"] is True
    assert "seed 002 Art. 5 e" in missing["message"]


# -- Art. 6: after the cut card ------------------------------------------------------------------
def test_art_6abcd_after_the_cut_card_no_game_before_shuffle_cut_load_and_burn(
        tmp_path: Path) -> None:
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out().inp("open_bets")  # refused
    trace.procedure(CUT_CARD, burn="KD").coup(*COUP)
    run = play(tmp_path, trace)
    (closed,) = run.of("shoe_closed")
    (refused,) = run.alarms()
    assert refused["code"] == "shoe_not_ready" and refused["seq"] > closed["seq"]
    assert run.steps("cut_card") == [*CUT_CARD, "burn"]
    assert run.settlements() == [(1, "main", 10, "win", 15)]


@pytest.mark.parametrize("left_out", CUT_CARD)
def test_art_6abc_a_step_left_out_after_the_cut_card_keeps_the_next_coup_from_opening(
        tmp_path: Path, left_out: str) -> None:
    steps = [s for s in CUT_CARD if s != left_out]
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out().procedure(steps, burn="KD")
    run = play(tmp_path, trace.coup(*COUP))
    assert run.alarms("shoe_not_ready")
    assert not run.of("coup_start") and not run.of("card")


def test_art_6d_no_coup_before_the_burn_ends_the_procedure(tmp_path: Path) -> None:
    # "Quemar cartas: Antes de iniciar la partida".
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out().procedure(CUT_CARD, burn=None)
    run = play(tmp_path, trace.inp("open_bets").cards("KD", line="Burn").coup(*COUP))
    assert run.codes() == ["shoe_not_ready"]
    assert run.steps("cut_card") == [*CUT_CARD, "burn"]
    (start,) = run.of("coup_start")
    assert start["seq"] > run.alarms()[0]["seq"]


def test_art_6_the_cut_card_in_a_coup_ends_the_shoe_after_it(tmp_path: Path) -> None:
    trace = table().burn_until(HALF_PACK + 2).inp("open_bets").bet("main", 1, 10)
    trace.inp("no_more_bets").cards("AS", "9H").line("[Cut]").cards("KD", "8C")
    run = play(tmp_path, trace.inp("open_bets"))
    (result,) = run.of("coup_result")
    (closed,) = run.of("shoe_closed")
    assert closed["reason"] == "cut_card" and closed["seq"] > result["seq"]
    assert run.codes() == ["shoe_not_ready"]  # the next coup waits for Art. 6


# -- Art. 7: bets ---------------------------------------------------------------------------------
def test_art_7_one_hand_per_box_whatever_the_bettors_joined_to_it(tmp_path: Path) -> None:
    # "por el monto total apostado en una postura sólo existe una mano"
    trace = table().coup((("main", 1, 10), ("main", 1, 20)), *COUP[1:])
    run = play(tmp_path, trace)
    assert [b["total"] for b in run.of("bet_placed")] == [10, 30]
    assert [h for h, _ in run.dealt()].count("box 1") == 2
    assert run.settlements() == [(1, "main", 30, "win", 45)]


def test_art_7_no_bet_once_the_first_card_is_dealt(tmp_path: Path) -> None:
    trace = table().inp("open_bets").bet("main", 1, 10).inp("no_more_bets").cards("AS")
    trace.bet("main", 1, 10).bet("main", 2, 10).cards("9H", "KD", "8C")
    run = play(tmp_path, trace)
    assert [a["bet"]["box"] for a in run.alarms("bet_refused")] == [1, 2]
    assert all("bets_closed" in a["message"] for a in run.alarms("bet_refused"))
    assert run.settlements() == [(1, "main", 10, "win", 15)]


def test_art_7_bets_within_the_table_s_limits(tmp_path: Path) -> None:
    trace = table().inp("open_bets").bet("main", 1, 4).bet("main", 2, 600).bet("main", 2, 500)
    trace.bet("main", 8, 10).inp("no_more_bets")
    run = play(tmp_path, trace, "--config", SIM_CONFIG)  # limits 5 to 1000 a box
    codes = [a["message"].split(":")[1].strip() for a in run.alarms("bet_refused")]
    assert codes == ["below_minimum", "over_maximum", "unknown_box"]
    assert run.of("bets_closed")[0]["boxes"] == [2]


def test_art_7_a_bet_joining_another_s_box_needs_its_holder_s_consent(tmp_path: Path) -> None:
    # "Para poder adherirse a una postura adicionalmente se requerirá el consentimiento
    # del jugador que ocupa la misma": the dealer says who placed it, and the consent.
    trace = table().inp("open_bets").add(bet="main", box=1, amount=10, by="standing",
                                         authorized=True)  # box 1 has no bet yet
    trace.bet("main", 1, 10).add(bet="main", box=1, amount=10, by="seated")
    trace.add(bet="main", box=1, amount=10, by="standing", authorized=False)
    trace.add(bet="main", box=1, amount=20, by="standing", authorized=True)
    trace.inp("no_more_bets").cards(*COUP[1:])
    run = play(tmp_path, trace)
    assert [a["message"].split(":")[1].strip() for a in run.alarms("bet_refused")] == [
        "standing_on_empty_box", "not_authorized", "not_authorized"]
    (joined,) = [b for b in run.of("bet_placed") if "by" in b]
    assert (joined["by"], joined["authorized"], joined["total"]) == ("standing", True, 30)
    assert run.settlements() == [(1, "main", 30, "win", 45)]  # one hand for the box
    recalled = tablectl_out(run.journal, "recall", "--json")
    assert '"by": "standing"' in recalled and '"authorized": true' in recalled


# -- Art. 8: the two-card deal ---------------------------------------------------------------------
FIRSTS = ("2S", "3S", "4S", "5S", "6S", "7S", "8S")
SECONDS = ("TH", "TD", "TC", "9H", "9D", "9C", "8H")  # 12 to 16: each box decides


@pytest.mark.parametrize("boxes", [(1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), (1, 2, 3, 4, 5),
                                   (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6, 7), (2, 5, 7)])
def test_art_8_a_card_to_each_box_left_to_right_then_the_dealer_face_down_twice(
        tmp_path: Path, boxes: tuple[int, ...]) -> None:
    hands = [(FIRSTS[i], SECONDS[i]) for i in range(len(boxes))]
    trace = table().coup(tuple(("main", b, 10) for b in boxes),
                         *two_card_deal(hands, ("QS", "7H")))
    for box in boxes:
        trace.inp("stand", box=box)
    run = play(tmp_path, trace)
    labels = [f"box {b}" for b in boxes]
    assert run.dealt() == ([(lab, h[0]) for lab, h in zip(labels, hands, strict=True)]
                           + [("dealer", "QS")]
                           + [(lab, h[1]) for lab, h in zip(labels, hands, strict=True)]
                           + [("dealer", "7H")])
    # Face up to the boxes, face down to the dealer ("una carta cubierta para sí mismo").
    shown = [(c["hand"], c["card"], c["face_down"]) for c in run.of("card")]
    assert [s for s in shown if s[0] == "dealer"] == [("dealer", "??", True)] * 2
    # He turns his first card ("descubriendo la primera carta que recibió"): QS 7H = 17.
    assert turned(run) == [("QS", True), ("7H", False)]
    expected = [(b, "main", 10, "lose", -10) for b, h in zip(boxes, hands, strict=True)
                if bj_total(h)[0] < 17]
    assert run.settlements() == expected


def test_art_8_10_a_second_card_exposed_by_mistake_is_the_up_card(tmp_path: Path) -> None:
    trace = one_box(("TS", "6H"), ("5C", "AD")).inp("second_card_exposed")
    trace.bet("insurance", 1, 5).inp("close_insurance").inp("stand", box=1).cards("2S")
    run = play(tmp_path, trace)  # 5C AD 2S: soft 18
    # "ésta será considerada la carta descubierta": the AD is the up card; the 5C stays
    # face down (never journaled turned up) until the dealer's turn, and decides insurance.
    assert turned(run) == [("AD", True), ("5C", False)]
    assert len(run.of("insurance_offered")) == 1  # an ace up (Art. 10)
    # The hole card decides insurance: a five, no ten: it loses. 16 against 18 loses.
    assert run.settlements() == [(1, "insurance", 5, "lose", -5), (1, "main", 10, "lose", -10)]


def test_art_8_a_second_card_exposed_after_a_player_acted_is_refused(tmp_path: Path) -> None:
    trace = one_box(("TS", "6H"), ("5C", "9D")).inp("hit", box=1).cards("4S")
    run = play(tmp_path, trace.inp("second_card_exposed").inp("stand", box=1).cards("8S"))
    assert run.codes() == ["up_card_turned"]
    assert turned(run)[0] == ("5C", True)


def test_art_8_10_an_exposed_second_card_that_is_no_ace_asks_no_insurance(
        tmp_path: Path) -> None:
    # The AC, first, is never the up card: no insurance is asked, and nothing says the
    # dealer holds an ace before his turn.
    trace = one_box(("TS", "7H"), ("AC", "9D")).inp("second_card_exposed")
    run = play(tmp_path, trace.bet("insurance", 1, 5).inp("stand", box=1))
    assert not run.of("insurance_offered") and not run.of("insurance_closed")
    assert turned(run) == [("9D", True), ("AC", False)]
    (refused,) = run.alarms("bet_refused")
    assert "insurance_not_offered" in refused["message"]
    assert run.settlements() == [(1, "main", 10, "lose", -10)]  # 17 against AC 9D: 20


def after_the_deal(run: Run) -> list[str]:
    """The types of the records the dealer's second card caused, from its ``card`` on (the
    replay's own alarm at the end of a trace that stops mid-coup aside)."""
    (last,) = [i for i, r in enumerate(run.records)
               if r["type"] == "card" and r["hand"] == "dealer"][1:]
    return [r["type"] for r in run.records[last:] if r["type"] != "alarm"]


def test_art_8_the_up_card_is_journaled_turned_with_the_first_input_after_the_deal(
        tmp_path: Path) -> None:
    # "... una carta cubierta para si mismo, descubriendo la primera carta que recibió":
    # the second may still be said exposed ("ésta será considerada la carta descubierta"),
    # so the first is journaled turned only with the next input that is not that.
    run = play(tmp_path, one_box(("TS", "7H"), ("9S", "KH")))
    assert after_the_deal(run) == ["card"] and turned(run) == []
    run = play(tmp_path, one_box(("TS", "7H"), ("9S", "KH")).inp("stand", box=1))
    assert after_the_deal(run)[:4] == ["card", "input", "card_turned", "decision"]
    assert turned(run) == [("9S", True), ("KH", False)]


def test_art_10_an_ace_up_asks_for_insurance_when_the_deal_ends(tmp_path: Path) -> None:
    # "luego de culminada la entrega obligatoria de cartas ... el dealer preguntará a los
    # jugadores si desean un seguro": asked when the deal ends, journaled (with the ace's
    # turn, Art. 8) once an input says the second card was not exposed: here the close.
    run = play(tmp_path, one_box(("TS", "7H"), ("AS", "KH")).inp("close_insurance"))
    assert after_the_deal(run)[:5] == ["card", "input", "card_turned", "insurance_offered",
                                       "insurance_closed"]
    (offered,) = run.of("insurance_offered")
    assert offered["boxes"] == [{"box": 1, "max": 5}]


def test_art_8_no_stand_before_the_deal_is_complete(tmp_path: Path) -> None:
    # "Concluida dicha etapa cualquier jugador se puede plantar."
    trace = table().coup(BOX1, "TS", "9C").inp("stand", box=1).cards("6H", "7D")
    run = play(tmp_path, trace.inp("stand", box=1).cards("KS"))
    (refused,) = run.alarms()
    assert refused["code"] == "deal_not_complete" and "Art. 8" in refused["message"]
    assert [d["action"] for d in run.of("decision")] == ["stand"]
    assert run.settlements() == [(1, "main", 10, "win", 10)]  # 16 against 9C 7D KS: bust


def test_art_8_the_boxes_act_in_box_order_a_decision_of_rules_4(tmp_path: Path) -> None:
    # Art. 8 orders the deal, not the decisions ("cualquier jugador se puede plantar"):
    # box order is RULES.md §4's decision.
    deal = two_card_deal([("TS", "2H"), ("9S", "3H")], ("5C", "9D"))
    trace = table().coup((("main", 1, 10), ("main", 2, 10)), *deal)
    trace.inp("hit", box=2).inp("stand", box=1).inp("stand", box=2).cards("KS")  # 24: bust
    run = play(tmp_path, trace)
    (refused,) = run.alarms()
    assert refused["code"] == "not_this_box"
    assert [(d["box"], d["action"]) for d in run.of("decision")] == [(1, "stand"), (2, "stand")]


# The decisions after the deal are on the missing pages: RULES.md §4 decides them, tested
# under Art. 8, whose compulsory deal they follow.
def test_art_8_a_hand_doubles_on_its_first_two_cards_only_rules_4(tmp_path: Path) -> None:
    trace = one_box(("2S", "3H"), ("9C", "7D")).inp("hit", box=1).cards("4S")  # 9
    run = play(tmp_path, trace.inp("double", box=1).inp("stand", box=1).cards("KS"))
    (refused,) = run.alarms()
    assert refused["code"] == "double_not_allowed" and "RULES.md §4" in refused["message"]
    assert run.settlements() == [(1, "main", 10, "win", 10)]  # 9 against 26


def test_art_8_a_box_splits_once_rules_4(tmp_path: Path) -> None:
    trace = one_box(("8S", "8H"), ("9C", "7D")).inp("split", box=1).cards("8D")
    run = play(tmp_path, trace.inp("split", box=1).inp("stand", box=1).cards("2C")
               .inp("stand", box=1).cards("KS"))  # 16, 10; the dealer 26
    (refused,) = run.alarms()
    assert refused["code"] == "split_once"
    assert [h["cards"] for h in run.result()["boxes"][0]["hands"]] == [["8S", "8D"],
                                                                      ["8H", "2C"]]


# -- Art. 9: surrender ("retiro") --------------------------------------------------------------
def test_art_9_surrender_pays_half_the_bet_at_once(tmp_path: Path) -> None:
    run = play(tmp_path, one_box(("TS", "6H"), ("9C", "7D")).inp("surrender", box=1))
    (settled,) = run.of("settlement")
    assert (settled["kind"], settled["outcome"], settled["payout"]) == ("main", "surrender", -5)
    (turn,) = run.of("dealer_turn")
    assert settled["seq"] < turn["seq"]  # "recogerá inmediatamente la parte correspondiente"
    # No hand is left against the dealer: he turns his hole card and draws nothing.
    assert run.result()["dealer"]["cards"] == ["9C", "7D"]


def test_art_9_an_odd_bet_surrenders_half_a_chip(tmp_path: Path) -> None:
    run = play(tmp_path, one_box(("TS", "6H"), ("9C", "7D"), bet=5).inp("surrender", box=1))
    assert run.settlements() == [(1, "main", 5, "surrender", -2.5)]


def test_art_9_no_surrender_once_a_card_was_dealt_before_the_box_s_decision(
        tmp_path: Path) -> None:
    # Box 1 TS 6H (16), the only box, against 9C 7D; 5D comes out before any decision:
    # it is box 1's draw, so its surrender ("antes de ... su primera decisión") is refused.
    # The hit then places 5D: 21; the dealer's 16 draws 8S, bust: box 1 wins 10.
    trace = one_box(("TS", "6H"), ("9C", "7D")).cards("5D").inp("surrender", box=1)
    run = play(tmp_path, trace.inp("hit", box=1).cards("8S"))
    assert "card_dealt" in run.codes()
    assert run.settlements() == [(1, "main", 10, "win", 10)]


def test_art_9_no_surrender_when_the_dealer_s_up_card_is_an_ace(tmp_path: Path) -> None:
    # "El retiro no procede cuando la primera carta del dealer es un 'As'."
    trace = one_box(("TS", "6H"), ("AC", "7D")).inp("surrender", box=1)
    trace.inp("close_insurance").inp("surrender", box=1).inp("stand", box=1)
    run = play(tmp_path, trace)
    assert run.codes() == ["surrender_against_ace"] * 2
    assert run.settlements() == [(1, "main", 10, "lose", -10)]  # 16 against soft 18


def test_art_9_a_box_surrenders_until_its_own_first_decision_whatever_the_others_did(
        tmp_path: Path) -> None:
    # "Un jugador puede retirarse después de haber recibido sus dos primeras cartas y
    # cuando haya culminado la etapa de entrega obligatoria": box 1's hit closes box 1's
    # surrender, not box 2's.
    deal = two_card_deal([("TS", "2H"), ("9S", "7H")], ("9C", "7D"))
    trace = table().coup((("main", 1, 10), ("main", 2, 10)), *deal)
    trace.inp("hit", box=1).cards("5S").inp("surrender", box=1).inp("surrender", box=2)
    run = play(tmp_path, trace.inp("stand", box=1).cards("KS"))  # 17 against 26: bust
    assert run.codes() == ["surrender_closed"]
    assert run.settlements() == [(1, "main", 10, "win", 10), (2, "main", 10, "surrender", -5)]


def test_art_9_a_box_surrenders_while_another_box_s_card_is_due(tmp_path: Path) -> None:
    deal = two_card_deal([("TS", "2H"), ("9S", "7H"), ("8S", "8H")], ("9C", "7D"))
    trace = table().coup((("main", 1, 10), ("main", 2, 10), ("main", 3, 10)), *deal)
    trace.inp("surrender", box=3).inp("hit", box=1).inp("surrender", box=2).cards("5S")
    run = play(tmp_path, trace.inp("stand", box=1).cards("KS"))
    assert not run.alarms()
    assert run.settlements() == [(1, "main", 10, "win", 10), (2, "main", 10, "surrender", -5),
                                 (3, "main", 10, "surrender", -5)]


def test_art_9_no_surrender_before_the_two_card_deal(tmp_path: Path) -> None:
    trace = table().coup(BOX1, "TS", "9C").inp("surrender", box=1).cards("6H", "7D")
    run = play(tmp_path, trace.inp("stand", box=1).cards("KS"))
    assert run.codes() == ["deal_not_complete"]


def test_art_9_a_surrender_stands_against_a_dealer_blackjack(tmp_path: Path) -> None:
    # He does not check for blackjack first (RULES.md §4): the surrender is already paid.
    run = play(tmp_path, one_box(("TS", "6H"), ("KC", "AH")).inp("surrender", box=1))
    assert run.settlements() == [(1, "main", 10, "surrender", -5)]
    assert run.result()["dealer"]["blackjack"] is True


# -- Art. 10: insurance ------------------------------------------------------------------------
def insured(hand: tuple[str, str], dealer: tuple[str, str], *amounts: int) -> Trace:
    """One box, an ace up: the insurance bets of ``amounts``, the question closed."""
    trace = one_box(hand, dealer)
    for amount in amounts:
        trace.bet("insurance", 1, amount)
    return trace.inp("close_insurance")


def test_art_10_insurance_pays_2_to_1_when_the_hole_card_is_a_figure(tmp_path: Path) -> None:
    trace = insured(("TS", "7H"), ("AS", "KH"), 5).inp("stand", box=1)
    run = play(tmp_path, trace)
    assert run.settlements() == [(1, "insurance", 5, "win", 10), (1, "main", 10, "lose", -10)]


def test_art_10_insurance_loses_when_the_hole_card_is_a_nine(tmp_path: Path) -> None:
    # "apuesta a que la segunda carta del dealer será una figura o un '10'": a nine is
    # neither (Mini-Bacará's insurance is on a nine: seed 000 Art. 11, another rule).
    trace = insured(("TS", "8H"), ("AS", "9H"), 5).inp("stand", box=1)
    run = play(tmp_path, trace)  # AS 9H: soft 20
    assert run.settlements() == [(1, "insurance", 5, "lose", -5), (1, "main", 10, "lose", -10)]


def test_art_10_insurance_loses_when_the_hole_card_is_no_ten(tmp_path: Path) -> None:
    trace = insured(("TS", "7H"), ("AS", "6H"), 5).inp("stand", box=1)
    run = play(tmp_path, trace)  # AS 6H: soft 17, the dealer stands (s17)
    assert run.settlements() == [(1, "insurance", 5, "lose", -5), (1, "main", 10, "push", 0)]


def test_art_10_insurance_is_decided_when_the_hole_card_is_turned_at_the_end(
        tmp_path: Path) -> None:
    trace = insured(("TS", "2H"), ("AS", "KH"), 5)
    run = play(tmp_path, trace.inp("hit", box=1).cards("5S").inp("stand", box=1))
    (insurance,) = [s for s in run.of("settlement") if s["kind"] == "insurance"]
    hole = run.of("card_turned")[1]
    assert hole["card"] == "KH" and hole["up_card"] is False
    assert run.of("card")[-1]["seq"] < hole["seq"] < insurance["seq"]


def test_art_10_no_insurance_without_an_ace_up(tmp_path: Path) -> None:
    run = play(tmp_path, one_box(("TS", "7H"), ("9S", "KH")).bet("insurance", 1, 5))
    (refused,) = run.alarms("bet_refused")
    assert "insurance_not_offered" in refused["message"]


def test_art_10_insurance_over_half_the_bet_is_refused_not_capped(tmp_path: Path) -> None:
    trace = insured(("TS", "7H"), ("AS", "6H"), 6, 5, 1)
    run = play(tmp_path, trace.inp("stand", box=1))
    refusals = run.alarms("bet_refused")
    assert [a["bet"]["amount"] for a in refusals] == [6, 1]
    assert all("insurance_over_half" in a["message"] for a in refusals)
    assert [s[:3] for s in run.settlements()] == [(1, "insurance", 5), (1, "main", 10)]


def test_art_10_no_decision_until_the_dealer_closes_the_insurance_question(
        tmp_path: Path) -> None:
    # "La apuesta adicional como seguro debe ser colocada hasta antes del inicio de la
    # etapa de entrega voluntaria de cartas": the question open, no decision; closed, no
    # insurance bet.
    deal = two_card_deal([("TS", "7H"), ("9S", "9H")], ("AS", "6H"))
    trace = table().coup((("main", 1, 10), ("main", 2, 10)), *deal)
    trace.inp("stand", box=1).bet("insurance", 1, 5).inp("close_insurance")
    run = play(tmp_path, trace.inp("stand", box=1).bet("insurance", 2, 5).inp("stand", box=2))
    assert run.codes() == ["insurance_open", "bet_refused"]
    assert "insurance_closed" in run.alarms("bet_refused")[0]["message"]
    (closed,) = run.of("insurance_closed")
    assert closed["boxes"] == [{"box": 1, "amount": 5}]
    (first,) = run.of("decision")[:1]
    assert first["seq"] > closed["seq"]
    assert [s[:4] for s in run.settlements()] == [
        (1, "insurance", 5, "lose"), (1, "main", 10, "push"), (2, "main", 10, "win")]


# -- Art. 8: the hole card stays hidden until it is turned ------------------------------------
HOLE = "7D"  # no other card of these traces is a 7D


def paused() -> Trace:
    """A coup waiting for box 1's decision: the dealer's hole card is down (Art. 8). (With
    a second card exposed by mistake nothing is down: his first was turned as the deal
    ended.)"""
    return one_box(("TS", "2H"), ("9C", HOLE)).inp("hit", box=1).cards("5S")


def tablectl_out(journal: Path, *args: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(journal), *args]) == 0
    return out.getvalue()


def logged(tmp_path: Path, trace: Trace) -> str:
    """The controller's log (debug level, JSON) of ``trace`` played through a Table."""
    path = tmp_path / "logged.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    events = read_trace(str(path)).events
    buffer = StringIO()
    with redirect_stderr(buffer):
        configure("debug", "json")
    try:
        with Journal(tmp_path / "logged.sqlite", durable=False) as journal:
            clock = VirtualClock()
            loop = EventLoop(clock, lambda e: None)
            table = Table(load_config("embedded:blackjack-plus-sim.toml"), journal,
                          loop.call_at, clock.now, None)
            loop.handler = table.handle
            loop.run_events(events)
    finally:
        configure("warning", "console")
    return buffer.getvalue()


def test_art_8_the_hole_card_is_absent_from_output_log_status_and_recall_until_turned(
        tmp_path: Path) -> None:
    run = play(tmp_path, paused())
    assert ("dealer", HOLE) in run.dealt()  # the journal has it ...
    assert HOLE not in str(run.records)  # ... what the replay shows has not
    for args in (["status"], ["status", "--json"], ["recall"], ["recall", "--json"]):
        assert HOLE not in tablectl_out(run.journal, *args), args
    log = logged(tmp_path, paused())
    assert '"decision"' in log and HOLE not in log
    # Turned at the end (the dealer's 9C 7D = 16 draws a KS), it is shown.
    done = play(tmp_path, paused().inp("stand", box=1).cards("KS"))
    assert (HOLE, False) in turned(done)
    assert f'"{HOLE}"' in tablectl_out(done.journal, "recall", "--json")
