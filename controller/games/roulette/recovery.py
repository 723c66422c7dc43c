"""A roulette table's restart from its journal (seed 001 Art. 13 settlements, Art. 16 limits;
CONTRACT §5 held spins).

:func:`scan_journal` reads what a restart needs from the records after the last checkpoint
(a settled spin or a closed table: :func:`checkpoint_state` is what it keeps) and from the
checkpoint itself (:func:`from_checkpoint`): the last table state, the spins started and
concluded, the bets not yet settled, the limits. :func:`recover` says how the game resumes
from it (a :class:`Resumption`, which the game takes up: ``RouletteGame.resume``): a
spin cut by the stop, or a game cut after "no va más" and before its launch, is voided
(``interrupted``) and its bets returned, a held spin stays held, a game with bets still open
goes on under its limits, nothing journaled is repeated. Spins parked while held (issue 16,
``held_spin = "parks"``) stay parked with their frozen bets, whatever came after them; a
decision on one journaled before the stop is not repeated. Each input is journaled whole (one
transaction), so a concluded spin always has its settlements: one without (a journal cut by
hand, or written before format 2) is named in an ``unsettled_bet`` alarm, never paid by the
restart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.core.config import Limits
from controller.core.words import given
from controller.games.roulette.bets import bet_fields, bet_key, settlement
from controller.games.roulette.layout import Layout, RouletteBet, make_bet
from controller.games.roulette.parked import Parked
from controller.games.roulette.records import AlarmGame, Measured, SpinInvalid
from controller.games.roulette.round import RoundMachine
from controller.store.records import Record
from controller.store.shared import State

if TYPE_CHECKING:
    from controller.games.roulette.game import RouletteGame

RECORD_TYPES = ("state", "spin_start", "spin_result", "spin_invalid", "spin_held", "bet",
                "settlement", "config_change")
"""The journal's records a restart reads."""


@dataclass
class RouletteRecovery:
    """What a restart finds in the journal.

    ``state`` is the last table state; ``last_spin`` the last spin concluded; ``unsettled``
    the bet records with no settlement yet; ``outcomes`` maps each concluded spin to its
    number (None for an invalid spin); ``interrupted_spin`` a spin started and never
    concluded; ``limits`` the last applied limits change, ``pending_limits`` one requested
    and not applied yet; ``held`` the last spin held and not decided; ``parked`` the
    spins parked and not decided (spin -> its ``spin_held`` record; their bets are among
    ``unsettled``); ``dealer_closed`` the table's last move was the dealer's close_table.
    """

    state: str = "closed"
    last_spin: int = 0
    unsettled: list[dict[str, Any]] = field(default_factory=list)
    outcomes: dict[int, str | None] = field(default_factory=dict)
    interrupted_spin: int | None = None
    limits: Limits | None = None
    pending_limits: Limits | None = None
    held: dict[str, Any] | None = None
    parked: dict[int, dict[str, Any]] = field(default_factory=dict)
    dealer_closed: bool = False


def checkpoint_state(game: RouletteGame) -> dict[str, Any]:
    """A checkpoint's ``state`` at a game boundary: the table's state, the last spin
    concluded, the limits in force when a change set them (else the config's apply)."""
    changed = game.limits != game.config.limits
    parked = [{"held": p.held, "bets": [{"game": spin, "box": b.box, "kind": b.kind,
                                          "amount": b.amount, **bet_fields(b)}
                                         for b in p.bets]}
              for spin, p in sorted(game.parked.items())]
    return {"boundary": f"spin {game.game_number - 1} settled" if game.game_number > 1
            else "before the first spin", "table_state": game.state,
            "last_spin": game.game_number - 1,
            "limits": game.limits_record() if changed else None,
            "parked": parked, "dealer_closed": game.dealer_closed}


