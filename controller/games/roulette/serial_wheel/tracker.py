"""The serial wheel tracker: spins from an automated wheel's status lines (issue 12; seed 001
Art. 12; CONTRACT §1, §5).

:class:`SerialWheelTracker` is fed the bytes of the port ``wheel`` (journaled already), on
the controller thread; the codec (``[serial.wheel] codec``, :mod:`controller.protocols.
wheel_status`) turns them into lines. The wheel repeats its status line about every half
second: the tracker acts on changes only.

- A **launch** is a state-3 line after a line outside play (states 1, 2, 6, 7): the game
  starts a spin, or refuses it (it journals why). The wheel's state 4 is its own "no va
  más" (the game closes bets). The spin's **result** is its first state-5 line with no
  warning during play, and its number that line's ``NN`` (:mod:`.play` gives the verdict).
- Wheels were seen to repeat states, send ``NN`` as the previous number until state 5, send
  the bare number just before state 5 (a check: a different number holds the spin),
  interleave command answers, keep a fault flag up for thousands of idle lines, show state
  5 as one line and fall silent. A warning outside play (a failed launch before the wheel
  relaunches) is an ``alarm`` (``wheel_warning``), never a verdict on the next spin. The
  game counter ``GGG`` does not identify a game (it stays through balls that end without a
  number and failed launches, and restarts at power-on): a spin is numbered by the game;
  the counter only has to stay the same during play.
- **Impossible transitions** are ``wheel_impossible`` alarms and never a result: state 4
  or 5 with no state 3 before it, state 3 right after 4 or 5, state 6 or 7 in play; a
  counter that changes during play is ``wheel_counter_jump``. A spin cut by one is
  concluded at once (held, unless an Art. 12 finding voids it), and no launch is taken
  until the wheel shows a state outside play.
- The first line heard is a baseline: a ball the wheel already has in play then is not a
  spin (its launch was not seen).
- Bad status lines, unknown lines and over-long lines are counted and journaled as alarms
  (``wheel_bad_line``, ``wheel_unknown_line``, ``wheel_line_too_long``); never a crash.
- A link silent longer than ``wheel_silence_s`` is ``wheel_disconnected`` (:mod:`.link`):
  new spins wait (``busy``) until it talks again (``wheel_reconnected``); a spin in play
  across the silence is held, never guessed; a ball launched in the lines that come back
  at once after it (the link's backlog) is held too: its launch time, and so which bets
  were placed before it, is not known.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from controller.core.events import GpioEdge, PortStatus, SerialData
from controller.games.base import Schedule
from controller.games.roulette import art12
from controller.games.roulette.config import WHEEL_PORT, RouletteConfig
from controller.games.roulette.serial_wheel.link import Link
from controller.games.roulette.serial_wheel.play import SerialSpin
from controller.games.roulette.wheel import SpinOutcome, WheelListener
from controller.protocols import make_codec
from controller.protocols.wheel_status import (
    FLAG_NAMES,
    STATES,
    BadStatusLine,
    CommandAnswer,
    NumberLine,
    OverlongLine,
    StatusLine,
    UnknownLine,
    VersionLine,
)

_OUTSIDE_PLAY = (1, 2, 6, 7)


@dataclass(frozen=True)
class WheelView:
    """What the wheel last said, for ``tablectl sensors``: a frozen snapshot the controller
    thread replaces whole, so the control socket's thread may read it at any time."""

    line: str | None = None
    t: float | None = None
    state: int | None = None
    version: str | None = None
    silent_since: float | None = None
    bad_lines: int = 0
    unknown_lines: int = 0


