"""Mini-Bacará rules and coup sequence, article by article (seed 000, decree 217/978).

Every expectation below is worked out by hand from the decree and RULES.md §2 (the cards'
points, the tableau, the order of Art. 6 and 9), never copied from the code's output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards.card import full_deck, parse_card
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.games.mini_baccarat.game import (
    MiniBaccarat,
    banca_draws,
    box_draws,
    hand_total,
    is_encart,
    is_natural,
    outcome,
)

TRACE = Path(__file__).resolve().parents[1] / ".." / "shared" / "traces"
TRACE = TRACE / "mini-baccarat-two-coups.jsonl"

# The tableau of RULES.md §2, written out by hand: row = the Banca's two-card total,
# column = the points of the box's third card 0..9; "D" draw, "S" stand.
# "box drew: 0-2 draws; 3 draws unless the third card is 8; 4 draws on 2-7; 5 on 4-7;
#  6 on 6-7; 7 stands."
TABLEAU = {
    0: "DDDDDDDDDD",
    1: "DDDDDDDDDD",
    2: "DDDDDDDDDD",
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
    7: "SSSSSSSSSS",
}
# "when a box stood (no third card), the Banca draws on 0-5 and stands on 6-7"
BOX_STOOD = {0: "D", 1: "D", 2: "D", 3: "D", 4: "D", 5: "D", 6: "S", 7: "S"}

# Points by rank, from RULES.md: "Ten and figures count 0, ace 1".
POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0} | {str(n): n for n in range(2, 10)}


class Table:
    """A game with a list for a journal."""

    def __init__(self, **config: Any) -> None:
        self.records: list[dict[str, Any]] = []
        self.game = MiniBaccarat(self.emit, **config)
        self.t = 0.0

    def emit(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        record = {"type": type_, "seq": len(self.records) + 1, "t": self.t, **fields}
        self.records.append(record)
        return record

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == type_]

    def bet(self, kind: str, box: int, amount: int) -> None:
        self.t += 0.1
        self.game.place_bet(BetPlaced(self.t, kind, box, amount))

    def open(self, bets: list[tuple[str, int, int]], boxes: list[int] | None = None) -> None:
        self.game.open_bets(self.t)
        for kind, box, amount in bets:
            self.bet(kind, box, amount)
        self.game.no_more_bets(self.t, boxes)

    def deal(self, cards: str, fives: dict[int, str] | None = None) -> None:
        """Deal ``cards`` (space separated) in order; answer the five options when asked."""
        for text in cards.split():
            if self.game.state == "five_options":
                self.choose(fives or {})
            self.t += 0.1
            self.game.card(self.t, parse_card(text))
        if self.game.state == "five_options":
            self.choose(fives or {})

    def choose(self, fives: dict[int, str]) -> None:
        for box, choice in fives.items():
            self.game.five_choice(self.t, box, choice)

    def result(self, box: int) -> dict[str, Any]:
        (record,) = [r for r in self.of("box_result") if r["box"] == box]
        return record

    def settlements(self, box: int) -> list[tuple[str, str, int | float]]:
        return [
            (s["kind"], s["outcome"], s["payout"]) for s in self.of("settlement") if s["box"] == box
        ]

    def seq(self, type_: str, **match: Any) -> int:
        """The seq of the one record of ``type_`` whose fields include ``match``."""
        (record,) = [r for r in self.of(type_) if all(r.get(k) == v for k, v in match.items())]
        return int(record["seq"])


def coup(
    bets: list[tuple[str, int, int]],
    cards: str,
    fives: dict[int, str] | None = None,
    **config: Any,
) -> Table:
    table = Table(**config)
    table.open(bets)
    table.deal(cards, fives)
    return table


class _Refused:
    """``with _Refused("code"):`` asserts a RuleViolation with that code."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        assert exc_type is RuleViolation, f"expected RuleViolation {self.code}, got {exc_type}"
        assert exc.code == self.code
        return True


# ---------------------------------------------------------------------------------------
# Pure rules
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("banca_total", range(8))
@pytest.mark.parametrize("third", [None, *range(10)])
def test_tableau_every_banca_total_against_every_third_card(
    banca_total: int, third: int | None
) -> None:
    expected = BOX_STOOD[banca_total] if third is None else TABLEAU[banca_total][third]
    assert banca_draws(banca_total, third) is (expected == "D")


