"""The roulette round as a state machine (seed 001 Art. 12-16; CONTRACT §5).

The round ("jugada") goes: table closed → bets open → ball in play → no more bets
("no va más") → result or invalid ("tiro no válido", Art. 12), or held for the inspector
(CONTRACT §5) → settled (Art. 13) → bets open again; a limits change waits for the
settlement (Art. 16). A held spin that parks (issue 16) closes the table for the next game;
an automated wheel's state 2 may open bets (``wheel_open_bets``). The game
(:mod:`controller.games.roulette.game`) drives it; every event the state does not allow
is refused with python-statemachine's ``TransitionNotAllowed`` (never ignored).

The chart is flat, its transitions have no guard and its one callback is
``before_transition``: a move is then a lookup of (state, event) in the chart's own
transitions, read once from python-statemachine's definition (``MOVES``), and the library's
engine, some 100 µs a move (5 moves a spin: most of a replay's time), is not run for
it. tests/test_round_machine.py checks each (state, event) against the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from statemachine import Event, State, StateChart
from statemachine.exceptions import TransitionNotAllowed


class RoundMachine(StateChart):
    """States of one roulette table. Unknown or disallowed events raise (never ignored).

    Args:
        on_transition: ``(event, source, target)`` called before each move to another
            state (journaled before the machine moves: project standards, Durability).
    """

    allow_event_without_transition = False
    catch_errors_as_events = False

    closed = State(initial=True)
    bets_open = State()
    ball_in_play = State()
    no_more_bets = State()
    held = State()
    result = State()
    invalid = State()
    settled = State()

    open_bets = closed.to(bets_open)
    wheel_open_bets = closed.to(bets_open)  # issue 16: the wheel's state 2 (bets_follow_wheel)
    close_table = bets_open.to(closed)
    launch = bets_open.to(ball_in_play) | no_more_bets.to.itself(internal=True)
    call_no_more_bets = bets_open.to(no_more_bets) | ball_in_play.to(no_more_bets)
    declare_held = ball_in_play.to(held) | no_more_bets.to(held)
    park = held.to(closed)  # issue 16: held_spin = "parks", the bets frozen with the spin
    declare_result = ball_in_play.to(result) | no_more_bets.to(result) | held.to(result)
    declare_invalid = ball_in_play.to(invalid) | no_more_bets.to(invalid) | held.to(invalid)
    settle = result.to(settled) | invalid.to(settled)
    reopen = settled.to(bets_open)
    await_dealer = settled.to(closed)

    def __init__(self, on_transition: Callable[[str, str, str], None], **kwargs: Any) -> None:
        self._on_transition = on_transition
        super().__init__(**kwargs)

    def before_transition(self, event: Any, source: State, target: State) -> None:
        if source is not target:
            self._on_transition(str(event), source.id, target.id)

    def send(self, event: str, *args: Any, **kwargs: Any) -> None:
        """Take ``event`` from the current state as the chart says (``MOVES``): the move
        is journaled (``on_transition``) before the state changes; a self-transition
        journals nothing. Arguments are refused: no transition of the chart takes any.

        Raises:
            TransitionNotAllowed: the current state has no transition for ``event``
                (nothing changes); whatever ``on_transition`` raises (nothing changes).
        """
        if args or kwargs:
            raise TypeError(f"{event}: the round's events take no arguments")
        # The library keeps the state on its model (field ``state``) and reads it from
        # there each time: read and written there directly, as a model's owner may (its
        # setter, some 5 µs a move, builds a set to store one id).
        model: Any = self.model
        source = model.state
        target = MOVES.get((source, event))
        if target is None:
            raise TransitionNotAllowed(Event(event), self.configuration)
        if target != source:
            self._on_transition(event, source, target)
            model.state = target

    @property
    def current(self) -> str:
        state: str = self.model.state  # a state's value is its id (no value= given)
        return state

    def allows(self, event: str) -> bool:
        """Whether ``event`` may be sent in the current state (nothing changes)."""
        return (self.model.state, event) in MOVES


def _moves(chart: type[StateChart]) -> dict[tuple[str, str], str]:
    """(state id, event id) -> target state id of each transition of ``chart``, read from
    python-statemachine's definition of it; the first in the chart's order wins, as the
    engine picks.

    Raises:
        TypeError: the chart is not flat, or defines a callback other than
            ``before_transition`` (the lookup would skip it: run the engine instead).
    """
    callbacks = re.compile(r"^(on|before|after|enter|exit)_")
    extra = [name for name in vars(chart) if callbacks.match(name)
             and name != "before_transition"]
    if extra or any(state.states for state in chart.states):
        raise TypeError(f"{chart.__name__}: callbacks ({', '.join(extra)}) or nested states: "
                        "a move is no longer a lookup")
    moves: dict[tuple[str, str], str] = {}
    for state in chart.states:
        for transition in state.transitions:
            for event in transition.events:
                moves.setdefault((state.id, str(event)), transition.target.id)
    return moves


MOVES = _moves(RoundMachine)
"""Every move of the round: (state, event) -> the state it moves to."""


INPUT_EVENTS = {
    "open_table": "open_bets",
    "open_bets": "open_bets",
    "close_table": "close_table",
    "no_more_bets": "call_no_more_bets",
}
"""Dealer inputs of a roulette table that move the round, and the machine event each sends."""
