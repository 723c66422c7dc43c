"""Injected clocks: the same controller code runs on wall time, scaled time or trace time."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """What the controller needs of a clock: ``now()`` in seconds, and how many wall
    seconds a span of its seconds takes (``to_wall``: 0 for trace time)."""

    def now(self) -> float: ...

    def to_wall(self, seconds: float) -> float: ...


class WallClock:
    """Wall time in seconds since the epoch (the daemon)."""

    def now(self) -> float:
        return time.time()

    def to_wall(self, seconds: float) -> float:
        """Wall seconds that ``seconds`` of this clock take (1:1)."""
        return seconds


class ScaledClock:
    """Trace time that runs ``speed`` times faster than wall time (``replay --realtime``).

    ``now()`` starts at ``origin`` (seconds of trace time) when the clock is made, so every
    threshold in seconds means the same at any speed (CONTRACT §3).

    Raises:
        ValueError: ``speed`` is not positive.
    """

    def __init__(self, speed: float = 1.0, origin: float = 0.0) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = speed
        self.origin = origin
        self._start = time.monotonic()

    def now(self) -> float:
        return self.origin + (time.monotonic() - self._start) * self.speed

    def restart(self) -> None:
        """Set the clock back to ``origin`` now (once the drivers are ready to play)."""
        self._start = time.monotonic()

    def to_wall(self, seconds: float) -> float:
        """Wall seconds that ``seconds`` of this clock take."""
        return seconds / self.speed


class VirtualClock:
    """Trace time set by the event loop: the time of the event or timer being handled."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def set(self, t: float) -> None:
        """Move the clock to ``t`` seconds; it never goes backwards."""
        if t > self._now:
            self._now = t

    def to_wall(self, seconds: float) -> float:
        return 0.0
