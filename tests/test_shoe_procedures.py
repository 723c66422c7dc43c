"""Shoe procedures are data each game's package gives its shoe (controller/cards/procedures.py):
the same session enforces seed 002's (Mini-Bacará), and can express seed 004's own article
numbers (Pot Luck) and seed 003's shuffles before each hand (draw poker)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.cards.card import Card
from controller.cards.procedures import Citations, Procedure, ShoeRules, Step
from controller.cards.shoe import ShoeSession
from controller.cards.shoe_lines import CardLine, CutCardLine
from controller.core.errors import RuleViolation
from controller.games.mini_baccarat.shoe import shoe_rules
from controller.store.records import Record, unpack


class Journal:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def __call__(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        record = {"type": type_, **fields}
        self.records.append(record)
        return record

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == type_]


def refusal(shoe: ShoeSession, step: str, **kw: Any) -> RuleViolation:
    with pytest.raises(RuleViolation) as err:
        shoe.verify_procedure_step(step, **kw)
    return err.value


# Seed 004 Art. 5 and 6 (Pot Luck): the steps of seed 002, under seed 004's own articles.
SEED_004 = Citations("seed 004", "seed 004 Art. 4", "seed 004 Art. 5/6", "seed 004 Art. 5 e",
                     "seed 004 Art. 5 e, 6 b")
POT_LUCK = ShoeRules(
    decks=6, cut_card_min_remaining=40, citations=SEED_004,
    new_decks=Procedure("new_decks", "seed 004 Art. 5", (
        Step("show"), Step("turn"), Step("scramble"), Step("shuffle"), Step("cut"),
        Step("load", loads=True), Step("burn", read=True))),
    after_cut_card=Procedure("cut_card", "seed 004 Art. 6", (
        Step("shuffle"), Step("cut"), Step("load", loads=True), Step("burn", read=True))))

# Seed 003 num. 2 (draw poker): "barajadas al menos cuatro veces antes de cada pase y se le
# ofrecerá colocar la carta de corte a uno de los Jugadores"; one deck, no cut card in it.
SEED_003 = Citations("seed 003", "seed 003 num. 1", "seed 003 num. 2", "seed 003 num. 2",
                     "seed 003 num. 2")
BEFORE_HAND = Procedure("before_hand", "seed 003 num. 2", (
    Step("shuffle", min_times=4), Step("cut", by=("player", "dealer")),
    Step("load", loads=True)))
DRAW_POKER = ShoeRules(decks=1, cut_card_min_remaining=0, citations=SEED_003,
                       new_decks=BEFORE_HAND, before_each_game=BEFORE_HAND)


def test_seed_002_art5_and_art6_for_mini_baccarat() -> None:
    rules = shoe_rules(4, 40)
    assert [s.name for s in rules.new_decks.steps] == [
        "show", "turn", "scramble", "shuffle", "cut", "load", "burn"]
    assert all(s.mandatory for s in rules.new_decks.steps)
    assert rules.after_cut_card is not None
    assert rules.after_cut_card.dealer_steps() == ("shuffle", "cut", "load")
    assert (rules.new_decks.article, rules.after_cut_card.article) == ("seed 002 Art. 5",
                                                                       "seed 002 Art. 6")


def test_seed_004_articles_are_cited_in_refusals_and_alarms() -> None:
    journal = Journal()
    shoe = ShoeSession(journal, POT_LUCK)
    err = refusal(shoe, "shuffle")
    assert err.code == "procedure_out_of_order" and "(seed 004 Art. 5)" in err.message
    for step in ("show", "turn", "scramble", "shuffle", "cut", "load"):
        shoe.procedure_step(0.0, step)
    shoe.feed(1.0, CardLine(Card("2", "C"), burn=True))
    assert shoe.ready_for_play
    with pytest.raises(RuleViolation, match=r"seed 004 Art\. 5/6"):
        shoe.verify_procedure_step("load")
    shoe.feed(2.0, CutCardLine())  # 311 cards left of 312: more than half the pack
    (early,) = [a for a in journal.of("alarm") if a["code"] == "cut_card_early"]
    assert "(seed 004 Art. 5 e, 6 b)" in early["message"]
    shoe.inspector_clear(2.5, "cut card checked")
    with pytest.raises(RuleViolation, match=r"seed 004 Art\. 6"):
        shoe.verify_new_game()
    assert shoe.close_if_ending(3.0) and shoe.procedure == "cut_card"
    assert "(seed 004 Art. 6)" in refusal(shoe, "cut").message


def test_seed_003_four_shuffles_then_a_cut_by_a_player_before_each_hand() -> None:
    journal = Journal()
    shoe = ShoeSession(journal, DRAW_POKER)
    for times in range(1, 4):
        shoe.procedure_step(float(times), "shuffle")
        err = refusal(shoe, "cut", by="player")
        assert err.code == "procedure_out_of_order"
        assert f"shuffle (done {times} of 4 times)" in err.message
    shoe.procedure_step(4.0, "shuffle")
    shoe.procedure_step(5.0, "shuffle")  # more than four is "al menos cuatro"
    assert refusal(shoe, "cut").code == "procedure_step_by"  # who cut must be said
    shoe.procedure_step(6.0, "cut", by="player")
    shoe.procedure_step(7.0, "load")
    assert shoe.ready_for_play
    steps = [(r["step"], r.get("times"), r.get("by")) for r in journal.of("shoe_procedure")]
    assert steps == [("shuffle", n, None) for n in range(1, 6)] + [
        ("cut", None, "player"), ("load", None, None)]
    assert shoe.feed(8.0, CardLine(Card("A", "S"), burn=False)) == Card("A", "S")
    shoe.game_finished(9.0)  # the hand is over: the next needs its own shuffles
    assert journal.of("shoe_closed")[-1]["reason"] == "game_finished"
    assert not shoe.ready_for_play and shoe.procedure == "before_hand"
    with pytest.raises(RuleViolation, match="the before_hand procedure"):
        shoe.verify_new_game()
    shoe.procedure_step(10.0, "shuffle")
    assert shoe.cards_left == 52  # the first step gathered every card


def test_a_step_that_asks_who_refuses_anyone_else() -> None:
    shoe = ShoeSession(Journal(), DRAW_POKER)
    for _ in range(4):
        shoe.procedure_step(0.0, "shuffle")
    err = refusal(shoe, "cut", by="croupier")
    assert err.code == "procedure_step_by" and "player, dealer" in err.message


def test_verify_changes_nothing() -> None:
    journal = Journal()
    shoe = ShoeSession(journal, shoe_rules(4, 40))
    assert shoe.verify_procedure_step("show") == 0
    assert refusal(shoe, "turn").code == "procedure_out_of_order"
    assert journal.records == [] and shoe.procedure == "new_decks"
    shoe.procedure_step(0.0, "show")
    assert shoe.verify_procedure_step("turn") == 1 and len(journal.records) == 1
