"""Roulette: the round state machine, bets and settlement (seed 001 Art. 12-16).

The round ("jugada") goes: table closed → bets open → ball in play → no more bets
("no va más") → result or invalid → settled → bets open again. The ball's evidence comes
from :class:`controller.spin.SpinTracker`; payouts from :mod:`controller.roulette_layout`.
Every input that the current state does not allow is refused with an ``alarm`` record that
says why; nothing is silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from statemachine import State, StateChart

from controller.config import Config, Limits
from controller.errors import RuleViolation
from controller.events import BetPlaced, DealerInput, GpioEdge, PortStatus, SerialData
from controller.games.base import Emit
from controller.journal import Journal
from controller.roulette_layout import RouletteBet, layout_for, make_bet, push, settle
from controller.spin import DEALER_REASONS, Schedule, SpinOutcome, SpinTracker


class RoundMachine(StateChart):
    """States of one roulette table. Unknown or disallowed events raise (never ignored)."""

    allow_event_without_transition = False
    catch_errors_as_events = False

    closed = State(initial=True)
    bets_open = State()
    ball_in_play = State()
    no_more_bets = State()
    result = State()
    invalid = State()
    settled = State()

    open_bets = closed.to(bets_open)
    close_table = bets_open.to(closed)
    launch = bets_open.to(ball_in_play) | no_more_bets.to.itself(internal=True)
    call_no_more_bets = bets_open.to(no_more_bets) | ball_in_play.to(no_more_bets)
    declare_result = ball_in_play.to(result) | no_more_bets.to(result)
    declare_invalid = ball_in_play.to(invalid) | no_more_bets.to(invalid)
    settle = result.to(settled) | invalid.to(settled)
    reopen = settled.to(bets_open)

    def __init__(self, on_transition: Callable[[str, str, str], None], **kwargs: Any) -> None:
        self._on_transition = on_transition
        super().__init__(**kwargs)

    def before_transition(self, event: Any, source: State, target: State) -> None:
        # Journaled before the machine moves (project standards, Durability).
        if source is not target:
            self._on_transition(str(event), source.id, target.id)

    @property
    def current(self) -> str:
        return next(iter(self.configuration)).id


# Dealer inputs of a roulette table and the machine event each one sends.
_INPUT_EVENTS = {
    "open_table": "open_bets",
    "open_bets": "open_bets",
    "close_table": "close_table",
    "no_more_bets": "call_no_more_bets",
}


@dataclass
class RouletteRecovery:
    """What a restart finds in the journal (see :meth:`RouletteGame.recover`).

    ``unsettled`` are bet records with no settlement yet; ``outcomes`` maps each concluded
    spin to its number (None for an invalid spin).
    """

    state: str = "closed"
    last_spin: int = 0
    unsettled: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[int, str | None] = field(default_factory=dict)
    interrupted_spin: int | None = None
    limits: Limits | None = None


class RouletteGame:
    """One roulette table: state machine, spin tracker, bets on the layout, limits.

    Args:
        config: the table's config (wheel, thresholds, limits).
        emit: journals a record and returns it (commit before acting).
        schedule: the controller loop's timer (clock seconds).
        now: the injected clock's ``now``.
    """

    def __init__(self, config: Config, emit: Emit, schedule: Schedule,
                 now: Callable[[], float]) -> None:
        self.config = config
        self.emit = emit
        self.now = now
        rc = config.roulette
        self.layout = layout_for(rc.wheel)
        self.order = rc.order or self.layout.order
        self.limits = config.limits
        self.pending_limits: Limits | None = None
        self.bets: list[RouletteBet] = []
        self.last_spin = 0
        self.spin_number: int | None = None
        self._closed_ball_alarmed = False
        self.tracker = SpinTracker(rc, self.order, schedule, self._concluded, self.alarm,
                                   self._auto_no_more_bets)
        self.machine = RoundMachine(self._journal_transition)

    # -- journal helpers -------------------------------------------------------------
    def alarm(self, code: str, message: str) -> None:
        self.emit("alarm", code=code, message=message, game=self._game_number())

    def _journal_transition(self, event: str, source: str, target: str) -> None:
        self.emit("state", game=self._game_number(), trigger=event,
                  **{"from": source, "to": target})

    def _game_number(self) -> int:
        return self.spin_number if self.spin_number is not None else self.last_spin + 1

    def _send(self, event: str, refusal: str) -> bool:
        try:
            self.machine.send(event)
        except self.machine.TransitionNotAllowed:
            self.alarm("input_refused", f"{refusal}: not allowed while {self.machine.current}")
            return False
        return True

    @property
    def state(self) -> str:
        return self.machine.current

    # -- events ----------------------------------------------------------------------
    def gpio(self, edge: GpioEdge, orphan_release: bool = False) -> None:
        """A wheel-sensor change (already journaled). Only activations carry information,
        but for a ``ball_pocket`` release whose activation was missed (``orphan_release``)."""
        name = edge.input
        if edge.level == 0:
            if orphan_release and name == "ball_pocket":
                self.tracker.pocket(edge.t, orphan=True)
            return
        if name == "rotor_a":
            self.tracker.rotor_a(edge.t)
        elif name == "rotor_b":
            self.tracker.rotor_b(edge.t)
        elif name == "ball_pocket":
            self.tracker.pocket(edge.t)
        elif name in ("ball_a", "ball_b"):
            self._ball(edge)
        elif name == "open_bets":
            self.dealer_input(DealerInput(edge.t, "open_bets"))
        elif name == "no_more_bets":
            self.dealer_input(DealerInput(edge.t, "no_more_bets"))

    def _ball(self, edge: GpioEdge) -> None:
        tracker = self.tracker
        if not tracker.in_play and not tracker.ball_running:
            state = self.state
            if state not in ("bets_open", "no_more_bets"):
                if not self._closed_ball_alarmed:
                    self._closed_ball_alarmed = True
                    self.alarm("unexpected_edge",
                               f"{edge.input} at {edge.t:.3f} s: a ball was launched while "
                               f"the table is {state}; ignored")
                return
            self.spin_number = self.last_spin + 1
            self.emit("spin_start", spin=self.spin_number, bets=len(self.bets))
            self.machine.send("launch")
            tracker.launch(self.spin_number, edge.t)
        if edge.input == "ball_a":
            tracker.ball_a(edge.t)
        else:
            tracker.ball_b(edge.t)

    def dealer_input(self, inp: DealerInput) -> None:
        """A dealer or inspector action (CONTRACT §2 ``input``); refusals become alarms."""
        action = inp.action
        if action in _INPUT_EVENTS:
            if self._send(_INPUT_EVENTS[action], action) and action != "no_more_bets":
                self._closed_ball_alarmed = False
                if action == "close_table":
                    self._return_bets("table closed")
                self._apply_pending_limits()
        elif action == "void":
            self._void(inp)
        elif action == "set_limits":
            self._set_limits(inp)
        else:
            self.alarm("input_refused", f"{action!r} is not an input of a roulette table")

    def _void(self, inp: DealerInput) -> None:
        reason = inp.args.get("reason")
        if reason not in DEALER_REASONS:
            self.alarm("input_refused", f"void: reason {reason!r} is not one of "
                       f"{', '.join(DEALER_REASONS)} (Art. 12 d-g)")
            return
        if not self.tracker.void(inp.t, reason):
            self.alarm("input_refused", f"void ({reason}): no spin in play")

    def _set_limits(self, inp: DealerInput) -> None:
        lo, hi = inp.args.get("min_bet"), inp.args.get("max_bet")
        if not (type(lo) is int and type(hi) is int and 1 <= lo <= hi):
            self.alarm("input_refused", f"set_limits: min_bet {lo!r} and max_bet {hi!r} must be "
                       "whole chips with 1 <= min_bet <= max_bet")
            return
        self.pending_limits = Limits(lo, hi)
        self.emit("config_change", key="limits", min_bet=lo, max_bet=hi, status="requested",
                  note="applied between spins (Art. 16)")
        self._apply_pending_limits()

    def _apply_pending_limits(self) -> None:
        # Art. 16: a limits change takes effect only once the current game is over.
        if self.pending_limits is None or self.state not in ("closed", "bets_open"):
            return
        limits, self.pending_limits = self.pending_limits, None
        self.emit("config_change", key="limits", min_bet=limits.min_bet,
                  max_bet=limits.max_bet, status="applied")
        self.limits = limits

    def place_bet(self, bet: BetPlaced) -> None:
        """A bet on the layout: checked against the layout (Art. 13) and the limits (Art. 16)."""
        state = self.state
        game = self._game_number()
        if state not in ("bets_open", "ball_in_play"):
            self.alarm("bet_refused", f"{bet.kind} on box {bet.box}: bets are not open "
                       f"(table {state})")
            return
        try:
            placed = make_bet(self.layout, bet.kind, bet.box, bet.amount,
                              list(bet.numbers) if bet.numbers is not None else None, bet.which)
            lim = self.limits
            if not lim.min_bet <= bet.amount <= lim.max_bet:
                raise RuleViolation("outside_limits", f"{bet.kind} of {bet.amount} chips on box "
                                    f"{bet.box}: table limits are {lim.min_bet}-{lim.max_bet}")
        except RuleViolation as exc:
            self.alarm("bet_refused", f"{exc.code}: {exc.message}")
            return
        self.emit("bet", game=game, box=placed.box, kind=placed.kind, amount=placed.amount,
                  **_bet_fields(placed))
        self.bets.append(placed)

    # -- conclusion ------------------------------------------------------------------
    def _auto_no_more_bets(self) -> None:
        if self.state == "ball_in_play":
            self.machine.send("call_no_more_bets")

    def _concluded(self, outcome: SpinOutcome) -> None:
        spin = outcome.spin.spin
        evidence = outcome.evidence()
        if outcome.number is not None:
            self.emit("spin_result", spin=spin, number=outcome.number,
                      pocket_index=outcome.index, **evidence)
            self.machine.send("declare_result")
        else:
            self.emit("spin_invalid", spin=spin, reason=outcome.reasons[0],
                      reasons=outcome.reasons, **evidence)
            self.machine.send("declare_invalid")
        self._settle(outcome.number)

    def _settle(self, number: str | None) -> None:
        game = self._game_number()
        for bet in self.bets:
            outcome, payout = settle(bet, number) if number is not None else push(bet)
            self.emit("settlement", game=game, box=bet.box, kind=bet.kind, amount=bet.amount,
                      outcome=outcome, payout=payout, **_bet_fields(bet))
        self.bets = []
        self.machine.send("settle")
        self.last_spin = game
        self.spin_number = None
        self.machine.send("reopen")
        self._apply_pending_limits()

    def _return_bets(self, why: str) -> None:
        game = self._game_number()
        for bet in self.bets:
            self.emit("settlement", game=game, box=bet.box, kind=bet.kind, amount=bet.amount,
                      outcome="push", payout=0, note=why, **_bet_fields(bet))
        self.bets = []

    def serial(self, data: SerialData) -> None:
        self.alarm("unexpected_input", f"{len(data.data)} bytes on serial port {data.port!r}: "
                   "a roulette table reads no serial port")

    def port_status(self, status: PortStatus) -> None:
        """Nothing of a roulette game depends on a serial port."""

    # -- restart ---------------------------------------------------------------------
    def recover_from(self, journal: Journal) -> None:
        """Scan ``journal`` and :meth:`recover` from it."""
        types = ("state", "spin_start", "spin_result", "spin_invalid", "bet", "settlement",
                 "config_change")
        self.recover(self.scan_journal(list(journal.records(types=types))))

    def recover(self, found: RouletteRecovery) -> None:
        """Resume after a restart from what the journal holds.

        A spin that was in play when the controller stopped cannot be finished (its
        evidence stopped at the cut): it is voided with reason ``interrupted`` and its bets
        are returned. A spin concluded but not wholly settled gets its missing settlements.
        Bets placed for the next spin stay on the layout. Nothing journaled is repeated.
        """
        self.last_spin = found.last_spin
        if found.limits is not None:
            self.limits = found.limits
        interrupted = found.interrupted_spin
        state = found.state
        if state not in RoundMachine.states_map:
            self.alarm("journal_state_unknown", f"the journal's last table state {state!r} is "
                       "not a state of a roulette table: starting closed")
            state = "closed"
        elif interrupted is not None or state == "no_more_bets":
            # The ball of the interrupted spin may still be running: the table stays closed
            # to bets and launches until the dealer opens bets again (no late bet is taken
            # and no spin is started from the middle of a throw).
            state = "closed"
        elif state in ("ball_in_play", "result", "invalid", "settled"):
            state = "bets_open"
        if state != found.state:
            self.emit("state", game=self.last_spin + 1, trigger="restart",
                      **{"from": found.state, "to": state})
        self.machine = RoundMachine(self._journal_transition, start_value=state)
        if interrupted is not None:
            self.emit("spin_invalid", spin=interrupted, reason="interrupted",
                      reasons=["interrupted"],
                      details={"interrupted": "the controller stopped while the spin was in "
                               "play; voided on restart, bets returned; the dealer reopens "
                               "bets when the wheel is ready"})
            found.outcomes[interrupted] = None
            self.last_spin = max(self.last_spin, interrupted)
        for record in found.unsettled:
            bet = make_bet(self.layout, record["kind"], record["box"], record["amount"],
                           record.get("numbers"), record.get("which"))
            game = record["game"]
            if game in found.outcomes:
                number = found.outcomes[game]
                outcome, payout = settle(bet, number) if number is not None else push(bet)
                self.emit("settlement", game=game, box=bet.box, kind=bet.kind,
                          amount=bet.amount, outcome=outcome, payout=payout,
                          note="settled on restart", **_bet_fields(bet))
            else:
                self.bets.append(bet)

    @staticmethod
    def scan_journal(records: list[dict[str, Any]]) -> RouletteRecovery:
        """Read the records that matter for a restart (state, spins, bets, limits)."""
        found = RouletteRecovery()
        open_spin: int | None = None
        unsettled: list[dict[str, Any]] = []
        for r in records:
            kind = r["type"]
            if kind == "state":
                found.state = r["to"]
            elif kind == "spin_start":
                open_spin = r["spin"]
            elif kind in ("spin_result", "spin_invalid"):
                open_spin = None
                found.last_spin = max(found.last_spin, r["spin"])
                found.outcomes[r["spin"]] = r.get("number")
            elif kind == "bet":
                unsettled.append(r)
            elif kind == "settlement":
                key = _bet_key(r)
                for i, bet in enumerate(unsettled):
                    if _bet_key(bet) == key:
                        del unsettled[i]
                        break
            elif kind == "config_change" and r.get("key") == "limits" and r["status"] == "applied":
                found.limits = Limits(r["min_bet"], r["max_bet"])
        found.interrupted_spin = open_spin
        found.unsettled = unsettled
        return found


def _bet_key(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["game"], r["box"], r["kind"], r["amount"], tuple(r.get("numbers") or ()),
            r.get("which"))


def _bet_fields(bet: RouletteBet) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if bet.numbers:
        fields["numbers"] = list(bet.numbers)
    if bet.which is not None:
        fields["which"] = bet.which
    return fields
