"""The roulette table (seed 001 Art. 12-16): the game facade the table drives.

It takes the dealer's inputs and the bets (verify, can, do: each refusal says why and
changes nothing), moves the round (:mod:`.round`), hears the wheel through its tracker
(:mod:`.wheel`: launches, "no va más", each spin's frozen outcome), journals the verdict
and settles the bets (:mod:`.bets`, :mod:`.layout`: Art. 13), applies limits changes after
the game (Art. 16), and resumes after a restart (:mod:`.recovery`). Held spins wait for a
person's decision (CONTRACT §5): with ``[roulette] held_spin = "parks"`` (issue 16) a held
spin is parked, its bets frozen until the decision settles them, and the next games go on;
with ``bets_follow_wheel`` the wheel's own state 2 opens bets. Every input the current
state does not allow is refused with an ``alarm`` record that says why; nothing is
silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from controller.core.config import MAX_LIMIT, Config, Limits
from controller.core.contract import Doubting, Emit, Schedule
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, PortStatus, SerialData
from controller.games.roulette import recovery
from controller.games.roulette.art12 import DEALER_REASONS, REASONS
from controller.games.roulette.bets import bet_input, bet_record, check_bet, settlement
from controller.games.roulette.config import RouletteConfig
from controller.games.roulette.layout import RouletteBet, layout_for
from controller.games.roulette.parked import Parked, decision_target
from controller.games.roulette.records import (
    AlarmGame,
    LimitsAnnounced,
    SpinHeld,
    SpinInvalid,
    SpinResult,
    SpinStart,
    measured_of,
)
from controller.games.roulette.round import INPUT_EVENTS, RoundMachine
from controller.games.roulette.wheel import SpinOutcome, make_tracker
from controller.store.journal import Journal
from controller.store.records import ABSENT
from controller.store.resume import since_checkpoint
from controller.store.shared import ConfigChange, State
from controller.trace import show


class RouletteGame:
    """One roulette table: the round, the wheel's tracker, bets on the layout, limits.

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
        # starts when bets open; its spin is numbered so at the launch): the one count.
        self.game_number = 1
        self._closed_ball_alarmed = False
        self._started = False  # the first event came (the wheel's tracker was told)
        self.held_spin: dict[str, Any] | None = None  # the spin_held record awaiting a decision
        # Issue 16: spins held and parked (held_spin = "parks"), by spin, with their bets.
        self.parked: dict[int, Parked] = {}
        # The dealer closed the table (close_table): the wheel's state 2 opens no bets.
        self.dealer_closed = False
        self._last_bet_t: float | None = None  # the last bet of self.bets, when it came
        self.tracker = make_tracker(rc, self.order, schedule, self, config.serial)
        self.machine = RoundMachine(self.journal_transition)

    # -- journal helpers -------------------------------------------------------------
    def alarm(self, code: str, message: str) -> None:
        self.emit(AlarmGame(code=code, message=message, game=self.game_number))

    def journal_transition(self, event: str, source: str, target: str) -> None:
        # Every move carries the limits in force for its game (Art. 16): the one that opens
        # bets starts the game, and they hold until that game is settled.
        self.emit(State(game=self.game_number, trigger=event, from_=source, to=target,
                        limits=self.limits_record()))

    def limits_record(self) -> dict[str, int]:
        return {"min_bet": self.limits.min_bet, "max_bet": self.limits.max_bet}

    def present(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Nothing of a spin is hidden from the public."""
        return records

    @property
    def state(self) -> str:
        return self.machine.current

    def sensors(self, now: float) -> dict[str, Any]:
        """What the wheel last reported by port (a serial wheel's last status line and its
        age at ``now``, seconds), for ``tablectl sensors``; any thread may call it."""
        return self.tracker.sensors(now)

    def timing_doubt(self, t: float, why: str) -> str | None:
        """The order of the wheel's edges and timeouts cannot be trusted at ``t``: the
        tracker holds the spin in play (CONTRACT §5); what it held, in words, or None."""
        tracker = self.tracker
        return tracker.timing_doubt(t, why) if isinstance(tracker, Doubting) else None

    def open_game(self) -> str | None:
        """The spin still open (in play, or held for the inspector), in words; else None."""
        if self.held_spin is not None:
            return f"spin {self.held_spin['spin']} held for the inspector (no settlement yet)"
        if self.parked:
            spins = ", ".join(str(n) for n in sorted(self.parked))
            return f"spin {spins} parked for the inspector (bets frozen, no settlement yet)"
        if self.tracker.in_play:
            return f"spin {self.game_number} still in play (no verdict)"
        return None

    # -- verify, can, do: dealer inputs ----------------------------------------------
    def verify_input(self, inp: DealerInput) -> None:
        """Whether the table takes the dealer's or inspector's ``inp`` now (CONTRACT §2
        ``input``); changes nothing.

        Raises:
            RuleViolation: code ``input_refused``, with why: not allowed in this state, the
                last ball still on the track, no spin in play to void or held to confirm, a
                void reason outside Art. 12 (d-g; a-g for a held
                spin), a number not on the wheel, limits out of
                range (Art. 16), or an input a roulette table does not take.
        """
        action = inp.action
        busy = self.tracker.busy
        if action in ("open_bets", "open_table") and busy is not None:
            raise RuleViolation("input_refused", f"{action}: {busy}")
        if action in INPUT_EVENTS:
            if not self.machine.allows(INPUT_EVENTS[action]):
                raise RuleViolation("input_refused", f"{action}: not allowed while "
                                    f"{self.machine.current}")
        elif action == "void":
            reason = inp.args.get("reason")
            waiting = self.held_spin is not None or bool(self.parked)
            if waiting and reason not in REASONS:
                # RULES.md §1 ("and any other case"): a held spin is voided under the
                # true reason, whichever of Art. 12 it is.
                raise RuleViolation("input_refused", f"void: reason {show(reason)} is not one of "
                                    f"{', '.join(REASONS)} (Art. 12 a-g)")
            if not waiting and reason not in DEALER_REASONS:
                # In play, (a)-(c) are still being measured by the sensors.
                raise RuleViolation("input_refused", f"void: reason {show(reason)} is not one of "
                                    f"{', '.join(DEALER_REASONS)} (Art. 12 d-g); a held spin "
                                    "takes any of a-g")
            if decision_target(self, inp) is None and reason not in DEALER_REASONS:
                raise RuleViolation("input_refused", f"void: reason {show(reason)} is not one "
                                    f"of {', '.join(DEALER_REASONS)} for the spin in play "
                                    "(Art. 12 d-g)")
        elif action == "confirm_result":
            decision_target(self, inp)
            self._held_number(inp)
        elif action == "set_limits":
            self._requested_limits(inp)
        else:
            raise RuleViolation("input_refused",
                                f"{action!r} is not an input of a roulette table")

    def _first(self, t: float) -> None:
        """Every event passes here first: the first one tells the wheel's tracker that the
        table started (a serial wheel's silence is timed from it)."""
        if not self._started:
            self._started = True
            self.tracker.started(t)

    def dealer_input(self, inp: DealerInput) -> None:
        """Do the dealer's or inspector's ``inp``, once :meth:`verify_input` lets it through
        (it raises its ``RuleViolation`` before anything changes)."""
        self._first(inp.t)
        self.verify_input(inp)
        action = inp.action
        if action in INPUT_EVENTS:
            self.machine.send(INPUT_EVENTS[action])
            if action != "no_more_bets":
                self._closed_ball_alarmed = False
                self.dealer_closed = action == "close_table"
                if action == "close_table":
                    self._return_bets("table closed")
                self.apply_pending_limits()
        elif action == "void":
            reason = str(inp.args["reason"])
            target = decision_target(self, inp)
            if target is None:
                self.tracker.void(inp.t, reason)
            else:
                self._decide_held(inp, target, None, reason)
        elif action == "confirm_result":
            target = decision_target(self, inp)
            assert target is not None
            self._decide_held(inp, target, self._held_number(inp), None)
        else:
            self._set_limits(self._requested_limits(inp))

    def refused(self, event: DealerInput | BetPlaced, exc: RuleViolation) -> None:
        """Journal the refusal of ``event``: an ``input_refused`` alarm (the input has its
        own record), or a ``bet_refused`` alarm carrying the refused bet (``bet``: its
        fields), the one record of that bet input."""
        self._first(event.t)
        if isinstance(event, BetPlaced):
            self.emit(AlarmGame(code="bet_refused", message=exc.message,
                                game=self.game_number, bet=bet_input(event)), t=event.t)
        else:
            self.alarm(exc.code, exc.message)

    def _held_number(self, inp: DealerInput) -> str:
        """CONTRACT §5: the number a person gives for the held spin, checked."""
        number = inp.args.get("number")
        if type(number) is int and 0 <= number <= 36:
            number = str(number)  # `tablectl input confirm_result number=17` sends 17
        if not isinstance(number, str) or number not in self.order:
            raise RuleViolation("input_refused", f"confirm_result: number {show(number)} is "
                                f"not a pocket of this {self.config.rules.wheel} wheel")
        return number

    def _decide_held(self, inp: DealerInput, spin: int, number: str | None,
                     reason: str | None) -> None:
        """Journal the decision on held spin ``spin``, with who took it, then settle it: the
        table's held spin moves the round on; a parked one settles its frozen bets, in
        the journal's order, whatever game is under way (issue 16)."""
        parked = self.parked.pop(spin, None)
        held = parked.held if parked is not None else self.held_spin
        assert held is not None and held["spin"] == spin
        if parked is None:
            self.held_spin = None
        by = inp.args.get("by")
        # What the held spin measured (a parked one's parked=True), who decided and why
        # it was held.
        measured = replace(measured_of(held, leave=("details",)), held_for=held.get(
            "details"), decided_by=by if isinstance(by, str) and by else "dealer")
        if number is not None:
            self.emit(SpinResult(spin=spin, number=number,
                                 pocket_index=self.order.index(number), measured=measured))
        else:
            assert reason is not None  # a void gives its reason
            self.emit(SpinInvalid(spin=spin, reason=reason, reasons=[reason],
                                  measured=measured))
        if parked is not None:
            for bet in parked.bets:
                self.emit(settlement(bet, number, spin))
            return
        self.machine.send("declare_result" if number is not None else "declare_invalid")
        self._settle(number, await_dealer=number is None)

    # -- limits (Art. 16) ------------------------------------------------------------
    def _requested_limits(self, inp: DealerInput) -> Limits:
        """A dealer's ``set_limits`` (``min_bet``, ``max_bet``: whole chips, 1 <= min_bet <=
        max_bet <= ``MAX_LIMIT``, the bound of the config's ``[limits]``).

        Raises:
            RuleViolation: ``input_refused``, values out of range; the limits stay.
        """
        lo, hi = inp.args.get("min_bet"), inp.args.get("max_bet")
        stay = f"the limits stay {self.limits.min_bet}-{self.limits.max_bet}"
        for name, value in (("min_bet", lo), ("max_bet", hi)):
            if type(value) is not int:
                raise RuleViolation("input_refused", f"set_limits: {name} {show(value)} is not "
                                    f"a whole number of chips; {stay}")
        assert isinstance(lo, int) and isinstance(hi, int)
        if not 1 <= lo <= hi <= MAX_LIMIT:
            raise RuleViolation("input_refused", f"set_limits: min_bet {show(lo)} and max_bet "
                                f"{show(hi)} must be whole chips with 1 <= min_bet <= max_bet "
                                f"<= {MAX_LIMIT} (the bound of the config's [limits]); {stay}")
        return Limits(lo, hi)

    def _set_limits(self, limits: Limits) -> None:
        """Seed 001 Art. 16: limits change "previa comunicación a los jugadores que se
        encuentran en la mesa y despues de concluir dicha partida". First the players are
        told: a ``limits_announced`` record ("from the next spin, limits 5–500", for the
        display). A game starts when bets open (RULES.md §1 decision): while the table is
        closed the change applies at once, after its announcement; made while bets are
        open, a ball is in play or the spin is not yet settled, it is journaled as
        ``requested`` and applies once that game is settled (or the table is closed). A
        later request before then replaces it, announced in its turn."""
        self.pending_limits = limits
        at_once = self.state == "closed"
        self.emit(LimitsAnnounced(
            game=self.game_number, min_bet=limits.min_bet, max_bet=limits.max_bet,
            applies="now" if at_once else "after_game",
            text=f"from the next spin, limits {limits.min_bet}\u2013{limits.max_bet}"))
        self.emit(ConfigChange(key="limits", min_bet=limits.min_bet, max_bet=limits.max_bet,
                               status="requested",
                               note="table closed: applies at once" if at_once else
                               f"applies after game {self.game_number} is settled (Art. 16)"))
        self.apply_pending_limits()

    def apply_pending_limits(self, game_over: bool = False) -> None:
        """Apply a requested limits change if no game is in progress (Art. 16): the table
        is closed, the game was just settled, or ``game_over`` (a restart found it over)."""
        if self.pending_limits is None or not (game_over or self.state in ("closed", "settled")):
            return
        limits, self.pending_limits = self.pending_limits, None
        self.emit(ConfigChange(key="limits", min_bet=limits.min_bet, max_bet=limits.max_bet,
                               status="applied"))
        self.limits = limits

    # -- verify, can, do: bets -------------------------------------------------------
    def verify_bet(self, bet: BetPlaced) -> None:
        """Whether the table takes ``bet`` now: bets open, a box the table seats
        (``[roulette] boxes``), the layout (Art. 13), the limits in force (Art. 16), and no
        ball running on the wheel that is no spin of the table's (a serial wheel's, issue
        12: its "no va más" the table cannot see).

        Raises:
            RuleViolation: why not (its message is the ``bet_refused`` alarm's).
        """
        check_bet(bet, self.state, self.layout, self.config.rules.boxes, self.limits)
        running = self.tracker.closed_to_bets
        if running is not None:
            raise RuleViolation("bets_not_open", f"{bet.kind} on box {bet.box}: {running}")

    def place_bet(self, bet: BetPlaced) -> None:
        """Place ``bet`` on the layout, once :meth:`verify_bet` lets it through: its ``bet``
        record holds the whole input (the one record of it) and the game it is for."""
        self._first(bet.t)
        placed = check_bet(bet, self.state, self.layout, self.config.rules.boxes, self.limits)
        self.emit(bet_record(bet, self.game_number), t=bet.t)
        self.bets.append(placed)
        self._last_bet_t = bet.t

    # -- the wheel (WheelListener) ---------------------------------------------------
    def gpio(self, t: float, name: str, level: int) -> None:
        """A raw edge of a wheel sensor or a dealer button (already journaled): ``name`` to
        ``level`` (1 active) at ``t`` seconds; the wheel tracker reads its sensors' edges
        itself (CONTRACT §5)."""
        if not self._started:  # _first, inline: some 100 edges a spin pass here
            self._first(t)
        if name in ("open_bets", "no_more_bets"):
            if level == 1:
                inp = DealerInput(t, name)
                try:
                    self.dealer_input(inp)
                except RuleViolation as exc:
                    self.refused(inp, exc)
            return
        self.tracker.edge(t, name, level)

    def serial(self, data: SerialData) -> None:
        self._first(data.t)
        self.tracker.serial(data)

    def port_status(self, status: PortStatus) -> None:
        self._first(status.t)
        self.tracker.port_status(status)

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
        self.emit(SpinStart(spin=self.game_number, bets=len(self.bets),
                            limits=self.limits_record()))
        self.machine.send("launch")
        return self.game_number

    def auto_no_more_bets(self, sent: float | None) -> str | None:
        """The wheel's automatic "no va más" closes bets while the ball is in play. When
        the wheel sent it at ``sent`` (its line's first byte, earlier than now for a line
        split across reads), a bet taken since came after it: the spin is held for the
        inspector (CONTRACT §5; issue 16 item 11), never settled as if on time."""
        if self.state == "ball_in_play":
            self.machine.send("call_no_more_bets")
        last = self._last_bet_t
        if sent is None or not self.bets or last is None or last <= sent:
            return None
        return (f"a bet was taken at {last:.3f} s, after the wheel's \"no va más\" began "
                f"arriving at {sent:.3f} s (its line came split across reads): it may "
                "be late")

    def spin_concluded(self, outcome: SpinOutcome) -> None:
        """Journal the spin's verdict from its outcome, then settle (none while held)."""
        spin = outcome.spin
        evidence = outcome.evidence
        if outcome.held:
            # CONTRACT §5: no settlement until a person decides (confirm_result or void).
            parks = self.config.rules.parks
            held = self.emit(SpinHeld(
                spin=spin, reason="sensor_fault", candidate=outcome.candidate,
                measured=replace(evidence, parked=True if parks else ABSENT,
                                 details=dict(outcome.held))))
            self.machine.send("declare_held")
            if parks:
                self._park(held)
            else:
                self.held_spin = held
            return
        if outcome.number is not None:
            assert outcome.index is not None  # a result's pocket
            self.emit(SpinResult(spin=spin, number=outcome.number, pocket_index=outcome.index,
                                 measured=evidence))
            self.machine.send("declare_result")
        else:
            self.emit(SpinInvalid(spin=spin, reason=outcome.reasons[0],
                                  reasons=list(outcome.reasons), measured=evidence))
            self.machine.send("declare_invalid")
        # After a dealer's void the ball may still run: the table waits, as after a restart,
        # until the ball is out and the dealer opens bets.
        self._settle(outcome.number, await_dealer=outcome.declared)

    def _park(self, held: dict[str, Any]) -> None:
        """Issue 16: the held spin's bets are frozen with it until a person decides it;
        the table closes (its ball may still run) and the next game starts: the wheel's
        state 2 or the dealer opens its bets. A limits change waiting applies now (Art.
        16: no bet is taken for the parked game any more)."""
        spin = held["spin"]
        self.parked[spin] = Parked(held, self.bets)
        self.bets = []
        self.machine.send("park")
        self.apply_pending_limits()
        self.game_number = spin + 1

    def wheel_bets_open(self, t: float, seen: str) -> None:
        """The wheel shows a new game's bets open (its state 2, ``seen``): with
        ``bets_follow_wheel`` a table closed by no person opens bets (issue 16); a table
        the dealer closed, or one with a spin held, waits for a person."""
        if (not self.config.rules.follows_wheel or self.dealer_closed
                or self.state != "closed" or self.tracker.busy is not None):
            return
        self._closed_ball_alarmed = False
        self.machine.send("wheel_open_bets")
        self.apply_pending_limits()

    # -- settlement (Art. 13) --------------------------------------------------------
    def _settle(self, number: str | None, await_dealer: bool = False) -> None:
        game = self.game_number
        for bet in self.bets:
            self.emit(settlement(bet, number, game))
        self.bets = []
        self.machine.send("settle")
        self.apply_pending_limits()  # Art. 16: settled, before the next game opens
        self.game_number = game + 1
        self.machine.send("await_dealer" if await_dealer else "reopen")

    def _return_bets(self, why: str) -> None:
        for bet in self.bets:
            self.emit(settlement(bet, None, self.game_number, note=why))
        self.bets = []

    # -- restart ---------------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any] | None:
        """What a fresh table needs to go on from here, when this is a game boundary: no
        spin in play or held, no bet on the layout, no limits change waiting (a settled
        spin; the table closed); parked spins go into it with their frozen bets. None
        otherwise."""
        if (self.bets or self.held_spin is not None or self.tracker.in_play
                or self.pending_limits is not None or self.state not in ("bets_open", "closed")):
            return None
        return recovery.checkpoint_state(self)

    def recover_from(self, journal: Journal) -> None:
        """Resume after a restart from the journal's last checkpoint and the records after
        it (:mod:`.recovery`).

        Raises:
            UnreadableRecord: a record after the checkpoint cannot be read.
        """
        checkpoint, records = since_checkpoint(journal, self.config.spec)
        found = recovery.from_checkpoint(checkpoint["state"] if checkpoint else None)
        self.resume(recovery.recover(recovery.scan_journal(records, found), self.layout,
                                     self.config.limits))

    def resume(self, plan: recovery.Resumption) -> None:
        """Take up the game where a restart found it (:func:`.recovery.recover`): the
        game's numbers, limits, held and parked spins and bets as the journal left them,
        the round in the state it resumes in, then the restart's records journaled (its
        state's move, a voided spin with its bets returned, unsettled bets named) and a
        limits change waiting applied when no game is open (Art. 16)."""
        self.game_number = plan.game_number
        self.dealer_closed = plan.dealer_closed
        self.parked.update(plan.parked)
        if plan.limits is not None:
            self.limits = plan.limits
        self.pending_limits = plan.pending_limits
        self.held_spin = plan.held_spin
        self.bets.extend(plan.bets)
        if plan.ball_may_run:
            self.tracker.resumed(ball_may_run=True)
        self.machine = RoundMachine(self.journal_transition, start_value=plan.state)
        for record in plan.records:
            self.emit(record)
        if plan.apply_limits:
            self.apply_pending_limits(game_over=True)
