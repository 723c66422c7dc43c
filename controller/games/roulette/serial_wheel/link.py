"""The serial wheel's link: its silence, and the lines whose time is not known (issue 12;
hardware.md §2b).

A wheel repeats its status line about every half second, so a link with no valid line for
longer than ``[roulette] wheel_silence_s`` is a lost wheel (a cable out, a USB adapter gone,
the wheel off): ``wheel_disconnected``. Lines the codec cannot use (garbage, bad status
lines) are not the wheel talking. The silence is timed from the last valid line, or from
the table's first event when none came yet, on the controller loop's timer (the injected
clock), never on wall time: one timer at a time, re-armed when it falls due.

A line's arrival is the time of what it shows only at the wheel's pace. After a gap longer
than ``wheel_burst_gap_s`` (a stall of the adapter or the wheel, shorter than a silence or
not), the line that ends it showed a state reached at some moment of the gap, and the lines
delivered at once right after it (a backlog, each less than :data:`CATCH_UP_GAP_S` after the
one before) happened anywhere in it too: the link is *blind* over that gap until a line
comes at the wheel's pace again. The first line heard after the start, or after the port
came back, has no line before it to show its pace: it is blind too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from controller.core.contract import Schedule, TimerHandle

CATCH_UP_GAP_S = 0.2
"""Seconds between two lines that show the wheel's own pace again (it sends one about
every 0.5 s; a backlog delivers many within milliseconds)."""


class Gap(NamedTuple):
    """A stretch the link was blind over: no line heard from ``since`` (seconds; the last
    valid line, or the table's start) until ``until`` (the line that ended it); what the
    lines after it show happened at unknown times in between."""

    since: float
    until: float

    def words(self, burst_gap_s: float, when: str) -> str:
        """Why a spin the link was blind to ``when`` ("while the ball was in play") is
        held: what is not known of it (``burst_gap_s``: the gap the link tolerates)."""
        return (f"no line from the wheel from {self.since:.3f} s to {self.until:.3f} s "
                f"({self.until - self.since:.1f} s, more than wheel_burst_gap_s "
                f"{burst_gap_s:g} s) {when}, or its lines came at once after it: when the "
                "ball was launched, when the wheel called \"no va más\" and what it reported "
                f"in between are not known; a bet taken after {self.since:.3f} s may have "
                "come after \"no va más\"")


class Link:
    """Watches the wheel's link: its silence and its blind stretches.

    Args:
        silence_s: how long (seconds) the link may give no valid line (``wheel_silence_s``).
        gap_s: the longest gap between two lines at the wheel's pace (``wheel_burst_gap_s``,
            seconds, below ``silence_s``).
        schedule: the controller loop's timer (clock seconds).
        on_silent: called with the time the silence limit was reached.
    """

    def __init__(self, silence_s: float, gap_s: float, schedule: Schedule,
                 on_silent: Callable[[float], None]) -> None:
        self.silence_s = silence_s
        self.gap_s = gap_s
        self.schedule = schedule
        self.on_silent = on_silent
        self.last_t: float | None = None  # the last valid line, else the start: the timer's
        self.line_t: float | None = None  # the first byte of the last valid line heard
        self.silent_since: float | None = None  # the last line before the silence
        self.unusable = 0  # lines it could not use since the last valid one
        self.blind: Gap | None = None  # the gap the last line heard came after, if blind
        self._fresh = True  # no line heard since the start or the port came back
        self._timer: TimerHandle | None = None

    @property
    def silent(self) -> bool:
        """The link was silent past the limit and has not talked since."""
        return self.silent_since is not None

    def started(self, t: float) -> None:
        """The table's first event came at ``t``: the wheel must talk from then (a replay
        has no port that opens)."""
        if self.last_t is None:
            self._arm_from(t)

    def opened(self, t: float) -> None:
        """The port opened at ``t``: from now it must talk; its next line has no pace."""
        self._fresh = True
        if self.last_t is None or t > self.last_t:
            self._arm_from(t)

    def unused(self) -> None:
        """A line came that the codec or the tracker could not use (not the wheel talking)."""
        self.unusable += 1

    def heard(self, t: float, first: float | None = None) -> float | None:
        """A valid line came at ``t``, its first byte at ``first`` (default ``t``; earlier
        for a line split across reads). Returns how long the link had been silent when
        this line ends a silence (the caller journals it), else None. Afterwards
        :attr:`blind` says whether the line came out of the wheel's pace: gaps are
        measured between the first bytes of two lines (a line whose end came late was
        sent when its first byte came; one that follows a late end came late itself)."""
        start = t if first is None else first
        before = self.line_t
        if self._fresh or before is None or start - before > self.gap_s:
            since = before if before is not None else self.last_t
            self.blind = Gap(start if since is None else since, start)
        elif self.blind is not None and start - before >= CATCH_UP_GAP_S:
            self.blind = None  # at the wheel's pace again
        self._fresh = False
        ended: float | None = None
        if self.silent_since is not None:
            ended = t - self.silent_since
            self.silent_since = None
        self.line_t = start
        self.unusable = 0
        self._arm_from(t)
        return ended

    def _arm_from(self, t: float) -> None:
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
        self.on_silent(deadline)
