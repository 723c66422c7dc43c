"""Seed 000 (Mini-Bacará, decree 217/978): its articles through the whole controller.

Each test writes a Mini-Bacará trace (CONTRACT §2: dealer inputs, bets, shoe lines of
CONTRACT §4) and replays it with ``table-controller replay``; the shoe is first made ready
by the new-decks procedure the card tables follow (seed 002 Art. 5, RULES.md §3). The cards
are put in the shoe in the order Art. 6 and 9 deal them (:func:`shoe_order`), and every
expected total, outcome and payout is worked out here from the articles (ten and figures
count 0, ace 1: the Punto y Banca rules Art. 1 applies), never taken from the controller.
Traces are built with card_traces.py (``Trace``, ``play``); the tests that came from
tests/test_card_table.py keep its builder, shared with it in tests/mini_baccarat_helpers.py
(``Deal``, ``replay_deal``). The Art. 2 tests of the config (four decks, five boxes) load
it with the daemon's loader.

The same articles on the game itself: test_seed_000_mini_baccarat_art1_rules.py (the
tableau, the exact analysis), _art2_8.py and _art9_11.py. Names follow
tests/articles/README.md: ``test_art_9a_...`` tests Art. 9 (a).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from card_traces import Trace, play
from mini_baccarat_helpers import Deal, ready, replay_deal, write_mini

from controller.cli import main as cli
from controller.cli.compose import load_config
from controller.core.errors import ConfigError

MINI_DECKS = "decks = 4                      # seed 000 Art. 2"


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


def banca_win(amount: int) -> float:
    """Seed 000 Art. 10: a winning Banca bet is paid 90% of the stake."""
    return amount * 9 / 10


# ../shared/traces/README.md, coup 1: boxes 2, 4, 5 (Banca 10 on 2, Punto 50 on 4, Banca 20
# on 5). Box 2: 9S 7C = 6; box 4: 5H 4H = 9, a natural; box 5: QC JS = 0, draws 8D.
# Banca: 3H 4D = 7, stands.
COUP1_BOXES = {2: ("9S", "7C"), 4: ("5H", "4H"), 5: ("QC", "JS", "8D")}
COUP1_BANCA = ("3H", "4D")
COUP1_BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))


def coup1() -> Trace:
    return Trace().coup(COUP1_BETS, *shoe_order(COUP1_BOXES, COUP1_BANCA))


# -- Art. 2: five boxes, a sabot of four decks ----------------------------------------------
@pytest.mark.parametrize("box", [6, 9, 99])
def test_art_2_only_the_five_numbered_boxes_take_bets(tmp_path: Path, box: int) -> None:
    deal = ready().inp("open_bets").bet("punto", box, 10).bet("punto", 5, 10)
    deal.inp("no_more_bets").cards("9S", "3H", "TC", "4D")
    run = replay_deal(tmp_path, deal)
    (refused,) = run.alarms()
    assert refused["code"] == "bet_refused" and "unknown_box" in refused["message"]
    assert [(r["box"], r["amount"]) for r in run.of("bet_placed")] == [(5, 10)]
    assert run.outcomes(1) == {5: "punto"}  # 9S TC = 9 against 3H 4D = 7


def test_art_2_a_card_over_the_4_deck_count_stops_play_until_the_inspector_clears(
        tmp_path: Path) -> None:
    # The burn is the first 7H; box 1 gets 7H 7H, the Banca 7H face down: the Banca's
    # second 7H is a fifth 7H in the sabot's 4 decks (the check: seed 002 Art. 4, RULES.md §3).
    deal = ready(burn="7H").coup((("punto", 1, 10),), "7H", "7H", "7H", "7H")
    deal.cards("QD").inp("open_bets")  # refused while stopped
    deal.inp("inspector_clear", note="deck checked").cards("QD", "5C")
    run = replay_deal(tmp_path, deal)
    over = run.alarms("card_over_count")
    assert len(over) == 1 and over[0]["stops_play"] is True
    while_stopped = run.alarms("card_while_stopped")
    assert [a["card"] for a in while_stopped] == ["QD"]
    assert len(run.alarms("play_stopped")) == 1  # the open_bets while stopped
    clear = run.of("inspector_clear")
    assert len(clear) == 1 and clear[0]["cleared"] == ["card_over_count"]
    # Only after the clearance does play go on: QD is the Banca's second card.
    assert run.cards() == [("box 1", "7H"), ("banca", "??"), ("box 1", "7H"),
                           ("banca", "QD"), ("box 1", "5C")]
    assert all(r["seq"] > clear[0]["seq"] for r in run.of("card")[3:])
    # Box 7H 7H 5C = 9 against Banca 7H QD = 7.
    assert run.outcomes(1) == {1: "punto"}


@pytest.mark.parametrize("left_out", ("shuffle", "cut", "load"))
def test_art_2_the_sabot_after_the_cut_card_is_shuffled_cut_and_loaded_again(
        tmp_path: Path, left_out: str) -> None:
    # The sabot follows the card tables' procedures (seed 002 Art. 6 a-c, RULES.md §3):
    # with a step left out after the cut card, no coup opens.
    steps = [s for s in ("shuffle", "cut", "load") if s != left_out]
    trace = Trace().burn_until(104).line("[Cut]").count_out().procedure(steps, burn="KD")
    run = play(tmp_path, trace.coup(COUP1_BETS, *shoe_order(COUP1_BOXES, COUP1_BANCA)))
    assert run.alarms("shoe_not_ready") and "seed 002 Art. 6" in str(run.alarms())
    assert not run.of("coup_start") and not run.of("card")


def test_art_2_the_sabot_closed_at_the_cut_card_is_counted_out_complete(tmp_path: Path) -> None:
    # The four decks checked complete (seed 002 Art. 4, RULES.md §3) before the sabot is
    # shuffled again: a 9D never seen calls for new decks, not the Art. 6 procedure.
    trace = Trace().burn_until(104).line("[Cut]").count_out(missing=("9D",))
    run = play(tmp_path, trace.procedure(("shuffle", "cut", "load"), burn="KD"))
    (counted,) = run.of("count_out")
    assert counted["missing"] == ["9D"] and counted["cards"] == 103
    (short,) = [a for a in run.alarms("decks_incomplete") if "missing" in a]
    assert "9D" in short["message"] and "seed 002 Art. 4" in short["message"]
    assert not [s for s in run.of("shoe_procedure") if s["procedure"] == "cut_card"]


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_art_2_a_trace_for_another_number_of_decks_is_refused(tmp_path: Path,
                                                              decks: int) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(o) + "\n" for o in Deal(decks).objects))
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = cli.main(["replay", str(trace), "--journal", str(tmp_path / "j.sqlite")])
    assert rc == 2
    (line,) = err.getvalue().splitlines()
    assert str(trace) in line and "meta.decks" in line and "seed 000 Art. 2" in line


@pytest.mark.parametrize(("new", "key"), [
    ("decks = 1", "mini_baccarat.decks"),
    ("decks = 6", "mini_baccarat.decks"),
    ("decks = 8", "mini_baccarat.decks"),
    ("boxes = 6\ndecks = 4", "mini_baccarat.boxes"),
    ("boxes = 4\ndecks = 4", "mini_baccarat.boxes"),
])
def test_art_2_a_mini_baccarat_table_is_four_decks_and_five_boxes(tmp_path: Path, new: str,
                                                                   key: str) -> None:
    path, line = write_mini(tmp_path, MINI_DECKS, new)
    with pytest.raises(ConfigError) as err:
        load_config(str(path))
    exc = err.value
    assert (exc.path, exc.line, exc.field) == (str(path), line, key)
    assert "seed 000 Art. 2" in exc.message


def test_art_2_the_decree_values_written_out_are_accepted(tmp_path: Path) -> None:
    path, _ = write_mini(tmp_path, MINI_DECKS, "decks = 4\nboxes = 5")
    mini = load_config(str(path)).rules
    assert (mini.decks, mini.boxes) == (4, 5)


@pytest.mark.parametrize(("meta", "key"), [({"decks": 6}, "meta.decks"),
                                           ({"boxes": 7}, "meta.boxes"),
                                           ({"decks": True}, "meta.decks")])
def test_art_2_a_trace_meta_for_another_table_is_an_error(meta: dict[str, object],
                                                          key: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config("embedded:mini-baccarat-sim.toml", meta)
    assert (err.value.line, err.value.field) == (1, key)


# -- Art. 4: bets before any card ---------------------------------------------------------
def test_art_4_a_bet_after_no_more_bets_is_refused_and_not_settled(tmp_path: Path) -> None:
    trace = Trace().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    trace.bet("banca", 1, 10)  # "Las apuestas se harán previas a toda distribución de cartas"
    trace.cards(*shoe_order({1: ("9S", "TC")}, ("3H", "4D")))
    run = play(tmp_path, trace)
    assert run.codes() == ["bet_refused"]
    assert run.settlements() == [(1, "punto", 10, "win", 10)]  # 9 against 7


# -- Art. 5: one seated bettor opens; bets add up on a box, within its maximum -------------
def test_art_5_one_bettor_on_one_box_opens_and_bets_add_up_to_the_box_maximum(
        tmp_path: Path) -> None:
    # "será suficiente con un apostador sentado ... acumulando su apuesta a las ya existentes
    # ... no exceder los máximos de cada casillero". The replay's config is the embedded
    # default (controller/data/default.toml): [limits] max_bet = 1000.
    trace = Trace().inp("open_bets").bet("punto", 3, 600).bet("punto", 3, 400)
    trace.bet("punto", 3, 5)  # 1005 on the box: over its maximum, refused
    trace.inp("no_more_bets").cards(*shoe_order({3: ("9S", "TC")}, ("3H", "4D")))
    run = play(tmp_path, trace)
    assert run.codes() == ["bet_refused"]
    assert "box maximum" in run.alarms("bet_refused")[0]["message"]
    assert [(b["amount"], b["total"]) for b in run.of("bet_placed")] == [(600, 600),
                                                                          (400, 1000)]
    assert [b["box"] for b in run.result()["boxes"]] == [3]  # the only box in play
    assert run.settlements() == [(3, "punto", 1000, "win", 1000)]  # 9 against 7


def test_art_4_5_a_bet_on_another_s_box_needs_its_holder_s_authorization(
        tmp_path: Path) -> None:
    # Art. 4 "Puede intervenir en el juego de sus vecinos, previa la respectiva
    # autorización"; Art. 5 "Los apostadores de pie no pueden apostar en casilleros sin
    # apuestas. Sólo pueden acompañar aumentando las existentes hasta el máximo".
    trace = Trace().inp("open_bets")
    trace.add(bet="banca", box=2, amount=10, by="standing", authorized=True)  # empty box
    trace.add(bet="punto", box=3, amount=10, by="seated", authorized=True)  # seated: may
    trace.add(bet="punto", box=3, amount=10, by="standing")  # no authorization said
    trace.add(bet="punto", box=3, amount=995, by="standing", authorized=True)  # over max
    trace.add(bet="punto", box=3, amount=20, by="standing", authorized=True)
    trace.inp("no_more_bets").cards(*shoe_order({3: ("9S", "TC")}, ("3H", "4D")))
    run = play(tmp_path, trace)
    reasons = [a["message"] for a in run.alarms("bet_refused")]
    assert "standing_on_empty_box" in reasons[0] and "not_authorized" in reasons[1]
    assert "box maximum" in reasons[2] and len(reasons) == 3
    assert [(b.get("by"), b["total"]) for b in run.of("bet_placed")] == [("seated", 10),
                                                                          ("standing", 30)]
    assert run.settlements() == [(3, "punto", 30, "win", 30)]  # 9 against 7


def test_art_5_a_standing_player_only_adds_to_the_kind_of_bet_the_box_holds(
        tmp_path: Path) -> None:
    # "Sólo pueden acompañar aumentando las existentes hasta el máximo a casillero": box 1
    # holds a Punto bet only, so a standing player adds to it; he opens no Banca bet there.
    trace = Trace().inp("open_bets").bet("punto", 1, 600)
    trace.add(bet="banca", box=1, amount=900, by="standing", authorized=True)
    trace.add(bet="punto", box=1, amount=300, by="standing", authorized=True)
    trace.inp("no_more_bets").cards(*shoe_order({1: ("9H", "9C")}, ("3D", "4S")))
    run = play(tmp_path, trace)
    (refused,) = run.alarms("bet_refused")
    assert "banca of 900 on box 1" in refused["message"]
    assert [(b["kind"], b["total"]) for b in run.of("bet_placed")] == [("punto", 600),
                                                                        ("punto", 900)]
    # Box 1 9H 9C = 8, a natural, beats the Banca's 3D 4S = 7 (Art. 7, 9 c): Punto 900
    # wins even money; no Banca bet to lose.
    assert run.settlements() == [(1, "punto", 900, "win", 900)]


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


# -- Art. 7: "pases de aire" -------------------------------------------------------------
def test_art_7_9b_a_box_natural_beats_a_banca_natural_and_nobody_takes_a_third_card(
        tmp_path: Path) -> None:
    # Box 1: 4C 5C = 9; box 2: 2D AD = 3 (it would draw); Banca 5H 3S = 8. Both naturals
    # decide at once, "de aire": box 1's 9 beats the Banca's 8 (Art. 9 b: its Punto bet paid,
    # its Banca bet collected); the Banca's 8 beats box 2's 3 (Art. 9 a).
    boxes = {1: ("4C", "5C"), 2: ("2D", "AD")}
    trace = Trace().coup((("punto", 1, 10), ("banca", 1, 20), ("punto", 2, 10),
                          ("banca", 2, 10)), *shoe_order(boxes, ("5H", "3S")))
    run = play(tmp_path, trace)
    assert not run.codes()
    assert len(run.of("card")) == 6  # two cards each: no third card for anybody
    result = run.result()
    assert result["banca"] == {"cards": ["5H", "3S"], "total": 8, "natural": True}
    assert {b["box"]: (b["total"], b["natural"], b["outcome"]) for b in result["boxes"]} == {
        1: (9, True, "punto"), 2: (3, False, "banca")}
    assert run.settlements() == [(1, "banca", 20, "lose", -20), (1, "punto", 10, "win", 10),
                                 (2, "banca", 10, "win", 9), (2, "punto", 10, "lose", -10)]


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


def test_art_8_five_choice_after_the_banca_second_card_is_late(tmp_path: Path) -> None:
    # Box 1 (Punto) 2C 3D = 5, box 2 AH 3S = 4; Banca 3H 3C = 6.
    deal = ready().coup((("punto", 1, 10), ("punto", 2, 10)), "2C", "AH", "3H", "3D", "3S")
    deal.inp("five_choice", box=1, choice="stand").cards("3C")
    deal.inp("five_choice", box=1, choice="draw")  # after the Banca's second card
    deal.cards("5D")  # box 2's third card: 9
    run = replay_deal(tmp_path, deal)
    (late,) = run.alarms()
    assert late["code"] == "late_five_choice"
    assert [(r["box"], r["choice"]) for r in run.of("five_choice")] == [(1, "stand")]
    assert run.outcomes(1) == {1: "banca", 2: "punto"}
    assert run.cards()[-1] == ("box 2", "5D")


def test_art_8_five_choice_changed_after_the_face_down_card_is_turned_is_refused(
        tmp_path: Path) -> None:
    # Seed 000 Art. 8: "Decidida la opción, el tallador descubrirá su carta tapada". Box 1
    # (Punto) 2C 3D = 5 stands, box 2 AH 3S = 4; the choice turns the Banca's 3H. The
    # change to "draw", before the Banca's second card, comes too late.
    deal = ready().coup((("punto", 1, 10), ("punto", 2, 10)), "2C", "AH", "3H", "3D", "3S")
    deal.inp("five_choice", box=1, choice="stand")
    deal.inp("five_choice", box=1, choice="draw")  # after the turn: refused
    deal.cards("3C", "5D")  # Banca 3H 3C = 6; box 2 draws 5D: 9; the Banca stands on 6
    run = replay_deal(tmp_path, deal)
    (late,) = run.alarms()
    assert late["code"] == "late_five_choice" and "carta tapada" in late["message"]
    (turned,) = run.of("card_turned")
    assert turned["seq"] < late["seq"]
    assert [(r["box"], r["choice"]) for r in run.of("five_choice")] == [(1, "stand")]
    assert run.cards()[-2:] == [("banca", "3C"), ("box 2", "5D")]  # box 1 took no third card
    assert run.outcomes(1) == {1: "banca", 2: "punto"}  # 5 against 6; 9 against 6


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


def test_art_9c_a_box_natural_is_paid_before_the_boxes_a_definir_take_a_third_card(
        tmp_path: Path) -> None:
    # Banca 3D 2D = 5, no natural. Box 2: 6D 3S = 9, a natural, paid at once ("el pagador
    # pagará sus apuestas ... procediendo a continuar ... con el resto de los pases a
    # definir"). Box 1: AC 2C = 3 draws 3C: 6; the Banca's 5 stands against a third card of
    # 3 (it draws on 4-7): 6 beats 5. Box 3: 6S KH = 6 stands; the Banca's 5 draws against
    # it: KC, 5; 6 beats 5.
    boxes = {1: ("AC", "2C", "3C"), 2: ("6D", "3S"), 3: ("6S", "KH")}
    trace = Trace().coup(tuple(("punto", b, 10) for b in boxes),
                         *shoe_order(boxes, ("3D", "2D", "KC")))
    run = play(tmp_path, trace)
    assert not run.codes()
    (paid,) = [s for s in run.of("settlement") if s["box"] == 2]
    (third,) = [c for c in run.of("card") if c["card"] == "3C"]
    assert (paid["outcome"], paid["payout"]) == ("win", 10)
    assert third["hand"] == "box 1" and paid["seq"] < third["seq"]
    assert {b["box"]: b["outcome"] for b in run.result()["boxes"]} == {1: "punto", 2: "punto",
                                                                      3: "punto"}


def test_art_9_9e_9f_one_banca_hand_stands_against_some_boxes_then_draws_once_for_the_rest(
        tmp_path: Path) -> None:
    # Banca 2S 2C = 4. Box 1: 3C KC = 3 draws 8C: 1; the Banca's 4 stands against an 8.
    # Box 2: 5D 5H = 0 draws 5S: 5; the Banca's 4 draws against a 5. Box 3: 6S KD = 6 stands;
    # the Banca draws against a box that stood. Box 4: 2H KH = 2 draws AD: 3; the Banca's 4
    # stands against an ace. Art. 9 e: boxes 1 and 4 settled first, left to right, on the
    # Banca's two cards (4 beats 1 and 3); then one third card, KS: 4; Art. 9 f: boxes 3 and
    # 2, right to left (6 and 5 beat 4).
    boxes = {1: ("3C", "KC", "8C"), 2: ("5D", "5H", "5S"), 3: ("6S", "KD"),
             4: ("2H", "KH", "AD")}
    trace = Trace().coup(tuple(("punto", b, 10) for b in boxes),
                         *shoe_order(boxes, ("2S", "2C", "KS")))
    run = play(tmp_path, trace)
    assert not run.codes()
    assert [c["card"] for c in run.of("card") if c["hand"] == "banca"][1:] == ["2C", "KS"]
    (banca_third,) = [c for c in run.of("card") if c["card"] == "KS"]
    settled = [(s["box"], s["outcome"], s["seq"] < banca_third["seq"])
               for s in run.of("settlement")]
    assert settled == [(1, "lose", True), (4, "lose", True), (3, "win", False),
                       (2, "win", False)]


def test_art_9g_read_from_the_shoe_each_box_losers_are_collected_then_its_winners_paid(
        tmp_path: Path) -> None:
    # Box 1 (Punto 10, Banca 20): 4C 5H = 9, a natural: its Banca bet collected, then its
    # Punto bet paid. Box 2 (Punto 10, Banca 10): KD 7D = 7 stands; Banca 2S KC = 2 draws
    # against a box that stood: 6H, 8 beats 7: its Punto bet collected, then its Banca bet
    # paid 90%. One box after the other.
    boxes = {1: ("4C", "5H"), 2: ("KD", "7D")}
    trace = Trace().coup((("punto", 1, 10), ("banca", 1, 20), ("punto", 2, 10),
                          ("banca", 2, 10)), *shoe_order(boxes, ("2S", "KC", "6H")))
    run = play(tmp_path, trace)
    assert not run.codes()
    assert [(s["box"], s["kind"], s["outcome"], s["payout"]) for s in run.of("settlement")] == [
        (1, "banca", "lose", -20), (1, "punto", "win", 10),
        (2, "punto", "lose", -10), (2, "banca", "win", 9)]


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


def test_art_11_insurance_pays_2_to_1_on_a_banca_natural_nine_and_loses_otherwise(
        tmp_path: Path) -> None:
    # Box 1: 2C 4D = 6 stands. The Banca's first card, turned, is 9H: insurance (Art. 11).
    deal = ready().coup((("punto", 1, 100),), "2C", "9H", "4D").bet("insurance", 1, 50)
    deal.cards("KS")  # Banca 9H KS = 9, a natural nine: insurance wins
    deal.coup((("punto", 1, 100),), "2D", "9S", "4S").bet("insurance", 1, 40)
    deal.cards("5C", "2H")  # Banca 9S 5C = 4, draws 2H = 6: insurance lost
    run = replay_deal(tmp_path, deal)
    assert not run.alarms()
    offered = run.of("insurance_offered")
    assert [o["boxes"] for o in offered] == [[{"box": 1, "max": 50}]] * 2
    assert run.settlements(1) == [(1, "insurance", 50, "win", 100), (1, "punto", 100, "lose", -100)]
    assert run.settlements(2) == [(1, "insurance", 40, "lose", -40), (1, "punto", 100, "push", 0)]


# -- the example trace (../shared/traces/README.md): Art. 8, 9 (a), 9 (d), 10 ------------
def test_art_8_9a_9d_10_example_two_coups_give_the_readme_outcomes_and_payouts(
        tmp_path: Path) -> None:
    run = replay_deal(tmp_path, ready().example_after_procedure())
    assert not run.alarms()
    # Coup 1 (README): Banca 3H 4D = 7 stands (Art. 9 d); box 5 draws 8D.
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}
    (result1,) = [r for r in run.of("coup_result") if r["coup"] == 1]
    assert result1["banca"] == {"cards": ["3H", "4D"], "total": 7, "natural": False}
    boxes1 = {b["box"]: (b["cards"], b["total"]) for b in result1["boxes"]}
    assert boxes1 == {2: (["9S", "7C"], 6), 4: (["5H", "4H"], 9), 5: (["QC", "JS", "8D"], 8)}
    assert sorted(run.settlements(1)) == sorted([
        (2, "banca", 10, "win", banca_win(10)),   # Art. 10: Banca paid 90%
        (4, "punto", 50, "win", 50),              # Punto even money
        (5, "banca", 20, "lose", -20),
    ])
    # Coup 2: Banca 8S QS = 8, a natural (Art. 9 a): every box loses, no third cards.
    assert run.outcomes(2) == {b: "banca" for b in range(1, 6)}
    (result2,) = [r for r in run.of("coup_result") if r["coup"] == 2]
    assert result2["banca"] == {"cards": ["8S", "QS"], "total": 8, "natural": True}
    assert all(len(b["cards"]) == 2 for b in result2["boxes"])
    assert sorted(run.settlements(2)) == sorted([
        (1, "banca", 20, "win", banca_win(20)),
        (2, "punto", 50, "lose", -50),
        (3, "punto", 20, "lose", -20),
        (4, "punto", 50, "lose", -50),
        (5, "punto", 20, "lose", -20),
        (5, "banca", 20, "win", banca_win(20)),
    ])
    choices = [(r["box"], r["choice"]) for r in run.of("five_choice")]
    assert choices == [(4, "draw"), (5, "draw")]
