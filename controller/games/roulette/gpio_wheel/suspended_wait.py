"""The wait of seed 001 Art. 12 (c), counted in real rotor revolutions (CONTRACT §1).

"Se debera esperar como minimo 6 revoluciones para anunciar que el tiro no es valido": the
revolutions count from the moment the ball left the track (RULES.md decision), each one by
its own period, so the moment the 6th ends is placed within the revolution it falls in. A
ball first read within the wait and confirmed is a result, never declared suspended
earlier (the verdict is :func:`controller.games.roulette.art12.ball_suspended`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.games.roulette.gpio_wheel.rotor import Revolution


@dataclass
class SuspendedWait:
    """Rotor revolutions since the ball left the track at ``left_t`` seconds.

    Args:
        left_t: when the ball left the track (seconds).
        start: the ``rotor_a`` activation before it (the revolution the wait starts in), or
            None when the rotor was not followed then (the next revolution's start is used).
        revolutions: the wait, ``suspended_wait_rotor_revolutions`` (at least the seed's 6).

    ``deadline`` is when the wait ends (seconds), once the revolution it ends in is closed;
    ``after_deadline`` counts the revolutions closed after that one.
    """

    left_t: float
    start: float | None
    revolutions: float
    ends: list[float] = field(default_factory=list)
    fraction: float = 0.0
    deadline: float | None = None
    after_deadline: int = 0

    def count(self, rev: Revolution, rotor_period: float | None) -> bool:
        """Count the rotor revolution ``rev``, closed after the ball left the track
        (``rotor_period``: the rotor's period now, seconds; a revolution of several periods
        had ``rotor_a`` passes missed, and counts them). True when the wait ends in it:
        ``deadline`` is set then."""
        if self.start is None:
            self.start = rev.start
        ends = self.ends
        turns = max(1, round(rev.period / rotor_period)) if rotor_period else 1
        for k in range(1, turns + 1):
            ends.append(rev.start + (rev.end - rev.start) * k / turns)
        if len(ends) == turns:
            # The first revolution: how far into it the ball left.
            span = ends[0] - self.start
            self.fraction = min(max((self.left_t - self.start) / span, 0.0), 1.0)
        if self.deadline is not None:
            self.after_deadline += 1
            return False
        if len(ends) - self.fraction < self.revolutions:
            return False
        start = ends[-2] if len(ends) > 1 else self.start
        into = self.revolutions - (len(ends) - 1 - self.fraction)
        self.deadline = start + into * (ends[-1] - start)
        return True
