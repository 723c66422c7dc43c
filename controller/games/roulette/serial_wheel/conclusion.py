"""A serial wheel's spin concluded (issue 12; CONTRACT §5): its verdict (:mod:`.play`) as
the frozen :class:`~controller.games.roulette.wheel.SpinOutcome` the game journals, and the
:class:`~.aftermath.Aftermath` that watches what the wheel reports of it until the next
launch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import MappingProxyType

from controller.games.roulette.serial_wheel.aftermath import OUTSIDE_PLAY, Aftermath
from controller.games.roulette.serial_wheel.play import SerialSpin, Verdict
from controller.games.roulette.wheel import SpinOutcome
from controller.protocols.wheel_status import StatusLine


def conclude(spin: SerialSpin, t: float, number: str | None, final: bool,
             line: StatusLine | None, order: tuple[str, ...], min_ball_revolutions: int,
             names: dict[int, str], alarm: Callable[[str, str], None]
             ) -> tuple[SpinOutcome, Aftermath]:
    """The conclusion of ``spin`` at ``t`` on ``line`` (None: no line, a silence or a
    person's void), ``number`` the reading it concludes on (None: none): its outcome, held
    for the inspector unless a person declared it (``spin.declared``), and the watch over
    its aftermath (``alarm`` journals what contradicts it; ``names``: the wheel family's
    flag names). ``final``: the wheel ended the ball (a state-5 or a new game's line)."""
    text = None if line is None else line.text
    verdict = spin.judge(number, order, min_ball_revolutions, final, text)
    held = {} if spin.declared else verdict.held
    result = verdict.number
    evidence = verdict.evidence
    candidates = spin.candidates(order)
    if held:  # what the wheel's lines gave, each once
        evidence = replace(evidence, candidates=candidates)
    after = Aftermath(
        spin.number, _words(verdict, spin.declared, bool(held)), number,
        at_five=line is not None and line.state == 5,
        line="no line" if line is None else f"{line.text!r} at {t:.3f} s",
        game=spin.game if line is None else line.game,
        flags=spin.up if line is None else line.flags, alarm=alarm,
        on_ball=line is None or line.state not in OUTSIDE_PLAY, names=names)
    return SpinOutcome(
        spin=spin.number, t=t, number=result,
        index=None if result is None else order.index(result),
        reasons=verdict.reasons,
        rotor_direction=spin.rotor_direction,
        rotor_rpm=None if spin.rpm is None else round(spin.rpm, 3),
        evidence=evidence,
        held=MappingProxyType(held),
        candidate=candidates[0] if held and len(candidates) == 1 else None,
        declared=spin.declared,
    ), after


def _words(verdict: Verdict, declared: bool, held: bool) -> str:
    """A spin's conclusion in words, for the alarms about it."""
    if declared:
        return f"voided by a person ({verdict.reasons[0]})"
    if held:
        return "held for the inspector"
    if verdict.number is not None:
        return f"result {verdict.number}"
    return f"invalid ({', '.join(verdict.reasons)})"
