"""Seed 000 (Mini-Bacará, Uruguay decree 217/978): its articles through the whole controller.

Each test writes a Mini-Bacará trace (CONTRACT §2: dealer inputs, bets, shoe lines of
CONTRACT §4) and replays it with ``table-controller replay``; the shoe is first made ready
by the new-decks procedure the card tables follow (seed 002 Art. 5, RULES.md §3). The cards
are put in the shoe in the order Art. 6 and 9 deal them (:func:`shoe_order`), and every
expected total, outcome and payout is worked out here from the articles (ten and figures
count 0, ace 1: the Punto y Banca rules Art. 1 applies), never taken from the controller.
Names follow tests/articles/README.md: ``test_art_9a_...`` tests Art. 9 (a).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from card_traces import Trace, play


def shoe_order(boxes: Mapping[int, Sequence[str]], banca: Sequence[str]) -> list[str]:
    """The shoe's cards in the dealing order of Art. 6 and 9 (d), (e), from each hand's cards.

    Art. 6: a first card to each box left to right, one face down to the Banca, a second
    card to each box, the Banca's second card; then (Art. 9 d, e) the boxes' third cards
    left to right, and last the Banca's third card.
    """
    order = [boxes[b][0] for b in sorted(boxes)] + [banca[0]]
    order += [boxes[b][1] for b in sorted(boxes)] + [banca[1]]
    order += [boxes[b][2] for b in sorted(boxes) if len(boxes[b]) > 2]
    return order + list(banca[2:])


def total(cards: Sequence[str]) -> int:
    """Punto y Banca points: the last digit of the sum; tens and figures 0, ace 1."""
    values = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}
    return sum(values[c[0]] if c[0] in values else int(c[0]) for c in cards) % 10


# ../shared/traces/README.md, coup 1: boxes 2, 4, 5 (Banca 10 on 2, Punto 50 on 4, Banca 20
# on 5). Box 2: 9S 7C = 6; box 4: 5H 4H = 9, a natural; box 5: QC JS = 0, draws 8D.
# Banca: 3H 4D = 7, stands.
COUP1_BOXES = {2: ("9S", "7C"), 4: ("5H", "4H"), 5: ("QC", "JS", "8D")}
COUP1_BANCA = ("3H", "4D")
COUP1_BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))


def coup1() -> Trace:
    return Trace().coup(COUP1_BETS, *shoe_order(COUP1_BOXES, COUP1_BANCA))


# -- Art. 2: five boxes ------------------------------------------------------------------
@pytest.mark.parametrize("box", [6, 9])
def test_art_2_only_the_five_numbered_boxes_take_bets(tmp_path: Path, box: int) -> None:
    run = play(tmp_path, Trace().inp("open_bets").bet("punto", box, 10).bet("punto", 5, 10))
    assert run.codes() == ["bet_refused"]
    assert [(b["box"], b["amount"]) for b in run.of("bet_placed")] == [(5, 10)]


# -- Art. 4: bets before any card ---------------------------------------------------------
def test_art_4_a_bet_after_no_more_bets_is_refused_and_not_settled(tmp_path: Path) -> None:
    trace = Trace().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    trace.bet("banca", 1, 10)  # "Las apuestas se harán previas a toda distribución de cartas"
    trace.cards(*shoe_order({1: ("9S", "TC")}, ("3H", "4D")))
    run = play(tmp_path, trace)
    assert run.codes() == ["bet_refused"]
    assert run.settlements() == [(1, "punto", 10, "win", 10)]  # 9 against 7


# -- Art. 6: the deal ----------------------------------------------------------------------
def test_art_6_boxes_left_to_right_then_the_banca_face_down_then_second_cards(
        tmp_path: Path) -> None:
    run = play(tmp_path, coup1())
    dealt = [(c["hand"], c["card"], c["face_down"]) for c in run.of("card")]
    assert dealt[:8] == [
        ("box 2", "9S", False), ("box 4", "5H", False), ("box 5", "QC", False),
        ("banca", "??", True),  # "una tapada para sí": its face not in the output
        ("box 2", "7C", False), ("box 4", "4H", False), ("box 5", "JS", False),
        ("banca", "4D", False)]
    (turned,) = run.of("card_turned")
    assert (turned["hand"], turned["card"]) == ("banca", "3H")


# -- Art. 8: a box with five chooses ---------------------------------------------------------
def test_art_8_the_banca_card_stays_face_down_until_the_box_on_five_chooses(
        tmp_path: Path) -> None:
    # Box 1: 3S 2C = 5; box 2: 4H 2H = 6. Banca 4D 3C = 7.
    trace = Trace().coup((("punto", 1, 10), ("banca", 2, 10)), "3S", "4H", "4D", "2C", "2H")
    trace.inp("five_choice", box=1, choice="stand").cards("3C")
    run = play(tmp_path, trace)
    assert not run.codes()
    (choice,) = run.of("five_choice")
    (turned,) = run.of("card_turned")
    assert (choice["box"], choice["choice"]) == (1, "stand")
    assert choice["seq"] < turned["seq"]
    assert turned["card"] == "4D"
    assert [b["total"] for b in run.result()["boxes"]] == [total(("3S", "2C")), total(("4H", "2H"))]
    assert run.settlements() == [(1, "punto", 10, "lose", -10),   # 5 against 7
                                 (2, "banca", 10, "win", 9)]      # Art. 10: 90%


# -- Art. 9: the Banca against each box ---------------------------------------------------------
def test_art_9a_a_banca_natural_beats_every_box_without_one(tmp_path: Path) -> None:
    # README coup 2 shape: the Banca 8S QS = 8; no box has a natural; no third cards.
    boxes = {1: ("2D", "4C"), 2: ("3S", "KC"), 3: ("7D", "TD")}  # 6, 3, 7
    trace = Trace().coup((("punto", 1, 20), ("banca", 2, 20), ("punto", 3, 50)),
                         *shoe_order(boxes, ("8S", "QS")))
    run = play(tmp_path, trace)
    result = run.result()
    assert result["banca"] == {"cards": ["8S", "QS"], "total": 8, "natural": True}
    assert all(len(b["cards"]) == 2 for b in result["boxes"])
    assert {b["box"]: b["outcome"] for b in result["boxes"]} == {1: "banca", 2: "banca",
                                                                3: "banca"}
    assert run.settlements() == [(1, "punto", 20, "lose", -20), (2, "banca", 20, "win", 18),
                                 (3, "punto", 50, "lose", -50)]


def test_art_9d_banca_on_7_stands_while_the_boxes_take_their_third_cards(tmp_path: Path) -> None:
    run = play(tmp_path, coup1())
    result = run.result()
    assert result["banca"]["cards"] == list(COUP1_BANCA)
    assert {b["box"]: (b["cards"], b["total"]) for b in result["boxes"]} == {
        b: (list(cards), total(cards)) for b, cards in COUP1_BOXES.items()}
    assert {b["box"]: b["outcome"] for b in result["boxes"]} == {2: "banca", 4: "punto",
                                                                5: "punto"}


def test_art_9d_both_seven_is_encart_a_standoff_without_more_cards(tmp_path: Path) -> None:
    # Box 1: 3S 4C = 7; Banca 2H 5D = 7. Art. 10 decision: a standoff returns the bets.
    trace = Trace().coup((("punto", 1, 10), ("banca", 1, 10)),
                         *shoe_order({1: ("3S", "4C")}, ("2H", "5D")))
    run = play(tmp_path, trace)
    (box,) = run.result()["boxes"]
    assert box["cards"] == ["3S", "4C"] and box["outcome"] not in ("punto", "banca")
    assert run.settlements() == [(1, "banca", 10, "push", 0), (1, "punto", 10, "push", 0)]


# -- Art. 10: the Banca's 10% ---------------------------------------------------------------
def test_art_10_banca_bets_are_paid_90_percent_punto_bets_even_money(tmp_path: Path) -> None:
    run = play(tmp_path, coup1())
    assert run.settlements() == [(2, "banca", 10, "win", 10 * 0.9),   # 6 against 7
                                 (4, "punto", 50, "win", 50),         # natural 9 against 7
                                 (5, "banca", 20, "lose", -20)]       # 8 against 7


# -- Art. 11: insurance ------------------------------------------------------------------
def test_art_11_insurance_up_to_half_the_punto_bet_when_the_banca_shows_a_nine(
        tmp_path: Path) -> None:
    # Box 1: 2C 4D = 6 stands; the Banca's first card, turned, is 9H; then KS: 9.
    trace = Trace().coup((("punto", 1, 100),), "2C", "9H", "4D")
    trace.bet("insurance", 1, 51)  # over 50% of the Punto bet: refused
    trace.bet("insurance", 1, 50).cards("KS")
    run = play(tmp_path, trace)
    assert run.codes() == ["bet_refused"]
    assert run.settlements() == [(1, "insurance", 50, "win", 2 * 50),  # "se pagan doble"
                                 (1, "punto", 100, "lose", -100)]
