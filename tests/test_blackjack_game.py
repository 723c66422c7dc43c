"""The Black Jack coup on its card table, in this process: the decisions of RULES.md §4 allowed
and refused, a dealer blackjack against doubled and split hands, verify without side effects,
and a property: every card drawn lands in exactly one hand or the burn pile, and no hand is
dealt a card the rules do not need (CONTRACT §6).

Expected totals come from this file's own count (:func:`points`), never from the game's.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards.card import full_deck
from controller.cli.compose import load_config
from controller.core import registry
from controller.core.contract import GameContext, can
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, SerialData
from controller.games.blackjack.game import DECISIONS
from controller.store.records import Record, unpack

NEW_DECKS = ("show", "turn", "scramble", "shuffle", "cut", "load")
CONFIGS = {"blackjack_plus": "embedded:blackjack-plus-sim.toml",
           "pot_luck": "embedded:pot-luck-sim.toml"}


def points(cards: list[str]) -> tuple[int, bool]:
    """Seed 004 Art. 3, counted here: (total, soft)."""
    values = [1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in cards]
    hard = sum(values)
    return (hard + 10, True) if 1 in values and hard + 10 <= 21 else (hard, False)


class Bench:
    """A Black Jack card table made from its registry entry, its records in a list; the shoe
    loaded (seed 002 Art. 5) with a 2C burned. Limits 5 to 1000 (the sim configs')."""

    def __init__(self, table: str = "blackjack_plus", **meta: Any) -> None:
        self.config = load_config(CONFIGS[table], {"decks": 6, **meta})
        self.records: list[dict[str, Any]] = []
        ctx = GameContext(self.config, self.emit, lambda *a: None, lambda: 0.0)
        self.table = registry.spec(table).make(ctx)
        self.game: Any = self.table.game
        for step in NEW_DECKS:
            assert self.inp("procedure_step", step=step) is None
        self.cards("2C", line="Burn")

    def emit(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        record = {"type": type_, "seq": len(self.records) + 1, **fields}
        self.records.append(record)
        return record

    def _person(self, event: Any, verify: Any, do: Any) -> str | None:
        try:
            verify(event)
            do(event)
        except RuleViolation as exc:
            self.table.refused(event, exc)
            return exc.code
        return None

    def inp(self, action: str, **args: Any) -> str | None:
        """A dealer input, verified then done; the refusal's code, or None."""
        return self._person(DealerInput(0.0, action, args), self.table.verify_input,
                            self.table.dealer_input)

    def bet(self, kind: str, box: int, amount: int) -> str | None:
        return self._person(BetPlaced(0.0, kind, box, amount), self.table.verify_bet,
                            self.table.place_bet)

    def cards(self, *cards: str, line: str = "Game") -> None:
        for card in cards:
            self.table.serial(SerialData(0.0, "shoe", f"[{line}]<Card:{card}>\r\n".encode()))

    def coup(self, bets: dict[int, int], *cards: str, pool: int = 0) -> Bench:
        assert self.inp("open_bets") is None
        for box, amount in bets.items():
            assert self.bet("main", box, amount) is None
            if pool:
                assert self.bet("pool", box, pool) is None
        assert self.inp("no_more_bets") is None
        self.cards(*cards)
        return self

    def of(self, *types: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] in types]

    def settlements(self) -> list[tuple[int, str, int, str, float]]:
        return sorted((s["box"], s["kind"], s["amount"], s["outcome"], s["payout"])
                      for s in self.of("settlement"))

    def hands(self) -> dict[str, list[str]]:
        dealt: dict[str, list[str]] = {}
        for card in self.of("card"):
            dealt.setdefault(card["hand"], []).append(card["card"])
        return dealt


# -- the decisions of RULES.md §4 -----------------------------------------------------------------
def test_a_double_after_a_hit_is_refused() -> None:
    bench = Bench().coup({1: 10}, "5S", "9C", "3H", "7D")  # box 1: 8 against 9C
    assert bench.inp("hit", box=1) is None
    bench.cards("2D")
    assert bench.inp("double", box=1) == "double_not_allowed"
    assert bench.inp("hit", box=1) is None


def test_a_second_split_is_refused() -> None:
    bench = Bench().coup({1: 10}, "8S", "9C", "8H", "7D")
    bench.inp("split", box=1)
    bench.cards("8D")  # the first hand is 8S 8D: a pair again
    assert bench.inp("split", box=1) == "split_once"
    assert bench.hands()["box 1"] == ["8S", "8H", "8D"]  # as dealt, before the split moved 8H


def test_a_split_needs_two_cards_of_a_rank_unless_the_table_splits_by_value() -> None:
    assert Bench().coup({1: 10}, "KS", "9C", "QH", "7D").inp("split", box=1) == "not_a_pair"
    bench = Bench(split_pairs="same_value").coup({1: 10}, "KS", "9C", "QH", "7D")
    assert bench.inp("split", box=1) is None


def test_a_double_after_a_split_as_the_table_says() -> None:
    allowed = Bench().coup({1: 10}, "5S", "9C", "5H", "7D")
    allowed.inp("split", box=1)
    allowed.cards("6D")
    assert allowed.inp("double", box=1) is None
    refused = Bench(double_after_split=False).coup({1: 10}, "5S", "9C", "5H", "7D")
    refused.inp("split", box=1)
    refused.cards("6D")
    assert refused.inp("double", box=1) == "double_not_allowed"


def test_a_double_on_the_totals_the_table_allows() -> None:
    bench = Bench(double_on="9_10_11").coup({1: 10}, "5S", "9C", "7H", "7D")  # 12
    assert bench.inp("double", box=1) == "double_not_allowed"


def test_split_aces_take_one_card_each_unless_the_table_plays_them_on() -> None:
    one = Bench().coup({1: 10}, "AS", "9C", "AH", "7D")
    one.inp("split", box=1)
    one.cards("5D", "6C")  # AS 5D, AH 6C: both finished, the dealer's 16 draws
    assert one.game.next_hand() == "dealer"
    on = Bench(split_aces_one_card=False).coup({1: 10}, "AS", "9C", "AH", "7D")
    on.inp("split", box=1)
    on.cards("5D")
    assert on.inp("hit", box=1) is None


def test_a_decision_for_a_blackjack_or_after_every_hand_is_finished_is_refused() -> None:
    bench = Bench().coup({1: 10, 2: 10}, "AS", "9S", "9C", "KH", "9H", "7D")
    assert bench.inp("surrender", box=1) == "no_decision_due"  # box 1's blackjack
    assert bench.inp("stand", box=1) == "not_this_box"  # box 2 acts
    assert bench.inp("stand", box=2) is None
    assert bench.inp("hit", box=2) == "no_decision_due"


def test_decisions_need_a_box_and_other_games_inputs_are_refused() -> None:
    bench = Bench().coup({1: 10}, "TS", "9C", "6H", "7D")
    # No box at all: the table's check of every input's arguments (GameSpec) refuses it.
    assert bench.inp("hit") == "missing_argument" and bench.inp("hit", box=True) == "bad_input"
    assert bench.inp("five_choice", box=1, choice="draw") == "input_refused"
    assert bench.inp("hit", box=4) == "box_not_in_play"


def test_verify_refuses_without_changing_anything() -> None:
    bench = Bench().coup({1: 10}, "5S", "9C", "3H", "7D")
    before, state = list(bench.records), bench.game.state
    for action, args in (("split", {"box": 1}), ("surrender", {"box": 2}),
                         ("open_bets", {}), ("second_card_exposed", {})):
        if action == "second_card_exposed":
            bench.table.verify_input(DealerInput(0.0, action, args))  # allowed: nothing done
            continue
        with pytest.raises(RuleViolation):
            bench.table.verify_input(DealerInput(0.0, action, args))
    with pytest.raises(RuleViolation):
        bench.table.verify_bet(BetPlaced(0.0, "insurance", 1, 5))  # no ace up
    assert bench.records == before and bench.game.state == state


# -- the dealer ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("takes", "expected"), [
    ("original_bets", [(1, "main", 10, "lose", -10), (2, "main", 10, "lose", -10),
                       (2, "split", 10, "push", 0)]),
    ("all_bets", [(1, "main", 20, "lose", -20), (2, "main", 10, "lose", -10),
                  (2, "split", 10, "lose", -10)]),
])
def test_a_dealer_blackjack_against_a_doubled_and_a_split_hand(
        takes: str, expected: list[tuple[Any, ...]]) -> None:
    # He does not check for blackjack first (RULES.md §4): box 1 doubles its 11, box 2
    # splits its eights; then his hole card makes TS AH a blackjack.
    bench = Bench(dealer_blackjack_takes=takes)
    bench.coup({1: 10, 2: 10}, "5S", "8S", "TS", "6H", "8D", "AH")
    bench.inp("double", box=1)
    bench.cards("9C")  # box 1: 20 on 20 chips
    bench.inp("split", box=2)
    bench.cards("3C")  # 8S 3C
    bench.inp("stand", box=2)
    bench.cards("KC")  # 8D KC
    bench.inp("stand", box=2)
    assert bench.settlements() == expected
    if takes == "original_bets":
        (doubled,) = [s for s in bench.of("settlement") if s["box"] == 1]
        assert doubled["returned"] == 10  # the double given back


