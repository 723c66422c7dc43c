"""The wheel's data source behind one seam (seed 001 Art. 12; CONTRACT §1, §5).

A *wheel tracker* turns what a wheel sends into concluded spins; the roulette game
(:mod:`controller.games.roulette.game`) only talks to it through :class:`WheelTracker`, and
hears back through :class:`WheelListener`:

- the game feeds it every raw GPIO edge of the inputs it reads (``inputs``), the serial data
  and port status of the table's ports, and a dealer's void;
- the tracker tells the game when a ball is launched (the game starts the spin, or refuses
  it), when the wheel calls "no va más" by itself, each spin's conclusion as one frozen
  :class:`SpinOutcome`, and its alarms (sensor faults, edges nobody expects).

Every Art. 12 verdict a tracker gives comes from :mod:`controller.games.roulette.art12`.
Implementations, chosen in :func:`make_tracker` by ``[roulette] wheel_source``:
:class:`controller.games.roulette.gpio_wheel.GpioWheelTracker` (the five sensors of CONTRACT
§1, raw edges) and :class:`controller.games.roulette.serial_wheel.SerialWheelTracker` (an
automated wheel's status lines on the serial port ``wheel``, issue 12).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from controller.core.events import PortStatus, SerialData
from controller.games.roulette.records import Measured

if TYPE_CHECKING:
    from controller.core.config import SerialConfig
    from controller.core.contract import Schedule
    from controller.games.roulette.config import RouletteConfig

_NOTHING: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class SpinOutcome:
    """A concluded spin, whatever the wheel that measured it; nothing in it changes later.

    Attributes:
        spin: the spin's number (the game's, given at the launch).
        t: when it was concluded, seconds on the controller clock.
        number: the winning pocket ("0".."36", "00") of a result, else None.
        index: that pocket's index in the wheel order, else None.
        reasons: the Art. 12 reasons of an invalid spin, in CONTRACT §1 order (the first
            is the record's ``reason``); empty for a result or a held spin.
        rotor_direction: "cw", "ccw" or None (not measured).
        rotor_rpm: the rotor's last measured speed (rpm), or None.
        evidence: the measurements behind the verdict, as journaled with it (ball
            revolutions and direction, laps, rotor periods, pocket readings, ``details``:
            reason -> what was measured), computed at the conclusion.
        held: why the evidence is not certain (input or cause -> why) for a spin held
            for the inspector (CONTRACT §5); empty otherwise.
        candidate: for a held spin, the number the evidence points to, if any.
        declared: a person (dealer or inspector) voided it; no evidence was waited for.
    """

    spin: int
    t: float
    number: str | None
    index: int | None
    reasons: tuple[str, ...]
    rotor_direction: str | None
    rotor_rpm: float | None
    evidence: Measured
    held: Mapping[str, str] = field(default_factory=lambda: _NOTHING)
    candidate: str | None = None
    declared: bool = False


class WheelListener(Protocol):
    """What a wheel tracker tells the game (on the controller thread)."""

    def ball_launched(self, t: float, seen: str) -> int | None:
        """A ball was launched at ``t`` seconds (``seen`` says by what, e.g. "ball_a at
        3.306 s"). Returns the new spin's number once it is journaled (``spin_start``), or
        None when the table takes no spin now (the listener journals why)."""

    def auto_no_more_bets(self, sent: float | None) -> str | None:
        """The wheel calls "no va más" itself (the ball slows down past
        ``auto_no_more_bets_lap_s``; an automated wheel's own state, whose line began
        arriving at ``sent`` seconds). Returns why a bet taken after ``sent`` makes the
        spin uncertain, if one was, else None."""

    def wheel_bets_open(self, t: float, seen: str) -> None:
        """An automated wheel shows a new game's bets open (its state 2) at ``t``; the
        listener opens bets when ``bets_follow_wheel`` lets it (issue 16)."""

    def spin_concluded(self, outcome: SpinOutcome) -> None:
        """The spin is concluded: a result, an invalid spin or a held one; once per spin."""

    def alarm(self, code: str, message: str) -> None:
        """Journal an ``alarm`` (a sensor fault, an edge nobody expects)."""


class WheelTracker(Protocol):
    """What the game feeds a wheel tracker, and asks it (on the controller thread only).

    ``inputs`` are the GPIO inputs it reads raw (the config must wire them); ``ports`` the
    serial ports it reads.
    """

    inputs: tuple[str, ...]
    ports: tuple[str, ...]

    def started(self, t: float) -> None:
        """The table's first event came at ``t`` seconds (a serial wheel must talk from
        then: its silence is timed from it)."""

    def resumed(self, ball_may_run: bool) -> None:
        """The table restarted from its journal; ``ball_may_run``: a spin was in play (or
        bets were closed for one) when it stopped, so its ball may still run."""

    def edge(self, t: float, name: str, level: int) -> None:
        """A raw edge of one of ``inputs`` (journaled already): ``name`` to ``level`` (1
        active) at ``t`` seconds."""

    def serial(self, data: SerialData) -> None:
        """Bytes from a serial port (journaled already)."""

    def port_status(self, status: PortStatus) -> None:
        """A serial port went away or came back."""

    def void(self, t: float, reason: str) -> None:
        """A dealer or inspector voids the spin in play at ``t`` with an Art. 12 reason of
        ``art12.DEALER_REASONS`` (d-g); the tracker concludes it at once. Only called while
        :attr:`in_play`."""

    @property
    def in_play(self) -> bool:
        """A spin is launched and not concluded yet."""

    @property
    def busy(self) -> str | None:
        """Why the wheel cannot take a new spin now, in words (e.g. "the ball of spin 4 is
        still on the track"), or None when it can."""

    @property
    def closed_to_bets(self) -> str | None:
        """Why no bet may be taken now whatever the table's state, in words (a serial
        wheel shows a ball in play that is no spin of the table's), or None."""

    def sensors(self, now: float) -> dict[str, Any]:
        """What the wheel itself last reported, by port, for ``tablectl sensors`` (a serial
        wheel's last status line and its age in seconds at ``now``); {} when it reports
        nothing besides the GPIO levels. Safe to call from any thread."""


def make_tracker(cfg: RouletteConfig, order: tuple[str, ...], schedule: Schedule,
                 listener: WheelListener, ports: Mapping[str, SerialConfig] | None = None
                 ) -> WheelTracker:
    """The wheel tracker of a table: the one place the wheel's data source is chosen, by
    ``cfg.wheel_source`` ("gpio" or "serial", issue 12).

    Args:
        cfg: the ``[roulette]`` section (thresholds in seconds, rpm, revolutions).
        order: the wheel's pockets clockwise from 0 (index 0 is pocket 0).
        schedule: the controller loop's timer (clock seconds).
        listener: the game, told of launches, conclusions and alarms.
        ports: the config's serial ports; a serial wheel's codec is ``[serial.wheel]
            codec`` (the status-line codec when the port is not named: a replay).

    Raises:
        ValueError: the wheel port's codec is unknown (the config's loader checks it).
    """
    if cfg.wheel_source == "serial":
        from controller.games.roulette.config import WHEEL_CODECS, WHEEL_PORT
        from controller.games.roulette.serial_wheel import SerialWheelTracker

        port = (ports or {}).get(WHEEL_PORT)
        return SerialWheelTracker(cfg, order, schedule, listener,
                                  port.codec if port is not None else WHEEL_CODECS[0])
    from controller.games.roulette.gpio_wheel import GpioWheelTracker

    return GpioWheelTracker(cfg, order, schedule, listener)
