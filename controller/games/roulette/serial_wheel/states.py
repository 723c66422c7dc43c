"""What each status line of an automated wheel does to its ball and spin: a launch, the
play, the conclusion, the impossible transitions and the link's silence (issue 12; seed 001
Art. 12); the base of :class:`~.tracker.SerialWheelTracker`, whose module states the rules
followed here. Lines come here already decoded and found plausible.
"""

from __future__ import annotations

from dataclasses import replace

from controller.core.contract import Schedule
from controller.games.roulette.config import RouletteConfig
from controller.games.roulette.serial_wheel.aftermath import OUTSIDE_PLAY, Aftermath
from controller.games.roulette.serial_wheel.conclusion import conclude
from controller.games.roulette.serial_wheel.link import Link
from controller.games.roulette.serial_wheel.play import SerialSpin
from controller.games.roulette.serial_wheel.view import WheelView
from controller.games.roulette.wheel import WheelListener
from controller.protocols import make_codec
from controller.protocols.wheel_status import FLAG_NAMES, MODELS, STATES, StatusLine


class WheelStates:
    """A wheel's state, line by line: its last status line, its ball, the spin in play and
    the last spin concluded.

    Args: as :class:`~.tracker.SerialWheelTracker`'s.

    Raises:
        ValueError: no codec has that name.
    """

    def __init__(self, cfg: RouletteConfig, order: tuple[str, ...], schedule: Schedule,
                 listener: WheelListener, codec: str = "status_line") -> None:
        self.cfg = cfg
        self.order = order
        self.listener = listener
        self.codec = make_codec(codec)
        self.model = MODELS[cfg.wheel_model]
        self.link = Link(cfg.wheel_silence_s, cfg.wheel_burst_gap_s, schedule, self._silent)
        self.spin: SerialSpin | None = None
        self.prev: StatusLine | None = None
        self.prev_t = 0.0
        # The wheel's ball in play (a state 3-5 seen since its last line outside play):
        # "spin" (the game took it), "unseen" (in play at the first line heard),
        # "refused" (the game took no spin), "stray" (no state 3 before it), "cut" (its
        # spin concluded by an impossible transition); None: none.
        self.ball: str | None = None
        self.after: Aftermath | None = None  # the last spin concluded, until a launch
        self._refused_at: float | None = None  # a refused ball's launch, its number not told
        self._resumed_in_play = False  # restarted with a spin in play, no line heard since
        self.view = WheelView()
        self._strangers: set[str] = set()
        self.last_counter: int | None = None  # GGG at the last launch line
        self._port_down: float | None = None  # when the port went down, until it is back

    @property
    def in_play(self) -> bool:
        return self.spin is not None and not self.spin.concluded

    # -- status lines --------------------------------------------------------------
    def _heard(self, t: float, first: float | None = None) -> None:
        ended = self.link.heard(t, first)
        if ended is not None:
            self.view = replace(self.view, silent_since=None)
            self.listener.alarm("wheel_reconnected", f"the wheel talks again at {t:.3f} s, "
                                f"after {ended:.1f} s of silence")
        gap, spin = self.link.blind, self.spin
        if gap is not None and spin is not None and self.in_play:
            spin.held.setdefault("wheel_link", gap.words(self.cfg.wheel_burst_gap_s,
                                                         "while the ball was in play"))

    def _status(self, t: float, line: StatusLine, first: float) -> None:
        self._heard(t, first)
        prev, self.prev = self.prev, line
        prev_t, self.prev_t = self.prev_t, t
        self.view = replace(self.view, line=line.text, t=t, state=line.state)
        spin = self.spin
        if spin is not None and not spin.concluded:
            self._play(t, line, prev, spin, first)
        else:
            self._idle(t, line, prev, prev_t)

    def _play(self, t: float, line: StatusLine, prev: StatusLine | None,
              spin: SerialSpin, first: float) -> None:
        """A line while the spin is in play (its first byte at ``first``): the first
        state-4 line closes bets; a bet taken after its first byte came (a line split
        across reads) came after the wheel's "no va más": held."""
        s = line.state
        if line.game != spin.game or s not in (3, 4, 5):
            # A line that ends or cuts the play: the last line of play's lone readings
            # (a flag raised on a single state-5 line) against it, never standing alone.
            spin.after_play(t, line, line.speed * self.cfg.wheel_speed_unit_rpm,
                            self.cfg.min_rotor_rpm)
        if line.game != spin.game and s not in (1, 2):  # a new game's line has its own
            self._cut(t, line, "wheel_counter_jump", "wheel_counter",
                      f"the wheel's game counter went from {spin.game:03d} to "
                      f"{line.game:03d} during spin {spin.number} ({line.text!r} at "
                      f"{t:.3f} s): its lines are not this spin's")
            return
        if s in (3, 4, 5):
            spin.measure(t, line, line.speed * self.cfg.wheel_speed_unit_rpm,
                         self.cfg.min_rotor_rpm)
        if s == 3:
            if prev is not None and prev.state in (4, 5):
                self._cut(t, line, "wheel_impossible", "wheel_state",
                          f"state 3 after state {prev.state} during spin {spin.number} "
                          f"({line.text!r} at {t:.3f} s)")
        elif s == 4:
            if spin.fives:
                # The wheel never goes from 5 back to 4: one of the lines is not its own
                # (one flipped bit turns a 4 into a 5). Followed on to gather the numbers.
                spin.held.setdefault("wheel_state", f"state 4 ({line.text!r} at {t:.3f} s) "
                                     f"after the state-5 line {spin.fives[-1][1]}: one of "
                                     "them is not the wheel's; the number is not certain")
            elif spin.no_more_bets_t is None:
                spin.no_more_bets_t = t
                late = self.listener.auto_no_more_bets(first)
                if late is not None:
                    spin.held.setdefault("wheel_late_bet", late)
        elif s == 5:
            if spin.no_more_bets_t is None:
                spin.held.setdefault("wheel_state", "state 5 came with no state 4 (no more "
                                     "bets) before it: bets stayed open until the result")
            # A reading of this line that the next must confirm (a flag raised), or a ball
            # count that does not tell yet whether the ball made the minimum, waits.
            if (spin.five(line.number, f"{line.text!r} at {t:.3f} s") and not spin.waiting
                    and not spin.count_pending(self.cfg.min_ball_revolutions)):
                self._conclude(t, spin.fives[0][0], final=True, line=line)
        elif s in (1, 2):
            # The ball ended without a number (or one state-5 line only, unconfirmed);
            # the wheel starts a new game.
            self.ball = None
            self._conclude(t, spin.fives[0][0] if spin.fives else None, final=True,
                           line=line)
        else:
            self._cut(t, line, "wheel_impossible", "wheel_state",
                      f"state {s} ({STATES[s]}) while spin {spin.number} is in play "
                      f"({line.text!r} at {t:.3f} s)")

    def _idle(self, t: float, line: StatusLine, prev: StatusLine | None,
              prev_t: float) -> None:
        """A line with no spin in play."""
        s = line.state
        if self.after is not None:
            self.after.status(t, line)
        if s in OUTSIDE_PLAY:
            self.ball = None
            if s == 2 and (prev is None or prev.state != 2):
                self.listener.wheel_bets_open(t, f"the wheel's state 2 at {t:.3f} s")
            raised = line.flags & ~(prev.flags if prev is not None else 0)
            if raised:
                names = ", ".join(f"{f} ({self.model.flag_names[f]})" for f in sorted(FLAG_NAMES)
                                  if raised & f)
                self.listener.alarm("wheel_warning", f"the wheel raised warning flag {names} "
                                    f"outside play ({line.text!r} at {t:.3f} s): no spin is "
                                    "in play, none is voided")
            return
        if prev is None:
            self.ball = "unseen"
            runs = "; no bets and no open_bets while it runs" if s in (3, 4) else ""
            self.listener.alarm("wheel_unseen_ball", f"the wheel's first line shows a ball "
                                f"(state {s}, {STATES[s]}: {line.text!r} at {t:.3f} s) whose "
                                "launch was not seen (after a start or a restart): not a "
                                f"spin, its lines and its number are not acted on{runs}")
            return
        if self.ball is not None:
            if self.ball == "refused" and s == 5 and self._refused_at is not None:
                given = line.number or "no number"
                self.listener.alarm("wheel_not_a_spin", f"the wheel gave {given} "
                                    f"({line.text!r} at {t:.3f} s) for the ball "
                                    f"launched at {self._refused_at:.3f} s that the table "
                                    "took no spin for: not a result")
                self._refused_at = None
            after_five = self.after is not None and self.after.at_five
            if s == 3 and prev.state in (4, 5) and not after_five:
                self._impossible(t, line, f"state 3 right after state {prev.state}: no new "
                                 "game started")
            return  # the rest of a ball that is not in play as a spin
        if s == 3:
            self.after = None
            self._launch(t, line, prev, prev_t)
            return
        self.ball = "stray"
        self._impossible(t, line, f"state {s} ({STATES[s]}) with no state 3 before it"
                         + (": not a result" if s == 5 else ""))

    def _launch(self, t: float, line: StatusLine, prev: StatusLine, prev_t: float) -> None:
        self._counter(t, line)
        number = self.listener.ball_launched(t, f"the wheel's state 3 at {t:.3f} s")
        if number is None:
            self.ball = "refused"
            self._refused_at = t
            return
        self.ball = "spin"
        spin = self.spin = SerialSpin(number, t, line.game, line.text,
                                      names=self.model.flag_names)
        spin.launched(prev, prev_t, line)
        if self.link.blind is not None:
            spin.held["wheel_link"] = self.link.blind.words(self.cfg.wheel_burst_gap_s,
                                                            "before the launch line")
        spin.measure(t, line, line.speed * self.cfg.wheel_speed_unit_rpm,
                     self.cfg.min_rotor_rpm)

    def _counter(self, t: float, line: StatusLine) -> None:
        """The counter at a launch against the last launch's (``WheelModel.in_turn``); a
        jump means games went by unseen: an alarm only, this ball's own lines are its
        evidence."""
        last, self.last_counter = self.last_counter, line.game
        if last is None or self.model.in_turn(last, line.game):
            return
        self.listener.alarm("wheel_counter_jump", f"the wheel's game counter went from "
                            f"{last:03d} at the last launch to {line.game:03d} at this one "
                            f"({line.text!r} at {t:.3f} s): games may have been played "
                            "that the table did not see; this ball is judged on its own "
                            "lines")

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
        self.ball = "cut"
        self._conclude(t, None, final=False, line=line)

    def _silent(self, t: float) -> None:
        """The link gave no valid line past the limit (:mod:`.link`)."""
        link = self.link
        since = link.silent_since
        assert since is not None
        self.view = replace(self.view, silent_since=since)
        valid = "valid " if link.unusable else ""
        if link.line_t is None:
            what = f"no {valid}line from the wheel since the table started at {since:.3f} s"
        else:
            what = (f"no {valid}line from the wheel for {self.cfg.wheel_silence_s:g} s (the "
                    f"last at {since:.3f} s)")
        if link.unusable:
            what += f"; {link.unusable} lines it could not use since"
        self.listener.alarm("wheel_disconnected", f"{what}: no new spin until it talks again")
        spin = self.spin
        if spin is not None and not spin.concluded:
            spin.held.setdefault("wheel_link", f"the link went silent at {since:.3f} s with "
                                 "the ball in play: nothing is known of the rest of the spin")
            self._conclude(t, None, final=False, line=None)

    # -- conclusion ----------------------------------------------------------------
    def _conclude(self, t: float, number: str | None, final: bool,
                  line: StatusLine | None) -> None:
        """Conclude the spin (:func:`.conclusion.conclude`): its frozen outcome to the
        listener, once; then watch what the wheel reports of it (``self.after``)."""
        spin = self.spin
        assert spin is not None
        spin.concluded = True
        outcome, self.after = conclude(spin, t, number, final, line, self.order,
                                       self.cfg.min_ball_revolutions, self.model.flag_names,
                                       self.listener.alarm)
        self.listener.spin_concluded(outcome)
