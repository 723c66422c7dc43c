"""Verify, can, do at the roulette table (issue 7; seed 001 Art. 12, 13, 16; CONTRACT §5).

Every dealer input and bet the table refuses gets that refusal as its verdict (what the
control socket sends back and ``tablectl`` prints: "refused: <reason>"), the reason is the
message of the one ``alarm`` journaled for it, and nothing else changes; the check alone
(``verify_input``, ``verify_bet``) journals nothing. Each refused bet is in the journal once,
in its ``bet_refused`` alarm; each accepted one once, in its ``bet`` record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REAL_LAPS, one_spin

from controller.cli.compose import games, load_config
from controller.core.clock import VirtualClock
from controller.core.contract import can
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal
from controller.trace import trace_from_objects


class Desk:
    """A roulette table (the embedded default config) on a virtual clock, fed event by event
    as the daemon's loop feeds it; keeps every record it journals."""

    def __init__(self, tmp_path: Path) -> None:
        self.records: list[dict[str, Any]] = []
        self.journal = Journal(tmp_path / "journal.sqlite", durable=False)
        self.clock = VirtualClock()
        self.loop = EventLoop(self.clock, lambda e: None)
        self.table = Table(load_config(), self.journal, self.loop.call_at, self.clock.now,
                           lambda body: self.records.append(json.loads(body)))
        self.loop.handler = self.table.handle

    def play(self, objects: list[dict[str, Any]], until: float) -> Desk:
        """Handle the trace objects (CONTRACT §2) up to ``until`` seconds."""
        events = trace_from_objects("test", enumerate(objects, 1), games()).events
        self.loop.run_events([e for e in events if e.t <= until])
        return self

    def person(self, event: Event) -> tuple[Any, list[dict[str, Any]]]:
        """A person's input or bet: its verdict and the records it caused."""
        self.loop.run_timers_until(event.t)
        self.clock.set(event.t)
        before = len(self.records)
        verdict = self.table.handle(event)
        return verdict, self.records[before:]


@pytest.fixture
def desk(tmp_path: Path) -> Desk:
    return Desk(tmp_path)


_TRACE, _SPIN = one_spin(laps=REAL_LAPS)
IN_PLAY = _TRACE.events()
LAUNCHED = _SPIN.launch + 1.0  # the ball of spin 1 runs on


def opened() -> list[dict[str, Any]]:
    return [{"t": 0, "meta": {"table": "roulette"}}, {"t": 0.1, "input": "open_bets"}]


REFUSALS = [
    # (trace before, until, the person's event, code, the refusal's words)
    ([], 0.0, DealerInput(0.5, "no_more_bets"), "input_refused",
     "no_more_bets: not allowed while closed"),
    (opened(), 0.2, DealerInput(0.5, "void", {"reason": "foreign_object"}), "input_refused",
     "void (foreign_object): no spin in play"),
    (opened(), 0.2, DealerInput(0.5, "void", {"reason": "bored"}), "input_refused",
     "void: reason 'bored' is not one of ball_out_of_wheel, foreign_object, "
     "wheel_malfunction, wheel_stopped (Art. 12 d-g)"),
    (opened(), 0.2, DealerInput(0.5, "confirm_result", {"number": "17"}), "input_refused",
     "confirm_result: no spin is held (only a held spin's number is given by hand)"),
    (opened(), 0.2, DealerInput(0.5, "set_limits", {"min_bet": 50, "max_bet": 10}),
     "input_refused", "set_limits: min_bet 50 and max_bet 10 must be whole chips with 1 <= "
     "min_bet <= max_bet <= "),
    (opened(), 0.2, DealerInput(0.5, "deal"), "input_refused",
     "'deal' is not an input of a roulette table"),
    (IN_PLAY, LAUNCHED, DealerInput(LAUNCHED, "open_bets"), "input_refused",
     "open_bets: the ball of spin 1 is still on the track"),
    (IN_PLAY, LAUNCHED, DealerInput(LAUNCHED, "close_table"), "input_refused",
     "close_table: not allowed while ball_in_play"),
    ([], 0.0, BetPlaced(0.5, "red", 1, 10), "bet_refused",
     "red on box 1: bets are not open (table closed)"),
    (opened(), 0.2, BetPlaced(0.5, "red", 9, 10), "bet_refused",
     "no_such_box: red on box 9: this table seats 8 (boxes 1-8, [roulette] boxes)"),
    (opened(), 0.2, BetPlaced(0.5, "red", 1, 5000), "bet_refused",
     "outside_limits: red of 5000 chips on box 1: table limits are 1-1000"),
    (opened(), 0.2, BetPlaced(0.5, "split", 1, 10, {"numbers": ("17", "21")}), "bet_refused",
     "malformed_bet: split 17-21: "),
]


