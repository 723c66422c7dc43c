"""Seed 000 (Mini-Bacará, decree 217/978) Art. 9-11, on the game itself (the Mini-Bacará
state machine of controller/games/mini_baccarat/, its records on a list): the Banca against
each box, the payouts, insurance, and the shared example trace fed to the game.

Every expectation is worked out by hand from the decree and RULES.md §2 (the cards' points,
the tableau, the order of Art. 6 and 9), never copied from the code's output.
"""

from __future__ import annotations

import json

import pytest
from conftest import SHARED
from mini_baccarat_helpers import GameTable, Refused, coup

from controller.cards.card import parse_card
from controller.core.events import BetPlaced

TRACE = SHARED / "traces" / "mini-baccarat-two-coups.jsonl"


# -- Art. 9: the Banca against every box separately ----------------------------------------
def test_art_9a_banca_natural_beats_every_box_without_natural() -> None:
    # Banca 4 + 4 = 8. Box 1: 3 + 4 = 7; box 2: 2 + 8 = 0; box 3: 5 + K = 5 (chose draw);
    # box 4: 6 + Q = 6; box 5: 4 + 4 = 8, a natural equal to the Banca's.
    table = coup(
        [("punto", b, 10) for b in range(1, 6)] + [("banca", 2, 20)],
        "3C 2D 5S 6H 4C 4D 4S 8H KC QD 4H 4S",
        fives={3: "draw"},
    )
    assert table.game.state == "coup_over"
    assert table.game.needs_card() is None
    assert all(len(c) == 2 for c in (r["cards"] for r in table.of("box_result")))
    assert [table.result(b)["outcome"] for b in range(1, 6)] == [
        "banca",
        "banca",
        "banca",
        "banca",
        "standoff",
    ]
    assert {r["article"] for r in table.of("box_result")} == {"9a"}
    for box in (1, 3, 4):
        assert table.settlements(box) == [("punto", "lose", -10)]
    assert table.settlements(2) == [("punto", "lose", -10), ("banca", "win", 18)]
    assert table.settlements(5) == [("punto", "push", 0)]


def test_art_9b_a_box_natural_beating_the_banca_natural_wins() -> None:
    # Banca 5 + 3 = 8. Box 1: 4 + 5 = 9 beats it; box 2: 7 + 2 = 9 too; box 3: 2 + 2 = 4.
    table = coup(
        [("punto", 1, 10), ("banca", 2, 10), ("punto", 3, 10)],
        "4C 7D 2S 5H 5C 2H 2C 3D",
    )
    assert table.result(1)["outcome"] == "punto"
    assert table.settlements(1) == [("punto", "win", 10)]
    assert table.settlements(2) == [("banca", "lose", -10)]
    assert table.settlements(3) == [("punto", "lose", -10)]
    assert table.game.state == "coup_over"


def test_art_9c_box_natural_is_paid_at_once_and_play_continues() -> None:
    # Banca 3 + 2 = 5, no natural. Box 2: 6 + 3 = 9 is paid before any third card.
    # Box 1: A + 2 = 3 draws; box 3: 6 + K = 6 stands.
    table = GameTable()
    table.open([("punto", 1, 10), ("punto", 2, 10), ("punto", 3, 10)])
    table.deal("AC 6D 6S 3H 2C 3C KH 2D")
    assert table.result(2)["outcome"] == "punto"
    assert table.result(2)["article"] == "9c"
    assert table.settlements(2) == [("punto", "win", 10)]
    assert table.game.needs_card() == "box 1"
    table.deal("2H")  # box 1's third card, dealt after box 2 left the round
    assert table.seq("card", hand="box 1", card="2H") > table.seq("settlement", box=2)


