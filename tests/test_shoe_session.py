"""The shoe session: seed 002 Art. 5 and 6 procedures, composition and cut-card alarms."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from controller.cards.card import Card, full_deck
from controller.cards.shoe import ShoeSession
from controller.cards.shoe_lines import (
    BadCardLine,
    CardLine,
    CutCardLine,
    MisreadLine,
    OverlongLine,
    ReaderAlarm,
    ReaderWarning,
    UnknownLine,
)
from controller.core.errors import RuleViolation
from controller.games.mini_baccarat.shoe import shoe_rules
from controller.store.records import Record, unpack

NEW_DECKS, CUT_CARD = "new_decks", "cut_card"  # the procedures of seed 002 Art. 5 and 6

ART5 = ["show", "turn", "scramble", "shuffle", "cut", "load"]
ART6 = ["shuffle", "cut", "load"]
AS, KH = Card("A", "S"), Card("K", "H")


class Journal:
    """An in-memory ``Emit``: records in order with their ``seq``."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def __call__(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        record = {"type": type_, "seq": len(self.records), **fields}
        self.records.append(record)
        return record

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == type_]

    def alarm_codes(self) -> list[str]:
        return [r["code"] for r in self.of("alarm")]


def session(journal: Journal, decks: int = 1, cut_card_min_remaining: int = 40) -> ShoeSession:
    """A shoe of ``decks`` decks under the procedures a Mini-Bacará table follows (seed 002)."""
    return ShoeSession(journal, shoe_rules(decks, cut_card_min_remaining))


def game(card: Card) -> CardLine:
    return CardLine(card, burn=False)


def burn(card: Card) -> CardLine:
    return CardLine(card, burn=True)


def ready_session(decks: int = 1, **kw: Any) -> tuple[ShoeSession, Journal]:
    journal = Journal()
    shoe = session(journal, decks, **kw)
    for step in ART5:
        shoe.procedure_step(0.0, step)
    shoe.feed(0.1, burn(Card("2", "C")))
    assert shoe.ready_for_play
    return shoe, journal


# --- procedures (Art. 5 and 6) ------------------------------------------------------------


def test_new_decks_procedure_complete_in_order() -> None:
    journal = Journal()
    shoe = session(journal, 4)
    assert shoe.procedure == NEW_DECKS
    for i, step in enumerate(ART5):
        assert not shoe.ready_for_play
        record = shoe.procedure_step(float(i), step)
        assert record == {
            "type": "shoe_procedure",
            "seq": i,
            "t": float(i),
            "procedure": NEW_DECKS,
            "step": step,
        }
    assert shoe.feed(7.0, burn(AS)) is None
    assert shoe.ready_for_play and shoe.procedure is None
    assert [r["step"] for r in journal.of("shoe_procedure")] == [*ART5, "burn"]
    assert journal.of("burn") == [
        {"type": "burn", "seq": 6, "t": 7.0, "card": "AS", "cards_left": 207}
    ]
    shoe.verify_new_game()
    assert shoe.feed(8.0, game(KH)) == KH
    assert shoe.cards_left == 206 and shoe.remaining(KH) == 3


@pytest.mark.parametrize("index", range(1, len(ART5)))
def test_each_new_decks_step_skipped_is_out_of_order(index: int) -> None:
    shoe = session(Journal(), 1)
    for step in ART5[: index - 1]:
        shoe.procedure_step(0.0, step)
    with pytest.raises(RuleViolation) as err:
        shoe.procedure_step(1.0, ART5[index])  # ART5[index - 1] skipped
    assert err.value.code == "procedure_out_of_order"
    assert ART5[index - 1] in err.value.message


@pytest.mark.parametrize("step", ART5)
def test_each_step_repeated_is_out_of_order(step: str) -> None:
    shoe = session(Journal(), 1)
    for done in ART5[: ART5.index(step) + 1]:
        shoe.procedure_step(0.0, done)
    with pytest.raises(RuleViolation, match="out of order") as err:
        shoe.procedure_step(1.0, step)
    assert err.value.code == "procedure_out_of_order"


def test_burn_is_read_not_declared_and_unknown_steps_refused() -> None:
    shoe = session(Journal(), 1)
    for step in ("burn", "deal"):
        with pytest.raises(RuleViolation) as err:
            shoe.procedure_step(0.0, step)
        assert err.value.code == "unknown_procedure_step"


