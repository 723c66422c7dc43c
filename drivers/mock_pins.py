"""gpiozero's mock pins, driven at the edge's own time (the simulators' pins).

A real line's edge is stamped by the kernel when it happens (lgpio's edge events carry
that time), however late the process that reads it gets the CPU. gpiozero's
:class:`~gpiozero.pins.mock.MockPin` stamps an edge when it is driven: a simulator that
woke a few milliseconds late on a loaded machine drives an edge that many milliseconds
late, 50 times more of the table's time at 50 times the speed, and the spin's stamps
no longer agree with the rotor's geometry (the spin is held: its evidence is not
certain). :class:`StampedMockPin` is a ``MockPin`` that can also be driven with the tick
the edge was due at, as the kernel would have stamped it.
"""

from __future__ import annotations

from gpiozero.pins.mock import MockPin


class StampedMockPin(MockPin):
    """A mock input pin whose edges may carry a given tick (:meth:`drive_at`); otherwise
    exactly gpiozero's ``MockPin``."""

    _due: float | None = None

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if changed and self._due is not None:
            # MockPin hands ``_last_change`` to the callback as the edge's ticks.
            self._last_change = self._due
        return changed

    def drive_at(self, high: bool, ticks: float) -> None:
        """Drive the pin high or low, the edge stamped ``ticks`` (the factory's
        ``ticks()``: monotonic seconds), as a line's edge is stamped when it happens."""
        self._due = ticks
        try:
            if high:
                self.drive_high()
            else:
                self.drive_low()
        finally:
            self._due = None