def test_art_9d_banca_seven_completes_the_boxes_left_to_right_then_settles_each() -> None:
    # Banca 3 + 4 = 7, stands. Box 1: A + A = 2, draws 6 -> 8 beats 7.
    # Box 2: 6 + K = 6 stands, loses. Box 4: 2 + 3 = 5 draws ("pedir") A -> 6, loses.
    table = coup(
        [("punto", 1, 10), ("punto", 2, 10), ("punto", 4, 10)],
        "AC 6D 2S 3H AD KH 3S 4D 6C AH",
        fives={4: "draw"},
    )
    assert table.game.state == "coup_over"
    banca_cards = [c for c in table.of("card") if c["hand"] == "banca"]
    assert len(banca_cards) == 2
    last_third = table.seq("card", hand="box 4", card="AH")
    assert table.seq("card", hand="box 1", card="6C") < last_third
    results = table.of("box_result")
    assert [r["box"] for r in results] == [1, 2, 4]  # left to right
    assert all(r["seq"] > last_third for r in results)  # after every third card
    assert {r["article"] for r in results} == {"9d"}
    assert [r["outcome"] for r in results] == ["punto", "banca", "banca"]


def test_art_9d_encart_both_seven_is_a_standoff_without_more_cards() -> None:
    # Box 1: 3 + 4 = 7; Banca 5 + 2 = 7: "encart".
    table = coup([("punto", 1, 10), ("banca", 1, 10)], "3C 5D 4S 2H")
    result = table.result(1)
    assert (result["outcome"], result["encart"], result["cards"]) == (
        "standoff",
        True,
        ["3C", "4S"],
    )
    assert table.settlements(1) == [("punto", "push", 0), ("banca", "push", 0)]
    assert table.game.needs_card() is None


def test_art_9d_encart_both_six_is_a_standoff_while_the_banca_draws_for_another_box() -> None:
    # Banca 2 + 4 = 6. Box 1: 3 + 3 = 6, "encart". Box 2: A + K = 1 draws 6 -> 7; Banca 6
    # against a third card of 6 draws: 5 -> 1, box 2 wins with 7.
    table = coup([("punto", 1, 10), ("punto", 2, 10)], "3C AD 2S 3H KH 4D 6C 5C")
    encart = table.result(1)
    assert encart["encart"] is True
    assert encart["outcome"] == "standoff"
    assert encart["banca_cards"] == ["2S", "4D"]
    assert encart["seq"] < table.seq("card", hand="banca", card="5C")
    assert table.result(2)["outcome"] == "punto"
    assert table.result(2)["banca_cards"] == ["2S", "4D", "5C"]


def _art9e_coup() -> GameTable:
    # Banca 2 + 2 = 4.
    # Box 1: 3 + K = 3 draws 8 -> 1; Banca 4 against an 8 stands: 4 beats 1.
    # Box 2: 5 + 5 = 0 draws 5 -> 5; Banca 4 against a 5 draws.
    # Box 3: 6 + K = 6 stands; Banca 4 against a box that stood draws.
    # Box 4: 2 + K = 2 draws A -> 3; Banca 4 against an ace stands: 4 beats 3.
    # One Banca third card, K -> 4: box 2 (5) and box 3 (6) beat it.
    return coup(
        [("punto", b, 10) for b in range(1, 5)],
        "3C 5D 6S 2H 2S KC 5H KD KH 2C 8C 5S AD KS",
    )


def test_art_9e_banca_stands_against_some_boxes_and_draws_one_card_for_the_others() -> None:
    table = _art9e_coup()
    banca_cards = [c["card"] for c in table.of("card") if c["hand"] == "banca"]
    assert banca_cards == ["2S", "2C", "KS"]  # one third card for all the boxes
    third = table.seq("card", hand="banca", card="KS")
    stood_against = [r for r in table.of("box_result") if r["seq"] < third]
    assert [r["box"] for r in stood_against] == [1, 4]  # left to right, on two cards
    assert all(r["banca_cards"] == ["2S", "2C"] and r["article"] == "9e" for r in stood_against)
    assert [r["outcome"] for r in stood_against] == ["banca", "banca"]
    # the third cards of every box came before the Banca faced any of them
    assert table.seq("card", hand="box 4", card="AD") < stood_against[0]["seq"]