class SerialWheelTracker:
    """Turns an automated wheel's status lines into concluded spins (a
    :class:`~controller.games.roulette.wheel.WheelTracker`; issue 12).

    Args:
        cfg: thresholds (``min_ball_revolutions``, ``min_rotor_rpm``), the silence limit
            (``wheel_silence_s``, seconds) and the speed unit (``wheel_speed_unit_rpm``).
        order: the wheel's pockets clockwise from 0 (a number elsewhere is not a result).
        schedule: the controller loop's timer (clock seconds): the silence is timed on it.
        listener: the game: told of launches, the wheel's "no va más", each conclusion and
            every alarm.
        codec: the name of the wheel port's codec (``[serial.wheel] codec``).

    Raises:
        ValueError: no codec has that name.
    """

    inputs: tuple[str, ...] = ()
    ports: tuple[str, ...] = (WHEEL_PORT,)

    def __init__(self, cfg: RouletteConfig, order: tuple[str, ...], schedule: Schedule,
                 listener: WheelListener, codec: str = "status_line") -> None:
        self.cfg = cfg
        self.order = order
        self.listener = listener
        self.codec = make_codec(codec)
        self.link = Link(cfg.wheel_silence_s, schedule, self._silent)
        self.spin: SerialSpin | None = None
        self.prev: StatusLine | None = None
        # The wheel's ball in play (a state 3-5 seen since its last line outside play):
        # "spin" (the game took it), "no spin" (refused, unseen, or cut); None: none.
        self.ball: str | None = None
        self.view = WheelView()
        self._strangers: set[str] = set()

    # -- what the game asks --------------------------------------------------------
    @property
    def in_play(self) -> bool:
        return self.spin is not None and not self.spin.concluded

    @property
    def busy(self) -> str | None:
        """The link is silent, or the last spin's ball still runs on the wheel."""
        if self.link.silent_since is not None:
            return (f"the wheel's link is silent since {self.link.silent_since:.3f} s "
                    "(wheel_disconnected): no new spin until it talks again")
        prev, spin = self.prev, self.spin
        if spin is not None and self.ball == "spin" and prev is not None and prev.state in (3, 4):
            return f"the ball of spin {spin.number} is still in play on the wheel (state " \
                   f"{prev.state})"
        return None

    def sensors(self, now: float) -> dict[str, Any]:
        """The wheel's last status line and its age (``now`` minus its arrival, seconds),
        the link, the firmware's version and the lines it could not use, for ``tablectl
        sensors``; safe to call from any thread."""
        v = self.view
        link = "no line yet" if v.t is None else "talking"
        if v.silent_since is not None:
            link = f"silent since {v.silent_since:.3f} s (wheel_disconnected)"
        return {WHEEL_PORT: {
            "last_line": v.line, "age_s": None if v.t is None else round(now - v.t, 3),
            "state": None if v.state is None else f"{v.state} ({STATES[v.state]})",
            "link": link, "version": v.version, "bad_lines": v.bad_lines,
            "unknown_lines": v.unknown_lines}}

    # -- what the game feeds -------------------------------------------------------
    def edge(self, edge: GpioEdge) -> None:
        self._stranger(f"gpio {edge.input}", f"{edge.input} changed at {edge.t:.3f} s: a "
                       "serial wheel reads no GPIO wheel input")

    def serial(self, data: SerialData) -> None:
        """Bytes of the wheel's port: every line they complete, in order."""
        if data.port != WHEEL_PORT:
            self._stranger(f"port {data.port}", f"{len(data.data)} bytes on serial port "
                           f"{data.port!r}: the wheel reports on port {WHEEL_PORT!r}")
            return
        for line in self.codec.feed(data.data):
            self._line(data.t, line)

    def port_status(self, status: PortStatus) -> None:
        """The port opened (the link must talk from now), or went away (the line under way
        is lost: bytes after it start a new line)."""
        if status.port != WHEEL_PORT:
            return
        if status.up:
            self.link.opened(status.t)
        else:
            self.codec.reset()

    def void(self, t: float, reason: str) -> None:
        """A dealer or inspector declares the spin in play invalid (Art. 12 d-g)."""
        spin = self.spin
        assert spin is not None and not spin.concluded, "void with no spin in play"
        spin.add(art12.declared(reason))
        spin.declared = True
        self._conclude(t, None, final=False, line=None)

    # -- lines ---------------------------------------------------------------------
    def _line(self, t: float, line: Any) -> None:
        if isinstance(line, StatusLine):
            self._status(t, line)
        elif isinstance(line, NumberLine):
            self._heard(t)
            if self.in_play:
                assert self.spin is not None
                self.spin.bare_number = line.number
        elif isinstance(line, VersionLine):
            self._heard(t)
            self.view = replace(self.view, version=line.version)
        elif isinstance(line, CommandAnswer):
            self._heard(t)
        elif isinstance(line, BadStatusLine):
            n = self.view.bad_lines + 1
            self.view = replace(self.view, bad_lines=n)
            self.listener.alarm("wheel_bad_line", f"bad status line #{n} from the wheel at "
                                f"{t:.3f} s, {line.text!r}: field {line.field}: {line.why}; "
                                "not used")
        elif isinstance(line, OverlongLine):
            self.listener.alarm("wheel_line_too_long", f"a line of {line.length} bytes from "
                                f"the wheel at {t:.3f} s, dropped")
        else:
            n = self.view.unknown_lines + 1
            self.view = replace(self.view, unknown_lines=n)
            text = line.text if isinstance(line, UnknownLine) else repr(line)
            self.listener.alarm("wheel_unknown_line", f"unknown line #{n} from the wheel at "
                                f"{t:.3f} s: {text!r}")

    def _heard(self, t: float) -> None:
        ended = self.link.heard(t)
        if ended is not None:
            self.view = replace(self.view, silent_since=None)
            self.listener.alarm("wheel_reconnected", f"the wheel talks again at {t:.3f} s, "
                                f"after {ended:.1f} s of silence")

    def _status(self, t: float, line: StatusLine) -> None:
        self._heard(t)
        prev, self.prev = self.prev, line
        self.view = replace(self.view, line=line.text, t=t, state=line.state)
        spin = self.spin
        if spin is not None and not spin.concluded:
            self._play(t, line, prev, spin)
        else:
            self._idle(t, line, prev)

    def _play(self, t: float, line: StatusLine, prev: StatusLine | None,
              spin: SerialSpin) -> None:
        """A line while the spin is in play."""
        s = line.state
        if line.game != spin.game:
            self._cut(t, line, "wheel_counter_jump", "wheel_counter",
                      f"the wheel's game counter went from {spin.game:03d} to "
                      f"{line.game:03d} during spin {spin.number} ({line.text!r} at "
                      f"{t:.3f} s): its lines are not this spin's")
            return
        if s in (3, 4, 5):
            spin.measure(t, line, line.speed * self.cfg.wheel_speed_unit_rpm,
                         self.cfg.min_rotor_rpm)
        if s == 3:
            if prev is not None and prev.state == 4:
                self._cut(t, line, "wheel_impossible", "wheel_state",
                          f"state 3 after state 4 during spin {spin.number} ({line.text!r} "
                          f"at {t:.3f} s)")
        elif s == 4:
            if spin.no_more_bets_t is None:
                spin.no_more_bets_t = t
                self.listener.auto_no_more_bets()
        elif s == 5:
            if spin.no_more_bets_t is None:
                spin.held.setdefault("wheel_state", "state 5 came with no state 4 (no more "
                                     "bets) before it: bets stayed open until the result")
            self._conclude(t, line.number, final=True, line=line.text)
        elif s in (1, 2):
            # The ball ended without a number; the wheel starts a new game.
            self.ball = None
            self._conclude(t, None, final=True, line=line.text)
        else:
            self._cut(t, line, "wheel_impossible", "wheel_state",
                      f"state {s} ({STATES[s]}) while spin {spin.number} is in play "
                      f"({line.text!r} at {t:.3f} s)")

    def _idle(self, t: float, line: StatusLine, prev: StatusLine | None) -> None:
        """A line with no spin in play."""
        s = line.state
        if s in _OUTSIDE_PLAY:
            self.ball = None
            raised = line.flags & ~(prev.flags if prev is not None else 0)
            if raised:
                names = ", ".join(f"{f} ({FLAG_NAMES[f]})" for f in sorted(FLAG_NAMES)
                                  if raised & f)
                self.listener.alarm("wheel_warning", f"the wheel raised warning flag {names} "
                                    f"outside play ({line.text!r} at {t:.3f} s): no spin is "
                                    "in play, none is voided")
            return
        if prev is None:
            self.ball = "no spin"  # the baseline: a ball in play whose launch was not seen
            return
        if self.ball is not None:
            if s == 3 and prev.state in (4, 5):
                self._impossible(t, line, f"state 3 right after state {prev.state}: no new "
                                 "game started")
            return  # the rest of a ball that is not in play as a spin
        if s == 3:
            self._launch(t, line)
            return
        self.ball = "no spin"
        self._impossible(t, line, f"state {s} ({STATES[s]}) with no state 3 before it"
                         + (": not a result" if s == 5 else ""))

    def _launch(self, t: float, line: StatusLine) -> None:
        number = self.listener.ball_launched(t, f"the wheel's state 3 at {t:.3f} s")
        if number is None:
            self.ball = "no spin"
            return
        self.ball = "spin"
        spin = self.spin = SerialSpin(number, t, line.game, line.text)
        if self.link.catching_up:
            spin.held["wheel_link"] = ("the ball was launched in the lines the link held back "
                                       "during a silence: its launch time, and so which bets "
                                       "came before it, is not known")
        spin.measure(t, line, line.speed * self.cfg.wheel_speed_unit_rpm,
                     self.cfg.min_rotor_rpm)

    def _impossible(self, t: float, line: StatusLine, what: str) -> None:
        self.listener.alarm("wheel_impossible", f"{what} ({line.text!r} at {t:.3f} s); "
                            "never a result")

    def _cut(self, t: float, line: StatusLine, code: str, cause: str, what: str) -> None:
        """An impossible transition during play: alarm, and the spin concluded at once (held
        unless a finding voids it); no launch until the wheel shows a state outside play."""
        spin = self.spin
        assert spin is not None
        self.listener.alarm(code, f"{what}; never a result")
        spin.held.setdefault(cause, what)
        self.ball = "no spin"
        self._conclude(t, None, final=False, line=line.text)

    def _silent(self, t: float) -> None:
        """The link was silent past the limit (:mod:`.link`)."""
        since = self.link.silent_since
        assert since is not None
        self.view = replace(self.view, silent_since=since)
        self.listener.alarm("wheel_disconnected", f"no line from the wheel for "
                            f"{self.cfg.wheel_silence_s:g} s (the last at {since:.3f} s): no "
                            "new spin until it talks again")
        spin = self.spin
        if spin is not None and not spin.concluded:
            spin.held.setdefault("wheel_link", f"the link went silent at {since:.3f} s with "
                                 "the ball in play: nothing is known of the rest of the spin")
            self._conclude(t, None, final=False, line=None)

    def _stranger(self, key: str, message: str) -> None:
        """Input a serial wheel does not read: one ``unexpected_input`` alarm per source."""
        if key not in self._strangers:
            self._strangers.add(key)
            self.listener.alarm("unexpected_input", message)

    # -- conclusion ----------------------------------------------------------------
    def _conclude(self, t: float, number: str | None, final: bool, line: str | None) -> None:
        """Conclude the spin: its frozen :class:`SpinOutcome` to the listener, once."""
        spin = self.spin
        assert spin is not None
        spin.concluded = True
        verdict = spin.judge(number, self.order, self.cfg.min_ball_revolutions, final, line)
        held = {} if spin.declared else verdict.held
        result = verdict.number
        evidence = verdict.evidence
        self.listener.spin_concluded(SpinOutcome(
            spin=spin.number, t=t, number=result,
            index=None if result is None else self.order.index(result),
            reasons=verdict.reasons,
            rotor_direction=evidence["rotor_direction"],
            rotor_rpm=evidence["rotor_rpm"],
            evidence=MappingProxyType(evidence),
            held=MappingProxyType(held),
            candidate=number if held and number in self.order else None,
            declared=spin.declared,
        ))
