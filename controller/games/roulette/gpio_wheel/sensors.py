"""Wheel-sensor edges to activations, with each input's error budget (CONTRACT §5).

Sensors lie: a worn reed switch chatters, a dirty lens misses a pass, the kernel drops an
edge. :class:`EdgeFilter` turns the raw edges of one input into activations (the moments a
target reaches the sensor) and counts every correction it makes against that input:

- a rise closer to the input's last activation than physically possible (``min_lap_s`` for
  the ball track, ``min_rotor_period_s`` for the rotor and the pocket sensor) is chatter of
  the same pass: merged;
- the same level reported again at the same time (lgpio can repeat a level) is no edge;
- a rise while the input is already active means its fall was missed: still an activation;
- a fall while the input is already inactive means its rise was missed: for the ball-track
  sensors the fall marks the pass (a pass lasts milliseconds); for the rotor sensors it is a
  missed pass (the fall is 4° late, too far to decode a pocket from);
  ``ball_pocket`` keeps it as a reading at the release (the ball came to rest under it).

Corrections are counted per input from :meth:`EdgeFilter.reset` (the launch of a spin) on;
the spin is held for the inspector when an input's count passes the budget (Moonraker's GPIO
error budget is the model).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

BALL_TRACK = ("ball_a", "ball_b")


@dataclass(frozen=True)
class Correction:
    """A correction of one input's edges: ``input``, ``kind`` (``chatter``, ``missed_fall``,
    ``missed_rise``) and a sentence for the ``sensor_fault`` alarm."""

    input: str
    kind: str
    message: str


@dataclass
class EdgeFilter:
    """Activations of the wheel inputs from their raw edges.

    Args:
        min_lap_s: no ball lap is shorter (seconds): ball-track rises closer merge.
        min_rotor_period_s: no rotor revolution is shorter (seconds): rotor and pocket rises
            closer merge.
        budget: corrections allowed per input in one spin before its evidence is not trusted.
    """

    min_lap_s: float
    min_rotor_period_s: float
    budget: int
    levels: dict[str, int] = field(default_factory=dict)
    last_rise: dict[str, float] = field(default_factory=dict)
    last_edge: dict[str, float] = field(default_factory=dict)
    faults: Counter[str] = field(default_factory=Counter)
    _chattered: dict[str, float] = field(default_factory=dict)
    _alarmed: set[tuple[str, str]] = field(default_factory=set)

    def reset(self) -> None:
        """Start a new spin's count (its evidence is judged on its own faults)."""
        self.faults.clear()
        self._alarmed.clear()
        self._chattered.clear()

    def over_budget(self) -> dict[str, int]:
        """Inputs whose corrections in this spin exceed the budget, with their counts."""
        return {name: n for name, n in self.faults.items() if n > self.budget}

    def edge(self, name: str, t: float, level: int
             ) -> tuple[float | None, bool, Correction | None]:
        """One raw edge of ``name`` at ``t`` seconds, ``level`` 1 active.

        Returns ``(activation, orphan, correction)``: the activation time or None, whether
        it is a ``ball_pocket`` reading at a release (orphan), and the correction made
        (None when the edge was clean). The correction's alarm is due once per input and
        kind in a spin (:meth:`first`).
        """
        previous = self.levels.get(name, 0)
        if level == previous and round(self.last_edge.get(name, -1.0), 6) == round(t, 6):
            # lgpio may report a level twice at the same time (to the trace's microsecond):
            # no edge, no correction.
            return None, False, None
        self.levels[name] = level
        self.last_edge[name] = t
        if level == 0:
            if previous == 0:
                return self._missed_rise(name, t)
            return None, False, None
        correction = None
        if previous == 1:
            correction = self.count(name, "missed_fall",
                                     f"{name} rose at {t:.6f} s while already active: its "
                                     "fall was missed; the rise is still a pass")
        last = self.last_rise.get(name)
        if last is not None and t - last < (self.min_lap_s if name in BALL_TRACK
                                            else self.min_rotor_period_s):
            message = (f"{name} rose again {1000 * (t - last):.3f} ms after its last pass at "
                       f"{last:.6f} s, closer than physically possible: merged")
            if self._chattered.get(name) == last:  # one faulty pass counts once
                return None, False, Correction(name, "chatter", message)
            self._chattered[name] = last
            return None, False, self.count(name, "chatter", message)
        self.last_rise[name] = t
        return t, False, correction

    def _missed_rise(self, name: str, t: float) -> tuple[float | None, bool, Correction | None]:
        if name == "ball_pocket":
            self.last_rise[name] = t
            return t, True, self.count(name, "missed_rise",
                                        f"ball_pocket released at {t:.6f} s with no activation "
                                        "before it: the ball was read at the release (it came "
                                        "to rest under the sensor)")
        last = self.last_rise.get(name)
        if name in BALL_TRACK and (last is None or t - last >= self._min_interval(name)):
            self.last_rise[name] = t
            return t, False, self.count(name, "missed_rise",
                                         f"{name} fell at {t:.6f} s with no rise before it: "
                                         "its rise was missed; the fall marks the pass")
        return None, False, self.count(name, "missed_rise",
                                        f"{name} fell at {t:.6f} s with no rise before it: a "
                                        "missed pass")

    def _min_interval(self, name: str) -> float:
        return self.min_lap_s if name in BALL_TRACK else self.min_rotor_period_s

    def count(self, name: str, kind: str, message: str) -> Correction:
        """Count a correction of ``name`` against its budget (one the filter or the tracker
        made) and return it."""
        self.faults[name] += 1
        return Correction(name, kind, message)

    def first(self, correction: Correction) -> bool:
        """True the first time in this spin that ``correction``'s input and kind are seen."""
        key = (correction.input, correction.kind)
        if key in self._alarmed:
            return False
        self._alarmed.add(key)
        return True