@pytest.mark.parametrize(("before", "until", "event", "code", "words"), REFUSALS,
                         ids=[f"{i}-{r[4][:30]}" for i, r in enumerate(REFUSALS)])
def test_a_refusal_is_the_verdict_and_its_one_alarm(
        desk: Desk, before: list[dict[str, Any]], until: float, event: Event, code: str,
        words: str) -> None:
    desk.play(before, until)
    state = desk.table.game.state
    verdict, records = desk.person(event)
    assert not verdict.accepted
    assert verdict.reason.startswith(words)
    assert str(verdict) == f"refused: {verdict.reason}"
    # The input's own record (a bet has none: its alarm carries it), then one alarm.
    alarms = [r for r in records if r["type"] == "alarm"]
    assert [r["type"] for r in records] == (["input", "alarm"] if code == "input_refused"
                                            else ["alarm"])
    assert (alarms[0]["code"], alarms[0]["message"]) == (code, verdict.reason)
    assert desk.table.game.state == state  # nothing moved


def test_a_refused_bet_is_journaled_once_with_its_fields(desk: Desk) -> None:
    desk.play(opened(), 0.2)
    _, records = desk.person(BetPlaced(0.5, "dozen", 3, 5000, {"which": 2}))
    (alarm,) = records
    assert alarm["bet"] == {"kind": "dozen", "box": 3, "amount": 5000, "which": 2}
    assert (alarm["game"], alarm["t"]) == (1, 0.5)


def test_an_accepted_bet_is_journaled_once_with_its_fields(desk: Desk) -> None:
    desk.play(opened(), 0.2)
    verdict, records = desk.person(BetPlaced(0.5, "split", 2, 10, {"numbers": ("20", "17")}))
    assert str(verdict) == "accepted"
    (bet,) = records
    assert bet["type"] == "bet"
    assert {k: v for k, v in bet.items() if k != "seq"} == {
        "type": "bet", "t": 0.5, "game": 1, "kind": "split", "box": 2, "amount": 10,
        "numbers": ["20", "17"]}


@pytest.mark.parametrize("event", [DealerInput(0.5, "open_bets"),
                                   DealerInput(0.5, "set_limits",
                                               {"min_bet": 5, "max_bet": 500})])
def test_an_accepted_input_is_accepted(desk: Desk, event: Event) -> None:
    desk.play([{"t": 0, "meta": {"table": "roulette"}}], 0.0)
    verdict, records = desk.person(event)
    assert str(verdict) == "accepted"
    assert records[0]["type"] == "input" and not [r for r in records if r["type"] == "alarm"]


def test_the_check_alone_journals_nothing(desk: Desk) -> None:
    desk.play(IN_PLAY, LAUNCHED)
    game = desk.table.game
    seq = desk.journal.last_seq
    with pytest.raises(RuleViolation, match="still on the track"):
        game.verify_input(DealerInput(LAUNCHED, "open_bets"))
    assert can(game.verify_input, DealerInput(LAUNCHED, "no_more_bets"))
    assert can(game.verify_input, DealerInput(LAUNCHED, "void", {"reason": "foreign_object"}))
    assert can(game.verify_bet, BetPlaced(LAUNCHED, "red", 1, 10))
    assert not can(game.verify_bet, BetPlaced(LAUNCHED, "red", 1, 0))
    assert desk.journal.last_seq == seq
    assert game.state == "ball_in_play"


def test_a_dealer_button_refused_is_the_same_alarm(desk: Desk) -> None:
    # The no_more_bets button pressed with the table closed: no verdict to send back, the
    # same refusal journaled as for the control socket's input.
    desk.play([{"t": 0, "meta": {"table": "roulette"}}], 0.0)
    before = len(desk.records)
    desk.table.handle(GpioEdge(0.5, "no_more_bets", 1))
    alarms = [r for r in desk.records[before:] if r["type"] == "alarm"]
    assert [(a["code"], a["message"]) for a in alarms] == [
        ("input_refused", "no_more_bets: not allowed while closed")]
