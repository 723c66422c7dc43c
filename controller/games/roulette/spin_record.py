"""What one spin measured, and its outcome (CONTRACT §1, §3, §5).

Times are seconds on the controller's monotonic clock; periods and laps are seconds.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

# CONTRACT §1 order: the first applicable is `reason`, all are listed in `reasons`.
REASONS = (
    "too_few_revolutions",
    "same_direction",
    "ball_suspended",
    "ball_out_of_wheel",
    "foreign_object",
    "wheel_malfunction",
    "wheel_stopped",
)
DEALER_REASONS = ("ball_out_of_wheel", "foreign_object", "wheel_malfunction", "wheel_stopped")
_LAP_JITTER = 0.02  # a lap may look this much shorter than the one before (sensor timing)


def lap_count_range(gap: float, last_lap: float, growth: float) -> tuple[int, int]:
    """How many laps a gap of ``gap`` seconds between two passes can hold, after a lap of
    ``last_lap`` seconds: (fewest, most). A decelerating ball never laps faster than before
    (most = gap / last_lap), and a lap is at most ``growth`` × the one before (fewest)."""
    most = max(1, int(gap / last_lap * (1 + _LAP_JITTER)))
    fewest, total, lap = 0, 0.0, last_lap
    while total < gap * (1 - _LAP_JITTER) and fewest < most:
        lap *= growth
        total += lap
        fewest += 1
    return max(1, fewest), most


@dataclass
class PocketReading:
    """One pass of the resting ball under ``ball_pocket`` at ``t`` seconds.

    ``index`` is the decoded pocket (wheel order index) once its whole rotor revolution,
    of ``period`` seconds, is complete, at ``fraction`` of it; ``trend`` is how much longer
    (seconds) that revolution was than the one before, when the rotor turned freely;
    ``orphan`` marks a release seen without its activation (its time is the release's).
    """

    t: float
    orphan: bool = False
    index: int | None = None
    number: str | None = None
    period: float | None = None
    fraction: float = 0.0
    trend: float | None = None

    def as_record(self) -> dict[str, Any]:
        return {"t": round(self.t, 6), "index": self.index, "number": self.number,
                "orphan": self.orphan}


@dataclass
class Spin:
    """Everything measured of one spin, from the launch to its conclusion.

    ``passes`` are the ball's passes at ``ball_a`` (with those recovered from ``ball_b``
    or from lap times, listed in ``recovered``); ``extra_max`` passes more may have been
    missed by both ball sensors. ``reasons`` are Art. 12 findings (reason -> detail);
    ``held`` says why the evidence is not certain (input or cause -> detail); ``faults``
    lists each input's corrections (CONTRACT §5).
    """

    spin: int
    launch_t: float
    passes: list[float] = field(default_factory=list)
    ball_b: list[float] = field(default_factory=list)
    recovered: list[dict[str, Any]] = field(default_factory=list)
    extra_max: int = 0
    tentative: float | None = None  # a last pass recovered from ball_b alone, counterclockwise
    left_t: float | None = None
    track_judged: bool = False
    pending_direction: bool = False
    rotor_periods: list[float] = field(default_factory=list)
    rotor_dirs: dict[str, int] = field(default_factory=lambda: {"cw": 0, "ccw": 0})
    readings: list[PocketReading] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)
    faults: dict[str, list[str]] = field(default_factory=dict)
    suspended_deadline: float | None = None
    launch_rotor_direction: str | None = None
    declared: bool = False
    concluded: bool = False

    @property
    def lap_times(self) -> list[float]:
        a = self.passes
        return [round(a[i + 1] - a[i], 6) for i in range(len(a) - 1)]

    @property
    def ball_direction(self) -> str | None:
        """CONTRACT §1: ``ball_b`` within the first half of a lap after ``ball_a`` is
        clockwise, within the last half counterclockwise; the majority of the laps with
        one ``ball_b`` pass in them. None on a tie or with no such lap."""
        votes = {"cw": 0, "ccw": 0}
        bs = sorted(self.ball_b)
        passes = sorted(self.passes)
        for start, end in itertools.pairwise(passes):
            inside = [b for b in bs if start < b < end]
            if len(inside) == 1:
                votes["cw" if inside[0] - start < end - inside[0] else "ccw"] += 1
        if votes["cw"] == votes["ccw"]:
            return None
        return "cw" if votes["cw"] > votes["ccw"] else "ccw"

    def add_reason(self, reason: str, detail: str) -> None:
        self.reasons.setdefault(reason, detail)


@dataclass(frozen=True)
class SpinOutcome:
    """A concluded spin: ``number`` is set for a result, ``reasons`` for an invalid spin,
    ``held`` (why, per input or cause) for a spin held for the inspector, with the
    ``candidate`` number the evidence pointed to, if any."""

    spin: Spin
    t: float
    number: str | None
    index: int | None
    reasons: list[str]
    rotor_direction: str | None
    rotor_rpm: float | None
    held: dict[str, str] = field(default_factory=dict)
    candidate: str | None = None

    def evidence(self) -> dict[str, Any]:
        """The measurements behind the outcome, for the journal and recall."""
        s = self.spin
        out: dict[str, Any] = {
            "ball_revolutions": len(s.passes),
            "ball_direction": s.ball_direction,
            "rotor_direction": self.rotor_direction,
            "rotor_rpm": self.rotor_rpm,
            "launch_t": round(s.launch_t, 6),
            "left_t": None if s.left_t is None else round(s.left_t, 6),
            "lap_times": s.lap_times,
            "rotor_periods": [round(p, 6) for p in s.rotor_periods],
            "pocket_readings": [r.as_record() for r in s.readings],
            "details": {r: s.reasons[r] for r in self.reasons},
        }
        if s.extra_max:
            out["ball_revolutions_max"] = len(s.passes) + s.extra_max
        if s.recovered:
            out["recovered_passes"] = s.recovered
        if s.faults:
            out["sensor_faults"] = {name: len(msgs) for name, msgs in sorted(s.faults.items())}
        return out
