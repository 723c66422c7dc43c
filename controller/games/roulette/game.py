"""Roulette: the round state machine, bets and settlement (seed 001 Art. 12-16).

The round ("jugada") goes: table closed → bets open → ball in play → no more bets
("no va más") → result or invalid → settled → bets open again. The ball's evidence comes
from :class:`controller.games.roulette.spin.SpinTracker`; payouts from
:mod:`controller.games.roulette.layout`.
Every input that the current state does not allow is refused with an ``alarm`` record that
says why; nothing is silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from statemachine import State, StateChart

from controller.core.config import MAX_LIMIT, Config, Limits
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, GpioEdge, PortStatus, SerialData
from controller.games.base import Emit, Schedule
from controller.games.roulette.art12 import DEALER_REASONS
from controller.games.roulette.config import RouletteConfig
from controller.games.roulette.layout import RouletteBet, layout_for, make_bet, push, settle
from controller.games.roulette.wheel import SpinOutcome, make_tracker
from controller.store.journal import Journal
from controller.trace import show


class RoundMachine(StateChart):
    """States of one roulette table. Unknown or disallowed events raise (never ignored)."""

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
    close_table = bets_open.to(closed)
    launch = bets_open.to(ball_in_play) | no_more_bets.to.itself(internal=True)
    call_no_more_bets = bets_open.to(no_more_bets) | ball_in_play.to(no_more_bets)
    declare_held = ball_in_play.to(held) | no_more_bets.to(held)
    declare_result = ball_in_play.to(result) | no_more_bets.to(result) | held.to(result)
    declare_invalid = ball_in_play.to(invalid) | no_more_bets.to(invalid) | held.to(invalid)
    settle = result.to(settled) | invalid.to(settled)
    reopen = settled.to(bets_open)
    await_dealer = settled.to(closed)

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
    pending_limits: Limits | None = None
    held: dict[str, Any] | None = None


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
        rc: RouletteConfig = config.rules
        self.layout = layout_for(rc.wheel)
        self.order = rc.order or self.layout.order
        self.limits = config.limits
        self.pending_limits: Limits | None = None
        self.bets: list[RouletteBet] = []
        # The number of the game in progress, or of the next one between games (a game
        # starts when bets open; a spin is numbered at its launch): the one count of spins.
        self.game_number = 1
        self._closed_ball_alarmed = False
        self.held_spin: dict[str, Any] | None = None  # the spin_held record awaiting a decision
        self.tracker = make_tracker(rc, self.order, schedule, self)
        self.machine = RoundMachine(self._journal_transition)

    # -- journal helpers -------------------------------------------------------------
    def refused(self, event: DealerInput | BetPlaced, exc: RuleViolation) -> None:
        self.alarm(exc.code, exc.message)

    def present(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Nothing of a spin is hidden from the public."""
        return records

    def alarm(self, code: str, message: str) -> None:
        self.emit("alarm", code=code, message=message, game=self.game_number)

    def _journal_transition(self, event: str, source: str, target: str) -> None:
        # Every move carries the limits in force for its game (Art. 16): the one that opens
        # bets starts the game, and they hold until that game is settled.
        self.emit("state", game=self.game_number, trigger=event,
                  **{"from": source, "to": target}, limits=self._limits_record())

    def _limits_record(self) -> dict[str, int]:
        return {"min_bet": self.limits.min_bet, "max_bet": self.limits.max_bet}

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

    def open_game(self) -> str | None:
        """The spin still open (in play, or held for the inspector), in words; else None."""
        if self.held_spin is not None:
            return f"spin {self.held_spin['spin']} held for the inspector (no settlement yet)"
        if self.tracker.in_play:
            return f"spin {self.game_number} still in play (no verdict)"
        return None

    # -- events ----------------------------------------------------------------------
    def gpio(self, edge: GpioEdge) -> None:
        """A raw edge of a wheel sensor or a dealer button (already journaled). The spin
        tracker's edge filter turns sensor edges into activations (CONTRACT §5)."""
        name = edge.input
        if name in ("open_bets", "no_more_bets"):
            if edge.level == 1:
                self.dealer_input(DealerInput(edge.t, name))
            return
        self.tracker.edge(edge)

    def ball_launched(self, t: float, seen: str) -> int | None:
        """The wheel saw a ball launched: a new spin when the table takes one (bets open or
        closed for it, no spin in play); else an ``unexpected_edge`` alarm, once until the
        dealer opens or closes the table."""
        state = self.state
        in_play = self.tracker.in_play
        if in_play or state not in ("bets_open", "no_more_bets"):
            if not self._closed_ball_alarmed:
                self._closed_ball_alarmed = True
                why = (f"spin {self.game_number} is still in play" if in_play
                       else f"the table is {state}")
                self.alarm("unexpected_edge", f"{seen}: a ball on the track while {why}; no "
                           "spin is launched")
            return None
        self.emit("spin_start", spin=self.game_number, bets=len(self.bets),
                  limits=self._limits_record())
        self.machine.send("launch")
        return self.game_number

    def dealer_input(self, inp: DealerInput) -> None:
        """A dealer or inspector action (CONTRACT §2 ``input``); refusals become alarms."""
        action = inp.action
        busy = self.tracker.busy
        if action in ("open_bets", "open_table") and busy is not None:
            self.alarm("input_refused", f"{action}: {busy}")
            return
        if action in _INPUT_EVENTS:
            if self._send(_INPUT_EVENTS[action], action) and action != "no_more_bets":
                self._closed_ball_alarmed = False
                if action == "close_table":
                    self._return_bets("table closed")
                self._apply_pending_limits()
        elif action == "void":
            self._void(inp)
        elif action == "confirm_result":
            self._confirm_result(inp)
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
        if self.held_spin is not None:
            self._decide_held(inp, None, reason)
        elif not self.tracker.in_play:
            self.alarm("input_refused", f"void ({reason}): no spin in play")
        else:
            self.tracker.void(inp.t, str(reason))

    def _confirm_result(self, inp: DealerInput) -> None:
        """CONTRACT §5: the dealer or inspector gives the number of a held spin."""
        number = inp.args.get("number")
        if type(number) is int and 0 <= number <= 36:
            number = str(number)  # `tablectl input confirm_result number=17` sends 17
        if self.held_spin is None:
            self.alarm("input_refused", "confirm_result: no spin is held (only a held spin's "
                       "number is given by hand)")
        elif not isinstance(number, str) or number not in self.order:
            self.alarm("input_refused", f"confirm_result: number {show(number)} is not a "
                       f"pocket of this {self.config.rules.wheel} wheel")
        else:
            self._decide_held(inp, number, None)

    def _decide_held(self, inp: DealerInput, number: str | None, reason: str | None) -> None:
        """Journal the decision on the held spin, with who took it, then settle it."""
        held = self.held_spin
        assert held is not None
        self.held_spin = None
        by = inp.args.get("by")
        decided_by = by if isinstance(by, str) and by else "dealer"
        keep = {k: v for k, v in held.items() if k not in ("type", "seq", "t", "reason",
                                                            "details", "candidate", "spin")}
        common = {"decided_by": decided_by, "held_for": held.get("details"), **keep}
        spin = held["spin"]
        if number is not None:
            self.emit("spin_result", spin=spin, number=number,
                      pocket_index=self.order.index(number), **common)
            self.machine.send("declare_result")
        else:
            self.emit("spin_invalid", spin=spin, reason=reason, reasons=[reason], **common)
            self.machine.send("declare_invalid")
        self._settle(number, await_dealer=number is None)

    def _set_limits(self, inp: DealerInput) -> None:
        """A dealer's ``set_limits`` (``min_bet``, ``max_bet``: whole chips, 1 <= min_bet <=
        max_bet <= ``MAX_LIMIT``, the bound of the config's ``[limits]``).

        Seed 001 Art. 16: limits change "despues de concluir dicha partida". A game starts
        when bets open (RULES.md §1 decision): while the table is closed the change applies
        at once; made while bets are open, a ball is in play or the spin is not yet settled,
        it is journaled as ``requested`` and applies once that game is settled (or the table
        is closed). A later request before then replaces it. Out-of-range values are
        refused with an ``input_refused`` alarm and change nothing.
        """
        lo, hi = inp.args.get("min_bet"), inp.args.get("max_bet")
        if not (type(lo) is int and type(hi) is int and 1 <= lo <= hi <= MAX_LIMIT):
            self.alarm("input_refused", f"set_limits: min_bet {show(lo)} and max_bet {show(hi)} "
                       f"must be whole chips with 1 <= min_bet <= max_bet <= {MAX_LIMIT} (the "
                       "bound of the config's [limits]); the limits stay "
                       f"{self.limits.min_bet}-{self.limits.max_bet}")
            return
        self.pending_limits = Limits(lo, hi)
        at_once = self.state == "closed"
        self.emit("config_change", key="limits", min_bet=lo, max_bet=hi, status="requested",
                  note="table closed: applies at once" if at_once else
                  f"applies after game {self.game_number} is settled (Art. 16)")
        self._apply_pending_limits()

    def _apply_pending_limits(self, game_over: bool = False) -> None:
        """Apply a requested limits change if no game is in progress (Art. 16): the table
        is closed, the game was just settled, or ``game_over`` (a restart found it over)."""
        if self.pending_limits is None or not (game_over or self.state in ("closed", "settled")):
            return
        limits, self.pending_limits = self.pending_limits, None
        self.emit("config_change", key="limits", min_bet=limits.min_bet,
                  max_bet=limits.max_bet, status="applied")
        self.limits = limits

    def place_bet(self, bet: BetPlaced) -> None:
        """A bet on the layout: checked against the table's seats (``[roulette] boxes``), the
        layout (Art. 13) and the limits in force (Art. 16); a refusal is a ``bet_refused``
        alarm naming the rule."""
        state = self.state
        game = self.game_number
        if state not in ("bets_open", "ball_in_play"):
            self.alarm("bet_refused", f"{bet.kind} on box {bet.box}: bets are not open "
                       f"(table {state})")
            return
        seats = self.config.rules.boxes
        if not 1 <= bet.box <= seats:
            self.alarm("bet_refused", f"no_such_box: {bet.kind} on box {show(bet.box)}: this "
                       f"table seats {seats} (boxes 1-{seats}, [roulette] boxes)")
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
    def auto_no_more_bets(self) -> None:
        """The wheel's automatic "no va más" closes bets while the ball is in play."""
        if self.state == "ball_in_play":
            self.machine.send("call_no_more_bets")

    def spin_concluded(self, outcome: SpinOutcome) -> None:
        spin = outcome.spin
        evidence = outcome.evidence
        if outcome.held:
            # CONTRACT §5: no settlement until a person decides (confirm_result or void).
            self.held_spin = self.emit(
                "spin_held", spin=spin, reason="sensor_fault", candidate=outcome.candidate,
                **{**evidence, "details": dict(outcome.held)})
            self.machine.send("declare_held")
            return
        if outcome.number is not None:
            self.emit("spin_result", spin=spin, number=outcome.number,
                      pocket_index=outcome.index, **evidence)
            self.machine.send("declare_result")
        else:
            self.emit("spin_invalid", spin=spin, reason=outcome.reasons[0],
                      reasons=list(outcome.reasons), **evidence)
            self.machine.send("declare_invalid")
        # After a dealer's void the ball may still run: the table waits, as after a restart,
        # until the ball is out and the dealer opens bets.
        self._settle(outcome.number, await_dealer=outcome.declared)

    def _settle(self, number: str | None, await_dealer: bool = False) -> None:
        game = self.game_number
        for bet in self.bets:
            outcome, payout = settle(bet, number) if number is not None else push(bet)
            self.emit("settlement", game=game, box=bet.box, kind=bet.kind, amount=bet.amount,
                      outcome=outcome, payout=payout, **_bet_fields(bet))
        self.bets = []
        self.machine.send("settle")
        self._apply_pending_limits()  # Art. 16: settled, before the next game opens
        self.game_number = game + 1
        self.machine.send("await_dealer" if await_dealer else "reopen")

    def _return_bets(self, why: str) -> None:
        game = self.game_number
        for bet in self.bets:
            self.emit("settlement", game=game, box=bet.box, kind=bet.kind, amount=bet.amount,
                      outcome="push", payout=0, note=why, **_bet_fields(bet))
        self.bets = []

    def serial(self, data: SerialData) -> None:
        self.tracker.serial(data)

    def port_status(self, status: PortStatus) -> None:
        self.tracker.port_status(status)

    # -- restart ---------------------------------------------------------------------
    def recover_from(self, journal: Journal) -> None:
        """Scan ``journal`` and :meth:`recover` from it."""
        types = ("state", "spin_start", "spin_result", "spin_invalid", "spin_held", "bet",
                 "settlement",
                 "config_change")
        self.recover(self.scan_journal(list(journal.records(types=types))))

    def recover(self, found: RouletteRecovery) -> None:
        """Resume after a restart from what the journal holds.

        A spin that was in play when the controller stopped cannot be finished (its
        evidence stopped at the cut): it is voided with reason ``interrupted`` and its bets
        are returned. A spin concluded but not wholly settled gets its missing settlements.
        Bets placed for the next spin stay on the layout. Nothing journaled is repeated.
        The limits in force are the last ``applied`` change's (else the config's); a change
        ``requested`` and not yet applied applies now if no game is open, else when the
        open game is settled (Art. 16).
        """
        last = found.last_spin
        self.game_number = last + 1
        if found.limits is not None:
            self.limits = found.limits
        self.pending_limits = found.pending_limits
        interrupted = found.interrupted_spin
        state = found.state
        if found.held is not None and found.held["spin"] == interrupted:
            # A held spin's evidence is all journaled: it stays held for the inspector.
            self.held_spin = found.held
            self.game_number = found.held["spin"]
            interrupted = None
            state = "held"
        elif state not in RoundMachine.states_map:
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
            self.emit("state", game=last + 1, trigger="restart",
                      **{"from": found.state, "to": state}, limits=self._limits_record())
        self.machine = RoundMachine(self._journal_transition, start_value=state)
        if interrupted is not None:
            self.emit("spin_invalid", spin=interrupted, reason="interrupted",
                      reasons=["interrupted"],
                      details={"interrupted": "the controller stopped while the spin was in "
                               "play; voided on restart, bets returned; the dealer reopens "
                               "bets when the wheel is ready"})
            found.outcomes[interrupted] = None
            self.game_number = max(last, interrupted) + 1
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
        if state == "closed" or (state == "bets_open" and found.state != "bets_open"):
            # No game in progress (or it was just concluded): a change requested during it
            # applies now (Art. 16); with bets open or a spin held it waits for that game's
            # settlement.
            self._apply_pending_limits(game_over=True)

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
            elif kind == "spin_held":
                found.held = r
            elif kind in ("spin_result", "spin_invalid"):
                open_spin = None
                found.held = None
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
            elif kind == "config_change" and r.get("key") == "limits":
                if r["status"] == "applied":
                    found.limits = Limits(r["min_bet"], r["max_bet"])
                    found.pending_limits = None
                elif r["status"] == "requested":
                    found.pending_limits = Limits(r["min_bet"], r["max_bet"])
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