def test_burn_before_load_does_not_fulfil_the_procedure() -> None:
    journal = Journal()
    shoe = session(journal, 1)
    for step in ART5[:-1]:
        shoe.procedure_step(0.0, step)
    shoe.feed(1.0, burn(AS))
    assert journal.alarm_codes() == ["card_before_ready"]
    assert not shoe.ready_for_play and shoe.cards_left == 52  # not in the shoe yet


def test_step_when_no_procedure_is_due() -> None:
    shoe, _ = ready_session()
    with pytest.raises(RuleViolation) as err:
        shoe.procedure_step(1.0, "shuffle")
    assert err.value.code == "procedure_out_of_order"


def test_cut_card_ends_the_shoe_after_the_coup_then_art6() -> None:
    shoe, journal = ready_session(decks=2, cut_card_min_remaining=40)
    deck = [c for c in full_deck() if c != Card("2", "C")]
    for card in deck:  # 104 - 1 - 51 = 52 left: half the pack, where the cut card may sit
        assert shoe.feed(1.0, game(card)) == card
    shoe.feed(2.0, CutCardLine())
    assert shoe.shoe_ending and journal.of("cut_card")[-1]["cards_left"] == 52
    assert journal.alarm_codes() == [] and not shoe.play_stopped
    # The coup under way finishes (Art. 6: "cuando en una partida aparece el cortador").
    assert shoe.feed(2.5, game(deck[5])) == deck[5]
    with pytest.raises(RuleViolation) as err:
        shoe.verify_new_game()
    assert err.value.code == "shoe_ending"
    assert shoe.close_if_ending(3.0)
    assert journal.of("shoe_closed")[-1]["reason"] == "cut_card"
    assert shoe.procedure == CUT_CARD and not shoe.ready_for_play
    with pytest.raises(RuleViolation) as err:
        shoe.verify_new_game()
    assert err.value.code == "shoe_not_ready"
    # A card drawn before the reshuffle is journaled, not passed.
    assert shoe.feed(3.5, game(deck[6])) is None
    assert journal.alarm_codes() == ["card_before_ready"]
    # Art. 6: shuffle, cut, load, burn; the shuffle gathers every card again.
    for step in ART6:
        shoe.procedure_step(4.0, step)
    assert shoe.cards_left == 104
    shoe.feed(5.0, burn(deck[0]))
    assert shoe.ready_for_play and not shoe.shoe_ending
    assert [r["procedure"] for r in journal.of("shoe_procedure")][-4:] == [CUT_CARD] * 4


def test_art6_optional_steps_before_shuffle_only() -> None:
    shoe, journal = ready_session(decks=2)
    for card in full_deck()[:51]:  # 52 of 104 left: the cut card is in place (Art. 5 e)
        shoe.feed(0.5, game(card))
    shoe.feed(1.0, CutCardLine())
    shoe.close_if_ending(2.0)
    assert journal.alarm_codes() == []
    shoe.procedure_step(3.0, "turn")  # show skipped: optional
    shoe.procedure_step(3.1, "shuffle")  # scramble skipped: optional
    with pytest.raises(RuleViolation) as err:
        shoe.procedure_step(3.2, "scramble")
    assert err.value.code == "procedure_out_of_order"
    with pytest.raises(RuleViolation):
        shoe.procedure_step(3.3, "load")  # cut is mandatory
    shoe.procedure_step(3.4, "cut")
    shoe.procedure_step(3.5, "load")


def test_close_if_ending_without_cut_card_keeps_the_shoe() -> None:
    shoe, _ = ready_session()
    assert not shoe.close_if_ending(1.0)
    assert shoe.ready_for_play


def test_change_decks_requires_art5() -> None:
    shoe, journal = ready_session()
    shoe.change_decks(1.0, "marked card")
    assert journal.of("shoe_closed")[-1] == {
        "type": "shoe_closed",
        "seq": 8,
        "t": 1.0,
        "reason": "decks_changed",
        "cards_left": 51,
        "note": "marked card",
    }
    assert shoe.procedure == NEW_DECKS
    with pytest.raises(RuleViolation):
        shoe.procedure_step(2.0, "shuffle")


# --- composition and stopping alarms --------------------------------------------------


