"""Seed 002 (Black Jack Plus, Peru 2016) Art. 8 and 10 through the whole controller: the
up card, the insurance question, and the hole card hidden until its turn.

Art. 8: "... finalmente repartirá una carta cubierta para si mismo, descubriendo la primera
carta que recibió. Si por error se descubre la segunda carta del dealer, ésta será
considerada la carta descubierta". Art. 10: "luego de culminada la entrega obligatoria de
cartas y antes del inicio de la etapa de entrega voluntaria de cartas, el dealer preguntará
a los jugadores si desean un seguro".

The lead's decision (issue 19 item 1): the up card's ``card_turned`` (and for an ace
``insurance_offered``) is journaled with the dealer's first input after the deal, unless
that input is ``second_card_exposed`` (then the exposed card is the up card). Until then
the controller cannot know which card is face up, and a turn journaled of the first card
would show the real hole card on the screen and in the feed. Decisions are refused until
``close_insurance``.

Traces and expectations as in ``test_seed_002_blackjack_plus.py`` (worked out here from the
articles, never from the controller); what a replay prints is what the public sees.
"""

from __future__ import annotations

import json
from contextlib import redirect_stderr
from io import StringIO
from pathlib import Path

import pytest
from card_traces import Run, Trace, one_box, play, tablectl_out, turned, two_card_deal
from card_traces import blackjack_plus as table

from controller.cli.compose import load_config, read_trace
from controller.core.clock import VirtualClock
from controller.core.logs import configure
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal


def test_art_8_10_a_second_card_exposed_by_mistake_is_the_up_card(tmp_path: Path) -> None:
    trace = one_box(("TS", "6H"), ("5C", "AD")).inp("second_card_exposed")
    trace.bet("insurance", 1, 5).inp("close_insurance").inp("stand", box=1).cards("2S")
    run = play(tmp_path, trace)  # 5C AD 2S: soft 18
    # "ésta será considerada la carta descubierta": the AD is the up card; the 5C stays
    # face down (never journaled turned up) until the dealer's turn, and decides insurance.
    assert turned(run) == [("AD", True), ("5C", False)]
    assert len(run.of("insurance_offered")) == 1  # an ace up (Art. 10)
    # The hole card decides insurance: a five, no ten: it loses. 16 against 18 loses.
    assert run.settlements() == [(1, "insurance", 5, "lose", -5), (1, "main", 10, "lose", -10)]


def test_art_8_a_second_card_exposed_after_a_player_acted_is_refused(tmp_path: Path) -> None:
    trace = one_box(("TS", "6H"), ("5C", "9D")).inp("hit", box=1).cards("4S")
    run = play(tmp_path, trace.inp("second_card_exposed").inp("stand", box=1).cards("8S"))
    assert run.codes() == ["up_card_turned"]
    assert turned(run)[0] == ("5C", True)


def test_art_8_10_an_exposed_second_card_that_is_no_ace_asks_no_insurance(
        tmp_path: Path) -> None:
    # The AC, first, is never the up card: no insurance is asked, and nothing says the
    # dealer holds an ace before his turn.
    trace = one_box(("TS", "7H"), ("AC", "9D")).inp("second_card_exposed")
    run = play(tmp_path, trace.bet("insurance", 1, 5).inp("stand", box=1))
    assert not run.of("insurance_offered") and not run.of("insurance_closed")
    assert turned(run) == [("9D", True), ("AC", False)]
    (refused,) = run.alarms("bet_refused")
    assert "insurance_not_offered" in refused["message"]
    assert run.settlements() == [(1, "main", 10, "lose", -10)]  # 17 against AC 9D: 20


def after_the_deal(run: Run) -> list[str]:
    """The types of the records the dealer's second card caused, from its ``card`` on (the
    replay's own alarm at the end of a trace that stops mid-coup aside)."""
    (last,) = [i for i, r in enumerate(run.records)
               if r["type"] == "card" and r["hand"] == "dealer"][1:]
    return [r["type"] for r in run.records[last:] if r["type"] != "alarm"]


def test_art_8_the_up_card_is_journaled_turned_with_the_first_input_after_the_deal(
        tmp_path: Path) -> None:
    # "... una carta cubierta para si mismo, descubriendo la primera carta que recibió":
    # the second may still be said exposed ("ésta será considerada la carta descubierta"),
    # so the first is journaled turned only with the next input that is not that.
    run = play(tmp_path, one_box(("TS", "7H"), ("9S", "KH")))
    assert after_the_deal(run) == ["card"] and turned(run) == []
    run = play(tmp_path, one_box(("TS", "7H"), ("9S", "KH")).inp("stand", box=1))
    assert after_the_deal(run)[:4] == ["card", "input", "card_turned", "decision"]
    assert turned(run) == [("9S", True), ("KH", False)]


def test_art_10_an_ace_up_asks_for_insurance_after_the_deal_with_the_first_input(
        tmp_path: Path) -> None:
    # "luego de culminada la entrega obligatoria de cartas ... el dealer preguntará a los
    # jugadores si desean un seguro": asked when the deal ends, journaled (with the ace's
    # turn, Art. 8) once an input says the second card was not exposed: here the close.
    run = play(tmp_path, one_box(("TS", "7H"), ("AS", "KH")).inp("close_insurance"))
    assert after_the_deal(run)[:5] == ["card", "input", "card_turned", "insurance_offered",
                                       "insurance_closed"]
    (offered,) = run.of("insurance_offered")
    assert offered["boxes"] == [{"box": 1, "max": 5}]