@pytest.mark.parametrize("banca_total", [8, 9])
@pytest.mark.parametrize("third", [None, *range(10)])
def test_art7_banca_natural_never_draws(banca_total: int, third: int | None) -> None:
    assert banca_draws(banca_total, third) is False


def test_box_draws_on_0_to_4_stands_on_6_to_9_and_chooses_on_five() -> None:
    for total in range(5):
        assert box_draws(total, None) is True
    for total in range(6, 10):
        assert box_draws(total, None) is False
    assert box_draws(5, "draw") is True  # "pedir", Art. 8
    assert box_draws(5, "stand") is False  # "plantar", Art. 8
    with pytest.raises(ValueError):
        box_draws(5, None)


def test_hand_totals_naturals_and_encart() -> None:
    cards = [parse_card(c) for c in ("9S", "7C", "KD")]
    assert hand_total(cards) == 6  # 9 + 7 + 0 = 16
    assert hand_total([parse_card("AS"), parse_card("7H")]) == 8
    assert is_natural([parse_card("AS"), parse_card("7H")])
    assert not is_natural([parse_card("AS"), parse_card("3H"), parse_card("4H")])  # 3 cards
    six, seven = [parse_card("3C"), parse_card("3D")], [parse_card("2C"), parse_card("5D")]
    assert is_encart(six, [parse_card("QH"), parse_card("6S")])
    assert is_encart(seven, [parse_card("4H"), parse_card("3S")])
    assert not is_encart(six, seven)
    assert outcome(six, seven) == "banca"
    assert outcome(seven, six) == "punto"
    assert outcome(six, [parse_card("6H"), parse_card("KS")]) == "standoff"


# ---------------------------------------------------------------------------------------
# Art. 6: dealing order
# ---------------------------------------------------------------------------------------


def test_art6_one_card_to_each_box_left_to_right_banca_face_down_then_second_cards() -> None:
    table = Table()
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


def test_art6_boxes_named_at_no_more_bets_are_dealt_even_without_bets() -> None:
    table = Table()
    table.open([("punto", 2, 10)], boxes=[2, 5])
    assert table.of("bets_closed")[0]["boxes"] == [2, 5]
    assert table.game.needs_card() == "box 2"
    table.game.card(0, parse_card("2C"))
    assert table.game.needs_card() == "box 5"


# ---------------------------------------------------------------------------------------
# Art. 8: five, "pedir" or "plantar"
# ---------------------------------------------------------------------------------------


def test_art8_a_box_with_five_waits_for_the_choice_before_the_banca_card_is_turned() -> None:
    table = Table()
    table.open([("punto", 1, 10)])
    table.deal("2C 4H 3D")  # box 1: 2 + 3 = 5
    assert table.game.state == "five_options"
    assert table.game.needs_card() is None
    assert table.of("card_turned") == []
    table.game.five_choice(0, 1, "draw")
    assert table.of("card_turned")[0]["card"] == "4H"
    assert table.game.needs_card() == "banca"


def test_art8_one_box_with_five_draws_another_stands_in_the_same_coup() -> None:
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


def test_art8_decision_a_box_with_five_and_no_punto_bet_stands_without_waiting() -> None:
    table = Table()
    table.open([("banca", 1, 10)])
    table.deal("2C 4H 3D")  # box 1 on five, only a Banca bet
    choices = [(r["box"], r["choice"], r["by"]) for r in table.of("five_choice")]
    assert choices == [(1, "stand", "rule")]
    assert table.game.needs_card() == "banca"
    with _Refused("late_five_choice"):  # the rule's choice is made and the card turned
        table.game.five_choice(0, 1, "draw")
    table.deal("5H")  # Banca 4 + 5 = 9, a natural
    assert table.result(1)["cards"] == ["2C", "3D"]


def test_art8_decision_a_box_with_five_and_no_punto_bet_may_not_choose() -> None:
    # Box 1 on five with a Banca bet only, box 2 on five with a Punto bet: the card stays
    # face down while box 2 has not chosen, and box 1 still may not choose.
    table = Table()
    table.open([("banca", 1, 10), ("punto", 2, 10)])
    table.deal("2C 4S 4H 3D AS")  # box 1: 2 + 3 = 5, box 2: 4 + 1 = 5
    assert table.of("card_turned") == []
    with _Refused("five_without_punto"):
        table.game.five_choice(0, 1, "draw")


