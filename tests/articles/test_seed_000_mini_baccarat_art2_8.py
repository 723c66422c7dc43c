"""Seed 000 (Mini-Bacará, decree 217/978) Art. 2, 4-6 and 8, on the game itself (the
Mini-Bacará state machine of controller/games/mini_baccarat/, its records on a list): the
bets the layout takes, the dealing order, and the box on five.

Every expectation is worked out by hand from the decree and RULES.md §2 (the cards' points,
the tableau, the order of Art. 6 and 9), never copied from the code's output. The same
articles through the whole controller (``replay``) are in test_seed_000_mini_baccarat.py.
"""

from __future__ import annotations

from mini_baccarat_helpers import GameTable, Refused, coup

from controller.cards.card import parse_card


# -- Art. 2, 4, 5: the bets the layout takes, before the first card ------------------------
def test_art_2_4_5_refusals_of_bets_off_the_layout_over_the_box_maximum_or_after_the_deal() -> None:
    table = GameTable(limits=(5, 100))
    table.game.open_bets(0)
    with Refused("unknown_bet_kind"):
        table.bet("tie", 1, 10)
    with Refused("unknown_box"):
        table.bet("punto", 6, 10)
    with Refused("bad_amount"):
        table.bet("punto", 1, 0)
    with Refused("below_minimum"):
        table.bet("punto", 1, 4)
    table.bet("punto", 1, 60)
    with Refused("over_maximum"):
        table.bet("punto", 1, 41)  # 101 on the box (Art. 5: the box maximum)
    table.bet("banca", 1, 100)
    table.game.no_more_bets(0)
    with Refused("bets_closed"):
        table.bet("punto", 2, 10)  # Art. 4: bets before the first card
    assert [(b["kind"], b["total"]) for b in table.of("bet_placed")] == [
        ("punto", 60),
        ("banca", 100),
    ]


def test_art_5_6_8_refusals_of_table_actions_out_of_the_coup_sequence() -> None:
    table = GameTable()
    with Refused("unexpected_card"):
        table.game.card(0, parse_card("2C"))
    with Refused("bets_not_open"):
        table.game.no_more_bets(0)
    table.game.open_bets(0)
    with Refused("coup_in_progress"):
        table.game.open_bets(0)
    with Refused("no_boxes_in_play"):
        table.game.no_more_bets(0)
    table.bet("punto", 3, 10)
    with Refused("bet_on_box_not_in_play"):
        table.game.no_more_bets(0, [1])
    table.game.no_more_bets(0)
    table.deal("2C 4H 3D")  # box 3 on five
    with Refused("unexpected_card"):
        table.game.card(0, parse_card("KS"))  # the Banca's card waits for the choice
    table.game.five_choice(0, 3, "stand")
    table.deal("5S")  # Banca 9: a natural
    with Refused("unexpected_card"):
        table.game.card(0, parse_card("KS"))
    assert table.game.state == "coup_over"
    table.game.open_bets(0)  # the next coup
    assert table.game.coup == 2


# -- Art. 6: dealing order -----------------------------------------------------------------
def test_art_6_one_card_to_each_box_left_to_right_banca_face_down_then_second_cards() -> None:
    table = GameTable()
    table.open([("punto", 3, 10), ("banca", 1, 10)])
    asked = []
    for text in ("2C", "3C", "4C", "KC", "KD"):
        asked.append(table.game.needs_card())
        table.game.card(0, parse_card(text))
    assert asked == ["box 1", "box 3", "banca", "box 1", "box 3"]
    cards = table.of("card")
    assert [(c["hand"], c["card"], c["face_down"]) for c in cards] == [
        ("box 1", "2C", False),
        ("box 3", "3C", False),
        ("banca", "4C", True),
        ("box 1", "KC", False),
        ("box 3", "KD", False),
    ]
    # No five: the dealer turns his card and the Banca's second card is due.
    (turned,) = table.of("card_turned")
    assert turned["card"] == "4C" and turned["seq"] > cards[-1]["seq"]
    assert table.game.needs_card() == "banca"


def test_art_6_boxes_named_at_no_more_bets_are_dealt_even_without_bets() -> None:
    table = GameTable()
    table.open([("punto", 2, 10)], boxes=[2, 5])
    assert table.of("bets_closed")[0]["boxes"] == [2, 5]
    assert table.game.needs_card() == "box 2"
    table.game.card(0, parse_card("2C"))
    assert table.game.needs_card() == "box 5"


# -- Art. 8: five, "pedir" or "plantar" ----------------------------------------------------
def test_art_8_a_box_with_five_waits_for_the_choice_before_the_banca_card_is_turned() -> None:
    table = GameTable()
    table.open([("punto", 1, 10)])
    table.deal("2C 4H 3D")  # box 1: 2 + 3 = 5
    assert table.game.state == "five_options"
    assert table.game.needs_card() is None
    assert table.of("card_turned") == []
    table.game.five_choice(0, 1, "draw")
    assert table.of("card_turned")[0]["card"] == "4H"
    assert table.game.needs_card() == "banca"


