"""What a serial wheel reported of one spin, and its verdict (seed 001 Art. 12; CONTRACT §1,
§5; issue 12; hardware.md §2b).

A spin is a ball in play: from the wheel's first state-3 line ("ball in the rim") through its
state-4 lines ("no more bets") to the state-5 line (the winning number) that concludes it.
Every status line in play is a measurement (:meth:`SerialSpin.measure`); the verdict at the end
(:meth:`SerialSpin.judge`) calls :mod:`controller.games.roulette.art12` for each finding:

- warning flag 2 raised during play: (b) ``same_direction``; flag 4: (f)
  ``wheel_malfunction``; flags 1 and 8 (the ball removed on a SlingShot 2, the rotor
  speed outside its limits on a Mercury 360; a void game or failed launch) name no
  article: the spin is held for the dealer or inspector (CONTRACT §5), who voids it with
  an Art. 12 reason or gives its number (the words are the model's: ``names``);
- a flag already up on the line before the launch and still up at the launch line was not
  raised in play: the wheel still reports it, but not whether it speaks of this spin (a
  fault latched for thousands of idle lines, a failed launch's flag kept into the
  relaunch): never a plain result, and no article either: held, whatever the flag;
- the rotor speed (``SSS``) in play: 0 is (g) ``wheel_stopped`` (the readings below
  ``min_rotor_rpm`` on its way down are that stop); above 0 and below ``min_rotor_rpm`` is
  (f); a direction that flips between two readings above 0 is (f) too;
- the extended fields, over the whole play: the ball revolutions ``RR`` of the last line of
  play (its state-5 line) below ``min_ball_revolutions`` are (a); a count the wheel gave and
  then blanked, one that went down, or none at all are no count: held. One line's ``RR``
  is no certainty either (one flipped bit turns a 2 into a 3, a 3 into a 2): the ball made
  the minimum when two lines of play report at least that many (a count never goes down,
  so the one of them that is right shows it), and it made fewer when the last two lines
  with a count report the same count below it, the last of them of state 5 (the ball at
  rest: it left the track a while before, and both lines show its whole run); a state-5
  line that leaves it open does not conclude the spin (the next line may), and a spin
  that ends so is held. A ball direction ``B`` equal to the rotor's ``D`` (or,
  given only at the end, to the rotor's direction in play) is (b) once the next line of
  play shows it too; a ``B`` that changes, or never given for a ball that made the
  minimum, cannot judge (b): held;
- the number needs two lines that give it (the protocol has no checksum: one flipped bit
  turns a state-4 line, whose ``NN`` is the previous number, into a state-5 line): the
  bare number line and the first state-5 line, or without a bare line the first two
  state-5 lines (the wheel stays in state 5 for two rotor revolutions, the SlingShot 2's
  guide; its bare line may be off or lost). Every bare number line and state-5 line in
  play must give the same ``NN``; one that differs, one line alone, state 4 after a
  state-5 line, or a line after "no va más" where the bare number is sent that is not a
  pocket's number, holds it, with the ``candidates`` the lines gave;
- Art. 12 (c) is not measured: a serial wheel does not say when the ball left the track.
  A ball that never gives a number is held (or voided by the wheel's flags' findings).

An Art. 12 finding is certain (the wheel's own sensors, or its reported speed): a spin with
one is invalid even when something else is uncertain (kept in the evidence as
``uncertain``); a spin with none is a result only when nothing is uncertain.

Times are seconds on the controller clock; speeds rpm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from controller.games.roulette import art12
from controller.games.roulette.art12 import Finding, Uncertain
from controller.games.roulette.records import Measured
from controller.protocols.wheel_status import (
    FLAG_BALL_NOT_SENSED,
    FLAG_FAULT,
    FLAG_NAMES,
    FLAG_SAME_DIRECTION,
    FLAG_VOID_GAME,
    StatusLine,
)
from controller.store.records import ABSENT

_HELD_FLAGS = (FLAG_BALL_NOT_SENSED, FLAG_VOID_GAME)


def _flag_up(flag: int) -> Callable[[StatusLine, float], bool]:
    return lambda line, rpm: bool(line.flags & flag)


def _turning(direction: str) -> Callable[[StatusLine, float], bool]:
    return lambda line, rpm: rpm == 0 or line.direction == direction


def _with_rotor(line: StatusLine, rpm: float) -> bool:
    """The line reports the ball turning as the rotor (extended ``B`` equal to ``D``)."""
    return line.extended and art12.same_direction(line.ball_direction, line.direction) is not None


@dataclass
class Verdict:
    """A spin's verdict: ``reasons`` (Art. 12, CONTRACT §1 order: invalid), else ``held``
    (cause -> why: held for a person), else a result, ``number`` the winning pocket."""

    reasons: tuple[str, ...]
    held: dict[str, str]
    number: str | None
    evidence: Measured


@dataclass
class SerialSpin:
    """Everything the wheel reported of one spin, from its launch line to its conclusion.

    Attributes:
        number: the spin's number (the game's).
        launch_t: when the first state-3 line came (seconds).
        game: the wheel's game counter at the launch (``GGG``).
        launch_line: that line's text.
        up: the warning flags of the line before the launch (the last one outside play);
            then of the last line of play.
        before: the line before the launch, and when it came (for the evidence).
    """

    number: int
    launch_t: float
    game: int
    launch_line: str
    up: int = 0
    before: str = ""
    no_more_bets_t: float | None = None
    flags: int = 0
    carried: int = 0  # flags up before the launch and still up at the launch line
    findings: dict[str, str] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)
    rotor_dirs: dict[str, int] = field(default_factory=lambda: {"cw": 0, "ccw": 0})
    launch_direction: str | None = None
    last_direction: str | None = None
    rpm_min: float | None = None
    stopped_at: str | None = None  # the first line in play with speed 0
    slow: Finding | None = None  # the first reading in play below min_rotor_rpm (f)
    rpm: float | None = None
    extended: bool = False  # a line of play had the extended fields
    revolutions: int | None = None  # the last count RR given in play
    counts: list[tuple[int, int, str]] = field(default_factory=list)  # (RR, S, where)
    count_blanked: str | None = None  # a line of play with no count after one with a count
    ball_dirs: dict[str, str] = field(default_factory=dict)  # B -> the first report of it
    same_dir: Finding | None = None  # the first report of B equal to the rotor's D (b)
    bare: list[tuple[str | None, str]] = field(default_factory=list)  # (number, where)
    fives: list[tuple[str | None, str]] = field(default_factory=list)  # state-5 NN, where
    lines: int = 0
    concluded: bool = False
    declared: bool = False
    names: dict[int, str] = field(default_factory=lambda: dict(FLAG_NAMES))  # the model's
    # The last line's readings that need the next line (confirm, persists, what).
    _pending: list[tuple[Callable[[], None], Callable[[StatusLine, float], bool], str]] = (
        field(default_factory=list))
    _lone_at: str = ""  # the last line of play measured, in words
    _flipped_from: str | None = None  # the rotor's direction before a flip on one line
    _run: int = 0  # lines in a row that read the rotor turning ``last_direction``

    @property
    def ball_direction(self) -> str | None:
        """The ball's direction the wheel reported (``B``), when it gave one only."""
        return next(iter(self.ball_dirs)) if len(self.ball_dirs) == 1 else None

    def add(self, finding: Finding | Uncertain | None) -> None:
        """Keep an Art. 12 finding, or why the evidence is uncertain; the first stands."""
        if isinstance(finding, Finding):
            self.findings.setdefault(finding.reason, finding.detail)
        elif isinstance(finding, Uncertain):
            self.held.setdefault(finding.input, finding.detail)

    def launched(self, before: StatusLine, before_t: float, line: StatusLine) -> None:
        """The launch line ``line`` came after ``before`` (at ``before_t``): the flags
        up on both were not raised in play."""
        self.up = before.flags
        self.carried = before.flags & line.flags
        self.before = f"{before.text!r} at {before_t:.3f} s"

    def measure(self, t: float, line: StatusLine, rpm: float, min_rpm: float) -> None:
        """One status line of this spin's play (states 3 and 4, and its state-5 lines):
        its warning flags, and in states 3-4 the rotor's speed (``rpm``) and direction;
        its extended fields. ``min_rpm`` is ``min_rotor_rpm`` (Art. 12 f). A flag raised,
        a rotor stopped or slow, or a direction flipped on one line is a finding once the
        next line of play shows it too (:meth:`_confirm`)."""
        self.lines += 1
        where = f"{line.text!r} at {t:.3f} s"
        self._confirm(line, rpm, min_rpm, where)
        raised = line.flags & ~self.up
        self.up = line.flags
        self.flags |= line.flags
        for flag, finding in ((FLAG_SAME_DIRECTION, art12.same_direction_reported),
                              (FLAG_FAULT, art12.wheel_malfunction_reported)):
            if raised & flag:
                self._lone(partial(self.add, finding(where)),
                           _flag_up(flag), f"warning flag {flag}")
        for flag in _HELD_FLAGS:
            if raised & flag:
                self.add(art12.reason_not_named(
                    f"wheel_flag_{flag}", f"the wheel reported {self.names[flag]} (warning "
                    f"flag {flag}) during play, {where}"))
        self._ball(line, where)
        if line.state not in (3, 4):
            self._lone_at = where
            return  # the state-5 line: the ball is at rest, the rotor's speed is not play's
        self.rpm = rpm
        self.rpm_min = rpm if self.rpm_min is None else min(self.rpm_min, rpm)
        if rpm == 0:
            if self.stopped_at is None:
                self._lone(partial(setattr, self, "stopped_at", where),
                           lambda ln, r: r == 0, "the rotor at rest")
            self._lone_at = where
            return  # a rotor at rest has no direction to read
        if self.slow is None and (slow := art12.wheel_malfunction_slow(rpm, min_rpm)):
            self._lone(partial(setattr, self, "slow", slow), lambda ln, r: r < min_rpm,
                       f"the rotor at {rpm:g} rpm")
        if self.launch_direction is None:
            self.launch_direction = line.direction
        self.rotor_dirs[line.direction] += 1
        before, self.last_direction = self.last_direction, line.direction
        reversed_ = art12.wheel_malfunction_reversed(before, line.direction, t)
        if reversed_ and self._run < 2:
            # The direction before the flip was one line's (the launch line's, or one right
            # after a flip): the line that is wrong may be that one.
            self.held.setdefault("wheel_line", f"one line of play ({self._lone_at}) "
                                 f"reported the rotor turning {before} and the next "
                                 f"({where}) {line.direction}: one line is no certainty")
        elif reversed_:
            self._flipped_from = before
            self._lone(partial(self.add, reversed_),
                       _turning(line.direction),
                       f"the rotor turning {line.direction}")
        self._run = 1 if reversed_ else self._run + 1
        ball = line.ball_direction if line.extended else None
        if self.same_dir is None and (found := art12.same_direction(ball, line.direction)):
            self._lone(partial(self._same_direction, Finding(found.reason,
                                                             f"{found.detail} ({where})")),
                       _with_rotor, f"the ball turning {ball} as the rotor")
        self._lone_at = where

    def _same_direction(self, found: Finding) -> None:
        """Art. 12 (b) from the extended ``B`` against ``D``, the first report the next
        line confirmed."""
        if self.same_dir is None:
            self.same_dir = found

    def _lone(self, confirm: Callable[[], None],
              persists: Callable[[StatusLine, float], bool], what: str) -> None:
        """A reading of this line that is a finding only if the next line shows it too."""
        self._pending.append((confirm, persists, what))

    def after_play(self, t: float, line: StatusLine, rpm: float, min_rpm: float) -> None:
        """A status line that ends the play (a new game's state 1 or 2) or cuts it (a
        counter or state it cannot have): the last line of play's lone readings against
        it (:meth:`_confirm`); its flags and speed are the wheel's still."""
        self._confirm(line, rpm, min_rpm, f"{line.text!r} at {t:.3f} s")

    def _confirm(self, line: StatusLine | None, rpm: float, min_rpm: float,
                 where: str) -> None:
        """The last line's lone readings against ``line``, the line after it (None: none
        came, a silence, a person's void). A reading the next line does not show, or that
        no line followed, is no finding and no result: one line is no certainty (no
        checksum; one flipped bit turns a ``W`` of 0 into 2, a ``D`` of 1 into 0, an
        ``SSS`` of 100 into 000): held."""
        pending, self._pending = self._pending, []
        for confirm, persists, what in pending:
            if line is not None and persists(line, rpm):
                confirm()
                continue
            after = "no line came after it" if line is None else f"the next ({where}) did not"
            self.held.setdefault("wheel_line", f"one line of play ({self._lone_at}) "
                                 f"reported {what} and {after}: one line is no certainty")
            if what.startswith("the rotor turning"):
                self.last_direction = self._flipped_from  # the flip was not the rotor's

    def _ball(self, line: StatusLine, where: str) -> None:
        """The extended fields of a line of play: once a line of play had them, a line
        without them gives no count and no direction (Art. 12 a, b)."""
        self.extended = self.extended or line.extended
        if not self.extended:
            return
        count = line.revolutions if line.extended else None
        if count is None:
            if self.revolutions is not None and self.count_blanked is None:
                self.count_blanked = where
        else:
            if self.revolutions is not None and count < self.revolutions:
                self.held.setdefault("wheel_revolutions", f"the ball revolutions went down "
                                     f"from {self.revolutions} to {count} ({where}): not "
                                     "one ball's count")
            self.revolutions = count
            self.counts.append((count, line.state, where))
            self.count_blanked = None
        ball = line.ball_direction if line.extended else None
        if ball is not None:
            self.ball_dirs.setdefault(ball, where)

    def five(self, number: str | None, where: str) -> bool:
        """A state-5 line of play gave ``number`` (its ``NN``; None blank): True when
        the spin can be concluded now, its number witnessed by two lines or contradicted:
        a bare number line came before it, or this is its second state-5 line. The
        protocol has no checksum (one flipped bit turns a state-4 line, whose ``NN`` is
        the previous number, into a state-5 line); the wheel stays in state 5 for two
        rotor revolutions (the SlingShot 2's guide), several lines, and the bare number
        may be off (its operating mode) or lost."""
        self.fives.append((number, where))
        return len(self.fives) >= 2 or bool(self.bare)

    @property
    def waiting(self) -> bool:
        """The last line of play has a reading the next line must confirm (:meth:`_confirm`)."""
        return bool(self._pending)

    def candidates(self, order: tuple[str, ...]) -> list[str]:
        """The pockets of this wheel that the bare number lines and the state-5 lines of
        play gave, each once (the bare lines' first)."""
        given = [n for n, _ in self.bare] + [n for n, _ in self.fives]
        return [n for i, n in enumerate(given) if n in order and n not in given[:i]]

    def number_line(self, number: str | None, where: str) -> None:
        """A bare number line in play (``number``), or a line where one is expected that
        is not a pocket's number (None); ``where`` says which line and when."""
        self.bare.append((number, where))

    @property
    def rotor_direction(self) -> str | None:
        """The rotor's direction in play: most of its readings; on a tie, the first."""
        cw, ccw = self.rotor_dirs["cw"], self.rotor_dirs["ccw"]
        if cw != ccw:
            return "cw" if cw > ccw else "ccw"
        return self.launch_direction

    def judge(self, number: str | None, order: tuple[str, ...], minimum: int,
              final: bool, line: str | None) -> Verdict:
        """The verdict at the spin's end.

        Args:
            number: the state-5 line's ``NN`` (None: no number was reported).
            order: the wheel's pockets (a number not on this wheel is not a result).
            minimum: ``min_ball_revolutions`` (Art. 12 a).
            final: the ball's run is over (a state-5 line, or the wheel back to a new
                game): the extended revolutions count is its whole run.
            line: the line that concluded the spin (its text), if any.
        """
        self._confirm(None, 0.0, 0.0, "")  # readings no line came after: held
        if self.stopped_at is not None:
            self.add(art12.wheel_stopped_still())
        else:
            self.add(self.slow)
        if final and self.extended:
            self._revolutions(minimum)
        self._direction(minimum if final else None)
        self._carried()
        self._numbers(number, order)
        reasons = art12.ordered(self.findings)
        held = {} if reasons else dict(self.held)
        if not reasons and not held and number is None:
            held["wheel_number"] = "the spin ended with no winning number"
        return Verdict(reasons, held, None if reasons or held else number,
                       self.evidence(reasons, line))

    def _revolutions(self, minimum: int) -> None:
        """Art. 12 (a) from the count of the last line of play, when it is a count and
        certain (:meth:`made_minimum`); else held."""
        if self.count_blanked is not None:
            self.held.setdefault("wheel_revolutions", f"the wheel reported {self.revolutions} "
                                 f"ball revolutions, then none ({self.count_blanked}): the "
                                 "ball's count is not known (Art. 12 a)")
        elif self.revolutions is None:
            self.held.setdefault("wheel_revolutions", "the wheel's extended lines gave no "
                                 "ball revolutions during play: Art. 12 (a) cannot be judged")
        elif "wheel_revolutions" in self.held:
            return  # the count went down: not one ball's, no count to judge on
        elif (made := self.made_minimum(minimum)) is None:
            self.held.setdefault("wheel_revolutions", self._count_unconfirmed(minimum))
        elif not made:
            self.add(art12.too_few_revolutions(self.revolutions, self.revolutions, minimum))

    def made_minimum(self, minimum: int) -> bool | None:
        """Whether the ball made ``minimum`` revolutions (Art. 12 a), from the extended
        counts of play, when one line cannot have made the answer (no checksum: one flipped
        bit turns a 2 into a 3): True when two lines report at least ``minimum`` (a count
        never goes down, and of two lines one is right); False when the last two lines
        with a count report the same count below it, the last of them of state 5 (the ball
        at rest; it left the track a while before, and the line before came in that while:
        both show its whole run); else None."""
        if sum(1 for count, _, _ in self.counts if count >= minimum) >= 2:
            return True
        last = self.counts[-2:]
        if len(last) == 2 and last[1][1] == 5 and last[0][0] == last[1][0] < minimum:
            return False
        return None

    def count_pending(self, minimum: int) -> bool:
        """The extended counts of play do not tell yet whether the ball made ``minimum``
        revolutions, and a later line of play may (:meth:`made_minimum`): a state-5 line
        does not conclude the spin then."""
        return (self.extended and self.revolutions is not None
                and self.count_blanked is None and "wheel_revolutions" not in self.held
                and self.made_minimum(minimum) is None)

    def _count_unconfirmed(self, minimum: int) -> str:
        count, _, where = self.counts[-1]
        if count >= minimum:
            return (f"one line of play alone reported at least {minimum} ball revolutions "
                    f"({count}, {where}): one line is no certainty (no checksum); Art. 12 "
                    "(a) cannot be judged")
        return (f"the wheel reported {count} ball revolutions, fewer than {minimum} "
                f"({where}), and no line before it gave the same with a state-5 line "
                "(the ball at rest) after it: one line is no certainty (no checksum); "
                "Art. 12 (a) cannot be judged")

    def _direction(self, minimum: int | None) -> None:
        """Art. 12 (b) from the ball directions of play; ``minimum`` when the run is over
        (a ball that made it has a direction to report)."""
        if len(self.ball_dirs) > 1:
            seen = ", ".join(f"{d} ({w})" for d, w in self.ball_dirs.items())
            self.held.setdefault("wheel_ball_direction", f"the wheel reported the ball "
                                 f"turning {seen} during play: its direction is not known "
                                 "(Art. 12 b)")
            return
        self.add(self.same_dir)
        self.add(art12.same_direction(self.ball_direction, self.rotor_direction))
        count = self.revolutions
        if (minimum is not None and self.extended and self.ball_direction is None
                and count is not None and count >= minimum and self.count_blanked is None):
            self.held.setdefault("wheel_ball_direction", f"the ball made {count} revolutions "
                                 "and the wheel's extended lines never gave its direction: "
                                 "Art. 12 (b) cannot be judged")

    def _carried(self) -> None:
        """Flags up since before the launch: held (no article, no plain result)."""
        for flag in sorted(FLAG_NAMES):
            if self.carried & flag:
                self.held.setdefault(
                    f"wheel_flag_{flag}", f"warning flag {flag} ({self.names[flag]}) was up "
                    f"before the launch ({self.before}) and still up at the launch line "
                    f"({self.launch_line!r} at {self.launch_t:.3f} s): the wheel reports it "
                    "during play, not whether it speaks of this spin; no Art. 12 reason is "
                    "named: the dealer or inspector voids the spin with one (void "
                    "reason=...) or gives its number (confirm_result)")

    def _numbers(self, number: str | None, order: tuple[str, ...]) -> None:
        """The state-5 ``NN`` against the bare number lines, the other state-5 lines and
        the wheel's pockets: a number is certain only when a second line gives it too."""
        if number is None:
            return
        for bare, where in self.bare:
            if bare is None:
                self.held.setdefault("wheel_number", f"{where}, where the wheel sends the "
                                     "bare winning number, is not a pocket's number")
            elif bare != number:
                self.held.setdefault("wheel_number", f"the bare number line said "
                                     f"{bare!r} ({where}), the state-5 line {number!r}")
        for other, where in self.fives:
            if other != number:
                self.held.setdefault("wheel_number", f"the state-5 lines said {number!r} "
                                     f"({self.fives[0][1]}) and {other or 'blank'!r} "
                                     f"({where}): one of them is not the wheel's")
        if [n for n, _ in self.fives + self.bare].count(number) < 2:
            first = self.fives[0][1] if self.fives else "its state-5 line"
            self.held.setdefault("wheel_number", f"only one line gave {number!r} ({first}) "
                                 "and no second line (the bare number or another state-5 "
                                 "line) confirmed it: the protocol has no checksum, one "
                                 "line is not certain")
        if number not in order:
            self.held.setdefault("wheel_number", f"{number!r} is not a pocket of this wheel")

    def evidence(self, reasons: tuple[str, ...], line: str | None) -> Measured:
        """The measurements behind the verdict, for the journal and recall."""
        return Measured(
            ball_revolutions=self.revolutions,
            ball_direction=self.ball_direction,
            rotor_direction=self.rotor_direction,
            rotor_rpm=None if self.rpm is None else round(self.rpm, 3),
            launch_t=round(self.launch_t, 6),
            no_more_bets_t=None if self.no_more_bets_t is None
            else round(self.no_more_bets_t, 6),
            wheel_source="serial",
            wheel_game=self.game,
            wheel_flags=[f for f in sorted(FLAG_NAMES) if self.flags & f],
            wheel_flags_before_launch=[f for f in sorted(FLAG_NAMES) if self.carried & f],
            rotor_rpm_min=None if self.rpm_min is None else round(self.rpm_min, 3),
            status_lines=self.lines,
            bare_numbers=[bare for bare, _ in self.bare],
            state5_numbers=[five for five, _ in self.fives],
            concluded_by=line,
            details={r: self.findings[r] for r in reasons},
            uncertain=dict(self.held) if reasons and self.held else ABSENT,
        )
