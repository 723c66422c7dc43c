"""Seed 004 (Pot Luck Black Jack, Peru 2000): Art. 3-8 through the whole controller.

Each test writes a ``pot_luck`` trace (CONTRACT §2 and §6; a 6-deck shoe) and replays it
with ``table-controller replay`` (tests/articles/card_traces.py). The pool's and the bonus's
pay tables are on the seed's missing pages, so they are the operator's (RULES.md §5): the
traces give the table below in their meta line. Every total and payout expected is worked
out here from the articles, the decisions of RULES.md §4 and that table, never taken from
the controller. Names follow tests/articles/README.md: ``test_art_6d_...`` tests Art. 6 (d).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from card_traces import CUT_CARD, NEW_DECKS, Trace, bj_total, play, two_card_deal

from controller.cli.compose import load_config, read_trace
from controller.core.clock import VirtualClock
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

DECKS = 6
PACK = DECKS * 52
HALF_PACK = PACK // 2
OPENING = 100
POOL = {"opening_balance": OPENING, "hands": {
    "three_sevens": {"ranks": ["7", "7", "7"], "share": 0.5},
    "suited_blackjack": {"blackjack": True, "suited": True, "share": 0.1}}}
BONUS = {"hands": {"blackjack": {"blackjack": True, "pays": 2},
                   "five_card_21": {"total": 21, "cards": 5, "pays": 20}}}
BOX1 = (("main", 1, 10), ("pool", 1, 1))
# Box 1 AS KD, a blackjack (not suited: no pool); the dealer 9H 8C = 17 stands.
COUP = (BOX1, *two_card_deal([("AS", "KD")], ("9H", "8C")))
COUP_SETTLED = [(1, "main", 10, "win", 15), (1, "pool", 1, "lose", -1)]
AFTER_CUT = HALF_PACK + 2 - 4  # left when the cut card's coup (4 cards) ends


def table(ready: bool = True, **meta: Any) -> Trace:
    return Trace(ready, table="pot_luck", decks=DECKS, **{"pool": POOL, "bonus": BONUS, **meta})


def one_box(hand: tuple[str, str], dealer: tuple[str, str], *bets: tuple[str, int, int]
            ) -> Trace:
    return table().coup(bets or BOX1, *two_card_deal([hand], dealer))


def box_hands(run: Any, coup: int = 1) -> list[dict[str, Any]]:
    return [h for b in run.result(coup)["boxes"] for h in b["hands"]]


# -- Art. 3: card values ------------------------------------------------------------------------
def test_art_3_ace_ace_ace_six_is_a_soft_19(tmp_path: Path) -> None:
    trace = one_box(("AS", "AD"), ("9H", "8C")).inp("hit", box=1).cards("AC")
    run = play(tmp_path, trace.inp("hit", box=1).cards("6S").inp("stand", box=1))
    (hand,) = box_hands(run)
    assert (hand["total"], hand["soft"]) == bj_total(["AS", "AD", "AC", "6S"]) == (19, True)
    assert run.settlements()[0] == (1, "main", 10, "win", 10)  # 19 against 17


def test_art_3_a_king_then_an_ace_is_a_blackjack(tmp_path: Path) -> None:
    run = play(tmp_path, one_box(("KS", "AH"), ("9H", "8C")))
    (hand,) = box_hands(run)
    assert hand["blackjack"] is True and hand["total"] == 21
    assert run.settlements()[0] == (1, "main", 10, "win", 15)  # 3 to 2 (RULES.md §4)
    assert not run.of("decision")  # a blackjack takes no decision


def test_art_3_twenty_one_after_a_split_is_not_a_blackjack(tmp_path: Path) -> None:
    # Split aces take one card each (RULES.md §4): AS KS and AD KD, 21 each, against 20.
    trace = one_box(("AS", "AD"), ("KH", "QC")).inp("split", box=1).cards("KS", "KD")
    run = play(tmp_path, trace)
    hands = box_hands(run)
    assert [(h["cards"], h["total"], h["blackjack"]) for h in hands] == [
        (["AS", "KS"], 21, False), (["AD", "KD"], 21, False)]
    won = {s[1]: s[3:] for s in run.settlements()}
    assert (won["main"], won["split"]) == (("win", 10), ("win", 10))  # even money, not 3 to 2


def test_art_3_an_ace_counts_one_where_eleven_would_bust(tmp_path: Path) -> None:
    trace = one_box(("KS", "6H"), ("9H", "8C")).inp("hit", box=1).cards("AH")
    run = play(tmp_path, trace.inp("stand", box=1))
    (hand,) = box_hands(run)
    assert (hand["total"], hand["soft"]) == (17, False)
    assert run.settlements()[0] == (1, "main", 10, "push", 0)  # 17 against 17


def test_art_3_figures_count_ten_and_a_bust_hand_s_total_is_hard(tmp_path: Path) -> None:
    trace = one_box(("JS", "2H"), ("9H", "8C")).inp("hit", box=1).cards("AD")
    run = play(tmp_path, trace.inp("hit", box=1).cards("QH"))  # 10 + 2 + 1 + 10: bust
    (hand,) = box_hands(run)
    assert (hand["total"], hand["soft"], hand["bust"]) == (23, False, True)
    assert run.settlements()[0] == (1, "main", 10, "lose", -10)


# -- Art. 4: jokers never used; the decks complete --------------------------------------------
def test_art_4_a_joker_read_from_the_shoe_stops_play_until_the_inspector_clears(
        tmp_path: Path) -> None:
    trace = table().coup(BOX1, "9S", "JK").cards("3H")
    trace.inp("inspector_clear", note="joker removed").cards("9H", "KD", "8C")
    run = play(tmp_path, trace.inp("stand", box=1))
    (joker,) = run.alarms("bad_card")
    assert joker["stops_play"] is True and "seed 004 Art. 4" in joker["message"]
    assert run.dealt() == [("box 1", "9S"), ("dealer", "9H"), ("box 1", "KD"), ("dealer", "8C")]
    assert run.settlements() == [(1, "main", 10, "win", 10), (1, "pool", 1, "lose", -1)]


def test_art_4_a_card_seen_more_often_than_the_decks_hold_stops_play(tmp_path: Path) -> None:
    trace = Trace(table="pot_luck", decks=2).coup(BOX1, "7H", "7H", "7H")
    run = play(tmp_path, trace)
    (over,) = run.alarms("card_over_count")
    assert over["stops_play"] is True
    assert run.dealt() == [("box 1", "7H"), ("dealer", "7H")]


def cut_card_coup() -> Trace:
    """Burnt down to half the pack and 2 cards, then ``COUP``, the cut card after its first
    two cards (half the pack below it): the shoe closes when the coup ends (Art. 6), with
    ``AFTER_CUT`` cards in it."""
    trace = table().burn_until(HALF_PACK + 2).inp("open_bets")
    for kind, box, amount in BOX1:
        trace.bet(kind, box, amount)
    return trace.inp("no_more_bets").cards(*COUP[1:3]).line("[Cut]").cards(*COUP[3:])


def test_art_4_complete_decks_counted_out_go_on_to_the_art_6_procedure(
        tmp_path: Path) -> None:
    # "verificará que las barajas ... estén completas": the cards left in the closed shoe
    # go through the reader, dealt to no hand; then the Art. 6 procedure and a coup.
    trace = cut_card_coup().count_out().procedure(CUT_CARD, burn="KD").coup(*COUP)
    run = play(tmp_path, trace)
    assert not run.alarms()
    (counted,) = run.of("count_out")
    assert counted == {**counted, "cards": AFTER_CUT, "seen": PACK, "missing": []}
    assert len(run.of("count_out_card")) == AFTER_CUT and len(run.dealt()) == 8
    assert run.settlements(2) == COUP_SETTLED


def test_art_4_decks_short_of_a_card_are_changed_before_the_next_shoe(tmp_path: Path) -> None:
    # "por no existir su número completo": one JC never seen. The same decks are not
    # shuffled again: new decks (Art. 4) and their procedure (Art. 5) come first.
    trace = cut_card_coup().count_out(missing=("JC",)).procedure(CUT_CARD, burn="KD")
    trace.inp("open_bets").inp("new_shoe", reason="JC missing")
    run = play(tmp_path, trace.procedure(NEW_DECKS, burn="2C").coup(*COUP))
    (counted,) = run.of("count_out")
    assert counted["missing"] == ["JC"] and counted["seen"] == PACK - 1
    (short,) = [a for a in run.alarms("decks_incomplete") if "missing" in a]
    assert short["missing"] == ["JC"] and "JC" in short["message"]
    assert "seed 004 Art. 4" in short["message"] and "seed 004 Art. 5" in short["message"]
    refused = [a["code"] for a in run.alarms() if "missing" not in a]
    assert refused[:len(CUT_CARD)] == ["decks_incomplete"] * len(CUT_CARD)
    assert not run.steps("cut_card") and "shoe_not_ready" in run.codes()
    assert run.steps("new_decks")[-7:] == [*NEW_DECKS, "burn"]
    assert run.settlements(2) == COUP_SETTLED


# -- Art. 5: new decks --------------------------------------------------------------------------
@pytest.mark.parametrize("left_out", NEW_DECKS)
def test_art_5abcdef_a_step_left_out_keeps_the_first_game_from_opening(
        tmp_path: Path, left_out: str) -> None:
    steps = [s for s in NEW_DECKS if s != left_out]
    run = play(tmp_path, table(ready=False).procedure(steps, burn="2C").coup(*COUP))
    first = run.alarms()[0]
    if left_out == "load":  # the burn card before the shoe holds any: refused, not burnt
        assert first["code"] == "card_before_ready" and first["burn"] is True
        assert not run.of("burn")
    else:
        assert first["code"] == "procedure_out_of_order"
    assert run.alarms("shoe_not_ready")
    assert not run.of("coup_start") and not run.of("card")


def test_art_5f_a_card_read_before_the_load_is_refused_and_not_counted(
        tmp_path: Path) -> None:
    trace = table(ready=False).procedure(NEW_DECKS[:-1], burn="2C")
    run = play(tmp_path, trace.procedure(("load",), burn="3C").coup(*COUP))
    (early,) = run.alarms()
    assert early["code"] == "card_before_ready" and early["burn"] is True
    (burn,) = run.of("burn")
    assert burn["card"] == "3C" and burn["cards_left"] == PACK - 1
    assert run.settlements() == COUP_SETTLED


def test_art_5_the_new_decks_procedure_is_seed_004_s_in_its_order(tmp_path: Path) -> None:
    run = play(tmp_path, table(ready=False).procedure(("show", "turn", "cut"), burn=None))
    (alarm,) = run.alarms()
    assert alarm["code"] == "procedure_out_of_order" and "seed 004 Art. 5" in alarm["message"]
    assert run.steps("new_decks") == ["show", "turn"]


def test_art_5g_the_burn_read_from_the_shoe_completes_the_procedure(tmp_path: Path) -> None:
    trace = table(ready=False).procedure(NEW_DECKS, burn=None).inp("open_bets")
    run = play(tmp_path, trace.cards("5C", line="Burn").coup(*COUP))
    assert run.codes() == ["shoe_not_ready"]
    assert run.steps("new_decks") == [*NEW_DECKS, "burn"]
    assert run.settlements() == COUP_SETTLED


def test_art_5e_the_cut_card_between_40_cards_and_half_the_pack(tmp_path: Path) -> None:
    early = play(tmp_path, table().line("[Cut]"))
    assert early.codes() == ["cut_card_early"] and "seed 004" in early.alarms()[0]["message"]
    in_place = play(tmp_path, table().burn_until(40).line("[Cut]"))
    assert not in_place.alarms() and in_place.of("cut_card")[0]["cards_left"] == 40
    # A coup dealt to 39 cards left (the reserve's own alarm stops play), then the cut.
    trace = table().burn_until(41).inp("open_bets").bet("main", 1, 10).bet("pool", 1, 1)
    late = play(tmp_path, trace.inp("no_more_bets").cards("5C", "6C").line("[Cut]"))
    (cut,) = late.of("cut_card")
    assert cut["cards_left"] == 39 and cut["late"] is True
    (alarm,) = late.alarms("cut_card_late")
    assert alarm["stops_play"] is True and "seed 004 Art. 5 e" in alarm["message"]


# -- Art. 6: after the cut card ----------------------------------------------------------------
def test_art_6abc_after_the_cut_card_shuffle_cut_and_load_come_first(tmp_path: Path) -> None:
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out()
    trace.procedure(("cut", "shuffle"), None)
    run = play(tmp_path, trace)
    (alarm,) = run.alarms()
    assert alarm["code"] == "procedure_out_of_order" and "seed 004 Art. 6" in alarm["message"]
    assert run.steps("cut_card") == ["shuffle"]


def test_art_6_show_turn_and_scramble_may_come_before_the_shuffle(tmp_path: Path) -> None:
    # "queda a criterio del personal ... mostrar, voltear y revolver antes de barajar".
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out()
    trace.procedure(("show", "turn", "scramble", *CUT_CARD), burn="KD").coup(*COUP)
    run = play(tmp_path, trace)
    assert not run.alarms()
    assert run.steps("cut_card") == ["show", "turn", "scramble", *CUT_CARD, "burn"]
    assert run.settlements() == COUP_SETTLED


def test_art_6_show_after_the_shuffle_is_out_of_order(tmp_path: Path) -> None:
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out()
    trace.procedure(("shuffle", "show"), None)
    run = play(tmp_path, trace)
    assert run.codes() == ["procedure_out_of_order"]
    assert run.steps("cut_card") == ["shuffle"]


def test_art_6d_no_game_before_the_burn_ends_the_procedure(tmp_path: Path) -> None:
    trace = table().burn_until(HALF_PACK).line("[Cut]").count_out().procedure(CUT_CARD, burn=None)
    trace.inp("open_bets").cards("KD", line="Burn").coup(*COUP)
    run = play(tmp_path, trace)
    assert run.codes() == ["shoe_not_ready"]
    assert run.steps("cut_card") == [*CUT_CARD, "burn"]
    (start,) = run.of("coup_start")
    assert start["seq"] > run.alarms()[0]["seq"]


# -- Art. 7: a pool bet and a bet, a bonus optional ---------------------------------------------
def test_art_7_a_box_without_its_pool_bet_is_refused_dealt_no_cards_and_repaid(
        tmp_path: Path) -> None:
    # "cada jugador debe colocar obligatoriamente su pool bet y apuesta"
    bets = (*BOX1, ("main", 2, 20), ("pool", 3, 2))
    run = play(tmp_path, table().coup(bets, *COUP[1:]))
    assert [(r["box"], r["code"]) for r in run.of("box_refused")] == [
        (2, "pool_bet_missing"), (3, "main_bet_missing")]
    assert run.of("bets_closed")[0]["boxes"] == [1]
    assert {h for h, _ in run.dealt()} == {"box 1", "dealer"}
    assert run.settlements() == [*COUP_SETTLED, (2, "main", 20, "push", 0),
                                 (3, "pool", 2, "push", 0)]


def test_art_7_no_more_bets_without_a_complete_box_is_refused(tmp_path: Path) -> None:
    trace = table().inp("open_bets").bet("main", 1, 10).inp("no_more_bets").bet("pool", 1, 1)
    run = play(tmp_path, trace.inp("no_more_bets").cards(*COUP[1:]))
    (refused,) = run.alarms()
    assert refused["code"] == "no_boxes_in_play" and "seed 004 Art. 7" in refused["message"]
    assert run.settlements() == COUP_SETTLED


def test_art_7_the_bonus_is_optional_and_pays_its_multiple(tmp_path: Path) -> None:
    bets = (*BOX1, ("bonus", 1, 5), ("main", 2, 10), ("pool", 2, 1))
    run = play(tmp_path, table().coup(bets, *two_card_deal([("AS", "KD"), ("9S", "9D")],
                                                           ("9H", "8C"))).inp("stand", box=2))
    # Box 1's blackjack: the bonus table's "blackjack" pays 2 to 1 on 5. Box 2: 18 wins.
    assert run.settlements() == [(1, "bonus", 5, "win", 10), *COUP_SETTLED,
                                 (2, "main", 10, "win", 10), (2, "pool", 1, "lose", -1)]


def test_art_7_the_pool_pays_its_share_to_a_qualifying_hand(tmp_path: Path) -> None:
    trace = one_box(("7S", "7H"), ("9H", "8C")).inp("hit", box=1).cards("7D")  # 21: ends
    run = play(tmp_path, trace)
    # Three sevens: half the pool, which holds the opening 100 and this coup's 1 chip.
    prize = (OPENING + 1) // 2
    (pool,) = [s for s in run.of("settlement") if s["kind"] == "pool"]
    assert (pool["outcome"], pool["prize"], pool["payout"]) == ("win", prize, prize - 1)
    (balance,) = run.of("pool_balance")
    assert (balance["before"], balance["contributed"], balance["paid"], balance["balance"]) == (
        OPENING, 1, prize, OPENING + 1 - prize)


def test_art_7_the_pool_balance_carries_from_coup_to_coup(tmp_path: Path) -> None:
    trace = table().coup(*COUP).coup(((("main", 1, 10), ("pool", 1, 3))), *COUP[1:])
    run = play(tmp_path, trace)
    assert [s["pool_balance"] for s in run.of("coup_start")] == [OPENING, OPENING + 1]
    assert [b["balance"] for b in run.of("pool_balance")] == [OPENING + 1, OPENING + 4]


def test_art_7_pool_bets_and_bonuses_within_their_limits(tmp_path: Path) -> None:
    trace = table(pool_max_bet=5, bonus_min_bet=2).inp("open_bets").bet("main", 1, 10)
    trace.bet("pool", 1, 6).bet("pool", 1, 5).bet("bonus", 1, 1).inp("no_more_bets")
    run = play(tmp_path, trace)
    codes = [a["message"].split(":")[1].strip() for a in run.alarms("bet_refused")]
    assert codes == ["over_maximum", "below_minimum"]


def test_art_7_no_bonus_without_a_bonus_pay_table(tmp_path: Path) -> None:
    trace = table(bonus={"hands": {}}).inp("open_bets").bet("bonus", 1, 5)
    (refused,) = play(tmp_path, trace).alarms("bet_refused")
    assert "bonus_not_offered" in refused["message"]


def events_of(tmp_path: Path, trace: Trace, name: str) -> list[Any]:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    return read_trace(str(path)).events


def run_table(journal_path: Path, events: list[Any], opening: int) -> None:
    """A fresh table on the journal (a restart): recover, then play ``events``."""
    config = load_config("embedded:pot-luck-sim.toml",
                         {"decks": DECKS, "pool": {**POOL, "opening_balance": opening}})
    with Journal(journal_path, durable=False) as journal:
        clock = VirtualClock(events[0].t if events else 0.0)
        loop = EventLoop(clock, lambda e: None)
        table_ = Table(config, journal, loop.call_at, clock.now, None)
        loop.handler = table_.handle
        table_.recover()
        loop.run_events(events)


@pytest.mark.parametrize("opening_after", [OPENING, 999])
def test_art_7_the_pool_balance_survives_a_restart(tmp_path: Path, opening_after: int) -> None:
    first = table().coup(*COUP).coup(*COUP)
    second = table()
    second.events = first.events[:1] + [{**e, "t": e["t"] + 100} for e in
                                        table(ready=False).coup(*COUP).events[1:]]
    path = tmp_path / "journal.sqlite"
    run_table(path, events_of(tmp_path, first, "first.jsonl"), OPENING)
    # The daemon restarts (here with another opening balance in its config or not): the
    # pool is the journal's, 100 + 1 + 1 after two coups.
    run_table(path, events_of(tmp_path, second, "second.jsonl"), opening_after)
    with Journal(path, readonly=True) as journal:
        recs = list(journal.records())
    assert [r["pool_balance"] for r in recs if r["type"] == "coup_start"] == [
        OPENING, OPENING + 1, OPENING + 2]
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    # The changed config is told: its coup 1 would have opened another pool.
    assert (recovery["mismatch"] is None) == (opening_after == OPENING)


# -- Art. 8: the two-card deal ---------------------------------------------------------------------
@pytest.mark.parametrize("boxes", [1, 3, 7])
def test_art_8_a_card_to_each_box_left_to_right_then_the_dealer(
        tmp_path: Path, boxes: int) -> None:
    hands = list(zip(("2S", "3S", "4S", "5S", "6S", "7S", "8S"),
                     ("TH", "TD", "TC", "TS", "JH", "JD", "JC"), strict=True))[:boxes]
    bets = tuple(b for n in range(1, boxes + 1) for b in (("main", n, 10), ("pool", n, 1)))
    trace = table().coup(bets, *two_card_deal(hands, ("QS", "7H")))
    for n in range(1, boxes + 1):
        trace.inp("stand", box=n)
    run = play(tmp_path, trace)
    labels = [f"box {n}" for n in range(1, boxes + 1)]
    assert run.dealt() == ([(lab, h[0]) for lab, h in zip(labels, hands, strict=True)]
                           + [("dealer", "QS")]
                           + [(lab, h[1]) for lab, h in zip(labels, hands, strict=True)]
                           + [("dealer", "7H")])
    assert [c["face_down"] for c in run.of("card") if c["hand"] == "dealer"] == [True, True]


def test_art_8_no_stand_before_the_deal_is_complete(tmp_path: Path) -> None:
    trace = table().coup(BOX1, "TS", "9C").inp("stand", box=1).cards("6H", "8D")
    run = play(tmp_path, trace.inp("stand", box=1))
    assert run.codes() == ["deal_not_complete"]
    assert run.settlements() == [(1, "main", 10, "lose", -10), (1, "pool", 1, "lose", -1)]


# -- Art. 8: after the deal, no surrender or insurance of seed 002 unless the rules say ----------
def test_art_8_no_surrender_or_insurance_by_default_seed_004_has_none(tmp_path: Path) -> None:
    # Seed 004's text has no "retiro" and no "seguro": an ace up asks nothing, and the
    # decisions begin at once after the deal.
    trace = one_box(("TS", "6H"), ("AS", "7D")).bet("insurance", 1, 5)
    run = play(tmp_path, trace.inp("surrender", box=1).inp("stand", box=1))
    assert not run.of("insurance_offered")
    refusals = [a["message"] for a in run.alarms()]
    assert "insurance_not_offered" in refusals[0] and run.codes()[1] == "surrender_not_offered"
    assert run.settlements() == [(1, "main", 10, "lose", -10), (1, "pool", 1, "lose", -1)]


def test_art_8_surrender_and_insurance_where_the_operator_s_rules_say(tmp_path: Path) -> None:
    deal = two_card_deal([("TS", "6H"), ("TC", "7H")], ("AS", "KD"))
    bets = (*BOX1, ("main", 2, 10), ("pool", 2, 1))
    trace = table(surrender=True, insurance=True).coup(bets, *deal).bet("insurance", 1, 5)
    run = play(tmp_path, trace.inp("close_insurance").inp("stand", box=1).inp("stand", box=2))
    assert len(run.of("insurance_offered")) == 1
    assert (1, "insurance", 5, "win", 10) in run.settlements()  # the KD: 2 to 1
    deal = two_card_deal([("TS", "6H")], ("9S", "7D"))
    run = play(tmp_path, table(surrender=True).coup(BOX1, *deal).inp("surrender", box=1))
    assert run.settlements() == [(1, "main", 10, "surrender", -5), (1, "pool", 1, "lose", -1)]


def test_art_7_a_bet_joining_another_s_box_needs_its_holder_s_consent(tmp_path: Path) -> None:
    # "others may join with consent": the dealer says who placed the bet, and the consent.
    trace = table().inp("open_bets").bet("main", 1, 10).bet("pool", 1, 1)
    trace.add(bet="main", box=1, amount=10, by="standing", authorized=False)
    trace.add(bet="main", box=1, amount=10, by="standing", authorized=True)
    run = play(tmp_path, trace.inp("no_more_bets").cards(*COUP[1:]))
    (refused,) = run.alarms("bet_refused")
    assert "not_authorized" in refused["message"] and "seed 004 Art. 7" in refused["message"]
    assert run.settlements() == [(1, "main", 20, "win", 30), (1, "pool", 1, "lose", -1)]


def test_art_7_a_standing_player_only_adheres_to_the_bets_the_box_holds(
        tmp_path: Path) -> None:
    # "cualquier otro usuario podrá participar en la partida adhiriéndose a una de las
    # posturas": he joins a bet of the box. Box 1 holds a bet and a pool bet, no bonus:
    # a standing player's bonus there is a bet of his own, refused; his bet joins.
    trace = table().inp("open_bets").bet("main", 1, 10).bet("pool", 1, 1)
    trace.add(bet="bonus", box=1, amount=5, by="standing", authorized=True)
    trace.add(bet="main", box=1, amount=10, by="standing", authorized=True)
    run = play(tmp_path, trace.inp("no_more_bets").cards(*COUP[1:]))
    (refused,) = run.alarms("bet_refused")
    assert "bonus of 5 on box 1" in refused["message"]
    assert "seed 004 Art. 7" in refused["message"]
    # AS KD against 17: the box's one hand, a blackjack, pays 3 to 2 on its 20; the pool
    # bet is lost (no pool hand). A bonus would have paid 2 to 1 on the blackjack.
    assert run.settlements() == [(1, "main", 20, "win", 30), (1, "pool", 1, "lose", -1)]
