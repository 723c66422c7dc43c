"""The status-line protocol of automated wheels (issue 12): bytes in, frozen line
records out, no I/O.

Wheels with their own sensors (Cammegh's SlingShot and Mercury families among them) report
over RS-232, 9600 baud 8N1, one line at a time, ending in CR (CR LF and LF accepted):

- the status line ``*X;S;GGG;NN;W;SSS;D``, about every half second: ``S`` the wheel's state
  (1 start, 2 bets open with the rotor turning, 3 ball in the rim, 4 no more bets, 5 winning
  number, 6 table closed or idle, 7 some firmware's extra state), ``GGG`` a game counter,
  ``NN`` the last winning number (two spaces before the first; one digit padded with a
  space, `` 0``; ``00`` double zero), ``W`` a hex digit of warning flags (1 ball removed on
  a SlingShot 2, rotor speed outside its limits on a Mercury 360: :data:`MODELS`; 2 ball in
  the same direction as the rotor, 4 a sensor, motor or encoder fault, 8 a void game or
  failed launch), ``SSS`` the rotor speed (in the wheel's units: the
  table's config says how many rpm one unit is), ``D`` the rotor's direction (0 clockwise,
  1 counterclockwise);
- the **extended** status line, where the firmware has it: two fields more,
  ``*X;S;GGG;NN;W;SSS;D;RR;B``: ``RR`` the ball revolutions of the game in play (two
  digits, space padded; blank when no ball runs) and ``B`` the ball's direction (0
  clockwise, 1 counterclockwise; a space until measured);
- the bare winning number on a line of its own, sent just before state 5 (``32``, `` 0``,
  ``7``, ``00``);
- answers to commands: ``*P OK``, ``*P NO``, ``*o BUSY``, ``*u OK``, ``*T s 14.0 17.5``;
  and the version line ``*V ...``.

Every field has the width of the format: ``S``, ``W``, ``D`` and ``B`` one character,
``NN`` and ``RR`` two, ``GGG`` and ``SSS`` three digits. Anything else is an
:class:`UnknownLine`; a status line with a field out of its form (a garbled line such as
``*X;4;14*X;*X;4;146; 9;0;158;0`` among them) is a :class:`BadStatusLine`, never partly
used; a line longer than :data:`MAX_LINE_BYTES` is
dropped as an :class:`OverlongLine`. Blank lines are skipped. Nothing here raises on input.

Lines are cut by the shared line framer (``controller.protocols.framing.LineFramer``: CR,
LF or CR LF; bounded; never raises).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.protocols.framing import LineFramer, Overlong

MAX_LINE_BYTES = 128
"""Longest line kept, in bytes, line end excluded (a status line is about 20)."""

FLAG_BALL_NOT_SENSED = 1
FLAG_SAME_DIRECTION = 2
FLAG_FAULT = 4
FLAG_VOID_GAME = 8
"""The warning flags of ``W`` (bits of one hex digit)."""

FLAG_NAMES = {
    FLAG_BALL_NOT_SENSED: "ball removed or not sensed",
    FLAG_SAME_DIRECTION: "ball in the same direction as the rotor",
    FLAG_FAULT: "sensor, motor or encoder fault",
    FLAG_VOID_GAME: "void game or failed launch",
}



@dataclass(frozen=True)
class WheelModel:
    """A family of automated wheels: what its flags mean and how its game counter runs
    (the makers' integration guides; issue 16). Both families speak this protocol at
    9600 baud 8N1 with no flow control.

    Attributes:
        name: the config's ``wheel_model`` value.
        title: the family in words.
        flag_names: each warning flag of ``W`` in words.
        first_game, last_game: the game counter's range (``GGG``); after ``last_game``
            the next game is ``first_game``.
        counter_resets_at_close: the counter goes back to ``first_game`` when the table
            closes (state 6), not only at power-on.
    """

    name: str
    title: str
    flag_names: dict[int, str]
    first_game: int
    last_game: int
    counter_resets_at_close: bool = False

    def next_game(self, game: int) -> int:
        """The counter of the game after ``game``: one more, wrapping past the last."""
        return self.first_game if game >= self.last_game else game + 1

    def in_turn(self, last: int, game: int) -> bool:
        """``game`` may follow ``last`` at the next launch: the same (a ball without a
        number, a failed launch), the next (wrapping: 256 to 001 on a SlingShot 2, 255 to
        000 on a Mercury 360) or the first (a power-on; a Mercury's table closed)."""
        return game in (last, self.next_game(last), self.first_game)

    def counter_fits(self, game: int) -> bool:
        return self.first_game <= game <= self.last_game


MODELS = {
    "slingshot2": WheelModel(
        "slingshot2", "Cammegh SlingShot 2", {**FLAG_NAMES, FLAG_BALL_NOT_SENSED:
                                              "ball removed"}, 1, 256),
    "mercury360": WheelModel(
        "mercury360", "Cammegh Mercury 360", {**FLAG_NAMES, FLAG_BALL_NOT_SENSED:
                                              "rotor speed outside its limits"}, 0, 255,
        counter_resets_at_close=True),
}
"""The wheel families by the config's ``wheel_model``: flag 1 is "ball removed" on the
SlingShot 2 and "rotor speed outside its limits" on the Mercury 360; the SlingShot 2
counts games 1-256, the Mercury 360 0-255 (reset when the table closes)."""

STATES = {1: "start", 2: "bets open", 3: "ball in the rim", 4: "no more bets",
          5: "winning number", 6: "closed or idle", 7: "firmware state 7"}
"""The wheel's states (``S``), in words."""


# -- the records ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StatusLine:
    """A well-formed status line.

    Attributes:
        state: ``S``, 1-7 (:data:`STATES`).
        game: ``GGG``, the wheel's game counter (0-999; it does not identify a game).
        number: ``NN``: "0".."36" or "00"; None when blank.
        flags: ``W``, the warning flags (bits of :data:`FLAG_NAMES`).
        speed: ``SSS``, the rotor speed in the wheel's units (0-999).
        direction: ``D``: "cw" (0) or "ccw" (1), the rotor's.
        revolutions: ``RR`` of the extended line, ball revolutions; None when blank or
            not an extended line.
        ball_direction: ``B`` of the extended line, "cw" or "ccw"; None when blank or not
            an extended line.
        extended: the line had the extended fields.
        text: the line as received (Latin-1), without its line end.
    """

    state: int
    game: int
    number: str | None
    flags: int
    speed: int
    direction: str
    revolutions: int | None = None
    ball_direction: str | None = None
    extended: bool = False
    text: str = ""


@dataclass(frozen=True, slots=True)
class NumberLine:
    """The bare winning number on a line of its own ("0".."36", "00"), sent just before
    state 5: one or two digits, one digit maybe padded with a space (" 7", "7", "17")."""

    number: str
    text: str


@dataclass(frozen=True, slots=True)
class CommandAnswer:
    """The wheel's answer to a command: ``*P OK`` is command "P", answer "OK"."""

    command: str
    answer: str
    text: str


@dataclass(frozen=True, slots=True)
class VersionLine:
    """The firmware's version line, ``*V ...``; ``version`` is what follows ``*V``."""

    version: str
    text: str


@dataclass(frozen=True, slots=True)
class BadStatusLine:
    """A line that starts as a status line (``*X;``) but whose ``field`` is out of its
    form; ``why`` says how, in words. Never partly used."""

    text: str
    field: str
    why: str


@dataclass(frozen=True, slots=True)
class UnknownLine:
    """A complete line the codec does not understand; ``text`` is its bytes as Latin-1."""

    text: str


@dataclass(frozen=True, slots=True)
class OverlongLine:
    """A line longer than :data:`MAX_LINE_BYTES`, dropped; ``length`` in bytes, line end
    excluded."""

    length: int


WheelLine = (StatusLine | NumberLine | CommandAnswer | VersionLine | BadStatusLine
             | UnknownLine | OverlongLine)


# -- the codec --------------------------------------------------------------------------
class StatusLineCodec:
    """The automated wheel's line protocol (this module's docstring): ``feed`` the port's
    bytes as they come, get its complete lines as records.

    A line may arrive split across any number of reads, and hundreds in one read (a burst
    after a silence); any split gives the same lines. ``reset`` forgets an unfinished line.
    """

    def __init__(self) -> None:
        self._framer = LineFramer(MAX_LINE_BYTES)
        self._first_t: float | None = None  # when the unfinished line's first byte came

    def reset(self) -> None:
        self._framer.reset()
        self._first_t = None

    def feed(self, data: bytes) -> list[WheelLine]:
        """Add ``data``; return every line it completes, in order; never raises."""
        return [line for _, line in self.feed_timed(data, 0.0)]

    def feed_timed(self, data: bytes, t: float) -> list[tuple[float, WheelLine]]:
        """Add ``data``, arrived at ``t`` (seconds); return every line it completes, in
        order, each with the arrival of its first byte: an earlier read's time for a line
        split across reads, else ``t`` (issue 16: a line is sent whole, so its first byte
        is when the wheel sent it). Never raises."""
        started = t if self._framer.idle() or self._first_t is None else self._first_t
        lines: list[tuple[float, WheelLine]] = []
        frames = self._framer.feed(data)
        for frame in frames:
            line = _record(frame)
            if line is not None:
                lines.append((started, line))
            started = t
        if frames or self._first_t is None or self._framer.idle():
            self._first_t = None if self._framer.idle() else t
        return lines


def _record(frame: bytes | Overlong) -> WheelLine | None:
    if isinstance(frame, Overlong):
        return OverlongLine(frame.length)
    return parse_line(frame.decode("latin-1"))


_NUMBER = re.compile(r" ?(\d{1,2})")
_BARE = re.compile(r" ?\d|\d\d")
_ANSWER = re.compile(r"\*([A-Za-z])(?: (.*))?")
_THREE_DIGITS = re.compile(r"\d{3}")
_REVOLUTIONS = re.compile(r"\d\d| \d")


def parse_line(text: str) -> WheelLine | None:
    """One line (no line end) to its record; None for a blank line."""
    if not text.strip():
        return None
    if text.startswith("*X;"):
        return _status(text)
    if _BARE.fullmatch(text):
        number = _pocket(text)
        if number is not None:
            return NumberLine(number, text)
        return UnknownLine(text)
    if m := _ANSWER.fullmatch(text.rstrip()):
        command, rest = m.group(1), (m.group(2) or "").strip()
        if command == "V":
            return VersionLine(rest, text)
        return CommandAnswer(command, rest, text)
    return UnknownLine(text)


def _pocket(field: str) -> str | None:
    """``NN``: "  " -> None is the caller's; " 7" or "17" -> "7" or "17"; "00"; else None
    ("07" is neither a padded digit nor double zero: ambiguous, refused)."""
    if field == "00":
        return "00"
    m = _NUMBER.fullmatch(field)
    if m is None or (len(field) == 2 and field[0] == "0"):
        return None
    value = int(m.group(1))
    return str(value) if value <= 36 else None


class _Bad(Exception):
    def __init__(self, field: str, why: str) -> None:
        self.field, self.why = field, why


def _status(text: str) -> StatusLine | BadStatusLine:
    fields = text[3:].split(";")
    if len(fields) not in (6, 8):
        return BadStatusLine(text, "fields", f"{len(fields)} fields after *X, expected 6 "
                             "(S;GGG;NN;W;SSS;D) or 8 (extended: ;RR;B)")
    try:
        return _fields(text, fields)
    except _Bad as bad:
        return BadStatusLine(text, bad.field, bad.why)


def _fields(text: str, f: list[str]) -> StatusLine:
    state, game, nn, flags, speed, direction = f[:6]
    if len(state) != 1 or state not in "1234567":
        raise _Bad("S", f"state {state!r} is not 1-7")
    if not _THREE_DIGITS.fullmatch(game):
        raise _Bad("GGG", f"game counter {game!r} is not three digits")
    number = None
    if nn.strip():
        number = _pocket(nn)
        if number is None or len(nn) != 2:
            raise _Bad("NN", f"number {nn!r} is not 0-36 or 00 in two characters")
    elif len(nn) != 2:
        raise _Bad("NN", f"blank number {nn!r} is not two spaces")
    if len(flags) != 1 or flags not in "0123456789ABCDEFabcdef":
        raise _Bad("W", f"warning flags {flags!r} are not one hex digit")
    if not _THREE_DIGITS.fullmatch(speed):
        raise _Bad("SSS", f"rotor speed {speed!r} is not three digits")
    rotor = _direction(direction, "D")
    if rotor is None:
        raise _Bad("D", "blank rotor direction")
    revolutions: int | None = None
    ball: str | None = None
    extended = len(f) == 8
    if extended:
        rr, b = f[6], f[7]
        if rr != "  ":
            if not _REVOLUTIONS.fullmatch(rr):
                raise _Bad("RR", f"ball revolutions {rr!r} are not two digits, one digit "
                           "padded with a space, or two spaces")
            revolutions = int(rr)
        ball = _direction(b, "B")
    return StatusLine(int(state), int(game), number, int(flags, 16), int(speed), rotor,
                      revolutions, ball, extended, text)


def _direction(field: str, name: str) -> str | None:
    """``D`` or ``B``: "0" cw, "1" ccw, one space blank (None); else bad."""
    if field == "0":
        return "cw"
    if field == "1":
        return "ccw"
    if field == " ":
        return None
    raise _Bad(name, f"direction {field!r} is not 0, 1 or one space (blank)")