@pytest.mark.parametrize(("dealer", "cards"), [("s17", ["AS", "6H"]),
                                               ("h17", ["AS", "6H", "4C"])])
def test_the_dealer_stands_or_hits_a_soft_17_as_configured(dealer: str, cards: list[str]) -> None:
    bench = Bench(dealer=dealer).coup({1: 10}, "TS", "AS", "8H", "6H")
    bench.inp("close_insurance")  # an ace up: the dealer asked for insurance (Art. 10)
    bench.inp("stand", box=1)
    bench.cards("4C")
    assert bench.hands()["dealer"] == cards
    assert bench.of("coup_result")[0]["dealer"]["total"] == points(cards)[0]
    if dealer == "s17":
        # The 4C is not his, nor anyone's: play stops, the card in no hand (issue 16).
        assert bench.of("alarm")[-1]["code"] == "card_without_place"


def test_the_dealer_draws_nothing_when_no_hand_is_live() -> None:
    bench = Bench().coup({1: 10}, "TS", "5C", "6H", "9D")
    bench.inp("hit", box=1)
    bench.cards("KD")  # 26: bust
    assert bench.of("coup_result")[0]["dealer"]["cards"] == ["5C", "9D"]
    assert bench.settlements() == [(1, "main", 10, "lose", -10)]