def test_art_9f_after_the_banca_third_card_boxes_are_settled_right_to_left() -> None:
    table = _art9e_coup()
    third = table.seq("card", hand="banca", card="KS")
    after = [r for r in table.of("box_result") if r["seq"] > third]
    assert [r["box"] for r in after] == [3, 2]
    assert all(r["banca_total"] == 4 and r["article"] == "9f" for r in after)
    assert [r["outcome"] for r in after] == ["punto", "punto"]
    assert table.game.state == "coup_over"


def test_art_9g_each_box_losing_bets_are_collected_before_its_winners_are_paid() -> None:
    # Banca 2 + K = 2. Box 1 (Punto 10, Banca 20): 4 + 5 = 9, a natural, wins: its Banca
    # bet is collected first, then its Punto bet paid. Box 2 (Punto 10, Banca 10): K + 7 = 7
    # stands; the Banca draws against a box that stood (0-5): 6 -> 8 beats 7.
    table = coup(
        [("punto", 1, 10), ("banca", 1, 20), ("punto", 2, 10), ("banca", 2, 10)],
        "4C KD 2S 5H 7D KC 6H",
    )
    assert table.settlements(1) == [("banca", "lose", -20), ("punto", "win", 10)]
    assert table.settlements(2) == [("punto", "lose", -10), ("banca", "win", 9)]
    # a decided box leaves the round: one result per box, settled right after it
    for box in (1, 2):
        settlement_seqs = [s["seq"] for s in table.of("settlement") if s["box"] == box]
        assert min(settlement_seqs) == table.result(box)["seq"] + 1


# -- Art. 10: payouts ----------------------------------------------------------------------
def test_art_10_banca_wins_pay_90_percent_and_punto_even_money() -> None:
    # Banca 4 + 4 = 8, a natural, against box 1 (2 + 3 = 5) and box 2 (K + 7 = 7).
    table = coup([("banca", 1, 10), ("banca", 2, 15)], "2C KD 4S 3H 7D 4C")
    assert table.settlements(1) == [("banca", "win", 9)]
    assert table.settlements(2) == [("banca", "win", 13.5)]  # 90% of 15, not rounded down
    table = coup([("punto", 1, 15)], "4C 2S 5H 3D")  # box 9 against Banca 5
    assert table.settlements(1) == [("punto", "win", 15)]


def test_art_10_decision_a_standoff_returns_punto_and_banca_bets() -> None:
    # Box 1: K + 8 = 8, Banca: 5 + 3 = 8: equal naturals.
    table = coup([("punto", 1, 25), ("banca", 1, 15)], "KC 5D 8S 3H")
    assert table.settlements(1) == [("punto", "push", 0), ("banca", "push", 0)]


# -- Art. 11: insurance ("cobertura o seguro") ---------------------------------------------
def test_art_11_insurance_on_a_banca_nine_pays_2_to_1_when_the_banca_has_a_natural_nine() -> None:
    table = GameTable()
    table.open([("punto", 1, 20), ("punto", 2, 7)])
    table.deal("2C 3C 9D 4H 3H")  # box 1: 6, box 2: 6; Banca's first card a nine
    (offer,) = table.of("insurance_offered")
    assert offer["seq"] > table.seq("card_turned")
    assert offer["boxes"] == [{"box": 1, "max": 10}, {"box": 2, "max": 3}]
    table.bet("insurance", 1, 10)
    table.deal("QS")  # Banca 9 + Q = 9, a natural nine
    assert table.settlements(1) == [("insurance", "win", 20), ("punto", "lose", -20)]
    with Refused("insurance_not_offered"):
        table.bet("insurance", 2, 3)  # closed by the Banca's second card


def test_art_11_insurance_is_lost_when_the_banca_has_no_natural_nine() -> None:
    table = GameTable()
    table.open([("punto", 1, 20)])
    table.deal("KC 9D 6H")  # box 1: 6
    table.bet("insurance", 1, 4)
    table.bet("insurance", 1, 6)  # 10 in all: 50% of 20
    table.deal("3S")  # Banca 9 + 3 = 2
    (settled,) = [s for s in table.of("settlement") if s["kind"] == "insurance"]
    assert (settled["amount"], settled["outcome"], settled["payout"]) == (10, "lose", -10)
    assert table.game.needs_card() == "banca"  # 2 against a box that stood on 6: draws


