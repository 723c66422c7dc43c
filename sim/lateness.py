"""How late a player drove a trace's stimulus (issue 16): ``replay --realtime`` and the
rig player.

A player sleeps until each event's time and then drives it (a mock pin, a wired line). On
a loaded machine it wakes late, and what the controller then measures is not the trace:
a pocket 2 ms late at 10 times the speed is a neighbouring pocket. The player measures,
after each GPIO edge, how far behind the trace it was, in trace seconds (shoe and wheel
bytes carry no time a verdict is measured from); past ``bound_s`` the run is not a
comparison with the trace's truth: the player says so (one line, a ``player_late`` alarm
where it can journal one) and exits ``EXIT_LATE``.
"""

from __future__ import annotations

from dataclasses import dataclass

BOUND_S = 0.005  # trace seconds: under a fifth of a pocket at a 1 s turn (27 ms a pocket)
EXIT_LATE = 5  # the player fell behind the trace past the bound


@dataclass
class Lateness:
    """The worst lateness (trace seconds) of the edges one run played."""

    bound_s: float = BOUND_S
    worst_s: float = 0.0
    due: float | None = None  # the worst one's trace time
    what: str = ""
    count: int = 0

    def record(self, what: str, due: float, late_s: float) -> None:
        """``what`` (e.g. "ball_a edge"), due at ``due`` trace seconds, was driven
        ``late_s`` trace seconds after it."""
        self.count += 1
        if late_s > self.worst_s or self.due is None:
            self.worst_s, self.due, self.what = max(late_s, 0.0), due, what

    @property
    def over(self) -> bool:
        return self.worst_s > self.bound_s

    def alarm(self) -> str:
        """The ``player_late`` alarm's message (one line)."""
        return (f"the player drove {self.what} due at {self.due or 0.0:.6f} s "
                f"{1000 * self.worst_s:.3f} ms of trace time late (bound "
                f"{1000 * self.bound_s:g} ms): this run is not a comparison with the trace")

    def line(self) -> str:
        """The lateness lines a player prints at the end (three, under 80 columns)."""
        if self.due is None:
            return "player: no GPIO edge to drive; lateness 0 ms"
        verdict = "over the bound: not a comparison with the trace" if self.over else (
            "within the bound")
        return (f"player: worst lateness {1000 * self.worst_s:.3f} ms of trace time\n"
                f"player: the {self.what} due at {self.due:.6f} s; {self.count} edges "
                f"driven\nplayer: bound {1000 * self.bound_s:g} ms: {verdict}")
