"""Held spins that park (issue 16; CONTRACT §5): which held spin a person's decision is for.

With ``[roulette] held_spin = "parks"`` a held spin keeps its bets frozen until the
dealer or inspector decides it (``confirm_result number=N`` or ``void reason=...``), and the
wheel's next games go on, each with its own bets; several spins may wait at once. A
decision names its spin with ``spin=N``; without it, it is for the one spin waiting (the
table's held spin, or the one parked spin). A ``void`` with no ``spin`` while a ball is in
play is the dealer's void of that ball (Art. 12 d-g), never a parked spin's decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.core.errors import RuleViolation
from controller.core.events import DealerInput
from controller.games.roulette.layout import RouletteBet
from controller.trace import show

if TYPE_CHECKING:
    from controller.games.roulette.game import RouletteGame


@dataclass
class Parked:
    """A parked spin: its ``spin_held`` record and the bets frozen with it."""

    held: dict[str, Any]
    bets: list[RouletteBet]


def decision_target(game: RouletteGame, inp: DealerInput) -> int | None:
    """The held spin ``inp`` (``confirm_result`` or ``void``) decides, or None for a void
    of the spin in play.

    Raises:
        RuleViolation: ``input_refused``: no spin held (or in play, for a void), a
            ``spin`` that is not waiting, or several waiting and none named.
    """
    action = inp.action
    waiting = sorted(game.parked)
    if game.held_spin is not None:
        waiting.append(game.held_spin["spin"])
    named = inp.args.get("spin")
    if named is not None:
        if type(named) is not int or named not in waiting:
            listed = ", ".join(map(str, waiting)) or "none"
            raise RuleViolation("input_refused", f"{action}: spin {show(named)} is not held "
                                f"for a decision (held: {listed})")
        return int(named)
    if action == "void" and game.tracker.in_play:
        return None
    if len(waiting) == 1:
        return waiting[0]
    if not waiting:
        if action == "void":
            reason = inp.args.get("reason")
            said = reason if isinstance(reason, str) else show(reason)
            raise RuleViolation("input_refused", f"void ({said}): no spin in play")
        raise RuleViolation("input_refused", "confirm_result: no spin is held (only a held "
                            "spin's number is given by hand)")
    raise RuleViolation("input_refused", f"{action}: spins {', '.join(map(str, waiting))} "
                        "are held: name the one you decide (spin=N)")
