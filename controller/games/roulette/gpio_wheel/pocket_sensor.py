"""Whether ``ball_pocket`` still works, from what it read across spins (issue 16; CONTRACT
§1, §5; seed 001 Art. 12 c).

A ball that left the track and was never read in a pocket is, in one spin, the suspended
ball of Art. 12 (c). When it happens again and ``ball_pocket`` has not fired since the
earlier spin's launch, not even for the balls resting in their pockets between spins, the
sensor has failed: what the wheel does after the drop is no verdict, and the spin is held
naming ``ball_pocket`` (never voided as a wheel fault, never put on the rotor's sensors).

The first spin after it failed shows nothing of the sensor yet, but a rotor that slows or
stops once the ball left the track, before any reading, is no verdict either
(:func:`unread_at_rest`): the ball may rest unread in a pocket, the game decided.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.games.roulette.gpio_wheel.spin_record import Spin


@dataclass
class PocketSensor:
    """``fired``: the last ``ball_pocket`` activation (seconds), in or out of a spin;
    ``unread``: (spin number, launch time) of the earliest spin, since the sensor last
    fired, whose ball left the track unread."""

    fired: float | None = None
    unread: tuple[int, float] | None = None

    def activation(self, t: float) -> None:
        self.fired = t

    def concluded(self, spin: Spin) -> None:
        """Note a concluded spin: its ball left the track and nothing was read since its
        launch (a person's void proves nothing of the sensor)."""
        fired = self.fired
        silent = fired is None or fired < spin.launch_t
        if spin.left_t is None or spin.declared or not silent:
            return
        if self.unread is None or (fired is not None and fired >= self.unread[1]):
            self.unread = (spin.number, spin.launch_t)

    def failed(self, spin: Spin) -> bool:
        """True, noting the hold in ``spin.held``, when ``spin``'s ball left the track
        unread and the sensor has not fired since an earlier such spin's launch."""
        unread, fired = self.unread, self.fired
        if (spin.left_t is None or spin.readings or unread is None
                or (fired is not None and fired >= unread[1])):
            return False
        spin.held.setdefault("ball_pocket", f"ball_pocket has not fired since the launch of "
                             f"spin {unread[0]} at {unread[1]:.3f} s (no ball read in a "
                             "pocket since): the sensor has failed")
        return True


def unread_at_rest(spin: Spin, since: float | None, finding: str) -> bool:
    """True, noting the hold in ``spin.held``, when the rotor's Art. 12 (f)/(g) ``finding``
    (in words) came from a rotor still turning at ``since`` (s), after ``spin``'s ball left
    the track, and no ``ball_pocket`` reading came: the ball may rest in a pocket that a
    failed ``ball_pocket`` never read, so the wheel's slowing is no verdict (issue 16,
    item 7; CONTRACT §5). A rotor that slowed while the ball ran is (f)/(g) as ever."""
    left = spin.left_t
    if left is None or spin.readings or since is None or since < left:
        return False
    spin.held.setdefault("ball_pocket", f"{finding}, after the ball left the track at "
                         f"{left:.3f} s and before ball_pocket read it in a pocket: it "
                         "may rest there unread (ball_pocket failed); the inspector decides")
    return True