def test_art8_the_choice_may_be_changed_while_the_banca_card_is_still_face_down() -> None:
    # Boxes 1 and 2 on five (2C 3D, 4S AS); the Banca's face-down card waits for both.
    table = Table()
    table.open([("punto", 1, 10), ("punto", 2, 10)])
    table.deal("2C 4S 4H 3D AS")
    table.game.five_choice(0, 1, "stand")
    table.game.five_choice(0, 1, "draw")  # box 2 has not chosen: the card is not turned
    assert table.of("card_turned") == []
    table.game.five_choice(0, 2, "stand")
    assert [r["card"] for r in table.of("card_turned")] == ["4H"]
    table.deal("KH")  # Banca 4: box 1 drew, so its third card comes first
    assert table.game.needs_card() == "box 1"


def test_art8_the_choice_is_final_once_the_banca_face_down_card_is_turned() -> None:
    # "Decidida la opción, el tallador descubrirá su carta tapada": after the turn, and
    # before the Banca's second card, a change is refused and the first choice stands.
    table = Table()
    table.open([("punto", 1, 10)])
    table.deal("2C 4H 3D", fives={1: "stand"})  # box 1: 5; the choice turns the 4H
    assert table.of("card_turned")[0]["card"] == "4H"
    with _Refused("late_five_choice"):
        table.game.five_choice(0, 1, "draw")
    with _Refused("late_five_choice"):
        table.game.five_choice(0, 1, "stand")  # repeating it is not a choice either
    assert [(r["box"], r["choice"]) for r in table.of("five_choice")] == [(1, "stand")]
    table.deal("KH")  # Banca 4 + 0 = 4 against a box that stood: the Banca draws
    assert table.game.needs_card() == "banca"


def test_art8_late_five_choice_is_refused_after_the_banca_second_card() -> None:
    table = Table()
    table.open([("punto", 1, 10)])
    table.deal("2C 4H 3D KH", fives={1: "stand"})
    with _Refused("late_five_choice"):
        table.game.five_choice(0, 1, "draw")


def test_art8_five_choice_refused_for_a_box_without_five_or_before_the_deal() -> None:
    table = Table()
    table.open([("punto", 1, 10), ("punto", 2, 10)])
    with _Refused("five_choice_not_due"):
        table.game.five_choice(0, 1, "draw")
    table.deal("2C 7C 4H 3D KD")  # box 1: 5, box 2: 7
    with _Refused("not_a_five"):
        table.game.five_choice(0, 2, "draw")
    with _Refused("bad_five_choice"):
        table.game.five_choice(0, 1, "maybe")


# ---------------------------------------------------------------------------------------
# Art. 9: the Banca against every box separately
# ---------------------------------------------------------------------------------------


def test_art9a_banca_natural_beats_every_box_without_natural() -> None:
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


def test_art9b_a_box_natural_beating_the_banca_natural_wins() -> None:
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


def test_art9c_box_natural_is_paid_at_once_and_play_continues() -> None:
    # Banca 3 + 2 = 5, no natural. Box 2: 6 + 3 = 9 is paid before any third card.
    # Box 1: A + 2 = 3 draws; box 3: 6 + K = 6 stands.
    table = Table()
    table.open([("punto", 1, 10), ("punto", 2, 10), ("punto", 3, 10)])
    table.deal("AC 6D 6S 3H 2C 3C KH 2D")
    assert table.result(2)["outcome"] == "punto"
    assert table.result(2)["article"] == "9c"
    assert table.settlements(2) == [("punto", "win", 10)]
    assert table.game.needs_card() == "box 1"
    table.deal("2H")  # box 1's third card, dealt after box 2 left the round
    assert table.seq("card", hand="box 1", card="2H") > table.seq("settlement", box=2)


def test_art9d_banca_seven_completes_the_boxes_left_to_right_then_settles_each() -> None:
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


def test_art9d_encart_both_seven_is_a_standoff_without_more_cards() -> None:
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


def test_art9d_encart_both_six_is_a_standoff_while_the_banca_draws_for_another_box() -> None:
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


def _art9e_coup() -> Table:
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


def test_art9e_banca_stands_against_some_boxes_and_draws_one_card_for_the_others() -> None:
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


