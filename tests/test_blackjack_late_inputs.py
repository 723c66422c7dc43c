"""Black Jack Plus: a card read before the decision that places it never lets the coup
settle without it (attack finding 4), and the dealer's exposed second card never shows his
hole card (attack finding 5).

Each test replays a held-out tester's trace (or that trace carried on) through the whole
controller. The truth of each, where every card physically went and so every result and
payout, is worked out here by hand from seed 002 Art. 8-10, RULES.md §4 and CONTRACT §6,
never from the controller's output.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "articles"))
from card_traces import Run, Trace, play, two_card_deal


def late_card_box_1() -> Trace:
    """Main 10 on box 1: TS 6H (16); the dealer 9C up, 7D in the hole (16). The shoe then
    gives 5D before any decision is entered: box 1 is the only box, so 5D can only be
    its hit (bj-i-late-surrender.jsonl)."""
    trace = Trace(table="blackjack_plus", decks=6)
    trace.coup((("main", 1, 10),), *two_card_deal([("TS", "6H")], ("9C", "7D")))
    return trace.cards("5D")


def before_first_settlement(run: Run) -> list[str]:
    """The alarm codes journaled before the coup's first settlement (all, when none)."""
    codes = []
    for rec in run.records:
        if rec["type"] == "settlement":
            break
        if rec["type"] == "alarm":
            codes.append(rec["code"])
    return codes


def test_art_9_a_surrender_after_the_box_s_card_was_dealt_is_refused(
        tmp_path: Path) -> None:
    # The tester's trace, the dealer's card after it: surrender, hit, stand; then 8S.
    trace = late_card_box_1().inp("surrender", box=1).inp("hit", box=1)
    run = play(tmp_path, trace.inp("stand", box=1).cards("8S"))
    # Art. 9: a box surrenders "until its own first decision"; it drew 5D first.
    (refused,) = run.alarms("card_dealt")
    assert "Art. 9" in refused["message"] and "5D" not in refused["message"]
    assert not [r for r in run.of("decision") if r["action"] == "surrender"]
    # The hit places 5D: TS 6H 5D = 21, the hand ends (the stand is refused). The dealer
    # 9C 7D = 16 draws 8S: 24, bust. Box 1 wins its 10.
    hand = run.result()["boxes"][0]["hands"][0]
    assert (hand["cards"], hand["total"], hand["surrendered"]) == (
        ["TS", "6H", "5D"], 21, False)
    assert run.result()["dealer"]["cards"] == ["9C", "7D", "8S"]
    assert run.settlements() == [(1, "main", 10, "win", 10)]
    assert "card_without_place" not in run.codes()


def test_the_tester_s_late_surrender_trace_settles_nothing_against_the_card(
        tmp_path: Path) -> None:
    # bj-i-late-surrender.jsonl as the tester gave it: it ends with the dealer to draw.
    trace = late_card_box_1().inp("surrender", box=1).inp("hit", box=1)
    run = play(tmp_path, trace.inp("stand", box=1))
    assert not [s for s in run.of("settlement") if s["outcome"] == "surrender"]
    assert not run.of("settlement") and not run.of("coup_result")
    assert run.dealt()[-1] == ("box 1", "5D")


def out_of_turn_hit() -> Trace:
    """Boxes 1 (TS 3S, 13) and 2 (9H 2H, 11), main 10 each; the dealer 7C up, TD in the
    hole (17). The dealer types hit for box 2 out of turn (refused: box 1 acts first),
    gives box 2 its card 9C, then stands box 1 (bj-ac-out-of-turn.jsonl)."""
    trace = Trace(table="blackjack_plus", decks=6)
    trace.coup((("main", 1, 10), ("main", 2, 10)),
               *two_card_deal([("TS", "3S"), ("9H", "2H")], ("7C", "TD")))
    return trace.inp("hit", box=2).cards("9C").inp("stand", box=1)


def test_a_stand_that_leaves_a_dealt_card_no_place_holds_the_coup_before_any_payout(
        tmp_path: Path) -> None:
    # The tester's trace: box 2 then stands. No hand after it, and the dealer stands on
    # 17: 9C has no place, and box 2 would be paid on 11 while it holds 20. The stand is
    # taken (whether the dealer takes 9C depends on his covered card: nothing may show it
    # before he turns it, Art. 10); the coup is held at his turn, nothing settled.
    run = play(tmp_path, out_of_turn_hit().inp("stand", box=2))
    assert "not_this_box" in run.codes() and "card_waiting" not in run.codes()
    assert [(r["box"], r["action"]) for r in run.of("decision")] == [(1, "stand"),
                                                                      (2, "stand")]
    (stop,) = run.alarms("card_without_place")
    assert stop["stops_play"] and "9C" not in stop["message"]
    assert not run.of("settlement") and not run.of("coup_result")


def test_the_coup_held_for_the_card_is_voided_and_every_stake_returned(
        tmp_path: Path) -> None:
    # The stand is not undone (a hit entered now is refused: no decision is due); the
    # inspector, who sees 9C beside box 2's cards, voids the coup: both stakes returned.
    trace = out_of_turn_hit().inp("stand", box=2).inp("hit", box=2)
    run = play(tmp_path, trace.inp("void", reason="card_without_place", by="inspector"))
    assert "no_decision_due" in run.codes()
    assert run.settlements() == [(1, "main", 10, "push", 0), (2, "main", 10, "push", 0)]
    assert not run.of("coup_result")
    assert "card_without_place" in run.of("game_void")[0]["cleared"]