def test_art_11_insurance_over_half_of_the_punto_bet_is_refused() -> None:
    table = GameTable()
    table.open([("punto", 1, 20), ("banca", 2, 20)])
    table.deal("KC KD 9D 6H 6S")
    table.bet("insurance", 1, 6)
    with Refused("insurance_over_half"):
        table.bet("insurance", 1, 5)  # 11 > 50% of 20
    with Refused("insurance_without_punto"):
        table.bet("insurance", 2, 1)


def test_art_11_insurance_is_refused_unless_the_banca_first_card_is_a_nine() -> None:
    table = GameTable()
    table.game.open_bets(0)
    table.bet("punto", 1, 20)
    with Refused("insurance_not_offered"):
        table.bet("insurance", 1, 5)  # before any card
    table.game.no_more_bets(0)
    table.deal("KC 8D 6H")  # Banca's first card an eight
    with Refused("insurance_not_offered"):
        table.bet("insurance", 1, 5)


def test_art_11_decision_insurance_on_any_banca_natural_is_configurable() -> None:
    # 9 + 9 = 18: a natural eight. Wins under "banca_natural", not under the default.
    for rule, expected in (("banca_natural", "win"), ("natural_nine", "lose")):
        table = GameTable(insurance_pays_on=rule)
        table.open([("punto", 1, 20)])
        table.deal("KC 9D 6H")
        table.bet("insurance", 1, 10)
        table.deal("9S")
        insurance = [s for s in table.of("settlement") if s["kind"] == "insurance"]
        assert insurance[0]["outcome"] == expected


# -- the example trace (../shared/traces/mini-baccarat-two-coups.jsonl and its README) -----
def test_art_9a_9d_10_the_two_coups_of_the_example_trace_give_the_readme_outcomes() -> None:
    if not TRACE.exists():
        pytest.skip(f"example trace not found: {TRACE}")
    table = GameTable()
    game = table.game
    for line in TRACE.read_text().splitlines():
        event = json.loads(line)
        t = event["t"]
        if event.get("input") == "open_bets":
            game.open_bets(t)
        elif event.get("input") == "no_more_bets":
            game.no_more_bets(t)
        elif event.get("input") == "five_choice":
            game.five_choice(t, event["box"], event["choice"])
        elif "bet" in event:
            game.place_bet(BetPlaced(t, event["bet"], event["box"], event["amount"]))
        elif "serial" in event:
            text = event["text"].strip()
            assert text.startswith("[Game]<Card:") and text.endswith(">")
            game.card(t, parse_card(text[len("[Game]<Card:") : -1]))
    first, second = table.of("coup_result")
    assert first["banca"] == {"cards": ["3H", "4D"], "total": 7, "natural": False}
    assert [(b["box"], b["cards"], b["outcome"]) for b in first["boxes"]] == [
        (2, ["9S", "7C"], "banca"),
        (4, ["5H", "4H"], "punto"),
        (5, ["QC", "JS", "8D"], "punto"),
    ]
    assert second["banca"] == {"cards": ["8S", "QS"], "total": 8, "natural": True}
    assert [b["box"] for b in second["boxes"]] == [1, 2, 3, 4, 5]
    assert all(len(b["cards"]) == 2 and b["outcome"] == "banca" for b in second["boxes"])
    # records carry the time of the input that caused them: box 5's third card at 6.25 s
    # decides coup 1
    assert table.seq("card", coup=1, card="8D", hand="box 5") < first["seq"]
    assert first["t"] == 6.25
    # coup 1: Banca 10 on box 2 wins 90%; Punto 50 on box 4 wins; Banca 20 on box 5 loses
    coup1 = [(s["box"], s["kind"], s["payout"]) for s in table.of("settlement") if s["game"] == 1]
    assert sorted(coup1) == [(2, "banca", 9), (4, "punto", 50), (5, "banca", -20)]