def test_card_over_count_stops_play_until_inspector_clears() -> None:
    shoe, journal = ready_session(decks=2)
    assert shoe.feed(1.0, game(AS)) == AS
    assert shoe.feed(1.1, game(AS)) == AS
    assert shoe.remaining(AS) == 0
    assert shoe.feed(1.2, game(AS)) is None
    alarm = journal.of("alarm")[-1]
    assert alarm["code"] == "card_over_count" and alarm["stops_play"] and alarm["card"] == "AS"
    assert shoe.play_stopped and shoe.remaining(AS) == 0
    # While stopped: every card is journaled as an alarm, none reaches the game.
    assert shoe.feed(1.3, game(KH)) is None
    assert journal.alarm_codes()[-1] == "card_while_stopped"
    with pytest.raises(RuleViolation) as err:
        shoe.verify_new_game()
    assert err.value.code == "play_stopped"
    assert err.value.message == ("play is stopped on the shoe by the card_over_count alarm; "
                                 "the inspector resumes it (inspector_clear)")
    record = shoe.inspector_clear(2.0, "extra ace removed")
    assert record["cleared"] == ["card_over_count"] and record["note"] == "extra ace removed"
    assert not shoe.play_stopped
    assert shoe.feed(2.1, game(KH)) == KH
    with pytest.raises(RuleViolation) as err:
        shoe.inspector_clear(3.0, "again")
    assert err.value.code == "play_not_stopped"


def test_joker_is_a_bad_card_and_stops_play() -> None:
    shoe, journal = ready_session()
    assert shoe.feed(1.0, BadCardLine("[Game]<Card:JK>")) is None
    alarm = journal.of("alarm")[-1]
    assert alarm["code"] == "bad_card" and alarm["stops_play"]
    assert alarm["text"] == "[Game]<Card:JK>"
    assert shoe.play_stopped and shoe.cards_left == 51


def test_cut_card_late() -> None:
    shoe, journal = ready_session(decks=1, cut_card_min_remaining=10)
    deck = [c for c in full_deck() if c != Card("2", "C")]
    for card in deck[:41]:  # 51 - 41 = 10 left: still allowed
        assert shoe.feed(1.0, game(card)) == card
    shoe.feed(2.0, CutCardLine())
    assert not shoe.play_stopped
    shoe.close_if_ending(2.5)
    for step in ART6:
        shoe.procedure_step(3.0, step)
    shoe.feed(3.5, burn(deck[0]))
    for card in deck[1:43]:  # 51 - 42 = 9 left
        shoe.feed(4.0, game(card))
    assert journal.alarm_codes() == ["cut_card_missing"]
    shoe.inspector_clear(4.5, "reserve reached, finish the coup")
    shoe.feed(5.0, CutCardLine())
    assert journal.of("cut_card")[-1]["late"] is True
    assert journal.alarm_codes() == ["cut_card_missing", "cut_card_late"]
    assert shoe.play_stopped and shoe.shoe_ending


def test_cut_card_missing_stops_play_and_ends_the_shoe() -> None:
    shoe, journal = ready_session(decks=1, cut_card_min_remaining=40)
    deck = [c for c in full_deck() if c != Card("2", "C")]
    passed = [shoe.feed(1.0, game(card)) for card in deck[:12]]
    assert passed[:11] == deck[:11]  # 51 - 11 = 40 left: the reserve is intact
    assert passed[11] is None  # this card is the first of the reserve
    alarm = journal.of("alarm")[-1]
    assert alarm["code"] == "cut_card_missing" and alarm["stops_play"]
    assert shoe.play_stopped and shoe.shoe_ending
    shoe.inspector_clear(2.0, "coup voided")
    assert shoe.feed(2.1, game(deck[12])) == deck[12]  # one alarm per shoe
    assert journal.alarm_codes() == ["cut_card_missing"]
    assert shoe.close_if_ending(3.0)


def test_cut_card_during_the_burn_closes_the_shoe_at_once() -> None:
    journal = Journal()
    shoe = session(journal, 1)
    for step in ART5:
        shoe.procedure_step(0.0, step)
    shoe.feed(1.0, CutCardLine())
    assert shoe.procedure == CUT_CARD and journal.of("shoe_closed")[-1]["reason"] == "cut_card"
    # On top of the whole pack: misplaced (seed 002 Art. 5 e), play stops.
    assert journal.alarm_codes() == ["cut_card_early"] and shoe.play_stopped


