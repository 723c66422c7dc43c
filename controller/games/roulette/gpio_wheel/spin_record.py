"""What the GPIO wheel measured of one spin, and the evidence journaled with its verdict
(CONTRACT §1, §3, §5; seed 001 Art. 12 a, b: revolutions and the ball's direction).

Times are seconds on the controller's monotonic clock; periods and laps are seconds.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from controller.games.roulette.art12 import Finding, Uncertain
from controller.games.roulette.records import Measured
from controller.store.records import ABSENT


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
    margin_deg: float | None = None  # from the decoded position to the pocket's nearer edge
    error_deg: float | None = None  # the bound of its angle error, from the stamps' timing

    def as_record(self) -> dict[str, Any]:
        """``t``; ``index`` and ``number`` once decoded; ``orphan`` only when true (a
        journal of before issue 20 has all four, null and false when they say nothing);
        the angle error and the edge margin when known."""
        out: dict[str, Any] = {"t": round(self.t, 6)}
        if self.index is not None:
            out.update(index=self.index, number=self.number)
        if self.orphan:
            out["orphan"] = True
        if self.error_deg is not None:
            out["angle_error_deg"] = round(self.error_deg, 3)
        if self.margin_deg is not None:
            out["edge_margin_deg"] = round(self.margin_deg, 3)
        return out


@dataclass
class Spin:
    """Everything measured of one spin, from the launch to its conclusion.

    ``passes`` are the ball's passes at ``ball_a`` (with those recovered from ``ball_b``
    or from lap times, listed in ``recovered``); ``extra_max`` passes more may have been
    missed by both ball sensors. ``reasons`` are Art. 12 findings (reason -> detail);
    ``held`` says why the evidence is not certain (input or cause -> detail); ``faults``
    lists each input's corrections (CONTRACT §5).
    """

    number: int
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
    launch_rotor_direction: str | None = None
    second_ball: float | None = None  # a ball on the track after this one left it
    rotor_b_seen: int = 0  # rotor_b activations since the launch
    periods_without_b: list[float] = field(default_factory=list)  # rotor_a alone, in a row
    release: PocketReading | None = None  # the pocket under the ball at its launch
    release_deg: float = 0.0  # the angle of the sensor that saw the launch
    declared: bool = False
    concluded: bool = False
    concluded_t: float = 0.0  # when its verdict was reached (s)
    doubted: bool = False  # an edge from before its verdict came after it (alarmed once)

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
            first = bisect_right(bs, start)  # the passes strictly inside: bs[first:past]
            if bisect_left(bs, end, first) - first == 1:
                inside = bs[first]
                votes["cw" if inside - start < end - inside else "ccw"] += 1
        if votes["cw"] == votes["ccw"]:
            return None
        return "cw" if votes["cw"] > votes["ccw"] else "ccw"

    def add(self, finding: Finding | Uncertain | None) -> None:
        """Keep an Art. 12 finding (a reason) or why the evidence is uncertain (held); the
        first detail of each reason or input stands."""
        if isinstance(finding, Finding):
            self.reasons.setdefault(finding.reason, finding.detail)
        elif isinstance(finding, Uncertain):
            self.held.setdefault(finding.input, finding.detail)

    def evidence(self, reasons: tuple[str, ...], rotor_direction: str | None,
                 rotor_rpm: float | None) -> Measured:
        """The measurements behind the verdict, for the journal and recall (fresh copies:
        nothing of the tracker's state), with the details of ``reasons``."""
        release = self.release.index if self.release is not None else None
        return Measured(
            ball_revolutions=len(self.passes),
            ball_direction=self.ball_direction,
            rotor_direction=rotor_direction,
            rotor_rpm=rotor_rpm,
            launch_t=round(self.launch_t, 6),
            left_t=None if self.left_t is None else round(self.left_t, 6),
            lap_times=self.lap_times,
            rotor_periods=[round(p, 6) for p in self.rotor_periods],
            pocket_readings=[r.as_record() for r in self.readings],
            details={r: self.reasons[r] for r in reasons},
            release_index=ABSENT if release is None else release,
            ball_revolutions_max=(len(self.passes) + self.extra_max if self.extra_max
                                  else ABSENT),
            recovered_passes=[dict(r) for r in self.recovered] if self.recovered else ABSENT,
            sensor_faults=({name: len(msgs) for name, msgs in sorted(self.faults.items())}
                           if self.faults else ABSENT),
        )
