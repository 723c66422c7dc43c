"""The roulette round's moves (controller/games/roulette/round.py) are python-statemachine's.

``RoundMachine.send`` looks each move up in the chart's own transitions instead of running
the library's engine (a replay's speed, issue 20). From every state, every event of the
chart must do what the engine does with it: the same state after it, the same move
journaled before it (or none, for a self-transition), or the same refusal with nothing
changed; and ``allows`` must say what the engine's ``allowed_events`` says.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from statemachine import StateChart
from statemachine.exceptions import TransitionNotAllowed

from controller.games.roulette.round import RoundMachine

STATES = list(RoundMachine.states_map)
EVENTS = [str(event) for event in RoundMachine._events]


def _engine(machine: RoundMachine, event: str) -> None:
    StateChart.send(machine, event)  # the library's own engine, not the lookup


def _run(send: Callable[[RoundMachine, str], None], state: str, event: str
         ) -> tuple[str, list[str], list[tuple[str, ...]], bool]:
    """The state after ``event`` sent from ``state`` (as the chart's configuration too),
    the moves journaled, refused or not."""
    moves: list[tuple[str, ...]] = []

    def journal(*move: str) -> None:
        moves.append(move)

    machine = RoundMachine(journal, start_value=state)
    try:
        send(machine, event)
        refused = False
    except TransitionNotAllowed:
        refused = True
    return machine.current, [s.id for s in machine.configuration], moves, refused


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("event", EVENTS)
def test_each_move_is_the_engines(state: str, event: str) -> None:
    assert _run(RoundMachine.send, state, event) == _run(_engine, state, event)


@pytest.mark.parametrize("state", STATES)
def test_allows_is_the_engines(state: str) -> None:
    machine = RoundMachine(lambda *move: None, start_value=state)
    allowed = {event.id for event in machine.allowed_events}
    assert {e for e in EVENTS if machine.allows(e)} == allowed


def test_a_move_whose_journaling_fails_leaves_the_state() -> None:
    # Durability: the move is journaled before the round moves; no record, no move.
    def fail(*move: str) -> None:
        raise OSError("disk full")

    machine = RoundMachine(fail, start_value="bets_open")
    with pytest.raises(OSError):
        machine.send("launch")
    assert machine.current == "bets_open"


def test_an_event_the_state_does_not_take_is_refused() -> None:
    machine = RoundMachine(lambda *move: None)
    with pytest.raises(TransitionNotAllowed):
        machine.send("settle")
    assert machine.current == "closed"