def test_art9f_after_the_banca_third_card_boxes_are_settled_right_to_left() -> None:
    table = _art9e_coup()
    third = table.seq("card", hand="banca", card="KS")
    after = [r for r in table.of("box_result") if r["seq"] > third]
    assert [r["box"] for r in after] == [3, 2]
    assert all(r["banca_total"] == 4 and r["article"] == "9f" for r in after)
    assert [r["outcome"] for r in after] == ["punto", "punto"]
    assert table.game.state == "coup_over"


def test_art9g_each_box_losing_bets_are_collected_before_its_winners_are_paid() -> None:
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


# ---------------------------------------------------------------------------------------
# Art. 10: payouts
# ---------------------------------------------------------------------------------------


def test_art10_banca_wins_pay_90_percent_and_punto_even_money() -> None:
    # Banca 4 + 4 = 8, a natural, against box 1 (2 + 3 = 5) and box 2 (K + 7 = 7).
    table = coup([("banca", 1, 10), ("banca", 2, 15)], "2C KD 4S 3H 7D 4C")
    assert table.settlements(1) == [("banca", "win", 9)]
    assert table.settlements(2) == [("banca", "win", 13.5)]  # 90% of 15, not rounded down
    table = coup([("punto", 1, 15)], "4C 2S 5H 3D")  # box 9 against Banca 5
    assert table.settlements(1) == [("punto", "win", 15)]


def test_art10_decision_a_standoff_returns_punto_and_banca_bets() -> None:
    # Box 1: K + 8 = 8, Banca: 5 + 3 = 8: equal naturals.
    table = coup([("punto", 1, 25), ("banca", 1, 15)], "KC 5D 8S 3H")
    assert table.settlements(1) == [("punto", "push", 0), ("banca", "push", 0)]


# ---------------------------------------------------------------------------------------
# Art. 11: insurance ("cobertura o seguro")
# ---------------------------------------------------------------------------------------


def test_art11_insurance_on_a_banca_nine_pays_2_to_1_when_the_banca_has_a_natural_nine() -> None:
    table = Table()
    table.open([("punto", 1, 20), ("punto", 2, 7)])
    table.deal("2C 3C 9D 4H 3H")  # box 1: 6, box 2: 6; Banca's first card a nine
    (offer,) = table.of("insurance_offered")
    assert offer["seq"] > table.seq("card_turned")
    assert offer["boxes"] == [{"box": 1, "max": 10}, {"box": 2, "max": 3}]
    table.bet("insurance", 1, 10)
    table.deal("QS")  # Banca 9 + Q = 9, a natural nine
    assert table.settlements(1) == [("insurance", "win", 20), ("punto", "lose", -20)]
    with _Refused("insurance_not_offered"):
        table.bet("insurance", 2, 3)  # closed by the Banca's second card


def test_art11_insurance_is_lost_when_the_banca_has_no_natural_nine() -> None:
    table = Table()
    table.open([("punto", 1, 20)])
    table.deal("KC 9D 6H")  # box 1: 6
    table.bet("insurance", 1, 4)
    table.bet("insurance", 1, 6)  # 10 in all: 50% of 20
    table.deal("3S")  # Banca 9 + 3 = 2
    (settled,) = [s for s in table.of("settlement") if s["kind"] == "insurance"]
    assert (settled["amount"], settled["outcome"], settled["payout"]) == (10, "lose", -10)
    assert table.game.needs_card() == "banca"  # 2 against a box that stood on 6: draws


def test_art11_insurance_over_half_of_the_punto_bet_is_refused() -> None:
    table = Table()
    table.open([("punto", 1, 20), ("banca", 2, 20)])
    table.deal("KC KD 9D 6H 6S")
    table.bet("insurance", 1, 6)
    with _Refused("insurance_over_half"):
        table.bet("insurance", 1, 5)  # 11 > 50% of 20
    with _Refused("insurance_without_punto"):
        table.bet("insurance", 2, 1)


def test_art11_insurance_is_refused_unless_the_banca_first_card_is_a_nine() -> None:
    table = Table()
    table.game.open_bets(0)
    table.bet("punto", 1, 20)
    with _Refused("insurance_not_offered"):
        table.bet("insurance", 1, 5)  # before any card
    table.game.no_more_bets(0)
    table.deal("KC 8D 6H")  # Banca's first card an eight
    with _Refused("insurance_not_offered"):
        table.bet("insurance", 1, 5)


