"""The daemon's simulated shoe after a restart (issue 11): it plays on from where it
stopped, whatever a person typed through ``tablectl`` before the restart, and without a
burst of overdue events (sim/daemon.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import nothing_dealt_while_down

from controller.cli.compose import compose, load_config
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.config import DEFAULT_CONFIG
from controller.core.events import BetPlaced, DealerInput, Event, SerialData
from controller.games.mini_baccarat.simulation import simulated_events
from controller.games.roulette.simulation import daemon_events
from controller.store.journal import Journal
from sim.daemon import SimulatorResume, resume_events, resume_from_journal, taken_key

JAMMED = ("unexpected_card", "card_without_place", "procedure_out_of_order", "card_over_count",
          "card_while_stopped", "play_stopped", "shoe_not_ready")


def test_the_simulators_own_inputs_are_matched_a_persons_passed_over() -> None:
    events: list[Event] = [
        SerialData(10.0, "shoe", b"ab"), DealerInput(11.0, "open_bets"),
        BetPlaced(12.0, "punto", 1, 20), SerialData(13.0, "shoe", b"cd"),
        DealerInput(14.0, "no_more_bets"), BetPlaced(15.0, "banca", 2, 10)]
    journaled = [
        {"type": "input", "action": "open_bets"},
        {"type": "input", "action": "open_bets"},  # a person's, refused (coup in progress)
        {"type": "alarm", "code": "bet_refused", "bet": {"kind": "punto", "box": 1,
                                                         "amount": 5}},  # a person's
        {"type": "bet_placed", "kind": "punto", "box": 1, "amount": 20, "coup": 3},
    ]
    keys = tuple(k for rec in journaled if (k := taken_key(rec, "bet_placed")) is not None)
    rest = resume_events(events, SimulatorResume(2, keys, True))
    # The shoe goes on after its 2 bytes, the dealer after its own input and bet; what is
    # left plays when the session would have begun (10.0), not overdue.
    assert rest == [SerialData(10.0, "shoe", b"cd"), DealerInput(11.0, "no_more_bets"),
                    BetPlaced(12.0, "banca", 2, 10)]


def test_a_fresh_session_is_played_as_simulated() -> None:
    events: list[Event] = [DealerInput(40.0, "open_bets"), SerialData(41.0, "shoe", b"x")]
    assert resume_events(events, SimulatorResume()) == events


def session(path: Path, events: list[Event], start: float) -> list[dict[str, object]]:
    """A daemon's life on trace time: recover, handle ``events``; its new records."""
    config = load_config("embedded:mini-baccarat-sim.toml")
    with Journal(path, durable=False) as journal:
        first = journal.last_seq
        clock = VirtualClock(start)
        loop, table = compose(config, journal, clock)
        table.recover()
        nothing_dealt_while_down(table)  # as the daemon's simulated dealer answers
        loop.run_events(events)
        return list(journal.records(after=first))


def test_a_restart_after_a_persons_inputs_does_not_jam_the_simulated_dealer(
        tmp_path: Path) -> None:
    config = load_config("embedded:mini-baccarat-sim.toml")
    events = simulated_events(config, 0.0)
    cut = len(events) // 3
    stop_t = events[cut].t
    # What a person typed through tablectl, whatever the table said of it (told apart from
    # the simulated dealer's by its note and its amount).
    typed: list[Event] = [DealerInput(stop_t - 2.0, "inspector_clear", {"note": "person"}),
                          DealerInput(stop_t - 1.8, "open_bets"),
                          BetPlaced(stop_t - 1.5, "punto", 1, 7)]
    first = sorted([*events[:cut], *typed], key=lambda e: e.t)
    path = tmp_path / "journal.sqlite"
    before = session(path, first, 0.0)
    persons = [r for r in before if r["t"] >= stop_t - 2.5 and (
        r.get("note") == "person" or (r.get("bet") or r).get("amount") == 7)]
    assert len(persons) == 2  # both are in the journal, whatever the table said of them
    with Journal(path, readonly=True) as journal:
        resume = resume_from_journal(journal, True, registry.spec("mini_baccarat").bet_record)
    rest = resume_events(events, resume)
    assert rest[0].t == pytest.approx(events[0].t)  # no burst: it starts when the session began
    later = stop_t + 60.0
    after = session(path, [replace(e, t=e.t + later) for e in rest], later)
    jams = [r for r in after if r["type"] == "alarm" and r["code"] in JAMMED]
    assert jams == []
    assert len([r for r in after if r["type"] == "coup_result"]) > 20  # play goes on


# -- the simulated roulette wheel (make run) ------------------------------------------
def roulette_session(path: Path, events: list[Event], start: float) -> tuple[
        list[dict[str, object]], SimulatorResume]:
    """A daemon's life on the embedded simulated wheel: recover, handle ``events`` and
    the verdicts they lead to; its new records, and what a restart then resumes from."""
    config = load_config(DEFAULT_CONFIG)
    spec = registry.spec(config.game)
    with Journal(path, durable=False) as journal:
        first = journal.last_seq
        loop, table = compose(config, journal, VirtualClock(start))
        table.recover()
        loop.run_events(events)
        loop.run_until_idle(events[-1].t + 600.0)
        resume = resume_from_journal(journal, table.game.state != "closed", spec.bet_record,
                                     spec.recall)
        return list(journal.records(after=first)), resume


def throws(records: list[dict[str, object]]) -> list[str]:
    """What each spin's ball and rotor did (not its number: the spin's count goes on)."""
    return [json.dumps([r.get("number"), r.get("reason"), r.get("lap_times"),
                        r.get("rotor_periods")])
            for r in records if r["type"] in ("spin_result", "spin_invalid")]


def test_a_restarted_simulated_wheel_throws_on_not_the_same_spins_again(
        tmp_path: Path) -> None:
    config = load_config(DEFAULT_CONFIG)
    config = replace(config, simulator=replace(config.simulator, spins=3))
    path = tmp_path / "journal.sqlite"
    first = [e for spin in daemon_events(config, 0.0, SimulatorResume()) for e in spin]
    before, resume = roulette_session(path, first, 0.0)
    assert [r["spin"] for r in before if r["type"] == "spin_start"] == [1, 2, 3]
    assert resume.games == 3
    later = first[-1].t + 600.0
    second = [e for spin in daemon_events(config, later, resume) for e in spin]
    again = [e for spin in daemon_events(config, later, resume) for e in spin]
    assert again == second  # the same journal: the same throws
    after, _ = roulette_session(path, second, later)
    assert [r["spin"] for r in after if r["type"] == "spin_start"] == [4, 5, 6]
    assert len(throws(after)) == 3
    assert not set(throws(after)) & set(throws(before))