def from_checkpoint(state: dict[str, Any] | None) -> RouletteRecovery:
    """What a restart knows from the checkpoint's ``state`` (None: the journal's start)."""
    found = RouletteRecovery()
    if state is not None:
        found.state = state["table_state"]
        found.last_spin = state["last_spin"]
        limits = state.get("limits")
        found.limits = Limits(limits["min_bet"], limits["max_bet"]) if limits else None
        for entry in state.get("parked", ()):
            found.parked[entry["held"]["spin"]] = entry["held"]
            found.unsettled.extend(entry["bets"])
        # A checkpoint older than issue 16 at a closed table: as if the dealer closed it.
        found.dealer_closed = state.get("dealer_closed", found.state == "closed")
    return found


def scan_journal(records: list[dict[str, Any]], found: RouletteRecovery | None = None
                 ) -> RouletteRecovery:
    """Read the records that matter for a restart (``RECORD_TYPES``), in journal order,
    from what ``found`` (the checkpoint's) knows already."""
    found = found or RouletteRecovery()
    open_spin: int | None = None
    unsettled: list[dict[str, Any]] = list(found.unsettled)
    for r in records:
        kind = r["type"]
        if kind not in RECORD_TYPES:
            continue
        if kind == "state":
            found.state = r["to"]
            found.dealer_closed = r.get("trigger") == "close_table"
        elif kind == "spin_start":
            open_spin = r["spin"]
        elif kind == "spin_held" and r.get("parked"):
            found.parked[r["spin"]] = r
            found.last_spin = max(found.last_spin, r["spin"])
            if open_spin == r["spin"]:
                open_spin = None
        elif kind == "spin_held":
            found.held = r
        elif kind in ("spin_result", "spin_invalid") and r.get("parked"):
            found.parked.pop(r["spin"], None)  # decided later: another game may be open
            found.outcomes[r["spin"]] = r.get("number")
        elif kind in ("spin_result", "spin_invalid"):
            open_spin = None
            found.held = None
            found.last_spin = max(found.last_spin, r["spin"])
            found.outcomes[r["spin"]] = r.get("number")
        elif kind == "bet":
            unsettled.append(r)
        elif kind == "settlement":
            key = bet_key(r)
            for i, bet in enumerate(unsettled):
                if bet_key(bet) == key:
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


@dataclass
class Resumption:
    """What a restart decided (:func:`recover`), for the game to take up
    (``RouletteGame.resume``): its next game's number, the round's state, who closed the
    table, the limits in force and one waiting, the held spin, the parked spins with their
    frozen bets, the bets still on the layout, whether the last ball may still run, the
    records to journal (in order), and whether a limits change waiting applies
    at once (no game is open)."""

    game_number: int
    state: str
    dealer_closed: bool
    limits: Limits | None
    pending_limits: Limits | None
    held_spin: dict[str, Any] | None
    parked: dict[int, Parked]
    bets: list[RouletteBet]
    ball_may_run: bool
    records: list[Record]
    apply_limits: bool


