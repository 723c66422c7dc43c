"""The inspector voids a card game held for him (issue 16, item 1): no result, every stake
not settled returned, the reason journaled; on Mini-Bacará, Black Jack Plus, Pot Luck and
draw poker.

Each test is a trace through the whole controller (``table-controller replay``). What is
held and what each stake was is worked out here from the scenario and the seeds (seed 000
Art. 6, 8; seed 002 Art. 4, 8; seed 003 num. 1, 7; seed 004 Art. 7; RULES.md §3: a card
seen more often than the decks hold stops play), never from the controller's output.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "articles"))
from card_traces import Run, Trace, play
from poker_traces import PokerTrace, replay

VOID = {"reason": "late_five_choice", "by": "inspector"}


def five_chosen_too_late() -> Trace:
    """Punto 10 on box 1 (2H 3S: five) and Banca 20 on box 2 (KD 4C: four). The dealer
    turns his card and deals himself AS (the Banca's second, Art. 6) before box 1's five
    choice is entered: too late for Art. 8, the coup is held for the inspector."""
    trace = Trace().coup((("punto", 1, 10), ("banca", 2, 20)), "2H", "KD", "6C", "3S", "4C")
    return trace.cards("AS").inp("five_choice", box=1, choice="draw")


def test_art_8_the_inspector_voids_a_coup_held_for_a_late_five_choice(tmp_path: Path) -> None:
    trace = five_chosen_too_late().inp("void", **VOID)
    # The next coup opens at once and plays with its own cards: box 1 8S 9D = 7 stands;
    # the Banca TH QC = 0 draws against a box that stood (0-5 draws): 5H, 5. 7 beats 5.
    trace.coup((("punto", 1, 10),), "8S", "TH", "9D")
    run = play(tmp_path, trace.cards("QC", "5H"))
    assert len(run.alarms("coup_held")) == 1
    (void,) = run.of("game_void")
    assert (void["game"], void["reason"], void["by"]) == (1, "late_five_choice", "inspector")
    assert (void["cards_waiting"], void["cleared"]) == (1, ["coup_held"])
    # Nothing of coup 1 was decided: both stakes come back; no result of coup 1.
    assert run.settlements(1) == [(1, "punto", 10, "push", 0), (2, "banca", 20, "push", 0)]
    assert [r["coup"] for r in run.of("coup_result")] == [2]
    assert run.settlements(2) == [(1, "punto", 10, "win", 10)]


def test_a_void_is_the_inspector_s_and_only_of_a_held_coup(tmp_path: Path) -> None:
    # Before the hold the coup goes on: no void. Held: the dealer may not void it.
    trace = Trace().coup((("punto", 1, 10),), "2H", "6C").inp("void", **VOID)
    trace.cards("3S", "AS").inp("void", reason="late_five_choice", by="dealer")
    run = play(tmp_path, trace)
    assert [a["code"] for a in run.of("alarm") if a["code"] in (
        "game_not_held", "inspector_only")] == ["game_not_held", "inspector_only"]
    assert not run.of("game_void") and not run.of("settlement")


def held_mid_deal(run: Run) -> None:
    """The third copy of 9S on a two-deck shoe stopped play in the deal (RULES.md §3)."""
    (stop,) = run.alarms("card_over_count")
    assert stop["stops_play"] is True


def test_art_8_the_inspector_voids_a_black_jack_coup_held_in_the_deal(tmp_path: Path) -> None:
    # Box 1 9S, the dealer 9S (face down), box 1 9S: a third 9S of two decks; box 2 idle.
    trace = Trace(table="blackjack_plus", decks=2).coup((("main", 1, 10), ("main", 2, 5)),
                                                        "9S", "7D", "9S", "9S")
    run = play(tmp_path, trace.inp("void", reason="card_over_count", by="inspector"))
    held_mid_deal(run)
    (void,) = run.of("game_void")
    assert void["cleared"] == []  # the shoe's own stop waits for inspector_clear
    assert run.settlements(1) == [(1, "main", 10, "push", 0), (2, "main", 5, "push", 0)]
    assert not run.of("coup_result")


def test_art_7_the_inspector_voids_a_pot_luck_coup_held_in_the_deal(tmp_path: Path) -> None:
    # Seed 004 Art. 7: bet and pool both returned; the pool's balance is untouched.
    trace = Trace(table="pot_luck", decks=2).coup((("main", 1, 10), ("pool", 1, 1)),
                                                  "9S", "9S", "9S")
    run = play(tmp_path, trace.inp("void", reason="card_over_count", by="inspector"))
    held_mid_deal(run)
    assert run.settlements(1) == [(1, "main", 10, "push", 0), (1, "pool", 1, "push", 0)]
    assert not run.of("pool_balance") and not run.of("coup_result")


def test_num_1_the_inspector_voids_a_poker_hand_held_in_the_deal(tmp_path: Path) -> None:
    # One deck (num. 1): box 2's third card is a second AS; every ante comes back.
    trace = PokerTrace().open({1: 10, 2: 10, 3: 10})
    trace.cards("AS", "AH", "KD", "7C", "2S", "QS", "QH", "AS")
    run = replay(tmp_path, trace.inp("void", reason="card_over_count", by="inspector"))
    assert run.alarms("card_over_count")
    (void,) = run.of("game_void")
    assert (void["game"], void["reason"]) == (1, "card_over_count")
    assert sorted((s["box"], s["kind"], s["outcome"], s["payout"])
                  for s in run.of("settlement")) == [
        (1, "ante", "push", 0), (2, "ante", "push", 0), (3, "ante", "push", 0)]
    assert not run.of("hand_result")


def test_a_void_is_played_again_on_restart_and_never_doubled(tmp_path: Path) -> None:
    # The daemon restarts after the void: its replay gives the journal's records again
    # (no mismatch), the coup stays void, its stakes returned once.
    from controller.cli.compose import compose, games, load_config
    from controller.core.clock import VirtualClock
    from controller.core.config import apply_overrides
    from controller.store.journal import Journal
    from controller.trace import trace_from_objects

    trace = five_chosen_too_late().inp("void", **VOID)
    events = trace_from_objects("void", enumerate(trace.events, 1), games()).events
    config = apply_overrides(load_config(), {"table": "mini_baccarat", "decks": 4}, "test")
    path = tmp_path / "journal.sqlite"
    for more, start in ((events, 0.0), ([], events[-1].t + 1.0)):
        with Journal(path, durable=False) as journal:
            loop, table = compose(config, journal, VirtualClock(start))
            table.recover()
            loop.run_events(more)
    with Journal(path, readonly=True) as journal:
        recs = list(journal.records())
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None and recovery["state"] == "coup_over"
    assert [r["type"] for r in recs].count("game_void") == 1
    assert sorted((r["box"], r["outcome"]) for r in recs if r["type"] == "settlement") == [
        (1, "push"), (2, "push")]