def test_a_stand_whose_card_the_dealer_draws_is_still_taken(tmp_path: Path) -> None:
    # Box 1 TS 6H stands on 16 after 5D came out: the dealer 9C 7D = 16 must draw, so
    # 5D is his (he dealt himself before the stand was entered): 21 beats 16.
    run = play(tmp_path, late_card_box_1().inp("stand", box=1))
    assert run.result()["dealer"]["cards"] == ["9C", "7D", "5D"]
    assert run.settlements() == [(1, "main", 10, "lose", -10)]


# -- Art. 8: the dealer's second card exposed by mistake (attack finding 5) ----------------
def exposed_after_read() -> Trace:
    """Main 10 on box 1: TS 9S (19); the dealer 5C first, AH second. AH is shown by
    mistake; the dealer says so once it is read (second_card_exposed), takes insurance
    5 from box 1, closes the question; box 1 stands; the dealer draws 2D
    (bj-m2-exposed-late.jsonl)."""
    trace = Trace(table="blackjack_plus", decks=6)
    trace.coup((("main", 1, 10),), *two_card_deal([("TS", "9S")], ("5C", "AH")))
    trace.inp("second_card_exposed").bet("insurance", 1, 5).inp("close_insurance")
    return trace.inp("stand", box=1).cards("2D")


def test_art_8_an_exposed_second_card_is_the_up_card_and_the_first_never_shows(
        tmp_path: Path) -> None:
    from controller.cards.masking import HIDDEN, LiveMask
    from controller.cli.compose import load_config
    from controller.games.blackjack.display import BlackjackView

    run = play(tmp_path, exposed_after_read())
    whole = run.whole()
    # Art. 8: AH is the up card; 5C is turned only as the hole card, at the dealer's turn.
    assert [(r["card"], r["up_card"]) for r in whole if r["type"] == "card_turned"] == [
        ("AH", True), ("5C", False)]
    # The display and the feed (LiveMask, as both read the journal) never show 5C before
    # the dealer's turn: not in a record, not on the screen.
    view = BlackjackView(load_config("embedded:blackjack-plus-sim.toml"), "en", 100)
    mask = LiveMask("coup_start")
    hole = next(i for i, r in enumerate(whole) if r["type"] == "dealer_turn")
    for rec in whole[:hole]:
        shown = mask.view(rec)
        assert "5C" not in str(shown), shown
        view.feed(shown)
        assert "5C" not in str(view.view())
    screen = view.view()
    assert screen["up_card"] == "AH" and HIDDEN in screen["dealer_cards"]
    # Insurance (Art. 10) is decided by the hole card 5C: lost. The dealer AH 5C 2D is
    # soft 18; box 1's 19 wins 10.
    assert run.result()["dealer"]["cards"] == ["5C", "AH", "2D"]
    assert run.settlements() == [(1, "insurance", 5, "lose", -5), (1, "main", 10, "win", 10)]


def test_art_8_the_up_card_is_journaled_with_the_first_input_after_the_deal(
        tmp_path: Path) -> None:
    # No exposure: box 1 TS 9S stands. The first card 5C is the up card, journaled turned
    # with the stand, the first input that says the second card was not exposed.
    trace = Trace(table="blackjack_plus", decks=6)
    trace.coup((("main", 1, 10),), *two_card_deal([("TS", "9S")], ("5C", "AH")))
    run = play(tmp_path, trace.inp("stand", box=1).cards("2D"))
    flow = [(r["type"], r.get("card") or r.get("action")) for r in run.whole()
            if r["type"] in ("serial", "input", "card_turned", "decision")]
    stand = flow.index(("input", "stand"))
    assert flow[stand - 1][0] == "serial"  # the dealer's second card: nothing turned
    assert flow[stand:stand + 3] == [("input", "stand"), ("card_turned", "5C"),
                                     ("decision", "stand")]
    # The hole card AH turned at the dealer's turn: 5C AH soft 16 draws 2D, 18; 19 wins.
    turned = [(r["card"], r["up_card"]) for r in run.whole() if r["type"] == "card_turned"]
    assert turned == [("5C", True), ("AH", False)]
    assert not run.of("insurance_offered")
    assert run.settlements() == [(1, "main", 10, "win", 10)]


def test_pot_luck_a_stand_that_leaves_a_dealt_card_no_place_holds_the_coup(
        tmp_path: Path) -> None:
    # The same deal at a Pot Luck table (seed 004: the same dealing; main and pool bets).
    pool = {"opening_balance": 100, "hands": {
        "three_sevens": {"ranks": ["7", "7", "7"], "share": 0.5}}}
    trace = Trace(table="pot_luck", decks=6, pool=pool)
    trace.coup((("main", 1, 10), ("pool", 1, 1), ("main", 2, 10), ("pool", 2, 1)),
               *two_card_deal([("TS", "3S"), ("9H", "2H")], ("7C", "TD")))
    trace.inp("hit", box=2).cards("9C").inp("stand", box=1).inp("stand", box=2)
    held = play(tmp_path, trace)
    assert "card_without_place" in held.codes()
    assert not held.of("settlement") and not held.of("pool_balance")
    # Voided: every stake returned, the pool bets too; nothing went into the pool.
    run = play(tmp_path, trace.inp("void", reason="card_without_place", by="inspector"))
    assert run.settlements() == [(1, "main", 10, "push", 0), (1, "pool", 1, "push", 0),
                                 (2, "main", 10, "push", 0), (2, "pool", 1, "push", 0)]
    assert not run.of("pool_balance")