@pytest.mark.parametrize(("drawn", "early"), [(103, False), (102, True), (0, True)])
def test_art5e_6b_cut_card_more_than_half_the_pack_above_the_bottom_is_misplaced(
    drawn: int, early: bool
) -> None:
    # Seed 002 Art. 5 e, 6 b: "a no menos de 40 cartas de la base y la mitad del paquete".
    # Four decks, 208 cards: after the burn and ``drawn`` cards, 104 left is half the pack
    # (in place), 105 is more than half (misplaced, RULES.md §3: play stops on the shoe).
    shoe, journal = ready_session(decks=4)
    # The deck's order, four times, less the 2C that was burned: no card over its count.
    cards = [c for c in full_deck() if c != Card("2", "C")] + full_deck() * 3
    for card in cards[:drawn]:
        assert shoe.feed(1.0, game(card)) == card
    shoe.feed(2.0, CutCardLine())
    (cut,) = journal.of("cut_card")
    assert cut["cards_left"] == 207 - drawn and cut["early"] is early and not cut["late"]
    assert shoe.play_stopped is early and shoe.shoe_ending
    if not early:
        assert journal.alarm_codes() == []
        return
    (alarm,) = journal.of("alarm")
    assert alarm["code"] == "cut_card_early" and alarm["stops_play"] is True
    assert "misplaced cut card" in alarm["message"] and "half the pack" in alarm["message"]
    # The coup under way may end, but no next one before the inspector clears it.
    assert shoe.feed(2.5, game(cards[drawn])) is None
    assert journal.alarm_codes()[-1] == "card_while_stopped"
    shoe.close_if_ending(3.0)
    with pytest.raises(RuleViolation) as err:
        shoe.verify_new_game()
    assert err.value.code == "play_stopped"
    assert shoe.inspector_clear(4.0, "cut card was too high")["cleared"] == ["cut_card_early"]
    for step in ART6:
        shoe.procedure_step(5.0, step)
    shoe.feed(6.0, burn(AS))
    shoe.verify_new_game()


# --- misreads and corrections ---------------------------------------------------------


def test_misread_then_correction() -> None:
    shoe, journal = ready_session()
    line = MisreadLine()
    assert shoe.feed(1.0, line) is line
    assert shoe.misreads_pending == 1
    assert journal.of("misread")[-1] == {"type": "misread", "seq": 8, "t": 1.0, "pending": 1}
    assert shoe.manual_card(2.0, KH) == KH
    assert journal.of("manual_card")[-1]["card"] == "KH"
    assert shoe.misreads_pending == 0 and shoe.remaining(KH) == 0
    with pytest.raises(RuleViolation) as err:
        shoe.manual_card(3.0, AS)
    assert err.value.code == "no_misread_pending"


def test_correction_goes_through_the_composition_check() -> None:
    shoe, journal = ready_session()
    shoe.feed(1.0, game(KH))
    shoe.feed(1.1, MisreadLine())
    assert shoe.manual_card(2.0, KH) is None
    assert journal.alarm_codes() == ["card_over_count"] and shoe.play_stopped
    assert shoe.misreads_pending == 1  # still to be corrected


def test_card_read_before_the_correction_stops_play() -> None:
    shoe, journal = ready_session()
    shoe.feed(1.0, MisreadLine())
    assert shoe.feed(1.1, game(KH)) is None
    assert journal.alarm_codes() == ["card_before_correction"] and shoe.play_stopped


def test_misread_outside_play_is_an_alarm() -> None:
    journal = Journal()
    shoe = session(journal, 1)
    assert shoe.feed(1.0, MisreadLine()) is None
    assert journal.alarm_codes() == ["card_before_ready"] and shoe.misreads_pending == 0


# --- cards outside play and reader reports ---------------------------------------------


def test_card_before_the_procedure_is_complete_is_an_alarm() -> None:
    journal = Journal()
    shoe = session(journal, 1)
    assert shoe.feed(0.5, game(AS)) is None  # nothing loaded: not counted
    for step in ART5:
        shoe.procedure_step(1.0, step)
    assert shoe.feed(2.0, game(KH)) is None  # loaded, burn missing: counted
    assert journal.alarm_codes() == ["card_before_ready", "card_before_ready"]
    assert shoe.cards_left == 51 and not shoe.play_stopped


@pytest.mark.parametrize(
    ("line", "code", "extra"),
    [
        (ReaderAlarm("E3", "Card Not Read"), "reader_alarm", {"reader_code": "E3"}),
        (ReaderWarning(0x1F), "reader_warning", {"mask": 31}),
        (UnknownLine("@@"), "unknown_line", {"text": "@@", "count": 1}),
        (OverlongLine(999), "line_too_long", {"length": 999}),
    ],
)
def test_reader_reports_are_non_stopping_alarms(
    line: ReaderAlarm | ReaderWarning | UnknownLine | OverlongLine, code: str, extra: dict[str, Any]
) -> None:
    shoe, journal = ready_session()
    assert shoe.feed(1.0, line) is None
    alarm = journal.of("alarm")[-1]
    assert alarm["code"] == code and alarm["stops_play"] is False and alarm["message"]
    assert extra.items() <= alarm.items()
    assert not shoe.play_stopped and shoe.feed(1.1, game(AS)) == AS


