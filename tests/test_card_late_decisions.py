"""A decision that comes after its card (issue 16, item 1): the card is never dropped as
unexpected, never given to another hand; it waits, play stops naming the decision, and the
decision, once entered, puts it in its place. A decision too late for the seed holds the
coup for the inspector.

Each test is a trace through the whole controller (``table-controller replay``). The truth
of each scenario, where every card physically went and so every result and payout, is
worked out here from the seeds (seed 000 Art. 6, 8, 9; seed 002 Art. 8; seed 003 num. 9,
19) and the dealing order, never from the controller's output.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "articles"))
from card_traces import Trace, play, two_card_deal
from poker_traces import PokerTrace, money, payouts, replay, result

from controller.cli.compose import compose, games, load_config
from controller.core.clock import VirtualClock
from controller.core.config import apply_overrides
from controller.core.events import DealerInput, Event
from controller.store.journal import Journal
from controller.trace import trace_from_objects


# -- Mini-Bacará: the five choice after the Banca's second card (seed 000 Art. 8) ----------
def five_on_box_1() -> Trace:
    """Punto 10 on box 1. Art. 6 order: box 1 2H, the Banca 6C (face down), box 1 3S: box 1
    has five and must choose (Art. 8)."""
    return Trace().coup((("punto", 1, 10),), "2H", "6C", "3S")


def test_art_8_a_banca_card_before_the_five_choice_is_never_dropped(tmp_path: Path) -> None:
    # The dealer turns his card and deals himself AS (the Banca's second) before box 1's
    # choice is entered; the choice comes after it.
    run = play(tmp_path, five_on_box_1().cards("AS").inp("five_choice", box=1, choice="draw")
               .cards("TD", "4C"))
    waiting = run.alarms("decision_missing")
    assert len(waiting) == 1 and "five choice of box 1" in waiting[0]["message"]
    (held,) = run.alarms("coup_held")
    assert held["stops_play"] is True and "Art. 8" in held["message"]
    # Art. 8: the choice is made "antes de que el tallador se asigne su segunda carta".
    (late,) = run.alarms("late_five_choice")
    assert "Art. 8" in late["message"]
    assert not [r for r in run.of("five_choice") if r["by"] == "dealer"]
    # Held: nothing more is dealt, no hand is completed with other cards, nobody is paid.
    assert run.dealt() == [("box 1", "2H"), ("banca", "6C"), ("box 1", "3S")]
    assert not run.of("coup_result") and not run.of("settlement")
    assert [a["code"] for a in run.alarms("card_while_stopped")] == ["card_while_stopped"] * 2


def test_art_8_the_inspector_s_choice_puts_the_waiting_card_in_its_place(
        tmp_path: Path) -> None:
    trace = five_on_box_1().cards("AS").inp("five_choice", box=1, choice="draw")
    trace.inp("five_choice", box=1, choice="draw", by="inspector")
    trace.inp("inspector_clear", note="video: box 1 chose draw before the Banca's card")
    run = play(tmp_path, trace.cards("TD"))
    # AS is the Banca's second card: 6C AS = 7. Box 1 draws (its choice): 2H 3S TD = 5.
    # The Banca stands on 7 against a box that drew a 0 (tableau): Banca 7 beats 5.
    assert run.dealt() == [("box 1", "2H"), ("banca", "6C"), ("box 1", "3S"),
                           ("banca", "AS"), ("box 1", "TD")]
    assert [(r["box"], r["choice"], r["by"]) for r in run.of("five_choice")] == [
        (1, "draw", "inspector")]
    assert run.settlements() == [(1, "punto", 10, "lose", -10)]


def test_a_new_coup_is_refused_while_a_card_of_the_last_waits(tmp_path: Path) -> None:
    trace = five_on_box_1().cards("AS").inp("inspector_clear", note="checked")
    run = play(tmp_path, trace.inp("open_bets"))
    assert run.codes()[-2:] == ["card_waiting", "game_open"]
    assert "five choice of box 1" in run.alarms("card_waiting")[0]["message"]
    assert len(run.of("coup_start")) == 1


# -- Black Jack Plus: a hit entered after its card (seed 002 Art. 8) -----------------------
def bj_one_box() -> Trace:
    """Main 10 on box 1: 9S 4H (13); the dealer 7C up, TD down (17)."""
    trace = Trace(table="blackjack_plus", decks=6)
    return trace.coup((("main", 1, 10),), *two_card_deal([("9S", "4H")], ("7C", "TD")))


def test_art_8_a_hit_entered_after_its_card_gets_that_card(tmp_path: Path) -> None:
    # The dealer gives box 1 its hit (5D) before the hit is entered; box 1 then stands.
    trace = bj_one_box().cards("5D").inp("hit", box=1).inp("stand", box=1)
    # The next coup's first card (KH) is its own: box 1's first card of coup 2.
    trace.coup((("main", 1, 10),), *two_card_deal([("KH", "8S")], ("9D", "8C")))
    run = play(tmp_path, trace.inp("stand", box=1))
    (waiting,) = run.alarms("decision_missing")
    assert "box 1" in waiting["message"]
    # 9S 4H 5D = 18 against the dealer's 7C TD = 17: box 1 wins 10.
    first = run.result(1)
    assert first["boxes"][0]["hands"][0]["cards"] == ["9S", "4H", "5D"]
    assert run.settlements(1) == [(1, "main", 10, "win", 10)]
    # Coup 2: KH 8S = 18 against 9D 8C = 17: box 1 wins again, with its own cards.
    assert run.result(2)["boxes"][0]["hands"][0]["cards"] == ["KH", "8S"]
    assert run.settlements(2) == [(1, "main", 10, "win", 10)]


def test_a_card_a_stand_leaves_without_place_stops_play_for_the_inspector(
        tmp_path: Path) -> None:
    # 9S 4H stands on 13 after a card came out; the dealer's 17 draws none: no hand takes
    # it. The stand is taken (the dealer's covered card decides whether he draws it, and
    # nothing shows it before his turn, seed 002 Art. 10); play stops for the inspector
    # once the hole card is turned, nothing settled.
    trace = bj_one_box().cards("5D").inp("stand", box=1)
    held = play(tmp_path, trace.inp("open_bets"))
    (stop,) = held.alarms("card_without_place")
    assert stop["stops_play"] is True
    assert not held.of("settlement") and held.codes()[-2:] == ["play_stopped", "game_open"]
    # The inspector, the layout checked, resumes play: 13 against 17 loses 10; 5D is in
    # no hand, and the next coup opens.
    trace.inp("inspector_clear", note="5D set aside").inp("open_bets")
    run = play(tmp_path, trace)
    assert run.settlements() == [(1, "main", 10, "lose", -10)]
    assert "5D" not in [c for _, c in run.dealt()]
    assert len(run.of("coup_start")) == 2


# -- Draw poker: a replacement dealt before its discard (seed 003 num. 9) ------------------
HANDS = {1: ("AS", "AH", "KD", "7C", "2S"), 2: ("QS", "QH", "JD", "9C", "3S"),
         3: ("TS", "TH", "8D", "6C", "4S")}


def test_num_9_a_replacement_before_its_discard_goes_to_the_player_who_throws(
        tmp_path: Path) -> None:
    # Box 1 (Mano) bets 10, boxes 2 and 3 call. Box 1 stands pat. The dealer gives box 2
    # its replacement (QD) before box 2's discard of 3S is entered; box 3 stands pat.
    trace = PokerTrace().hand(10, HANDS).called()
    trace.discard(1, []).cards("QD").inp("discard", box=2, cards=["3S"]).discard(3, [])
    trace.acts(("pass", 1), ("pass", 2), ("pass", 3))
    run = replay(tmp_path, trace)
    assert not run.of("hand_void")  # box 1 stood pat and holds five cards
    (waiting,) = [a for a in run.of("alarm") if a["code"] == "decision_missing"]
    assert "discard of box 2" in waiting["message"] and "QD" not in waiting["message"]
    # Box 2: Q-Q-Q-J-9, three queens, beats box 1's aces and box 3's tens (num. 16).
    assert result(run)["winners"] == [2]
    # Num. 19: antes 30 less 5% = 28.50 (box 2 posted 10: +18.50); the others' bets, 20,
    # less 5% = 19; his own bet of 10 back.
    pay = payouts(run)
    assert money(pay[(2, "ante")][1]) == money("18.5")
    assert money(pay[(2, "bet")][1]) == money(19)
    assert pay[(1, "ante")] == ("lose", -10) and pay[(3, "bet")] == ("lose", -10)


def test_a_card_waiting_for_its_decision_still_waits_after_a_restart(
        tmp_path: Path) -> None:
    # The daemon restarts while 5D waits for box 1's decision: the replay of the journal's
    # inputs makes it wait again, and the hit entered after the restart places it (once
    # the dealer said he dealt nothing while the table was down: issue 16, item 2).
    events = trace_from_objects("bj", enumerate(bj_one_box().cards("5D").events, 1), games()).events
    config = apply_overrides(load_config(), {"table": "blackjack_plus", "decks": 6}, "test")
    path = tmp_path / "journal.sqlite"

    def run(more: list[Event], start: float) -> list[dict[str, Any]]:
        with Journal(path, durable=False) as journal:
            clock = VirtualClock(start)
            loop, table = compose(config, journal, clock)
            table.recover()
            loop.run_events(more)
        with Journal(path, readonly=True) as journal:
            return list(journal.records())

    run(events, 0.0)
    t = events[-1].t
    recs = run([DealerInput(t + 0.7, "lost_cards", {"cards": []}),
                DealerInput(t + 1, "hit", {"box": 1}), DealerInput(t + 2, "stand", {"box": 1})],
               t + 0.5)
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None and "lost_cards" in recovery["waiting_for"]
    waits = [r["message"] for r in recs if r["type"] == "alarm"
             and r["code"] == "decision_missing"]
    assert len(waits) == 1 and "box 1" in waits[0]  # before the restart, named once
    (result,) = [r for r in recs if r["type"] == "coup_result"]
    assert result["boxes"][0]["hands"][0]["cards"] == ["9S", "4H", "5D"]


def test_a_misread_card_before_its_decision_waits_corrected_for_it(tmp_path: Path) -> None:
    # The hit's card passes the reader unread before the hit is entered; the dealer enters
    # it (5D), then the hit: 5D is box 1's, entered by hand.
    trace = bj_one_box().line("[Game]<Game>").inp("card", card="5D").inp("hit", box=1)
    run = play(tmp_path, trace.inp("stand", box=1))
    assert "misread_waiting" in run.codes()
    (five,) = [r for r in run.whole("card") if r["card"] == "5D"]
    assert (five["hand"], five["manual"]) == ("box 1", True)
    assert run.settlements(1) == [(1, "main", 10, "win", 10)]  # 18 against 17


def test_art_10_a_card_drawn_while_insurance_is_asked_waits_for_the_hit(
        tmp_path: Path) -> None:
    # Box 1: 9S 7D = 16 against the dealer's AD up (5C in the hole): insurance is asked
    # (seed 002 Art. 10). The dealer draws 2S before closing the question; then box 1
    # hits: that 2S is its card (18), the next, 3H, the dealer's: AD 5C 3H = soft 19.
    trace = Trace(table="blackjack_plus").coup((("main", 1, 10),),
                                               *two_card_deal([("9S", "7D")], ("AD", "5C")))
    trace.cards("2S").inp("close_insurance").inp("hit", box=1).inp("stand", box=1)
    run = play(tmp_path, trace.cards("3H"))
    assert "unexpected_card" not in run.codes()
    assert run.dealt()[-2:] == [("box 1", "2S"), ("dealer", "3H")]
    assert run.settlements() == [(1, "main", 10, "lose", -10)]  # 18 against 19
