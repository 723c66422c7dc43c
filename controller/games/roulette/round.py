"""The roulette round as a state machine (seed 001 Art. 12-16; CONTRACT §5).

The round ("jugada") goes: table closed → bets open → ball in play → no more bets
("no va más") → result or invalid ("tiro no válido", Art. 12), or held for the inspector
(CONTRACT §5) → settled (Art. 13) → bets open again; a limits change waits for the
settlement (Art. 16). A held spin that parks (issue 16) closes the table for the next game;
an automated wheel's state 2 may open bets (``wheel_open_bets``). The game
(:mod:`controller.games.roulette.game`) drives it; python-statemachine refuses every
event the state does not allow (never ignored).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from statemachine import State, StateChart


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

    @property
    def current(self) -> str:
        return self.current_state_value  # a state's value is its id (no value= given)

    def allows(self, event: str) -> bool:
        """Whether ``event`` may be sent in the current state (nothing changes)."""
        return any(e.id == event for e in self.allowed_events)


INPUT_EVENTS = {
    "open_table": "open_bets",
    "open_bets": "open_bets",
    "close_table": "close_table",
    "no_more_bets": "call_no_more_bets",
}
"""Dealer inputs of a roulette table that move the round, and the machine event each sends."""
