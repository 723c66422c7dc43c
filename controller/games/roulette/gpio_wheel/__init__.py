"""The GPIO wheel: the first implementation of the wheel tracker (CONTRACT §1, §5; seed 001
Art. 12), from the raw edges of the five wheel sensors.

Its modules, one job each:
- ``tracker``: :class:`GpioWheelTracker`, the tracker itself (launch, drop, verdicts,
  conclusion); the Art. 12 verdicts are :mod:`controller.games.roulette.art12`'s.
- ``sensors``: raw edges to activations, with each input's error budget (CONTRACT §5).
- ``rotor``: the rotor's period, speed and direction (Art. 12 f, g).
- ``ball_track``: the ball's passes and the ones a sensor missed (Art. 12 a).
- ``pockets``: pocket readings decoded and confirmed (CONTRACT §1 "Winning pocket").
- ``readings``: the tracker's part that keeps the readings and tells a second ball.
- ``timing``: each reading's angle error bound, from the spread its stamps show.
- ``pocket_sensor``: whether ``ball_pocket`` still works, across spins.
- ``suspended_wait``: the wait of Art. 12 (c) in real rotor revolutions.
- ``spin_record``: what one spin measured, and its evidence for the journal.
"""

from controller.games.roulette.gpio_wheel.tracker import GpioWheelTracker

__all__ = ["GpioWheelTracker"]
