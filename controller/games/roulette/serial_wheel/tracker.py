"""The serial wheel tracker: spins from an automated wheel's status lines (issue 12; seed 001
Art. 12; CONTRACT §1, §5; hardware.md §2b).

:class:`SerialWheelTracker` is fed the bytes of the port ``wheel`` (journaled already), on
the controller thread; the codec (``[serial.wheel] codec``, :mod:`controller.protocols.
wheel_status`) turns them into lines. The wheel repeats its status line about every half
second: the tracker acts on changes only. It reads the port and sorts its lines; what a
status line does to the ball and its spin is its base's (:mod:`.states`).

- A **launch** is a state-3 line after a line outside play (states 1, 2, 6, 7): the game
  starts a spin, or refuses it (it journals why). The wheel's state 4 is its own "no va
  más" (the game closes bets). The spin is concluded at its first state-5 line
  when a bare number line came before it, else at its second state-5 line (one line is no
  certainty: the protocol has no checksum). Its **result** is that ``NN`` with no warning
  during play, given by two lines and contradicted by none (:mod:`.play` gives the
  verdict; state 4 after a state-5 line holds it). A state-5 line with a reading the next
  line must confirm (a flag raised), or whose ball revolutions ``RR`` do not tell yet
  whether the ball made ``min_ball_revolutions`` (one line's count is no certainty),
  leaves the conclusion to the next line.
- After the conclusion, until the next launch, what contradicts it is an alarm naming the
  spin (:mod:`.aftermath`); it is journaled as concluded and stays so.
- Wheels were seen to repeat states, send ``NN`` as the previous number until state 5, send
  the bare number just before state 5, interleave command answers, keep a fault flag up for
  thousands of idle lines, show state 5 as one line and fall silent. A warning outside play
  (a failed launch before the wheel relaunches) is an ``alarm`` (``wheel_warning``), never a
  verdict on the next spin; a flag still up at the launch holds it (:mod:`.play`). The game
  counter ``GGG`` does not identify a game (it stays through balls that end without a
  number and failed launches, and restarts at power-on): a spin is numbered by the game;
  the counter only has to stay the same during play. Its range and wrap are the wheel
  family's (``[roulette] wheel_model``, ``wheel_status.MODELS``; issue 16): a counter out
  of range is a bad field; at a launch, one other than the last launch's, the next (256
  to 001 on a SlingShot 2 is the next) or the family's first is a ``wheel_counter_jump``
  alarm, never a verdict. The flags' words are the family's too.
- **Impossible transitions** are ``wheel_impossible`` alarms and never a result: state 4
  or 5 with no state 3 before it, state 3 right after 4 or 5, state 6 or 7 in play; a
  counter that changes during play is ``wheel_counter_jump``. A spin cut by one is
  concluded at once (held, unless an Art. 12 finding voids it), and no launch is taken
  until the wheel shows a state outside play.
- The first line heard is a baseline: a ball the wheel already has in play then is not a
  spin (its launch was not seen): one ``wheel_unseen_ball`` alarm. A ball the table took
  no spin for (the game journals why) has its number journaled as ``wheel_not_a_spin``.
  While any ball that is not a spin in play runs (states 3-4) the table opens no bets and
  takes none; after a restart with a spin in play it opens none before the first line.
- A state-2 line after a line in another state (or as the first line) tells the game the
  wheel opened a new game's bets (``wheel_bets_open``: with ``bets_follow_wheel`` the
  table opens bets, issue 16).
- Bad status lines (a rotor speed above ``wheel_max_rotor_rpm`` in states 1-5 among them),
  unknown lines and over-long lines are counted and journaled as alarms
  (``wheel_bad_line``, ``wheel_unknown_line``, ``wheel_line_too_long``); never a crash.
- The link (:mod:`.link`): no valid line for ``wheel_silence_s`` is ``wheel_disconnected``:
  new spins wait (``busy``) until it talks again (``wheel_reconnected``); a spin in play
  across the silence is held, never guessed. A spin whose launch or play the link was blind
  to (a gap over ``wheel_burst_gap_s`` between two lines, and the backlog after it) is held
  too: when its launch and its "no va más" came, and so whether the bets taken meanwhile
  were late, is not known. Gaps are measured from each line's first byte (a line split
  across reads was sent when it began). The port going down is a ``wheel_port_down``
  alarm, and holds a spin in play (its lines may be lost).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from controller.core.events import PortStatus, SerialData
from controller.games.roulette import art12
from controller.games.roulette.config import WHEEL_PORT
from controller.games.roulette.serial_wheel.states import WheelStates
from controller.protocols.wheel_status import (
    BadStatusLine,
    CommandAnswer,
    NumberLine,
    OverlongLine,
    StatusLine,
    UnknownLine,
    VersionLine,
)

_SPEED_STATES = (1, 2, 3, 4, 5)  # SSS is the rotor's speed (a self-test reports others)


class SerialWheelTracker(WheelStates):
    """Turns an automated wheel's status lines into concluded spins (a
    :class:`~controller.games.roulette.wheel.WheelTracker`; issue 12).

    Args:
        cfg: thresholds (``min_ball_revolutions``, ``min_rotor_rpm``), the link's limits
            (``wheel_silence_s``, ``wheel_burst_gap_s``, seconds), the speed unit
            (``wheel_speed_unit_rpm``) and the fastest plausible rotor
            (``wheel_max_rotor_rpm``).
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

    # -- what the game asks --------------------------------------------------------
    @property
    def busy(self) -> str | None:
        """The link is silent, or a ball still runs on the wheel (states 3-4)."""
        if self.link.silent_since is not None:
            return (f"the wheel's link is silent since {self.link.silent_since:.3f} s "
                    "(wheel_disconnected): no new spin until it talks again")
        if self._resumed_in_play and self.prev is None:
            return ("the controller stopped with a spin in play and the wheel has sent no "
                    "status line since the restart: whether its ball still runs is not known")
        return self._running()

    @property
    def closed_to_bets(self) -> str | None:
        """A ball runs on the wheel (states 3-4) that is no spin in play: a bet now would
        be placed while a ball runs, with no "no va más" the table can see."""
        if self.in_play:
            return None
        running = self._running()
        return None if running is None else (f"{running}: no bets until the wheel shows a "
                                             "state outside play (1, 2, 6 or 7)")

    def _running(self) -> str | None:
        prev, spin = self.prev, self.spin
        if prev is None or prev.state not in (3, 4) or self.ball is None:
            return None
        s = f"state {prev.state}"
        if self.ball == "spin" and spin is not None:
            return f"the ball of spin {spin.number} is still in play on the wheel ({s})"
        if self.ball == "cut" and spin is not None:
            return f"the ball of spin {spin.number} (held) is still in play on the wheel ({s})"
        if self.ball == "unseen":
            return (f"the wheel has a ball in play ({s}) whose launch was not seen (its first "
                    "line after a start or a restart)")
        if self.ball == "refused":
            return f"the wheel has a ball in play ({s}) that the table took no spin for"
        return f"the wheel shows a ball in play ({s}) whose launch (state 3) it never showed"

    def sensors(self, now: float) -> dict[str, Any]:
        """The wheel's last status line and its age (``now`` minus its arrival, seconds),
        the link, the firmware's version and the lines it could not use, for ``tablectl
        sensors``; safe to call from any thread."""
        return {WHEEL_PORT: self.view.shown(now)}

    # -- what the game feeds -------------------------------------------------------
    def started(self, t: float) -> None:
        """The table's first event came at ``t``: the wheel must talk from then."""
        self.link.started(t)

    def resumed(self, ball_may_run: bool) -> None:
        """After a restart with a spin in play, no new spin until the wheel's first line
        shows whether that ball still runs."""
        self._resumed_in_play = ball_may_run

    def edge(self, t: float, name: str, level: int) -> None:
        self._stranger(f"gpio {name}", f"{name} changed at {t:.3f} s: a "
                       "serial wheel reads no GPIO wheel input")

    def serial(self, data: SerialData) -> None:
        """Bytes of the wheel's port: every line they complete, in order."""
        if data.port != WHEEL_PORT:
            self._stranger(f"port {data.port}", f"{len(data.data)} bytes on serial port "
                           f"{data.port!r}: the wheel reports on port {WHEEL_PORT!r}")
            return
        for first, line in self.codec.feed_timed(data.data, data.t):
            self._line(data.t, line, first)

    def port_status(self, status: PortStatus) -> None:
        """The port opened (the link must talk from now), or went away (the line under way
        is lost: bytes after it start a new line)."""
        if status.port != WHEEL_PORT:
            return
        t = status.t
        detail = f" ({status.detail})" if status.detail else ""
        if status.up:
            self.link.opened(t)
            if self._port_down is not None:
                self.listener.alarm("wheel_port_up", f"the wheel's port is back at {t:.3f} s"
                                    f", down since {self._port_down:.3f} s")
            self._port_down = None
            return
        self.codec.reset()
        self.link.started(t)
        if self._port_down is None:
            self._port_down = t
            self.listener.alarm("wheel_port_down", f"the wheel's port went down at {t:.3f} "
                                f"s{detail}: what the wheel sends until it is back is lost")
        spin = self.spin
        if spin is not None and self.in_play:
            spin.held.setdefault("wheel_link", f"the wheel's port went down at {t:.3f} s"
                                 f"{detail} with the ball in play: lines of its play may "
                                 "be lost")

    def void(self, t: float, reason: str) -> None:
        """A dealer or inspector declares the spin in play invalid (Art. 12 d-g)."""
        spin = self.spin
        assert spin is not None and not spin.concluded, "void with no spin in play"
        spin.add(art12.declared(reason))
        spin.declared = True
        self._conclude(t, None, final=False, line=None)

    # -- lines ---------------------------------------------------------------------
    def _line(self, t: float, line: Any, first: float) -> None:
        """One line completed at ``t``, its first byte at ``first`` (seconds)."""
        if isinstance(line, StatusLine):
            bad = self._implausible(line)
            if bad is not None:
                self._bad(t, bad)
            else:
                self._status(t, line, first)
        elif isinstance(line, NumberLine):
            self._heard(t, first)
            if self.spin is not None and self.in_play:
                self.spin.number_line(line.number, f"{line.text!r} at {t:.3f} s")
            elif self.after is not None:
                self.after.number_line(t, line)
        elif isinstance(line, VersionLine):
            self._heard(t, first)
            self.view = replace(self.view, version=line.version)
        elif isinstance(line, CommandAnswer):
            self._heard(t, first)
        elif isinstance(line, BadStatusLine):
            self._bad(t, line)
        elif isinstance(line, OverlongLine):
            self.link.unused()
            self.listener.alarm("wheel_line_too_long", f"a line of {line.length} bytes from "
                                f"the wheel at {t:.3f} s, dropped")
        else:
            self.link.unused()
            n = self.view.unknown_lines + 1
            self.view = replace(self.view, unknown_lines=n)
            text = line.text if isinstance(line, UnknownLine) else repr(line)
            self.listener.alarm("wheel_unknown_line", f"unknown line #{n} from the wheel at "
                                f"{t:.3f} s: {text!r}")
            spin = self.spin
            if spin is not None and self.in_play and spin.no_more_bets_t is not None:
                spin.number_line(None, f"{text!r} at {t:.3f} s")  # where the number comes

    def _implausible(self, line: StatusLine) -> BadStatusLine | None:
        """A rotor speed no wheel turns at (above ``wheel_max_rotor_rpm``), where ``SSS``
        is a speed, or a game counter out of the model's range: a bad field, the line
        not used."""
        model = self.model
        if not model.counter_fits(line.game):
            return BadStatusLine(line.text, "GGG", f"game counter {line.game:03d} is outside "
                                 f"the {model.title}'s {model.first_game:03d}-"
                                 f"{model.last_game:03d} (wheel_model = \"{model.name}\")")
        rpm = round(line.speed * self.cfg.wheel_speed_unit_rpm, 3)
        if line.state in _SPEED_STATES and rpm > self.cfg.wheel_max_rotor_rpm:
            return BadStatusLine(line.text, "SSS", f"rotor speed {line.speed:03d} is {rpm:g} "
                                 f"rpm, above wheel_max_rotor_rpm "
                                 f"({self.cfg.wheel_max_rotor_rpm:g} rpm)")
        return None

    def _bad(self, t: float, line: BadStatusLine) -> None:
        self.link.unused()
        n = self.view.bad_lines + 1
        self.view = replace(self.view, bad_lines=n)
        # A line with the wrong number of fields is bad as a whole: its why says so.
        where = "" if line.field == "fields" else f"field {line.field}: "
        self.listener.alarm("wheel_bad_line", f"bad status line #{n} from the wheel at "
                            f"{t:.3f} s, {line.text!r}: {where}{line.why}; not used")

    def _stranger(self, key: str, message: str) -> None:
        """Input a serial wheel does not read: one ``unexpected_input`` alarm per source."""
        if key not in self._strangers:
            self._strangers.add(key)
            self.listener.alarm("unexpected_input", message)