def test_art_10_no_decision_until_the_dealer_closes_the_insurance_question(
        tmp_path: Path) -> None:
    # "La apuesta adicional como seguro debe ser colocada hasta antes del inicio de la
    # etapa de entrega voluntaria de cartas": the question open, no decision; closed, no
    # insurance bet.
    deal = two_card_deal([("TS", "7H"), ("9S", "9H")], ("AS", "6H"))
    trace = table().coup((("main", 1, 10), ("main", 2, 10)), *deal)
    trace.inp("stand", box=1).bet("insurance", 1, 5).inp("close_insurance")
    run = play(tmp_path, trace.inp("stand", box=1).bet("insurance", 2, 5).inp("stand", box=2))
    assert run.codes() == ["insurance_open", "bet_refused"]
    assert "insurance_closed" in run.alarms("bet_refused")[0]["message"]
    (closed,) = run.of("insurance_closed")
    assert closed["boxes"] == [{"box": 1, "amount": 5}]
    (first,) = run.of("decision")[:1]
    assert first["seq"] > closed["seq"]
    assert [s[:4] for s in run.settlements()] == [
        (1, "insurance", 5, "lose"), (1, "main", 10, "push"), (2, "main", 10, "win")]


# -- Art. 8: the hole card stays hidden until it is turned ------------------------------------
HOLE = "7D"  # no other card of these traces is a 7D


def paused(exposed: bool = False) -> Trace:
    """A coup waiting for box 1's decision: the dealer's hole card is down (Art. 8). With
    ``exposed`` his second card, 9C, was shown by mistake: it is the up card, and his
    first, the hole card, stays down until his turn."""
    dealer = (HOLE, "9C") if exposed else ("9C", HOLE)
    trace = one_box(("TS", "2H"), dealer)
    if exposed:
        trace.inp("second_card_exposed")
    return trace.inp("hit", box=1).cards("5S")


def logged(tmp_path: Path, trace: Trace) -> str:
    """The controller's log (debug level, JSON) of ``trace`` played through a Table."""
    path = tmp_path / "logged.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    events = read_trace(str(path)).events
    buffer = StringIO()
    with redirect_stderr(buffer):
        configure("debug", "json")
    try:
        with Journal(tmp_path / "logged.sqlite", durable=False) as journal:
            clock = VirtualClock()
            loop = EventLoop(clock, lambda e: None)
            table = Table(load_config("embedded:blackjack-plus-sim.toml"), journal,
                          loop.call_at, clock.now, None)
            loop.handler = table.handle
            loop.run_events(events)
    finally:
        configure("warning", "console")
    return buffer.getvalue()


@pytest.mark.parametrize("exposed", [False, True], ids=["first_up", "second_exposed"])
def test_art_8_the_hole_card_is_absent_from_output_log_status_and_recall_until_turned(
        tmp_path: Path, exposed: bool) -> None:
    run = play(tmp_path, paused(exposed))
    assert ("dealer", HOLE) in run.dealt()  # the journal has it ...
    assert HOLE not in str(run.records)  # ... what the replay shows has not
    assert turned(run) == [("9C", True)]
    for args in (["status"], ["status", "--json"], ["recall"], ["recall", "--json"]):
        assert HOLE not in tablectl_out(run.journal, *args), args
    log = logged(tmp_path, paused(exposed))
    assert '"decision"' in log and HOLE not in log
    # Turned at the end (the dealer's 9C 7D = 16 draws a KS), it is shown.
    done = play(tmp_path, paused(exposed).inp("stand", box=1).cards("KS"))
    assert turned(done) == [("9C", True), (HOLE, False)]
    assert f'"{HOLE}"' in tablectl_out(done.journal, "recall", "--json")


def before_the_turn(run: Run) -> list[dict[str, object]]:
    """The records the public saw before the dealer's hole card was turned."""
    (hole,) = [r for r in run.of("card_turned") if not r["up_card"]]
    return [r for r in run.records if r["seq"] < hole["seq"]]


@pytest.mark.parametrize("exposed", [False, True], ids=["first_up", "second_exposed"])
def test_art_8_10_the_insurance_question_stays_open_and_no_hole_card_shows_before_its_turn(
        tmp_path: Path, exposed: bool) -> None:
    # An ace up: the dealer's first card (AS), or his second (AS) exposed by mistake, the
    # 7D his hole card. Box 1 TS 7H = 17 against AS 7D = soft 18 (he stands): -10; the
    # insurance of 5 loses on the 7D, no ten (Art. 10): -5.
    dealer = (HOLE, "AS") if exposed else ("AS", HOLE)
    trace = one_box(("TS", "7H"), dealer)
    if exposed:
        # Refused (no box 2): the coup did not take it, so the first card may still be
        # said the hole card; then said so.
        trace.inp("stand", box=2).inp("second_card_exposed")
    # The first decision comes while the question is open: refused, it does not close it
    # (the window is never of zero length); insurance is taken until close_insurance.
    trace.inp("stand", box=1).bet("insurance", 1, 5).inp("close_insurance")
    run = play(tmp_path, trace.inp("stand", box=1))
    assert run.codes() == [*(["box_not_in_play"] if exposed else []), "insurance_open"]
    (offered,) = run.of("insurance_offered")
    (insured,) = [b for b in run.of("bet_placed") if b["kind"] == "insurance"]
    (closed,) = run.of("insurance_closed")
    (decision,) = run.of("decision")
    assert offered["seq"] < insured["seq"] < closed["seq"] < decision["seq"]
    assert closed["boxes"] == [{"box": 1, "amount": 5}]
    # The hole card is in the journal, and in no record the public saw before its turn.
    assert ("dealer", HOLE) in run.dealt()
    assert HOLE not in json.dumps(before_the_turn(run))
    assert turned(run) == [("AS", True), (HOLE, False)]
    assert run.settlements() == [(1, "insurance", 5, "lose", -5), (1, "main", 10, "lose", -10)]