def test_blackjack_pays_the_table_s_ratio() -> None:
    bench = Bench(blackjack_pays="6:5").coup({1: 10}, "AS", "9C", "KH", "8D")
    assert bench.settlements() == [(1, "main", 10, "win", 12)]


def test_a_card_before_its_decision_waits_for_it_and_is_dealt_to_none_meanwhile() -> None:
    bench = Bench().coup({1: 10}, "TS", "9C", "8H", "7D")  # box 1 decides
    bench.cards("5S")
    (alarm,) = bench.of("alarm")
    assert alarm["code"] == "decision_missing" and "box 1" in alarm["message"]
    assert all("5S" not in cards for cards in bench.hands().values())
    assert bench.inp("hit", box=1) is None  # the hit places the card that came before it
    assert bench.hands()["box 1"] == ["TS", "8H", "5S"]


def test_a_card_no_hand_needs_stops_play_and_is_dealt_to_none() -> None:
    bench = Bench().coup({1: 10}, "TS", "9C", "8H", "AD")  # box 1 stands on 18; 9C AD = 20
    bench.inp("stand", box=1)
    bench.cards("5S")
    (alarm,) = bench.of("alarm")
    assert (alarm["code"], alarm["stops_play"]) == ("card_without_place", True)
    assert "5S" not in alarm["message"]  # it may have been dealt face down
    assert all("5S" not in cards for cards in bench.hands().values())


