"""Injected clocks: the same controller code runs on the system's clocks, scaled time or trace time.

Every interval (a lap, a rotor period, a timeout) is measured on ``now()``, a clock that never
jumps: a Raspberry Pi has no real-time clock and NTP steps its wall clock at boot and after a
network outage. Records are stamped with ``wall()``; the table journals a step of it
(``clock_step``).
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """What the controller needs of a clock: ``now()`` in seconds for intervals and timers
    (monotonic), ``wall()`` in seconds since the epoch for record stamps, and how many real
    seconds a span of its seconds takes (``to_wall``: 0 for trace time)."""

    def now(self) -> float: ...

    def wall(self) -> float: ...

    def to_wall(self, seconds: float) -> float: ...


class SystemClock:
    """The daemon's clock: ``now()`` is ``time.monotonic()`` (gpiozero's ticks and pyserial's
    reads share it), ``wall()`` is ``time.time()``."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def to_wall(self, seconds: float) -> float:
        """Real seconds that ``seconds`` of this clock take (1:1)."""
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

    def wall(self) -> float:
        """The simulation's own time line stamps its records (it runs ahead of real time)."""
        return self.now()

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

    def wall(self) -> float:
        """Trace time stamps the records too: a replay is deterministic."""
        return self._now

    def set(self, t: float) -> None:
        """Move the clock to ``t`` seconds; it never goes backwards."""
        if t > self._now:
            self._now = t

    def to_wall(self, seconds: float) -> float:
        return 0.0