def test_art11_decision_insurance_on_any_banca_natural_is_configurable() -> None:
    # 9 + 9 = 18: a natural eight. Wins under "banca_natural", not under the default.
    for rule, expected in (("banca_natural", "win"), ("natural_nine", "lose")):
        table = Table(insurance_pays_on=rule)
        table.open([("punto", 1, 20)])
        table.deal("KC 9D 6H")
        table.bet("insurance", 1, 10)
        table.deal("9S")
        insurance = [s for s in table.of("settlement") if s["kind"] == "insurance"]
        assert insurance[0]["outcome"] == expected


# ---------------------------------------------------------------------------------------
# Refusals, misreads
# ---------------------------------------------------------------------------------------


def test_refusals_of_bets() -> None:
    table = Table(limits=(5, 100))
    table.game.open_bets(0)
    with _Refused("unknown_bet_kind"):
        table.bet("tie", 1, 10)
    with _Refused("unknown_box"):
        table.bet("punto", 6, 10)
    with _Refused("bad_amount"):
        table.bet("punto", 1, 0)
    with _Refused("below_minimum"):
        table.bet("punto", 1, 4)
    table.bet("punto", 1, 60)
    with _Refused("over_maximum"):
        table.bet("punto", 1, 41)  # 101 on the box (Art. 5: the box maximum)
    table.bet("banca", 1, 100)
    table.game.no_more_bets(0)
    with _Refused("bets_closed"):
        table.bet("punto", 2, 10)  # Art. 4: bets before the first card
    assert [(b["kind"], b["total"]) for b in table.of("bet_placed")] == [
        ("punto", 60),
        ("banca", 100),
    ]


def test_refusals_of_table_actions() -> None:
    table = Table()
    with _Refused("unexpected_card"):
        table.game.card(0, parse_card("2C"))
    with _Refused("bets_not_open"):
        table.game.no_more_bets(0)
    table.game.open_bets(0)
    with _Refused("coup_in_progress"):
        table.game.open_bets(0)
    with _Refused("no_boxes_in_play"):
        table.game.no_more_bets(0)
    table.bet("punto", 3, 10)
    with _Refused("bet_on_box_not_in_play"):
        table.game.no_more_bets(0, [1])
    table.game.no_more_bets(0)
    table.deal("2C 4H 3D")  # box 3 on five
    with _Refused("unexpected_card"):
        table.game.card(0, parse_card("KS"))  # the Banca's card waits for the choice
    table.game.five_choice(0, 3, "stand")
    table.deal("5S")  # Banca 9: a natural
    with _Refused("unexpected_card"):
        table.game.card(0, parse_card("KS"))
    assert table.game.state == "coup_over"
    table.game.open_bets(0)  # the next coup
    assert table.game.coup == 2


def test_misread_waits_for_the_dealer_correction_entered_by_hand() -> None:
    table = Table()
    table.open([("punto", 1, 10), ("punto", 2, 10)])
    table.deal("3C")
    table.game.misread(0)
    assert table.of("misread")[0]["hand"] == "box 2"
    assert table.game.needs_card() == "box 2"
    with _Refused("awaiting_correction"):
        table.game.card(0, parse_card("4D"))
    with _Refused("awaiting_correction"):
        table.game.misread(0)
    table.game.card(0, parse_card("4D"), manual=True)
    assert table.game.needs_card() == "banca"
    table.deal("KH")
    manual = [(c["hand"], c["card"], c["manual"]) for c in table.of("card")]
    assert manual == [("box 1", "3C", False), ("box 2", "4D", True), ("banca", "KH", False)]


# ---------------------------------------------------------------------------------------
# The example trace (../shared/traces/mini-baccarat-two-coups.jsonl and its README)
# ---------------------------------------------------------------------------------------


def test_the_two_coups_of_the_example_trace_give_the_readme_outcomes() -> None:
    if not TRACE.exists():
        pytest.skip(f"example trace not found: {TRACE}")
    table = Table()
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


# ---------------------------------------------------------------------------------------
# Property: random shoes and random boxes against an oracle written from RULES.md
# ---------------------------------------------------------------------------------------


def _total(cards: list[str]) -> int:
    return sum(POINTS[c[:-1]] for c in cards) % 10


