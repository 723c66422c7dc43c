"""The serial wheel's link: silence, and the catch-up after it (issue 12).

A wheel repeats its status line about every half second, so a link silent for longer than
``[roulette] wheel_silence_s`` is a lost wheel (a cable out, a USB adapter gone, the wheel
off): ``wheel_disconnected``. The silence is watched on the controller loop's timer (the
injected clock), never on wall time: one timer at a time, re-armed from the last line heard
when it falls due.

When the link talks again, the first lines may be what it held back (a burst, read at
once): until a line comes at least :data:`CATCH_UP_GAP_S` after the one before, at the
wheel's own pace, the link is *catching up*, and what those lines show happened at an
unknown time (a ball launched in them is not a launch seen as it happened).
"""

from __future__ import annotations

from collections.abc import Callable

from controller.games.base import Schedule, TimerHandle

CATCH_UP_GAP_S = 0.2
"""Seconds between two lines that show the wheel's own pace again (it sends one about
every 0.5 s; a burst delivers many within milliseconds)."""


class Link:
    """Watches the wheel's link for silence.

    Args:
        silence_s: how long (seconds) the link may be silent (``wheel_silence_s``).
        schedule: the controller loop's timer (clock seconds).
        on_silent: called with the time the silence limit was reached.
    """

    def __init__(self, silence_s: float, schedule: Schedule,
                 on_silent: Callable[[float], None]) -> None:
        self.silence_s = silence_s
        self.schedule = schedule
        self.on_silent = on_silent
        self.last_t: float | None = None
        self.silent_since: float | None = None  # the last line before the silence
        self.catching_up = False
        self._timer: TimerHandle | None = None

    @property
    def silent(self) -> bool:
        """The link was silent past the limit and has not talked since."""
        return self.silent_since is not None

    def opened(self, t: float) -> None:
        """The port opened at ``t``: from now it must talk."""
        if self.last_t is None or t > self.last_t:
            self._heard_at(t)

    def heard(self, t: float) -> float | None:
        """A line came at ``t``. Returns how long the link had been silent when this line
        ends a silence (the caller journals it), else None."""
        if self.catching_up and self.last_t is not None and t - self.last_t >= CATCH_UP_GAP_S:
            self.catching_up = False
        ended: float | None = None
        if self.silent_since is not None:
            ended = t - self.silent_since
            self.silent_since = None
            self.catching_up = True
        self._heard_at(t)
        return ended

    def _heard_at(self, t: float) -> None:
        self.last_t = t
        if self._timer is None:
            self._arm(t + self.silence_s)

    def _arm(self, deadline: float) -> None:
        self._timer = self.schedule(deadline, lambda: self._due(deadline))

    def _due(self, deadline: float) -> None:
        self._timer = None
        last = self.last_t
        assert last is not None
        if last + self.silence_s > deadline:
            self._arm(last + self.silence_s)  # heard since it was armed
            return
        self.silent_since = last
        self.catching_up = False
        self.on_silent(deadline)