def test_a_misread_card_waits_for_the_dealer_s_correction() -> None:
    bench = Bench().coup({1: 10}, "TS", "9C", "8H", "7D")
    bench.inp("hit", box=1)
    bench.table.serial(SerialData(0.0, "shoe", b"[Game]<Game>\r\n"))
    assert bench.of("misread")[-1]["hand"] == "box 1"
    assert bench.inp("stand", box=1) == "card_due"  # the hit's card first
    assert bench.inp("card", card="2S") is None
    assert bench.hands()["box 1"] == ["TS", "8H", "2S"]


# -- a property of every coup ------------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(st.data())
def test_every_card_lands_in_one_hand_or_the_burn_pile_and_no_hand_gets_one_unneeded(
        data: st.DataObject) -> None:
    table = data.draw(st.sampled_from(sorted(CONFIGS)))
    dealer = data.draw(st.sampled_from(["s17", "h17"]))
    bench = Bench(table, dealer=dealer)
    shoe = [str(c) for c in full_deck() * 6]
    random.Random(data.draw(st.integers(0, 2**32))).shuffle(shoe)
    boxes = sorted(data.draw(st.sets(st.integers(1, 7), min_size=1)))
    assert bench.inp("open_bets") is None
    for box in boxes:
        bench.bet("main", box, 10)
        if table == "pot_luck":
            bench.bet("pool", box, 1)
    bench.inp("no_more_bets")
    drawn: list[str] = []
    game = bench.game
    while game.state != "coup_over":
        label = game.next_hand()
        if label is not None:
            drawn.append(shoe.pop())
            bench.cards(drawn[-1])
            assert bench.of("card")[-1]["hand"] == label  # where the game said
            continue
        coup = game.chart.coup
        if not coup.acted and data.draw(st.booleans()):
            assert bench.inp("second_card_exposed") is None  # after the deal, before all
        if game.state == "insurance":  # an ace up: the question, then its close
            bench.bet("insurance", data.draw(st.sampled_from(coup.boxes)).number, 5)
            assert bench.inp("close_insurance") is None
            continue
        if game.state != "deciding":
            continue
        box = game.chart.current().box
        allowed = [a for a in DECISIONS
                   if can(bench.table.verify_input, DealerInput(0.0, a, {"box": box}))]
        refused = [a for a in DECISIONS if a not in allowed]
        if refused:  # a refused decision changes nothing
            before = len(bench.records)
            with pytest.raises(RuleViolation):
                bench.table.verify_input(DealerInput(0.0, refused[0], {"box": box}))
            assert len(bench.records) == before
        assert bench.inp(data.draw(st.sampled_from(allowed)), box=box) is None
    extra = shoe.pop()
    bench.cards(extra)
    assert bench.of("alarm")[-1]["code"] == "card_without_place"  # play stops
    # Every card drawn is in exactly one hand (burn: the 2C), in the order drawn.
    assert [r["card"] for r in bench.of("burn")] == ["2C"]
    assert [r["card"] for r in bench.of("card")] == drawn
    (result,) = bench.of("coup_result")
    dealer_cards = result["dealer"]["cards"]
    hands = {f"box {b['box']}" + (" hand 2" if i else ""): h
             for b in result["boxes"] for i, h in enumerate(b["hands"])}
    held = [c for h in hands.values() for c in h["cards"]]
    assert sorted(dealer_cards + held) == sorted(drawn)
    # No hand got a card it did not need: two, then one for each hit or double it asked.
    decisions = bench.of("decision")
    for label, hand in hands.items():
        cards = hand["cards"]
        asked = sum(1 for d in decisions if d["hand"] == label and d["action"] in ("hit",
                                                                                 "double"))
        assert len(cards) == 2 + asked
        assert all(points(cards[:k])[0] < 21 for k in range(2, len(cards)))
    live = [h for h in hands.values() if not (h["bust"] or h["surrendered"] or h["blackjack"])]
    for k in range(2, len(dealer_cards)):  # each draw on a total that must draw
        total, soft = points(dealer_cards[:k])
        assert live and (total < 17 or (total == 17 and soft and dealer == "h17"))
    final, soft = points(dealer_cards)
    assert not live or final > 17 or (final == 17 and not (soft and dealer == "h17"))