def _banca_draws_oracle(banca_total: int, third: str | None) -> bool:
    if third is None:
        return BOX_STOOD[banca_total] == "D"
    return TABLEAU[banca_total][POINTS[third[:-1]]] == "D"


@st.composite
def _coups(draw: st.DrawFn) -> tuple[dict[int, tuple[bool, bool]], list[str], dict[int, str]]:
    boxes = draw(st.sets(st.integers(1, 5), min_size=1))
    bets = {b: draw(st.sampled_from([(True, False), (False, True), (True, True)])) for b in boxes}
    shoe = draw(st.lists(st.sampled_from([str(c) for c in full_deck()]), min_size=20, max_size=20))
    fives = {b: draw(st.sampled_from(["draw", "stand"])) for b in boxes}
    return bets, shoe, fives


@settings(max_examples=300, deadline=None)
@given(_coups())
def test_property_every_card_in_one_hand_and_only_the_cards_the_rules_need(
    case: tuple[dict[int, tuple[bool, bool]], list[str], dict[int, str]],
) -> None:
    bets, shoe, fives = case
    table = Table()
    game = table.game
    game.open_bets(0)
    for box, (punto, banca) in bets.items():
        if punto:
            table.bet("punto", box, 10)
        if banca:
            table.bet("banca", box, 10)
    game.no_more_bets(0)
    dealt = 0
    while game.state != "coup_over":
        if game.state == "five_options":
            for box in sorted(bets):
                if game.state != "five_options":
                    break
                if bets[box][0]:  # only a box with a Punto bet chooses (Art. 8 Decision)
                    try:
                        game.five_choice(0, box, fives[box])
                    except RuleViolation as refusal:
                        assert refusal.code == "not_a_five"
            assert game.state != "five_options"
            continue
        assert game.needs_card() is not None
        game.card(0, parse_card(shoe[dealt]))
        dealt += 1

    (result,) = table.of("coup_result")
    hands = {b["box"]: b["cards"] for b in result["boxes"]} | {0: result["banca"]["cards"]}
    # every card drawn is in exactly one hand, in the order it came out of the shoe
    assert sorted(c for h in hands.values() for c in h) == sorted(shoe[:dealt])
    assert [c["card"] for c in table.of("card")] == shoe[:dealt]
    assert all(2 <= len(h) <= 3 for h in hands.values())
    for b in result["boxes"]:
        assert b["total"] == _total(b["cards"])
    assert result["banca"]["total"] == _total(hands[0])

    # the oracle: who needed a third card, and who won
    banca2 = hands[0][:2]
    banca_natural = _total(banca2) >= 8
    banca_needs_third = False
    for box, cards in hands.items():
        if box == 0:
            continue
        two = _total(cards[:2])
        de_aire = banca_natural or two >= 8
        choice = fives[box] if bets[box][0] else "stand"
        box_draws_oracle = two <= 4 or (two == 5 and choice == "draw")
        assert (len(cards) == 3) is (not de_aire and box_draws_oracle)
        third = cards[2] if len(cards) == 3 else None
        draws_against = not de_aire and _banca_draws_oracle(_total(banca2), third)
        banca_needs_third |= draws_against
        opposed = hands[0] if draws_against else banca2
        p, q = _total(cards), _total(opposed)
        expected = "punto" if p > q else "banca" if q > p else "standoff"
        (box_result,) = [b for b in result["boxes"] if b["box"] == box]
        assert box_result["outcome"] == expected
    assert (len(hands[0]) == 3) is banca_needs_third


def test_a_journal_failure_leaves_the_card_slot_as_it_was() -> None:
    # base.py, Durability: the game acts only on a record the journal accepted.
    failing = {"card": False}
    records: list[str] = []

    def emit(type_: str, /, **fields: Any) -> dict[str, Any]:
        if failing["card"] and type_ == "card":
            raise OSError("journal unavailable")
        records.append(type_)
        return {"type": type_, **fields}

    game = MiniBaccarat(emit)
    game.open_bets(0)
    game.place_bet(BetPlaced(0, "punto", 1, 10))
    game.no_more_bets(0)
    game.card(0, parse_card("2C"))
    failing["card"] = True
    with pytest.raises(OSError):
        game.card(0, parse_card("3C"))
    assert game.needs_card() == "banca"
    failing["card"] = False
    game.card(0, parse_card("3C"))
    assert game.needs_card() == "box 1"
