"""What a serial wheel reports of a spin after its conclusion, until the next launch (issue
12; CONTRACT §5; hardware.md §2b).

A spin is concluded at its state-5 line (the first after a bare number line, else the
second) and journaled at once; nothing the wheel says later changes that record, and
nothing it says is dropped in silence either: what contradicts the conclusion is a
``wheel_contradiction`` alarm naming the spin, its verdict and what the wheel said, for
the inspector to act on. Against that state-5 line (``NN``, ``GGG``, ``W``), until the
next launch:

- while the wheel still shows that ball (until a state outside play, 1, 2, 6 or 7): state
  3 or 4 again (no new game started), another state-5 number or game counter, a warning
  flag raised, a bare number line that differs;
- once the next game began: ``NN`` (the previous number in states 1-4) not blank and not
  the spin's, a bare number that differs.

A spin concluded before its state 5 (held by a silence, cut by an impossible transition,
voided by a person) has no number of its own: the number its ball gives afterwards is a
``wheel_after_conclusion`` alarm, for the inspector deciding it. Each alarm once per kind
and value (a contradicting line repeated every half second is one alarm).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controller.protocols.wheel_status import FLAG_NAMES, STATES, NumberLine, StatusLine

OUTSIDE_PLAY = (1, 2, 6, 7)
"""The wheel's states with no ball in play."""


@dataclass
class Aftermath:
    """A concluded spin's reports until the next launch.

    Args:
        spin: the spin's number.
        verdict: the spin's conclusion in words ("result 17", "invalid (same_direction)",
            "held for the inspector", "voided by the dealer").
        number: its concluding state-5 lines' ``NN`` (None: concluded before a state 5, or the
            state-5 line gave no number).
        at_five: concluded at a state-5 line.
        line: that line (or the one that concluded it), with its time, in words.
        game: the wheel's game counter of that line.
        flags: its warning flags.
        alarm: journals an alarm (code, message).
    """

    spin: int
    verdict: str
    number: str | None
    at_five: bool
    line: str
    game: int
    flags: int
    alarm: Callable[[str, str], None]
    on_ball: bool = True  # the wheel has shown no state outside play since
    names: dict[int, str] = field(default_factory=lambda: dict(FLAG_NAMES))  # the model's
    _told: set[tuple[str, str]] = field(default_factory=set)

    def status(self, t: float, line: StatusLine) -> None:
        """A status line with no spin in play (the launch line of the next ball included)."""
        where = f"{line.text!r} at {t:.3f} s"
        if line.state in OUTSIDE_PLAY:
            self.on_ball = False
        if not self.at_five:
            if self.on_ball and line.state == 5 and line.number is not None:
                self._late(line.number, where)
            return
        if not self.on_ball:
            if line.number is not None and line.number != self.number:
                self._contradicts("number", line.number, where, f"{line.number} as the last "
                                  "winning number (NN)")
            return
        if line.state in (3, 4):
            self._contradicts("state", str(line.state), where, f"state {line.state} "
                              f"({STATES[line.state]}) after its state 5, with no new game "
                              "(state 1 or 2) between")
        elif line.number != self.number:
            self._contradicts("number", str(line.number), where, "another winning number, "
                              f"{line.number or 'blank'}")
        if line.game != self.game:
            self._contradicts("game", str(line.game), where, f"another game counter, "
                              f"{line.game:03d}")
        raised = line.flags & ~self.flags
        self.flags = line.flags
        for flag in sorted(FLAG_NAMES):
            if raised & flag:
                self._contradicts("flag", str(flag), where, f"warning flag {flag} "
                                  f"({self.names[flag]}) raised")

    def number_line(self, t: float, line: NumberLine) -> None:
        """A bare number line with no spin in play."""
        where = f"{line.text!r} at {t:.3f} s"
        if not self.at_five:
            if self.on_ball:
                self._late(line.number, where)
        elif line.number != self.number:
            self._contradicts("number", line.number, where, f"the bare number {line.number}")

    def _contradicts(self, kind: str, value: str, where: str, what: str) -> None:
        if (kind, value) in self._told:
            return
        self._told.add((kind, value))
        self.alarm("wheel_contradiction", f"after spin {self.spin} was concluded at its "
                   f"state-5 line ({self.line}: {self.verdict}), the wheel reported {what} "
                   f"({where}): spin {self.spin} stands as journaled; the inspector decides")

    def _late(self, number: str, where: str) -> None:
        if ("number", number) in self._told:
            return
        self._told.add(("number", number))
        self.alarm("wheel_after_conclusion", f"the wheel gave {number} ({where}) for the ball "
                   f"of spin {self.spin}, concluded before its state 5 ({self.line}: "
                   f"{self.verdict}): not acted on; for the inspector")