# --- the count-out (seed 002 Art. 4: the decks checked complete) ----------------------------


def counting_session(decks: int = 1) -> tuple[ShoeSession, Journal, list[Card]]:
    """A shoe with the count-out, burnt to half its pack and closed at the cut card; the
    cards left in it, in deck order."""
    journal = Journal()
    shoe = ShoeSession(journal, replace(shoe_rules(decks, 20), count_out=True))
    for step in ART5:
        shoe.procedure_step(0.0, step)
    order = full_deck() * decks
    for card in order[: len(order) // 2]:
        shoe.feed(0.1, burn(card))
    shoe.feed(0.2, CutCardLine())
    assert shoe.close_if_ending(0.3) and shoe.counting_out
    return shoe, journal, order[len(order) // 2:]


def test_a_restart_in_the_count_out_goes_on_from_the_shoe_s_close() -> None:
    shoe, _, left = counting_session(2)
    state = shoe.checkpoint()
    assert state is not None and state["count_out"] == {"cards": 0}
    shoe.feed(1.0, game(left[0]))
    assert shoe.checkpoint() is None  # under way: the restart replays it from the close
    again = ShoeSession(Journal(), replace(shoe_rules(2, 20), count_out=True))
    again.restore(state)
    with pytest.raises(RuleViolation) as refused:
        again.verify_procedure_step("shuffle")
    assert refused.value.code == "count_out_due"
    for card in left:
        again.feed(2.0, game(card))
    assert again.count_out_done(3.0)["missing"] == []
    assert again.procedure == CUT_CARD and again.verify_procedure_step("shuffle") >= 0


def test_input_lost_in_the_count_out_starts_it_again_from_the_close() -> None:
    # Cards that passed while the port was down are never guessed: the dealer runs the
    # count-out's cards again, and each counts once.
    shoe, journal, left = counting_session()
    for card in left[:5]:
        shoe.feed(1.0, game(card))
    shoe.feed(1.1, MisreadLine())
    shoe.count_out_lost(2.0, "port 'shoe' was down")
    (alarm,) = journal.of("alarm")
    assert alarm["code"] == "count_out_restarted" and "port 'shoe' was down" in alarm["message"]
    for card in left:
        shoe.feed(3.0, game(card))
    done = shoe.count_out_done(4.0)
    assert done["missing"] == [] and done["cards"] == len(left) and done["seen"] == 52
    assert journal.alarm_codes() == ["count_out_restarted"]


def test_a_checkpoint_of_short_decks_keeps_new_decks_due() -> None:
    shoe, _, left = counting_session()
    for card in left[1:]:
        shoe.feed(1.0, game(card))
    assert shoe.count_out_done(2.0)["missing"] == [str(left[0])]
    state = shoe.checkpoint()
    assert state is not None and state["short"] == [str(left[0])]
    again = ShoeSession(Journal(), replace(shoe_rules(1, 20), count_out=True))
    again.restore(state)
    assert again.decks_short == [str(left[0])]
    with pytest.raises(RuleViolation) as refused:
        again.verify_new_game()
    assert refused.value.code == "shoe_not_ready" and str(left[0]) in refused.value.message
    again.change_decks(3.0, "short")
    assert again.decks_short == [] and again.verify_procedure_step("show") == 0


def test_a_checkpoint_of_before_the_count_out_has_none_due() -> None:
    shoe, _, _ = counting_session()
    state = shoe.checkpoint()
    assert state is not None
    old = {k: v for k, v in state.items() if k != "count_out"}  # a journal of before
    again = ShoeSession(Journal(), replace(shoe_rules(1, 20), count_out=True))
    again.restore(old)
    assert not again.counting_out and again.verify_procedure_step("shuffle") >= 0


def test_part_of_a_card_line_in_the_count_out_waits_for_the_dealer_s_card() -> None:
    shoe, _, left = counting_session()
    for card in left[1:]:
        shoe.feed(1.0, game(card))
    shoe.feed(1.1, UnknownLine("rd:5H>", may_be_card=True))  # its head lost: a card unread
    with pytest.raises(RuleViolation) as refused:
        shoe.verify_count_out_done()
    assert refused.value.code == "awaiting_correction"
    shoe.manual_card(1.2, left[0])
    assert shoe.count_out_done(2.0)["missing"] == []