def test_art_8_one_box_with_five_draws_another_stands_in_the_same_coup() -> None:
    # Box 1: 2 + 3 = 5, draws; box 2: 4 + A = 5, stands. Banca: 2 + 3 = 5.
    # Box 1's third card 2 -> 7; Banca 5 against a third card of 2 stands (draws on 4-7):
    # 7 beats 5, Punto. Box 2 stood: Banca 5 draws (0-5); its third card 3 -> 8 beats 5.
    table = coup(
        [("punto", 1, 10), ("punto", 2, 10)],
        "2C 4S 2H 3D AS 3C 2D 3H",
        fives={1: "draw", 2: "stand"},
    )
    choices = {r["box"]: (r["choice"], r["by"]) for r in table.of("five_choice")}
    assert choices == {1: ("draw", "dealer"), 2: ("stand", "dealer")}
    assert table.result(1)["cards"] == ["2C", "3D", "2D"]
    assert table.result(2)["cards"] == ["4S", "AS"]
    assert table.result(1)["outcome"] == "punto"
    assert table.result(1)["banca_cards"] == ["2H", "3C"]  # the Banca stood against box 1
    assert table.result(2)["outcome"] == "banca"
    assert table.result(2)["banca_cards"] == ["2H", "3C", "3H"]
    assert table.game.state == "coup_over"


def test_art_8_decision_a_box_with_five_and_no_punto_bet_stands_without_waiting() -> None:
    table = GameTable()
    table.open([("banca", 1, 10)])
    table.deal("2C 4H 3D")  # box 1 on five, only a Banca bet
    choices = [(r["box"], r["choice"], r["by"]) for r in table.of("five_choice")]
    assert choices == [(1, "stand", "rule")]
    assert table.game.needs_card() == "banca"
    with Refused("late_five_choice"):  # the rule's choice is made and the card turned
        table.game.five_choice(0, 1, "draw")
    table.deal("5H")  # Banca 4 + 5 = 9, a natural
    assert table.result(1)["cards"] == ["2C", "3D"]


def test_art_8_decision_a_box_with_five_and_no_punto_bet_may_not_choose() -> None:
    # Box 1 on five with a Banca bet only, box 2 on five with a Punto bet: the card stays
    # face down while box 2 has not chosen, and box 1 still may not choose.
    table = GameTable()
    table.open([("banca", 1, 10), ("punto", 2, 10)])
    table.deal("2C 4S 4H 3D AS")  # box 1: 2 + 3 = 5, box 2: 4 + 1 = 5
    assert table.of("card_turned") == []
    with Refused("five_without_punto"):
        table.game.five_choice(0, 1, "draw")


def test_art_8_the_choice_may_be_changed_while_the_banca_card_is_still_face_down() -> None:
    # Boxes 1 and 2 on five (2C 3D, 4S AS); the Banca's face-down card waits for both.
    table = GameTable()
    table.open([("punto", 1, 10), ("punto", 2, 10)])
    table.deal("2C 4S 4H 3D AS")
    table.game.five_choice(0, 1, "stand")
    table.game.five_choice(0, 1, "draw")  # box 2 has not chosen: the card is not turned
    assert table.of("card_turned") == []
    table.game.five_choice(0, 2, "stand")
    assert [r["card"] for r in table.of("card_turned")] == ["4H"]
    table.deal("KH")  # Banca 4: box 1 drew, so its third card comes first
    assert table.game.needs_card() == "box 1"


def test_art_8_the_choice_is_final_once_the_banca_face_down_card_is_turned() -> None:
    # "Decidida la opción, el tallador descubrirá su carta tapada": after the turn, and
    # before the Banca's second card, a change is refused and the first choice stands.
    table = GameTable()
    table.open([("punto", 1, 10)])
    table.deal("2C 4H 3D", fives={1: "stand"})  # box 1: 5; the choice turns the 4H
    assert table.of("card_turned")[0]["card"] == "4H"
    with Refused("late_five_choice"):
        table.game.five_choice(0, 1, "draw")
    with Refused("late_five_choice"):
        table.game.five_choice(0, 1, "stand")  # repeating it is not a choice either
    assert [(r["box"], r["choice"]) for r in table.of("five_choice")] == [(1, "stand")]
    table.deal("KH")  # Banca 4 + 0 = 4 against a box that stood: the Banca draws
    assert table.game.needs_card() == "banca"


def test_art_8_late_five_choice_is_refused_after_the_banca_second_card() -> None:
    table = GameTable()
    table.open([("punto", 1, 10)])
    table.deal("2C 4H 3D KH", fives={1: "stand"})
    with Refused("late_five_choice"):
        table.game.five_choice(0, 1, "draw")


def test_art_8_five_choice_refused_for_a_box_without_five_or_before_the_deal() -> None:
    table = GameTable()
    table.open([("punto", 1, 10), ("punto", 2, 10)])
    with Refused("five_choice_not_due"):
        table.game.five_choice(0, 1, "draw")
    table.deal("2C 7C 4H 3D KD")  # box 1: 5, box 2: 7
    with Refused("not_a_five"):
        table.game.five_choice(0, 2, "draw")
    with Refused("bad_five_choice"):
        table.game.five_choice(0, 1, "maybe")