def recover(found: RouletteRecovery, layout: Layout, limits: Limits) -> Resumption:
    """How the game resumes after a restart from what the journal holds (``found``), on
    ``layout`` under the config's ``limits``.

    A spin that was in play when the controller stopped cannot be finished (its evidence
    stopped at the cut): it is voided with reason ``interrupted`` and its bets are
    returned. So is a game whose bets were closed ("no va más") with no launch journaled:
    a ball thrown while the controller was down was not seen, and the closed bets cannot
    ride on a later throw. A bet of a concluded spin with no settlement is named in an
    ``unsettled_bet`` alarm for the inspector (see the module doc). Bets placed for the
    next spin stay on the layout. Nothing journaled is repeated. The limits
    in force are the last ``applied`` change's (else the config's); a change ``requested``
    and not yet applied applies now if no game is open (none was, or it was voided here),
    else when the open game is settled (Art. 16): a restart never changes the limits of a
    game it lets go on.
    """
    last = found.last_spin
    plan = Resumption(
        game_number=last + 1, state=found.state, dealer_closed=found.dealer_closed,
        limits=found.limits, pending_limits=found.pending_limits, held_spin=None,
        parked={spin: Parked(held, []) for spin, held in found.parked.items()}, bets=[],
        ball_may_run=False, records=[], apply_limits=False)
    interrupted = _resumed_state(found, plan)
    why = "the controller stopped while the spin was in play"
    if interrupted is None and plan.ball_may_run:
        # "No va más" was called and no launch journaled: a ball thrown while the
        # controller was down went unseen, so this game cannot be played on; it is voided
        # like a spin in play, and only then may a pending change apply (Art. 16).
        interrupted = last + 1
        why = ("the controller stopped after \"no va más\", before a launch was seen "
               "(a ball thrown while it was down is not known)")
    in_force = plan.limits or limits
    if plan.state != found.state:
        plan.records.append(State(
            game=last + 1, trigger="restart", from_=found.state, to=plan.state,
            limits={"min_bet": in_force.min_bet, "max_bet": in_force.max_bet}))
    if interrupted is not None:
        plan.records.append(SpinInvalid(
            spin=interrupted, reason="interrupted", reasons=["interrupted"],
            measured=Measured(details={"interrupted": (
                f"{why}; voided on restart, bets returned; the dealer reopens bets when "
                "the wheel is ready")})))
        plan.game_number = max(last, interrupted) + 1
    for record in found.unsettled:
        _resume_bet(record, layout, interrupted, found, plan)
    # No game in progress (or it was just concluded): a change requested during it applies
    # now (Art. 16); with bets open or a spin held it waits for that game's settlement.
    plan.apply_limits = plan.state == "closed" or (
        plan.state == "bets_open" and found.state != "bets_open")
    return plan


def _resumed_state(found: RouletteRecovery, plan: Resumption) -> int | None:
    """The round's state the game resumes in (``plan.state``), and the spin cut in play
    that the restart voids (None: none)."""
    interrupted = found.interrupted_spin
    state = found.state
    if found.held is not None and found.held["spin"] == interrupted:
        # A held spin's evidence is all journaled: it stays held for the inspector.
        plan.held_spin = found.held
        plan.game_number = found.held["spin"]
        plan.state = "held"
        return None
    if state not in RoundMachine.states_map:
        plan.records.append(AlarmGame(
            code="journal_state_unknown", game=plan.game_number, message=(
                f"the journal's last table state {given(state)} is not a state of a roulette "
                "table: starting closed")))
        plan.state = "closed"
    elif interrupted is not None or state == "no_more_bets":
        # The ball of the interrupted spin may still be running: the table stays closed
        # to bets and launches until the dealer opens bets again (no late bet is taken
        # and no spin is started from the middle of a throw); a wheel that reports its
        # states says when that ball is out.
        plan.state = "closed"
        plan.ball_may_run = True
    elif state in ("ball_in_play", "result", "invalid", "settled"):
        plan.state = "bets_open"
    return interrupted


def _resume_bet(record: dict[str, Any], layout: Layout, interrupted: int | None,
                found: RouletteRecovery, plan: Resumption) -> None:
    """A bet with no settlement yet: returned with the voided spin, frozen with its parked
    spin, named in an alarm when its spin is concluded, else still on the layout."""
    bet = make_bet(layout, record["kind"], record["box"], record["amount"],
                   record.get("numbers"), record.get("which"))
    spin = record["game"]
    if spin == interrupted:  # voided: its bets are returned
        plan.records.append(settlement(bet, None, spin, note="settled on restart"))
    elif spin in plan.parked:  # frozen until the decision
        plan.parked[spin].bets.append(bet)
    elif spin in found.outcomes:
        plan.records.append(AlarmGame(
            code="unsettled_bet", game=spin, bet=bet_input_of(record),
            message=f"record {record.get('seq')}: a {record['kind']} bet of "
            f"{record['amount']} on box {record['box']} for spin {spin}, which is "
            "concluded, has no settlement (the journal was cut in the middle of an "
            "input): not paid by the restart; the inspector settles it"))
    else:
        plan.bets.append(bet)


def bet_input_of(record: dict[str, Any]) -> dict[str, Any]:
    """The bet input a ``bet`` record holds (its fields but ``game``)."""
    return {k: v for k, v in record.items() if k in ("kind", "box", "amount", "numbers",
                                                       "which")}
