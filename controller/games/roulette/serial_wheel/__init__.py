"""The serial wheel: the second implementation of the wheel tracker (issue 12; seed 001
Art. 12; CONTRACT §1, §5), from an automated wheel's status lines on the port ``wheel``.

Its modules, one job each:
- ``tracker``: :class:`SerialWheelTracker`, the tracker itself (launches, the wheel's "no
  va más", conclusions, impossible transitions, bad lines, the sensors view).
- ``play``: what the wheel reported of one spin, and its Art. 12 verdict
  (:mod:`controller.games.roulette.art12`).
- ``aftermath``: what the wheel reports of a concluded spin until the next launch (what
  contradicts it is an alarm naming it).
- ``view``: what the wheel last said, for ``tablectl sensors``.
- ``link``: the link's silence (``wheel_disconnected``) and its gaps (the lines whose time
  is not known).

The wire format is :mod:`controller.protocols.wheel_status`'s; hardware.md §2b maps its
states and flags to records and reasons.
"""

from controller.games.roulette.serial_wheel.tracker import SerialWheelTracker

__all__ = ["SerialWheelTracker"]
