"""What a serial wheel last said, for ``tablectl sensors`` (issue 12; hardware.md §2b)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.protocols.wheel_status import STATES


@dataclass(frozen=True)
class WheelView:
    """What the wheel last said: a frozen snapshot the controller thread replaces whole,
    so the control socket's thread may read it at any time. Times in seconds."""

    line: str | None = None
    t: float | None = None
    state: int | None = None
    version: str | None = None
    silent_since: float | None = None
    bad_lines: int = 0
    unknown_lines: int = 0

    def shown(self, now: float) -> dict[str, Any]:
        """The last status line and its age at ``now``, its state in words, the link, the
        firmware's version and the lines the tracker could not use."""
        link = "no line yet" if self.t is None else "talking"
        if self.silent_since is not None:
            link = f"silent since {self.silent_since:.3f} s (wheel_disconnected)"
        return {
            "last_line": self.line,
            "age_s": None if self.t is None else round(now - self.t, 3),
            "state": None if self.state is None else f"{self.state} ({STATES[self.state]})",
            "link": link, "version": self.version, "bad_lines": self.bad_lines,
            "unknown_lines": self.unknown_lines}
