"""Traces of an automated wheel that reports over serial (issue 12), for the tests.

:class:`WheelScript` writes the wheel's status lines as CONTRACT §2 ``serial`` events on the
port ``wheel``, in the issue's format ``*X;S;GGG;NN;W;SSS;D`` (extended ``;RR;B``), one line
every ``period`` seconds, in a trace whose ``meta`` says ``wheel_source = "serial"``. Every
field is written here from the issue's text (states 1-7, ``NN`` two characters, space
padded or blank, ``W`` one hex digit, ``SSS`` three digits, ``D`` 0 clockwise, 1
counterclockwise), never from the controller's codec.
"""

from __future__ import annotations

from typing import Any

from conftest import REPO, TraceBuilder

SERIAL_CONFIG = str(REPO / "config" / "roulette-serial-sim.toml")
"""A config with ``[serial.wheel]`` (codec ``status_line``) and ``wheel_source = "serial"``."""

KEEP = object()


def status_text(state: int, game: int, number: str | None, flags: int, speed: int,
                direction: int, rr: int | None = None, ball: int | None = None,
                extended: bool = False) -> str:
    """One status line, without its CR: ``NN`` blank ("  ") for None, one digit padded with
    a space; ``RR`` and ``B`` blank for None."""
    nn = "  " if number is None else number.rjust(2)
    text = f"*X;{state};{game:03d};{nn};{flags:X};{speed:03d};{direction}"
    if extended:
        text += ";" + ("  " if rr is None else f"{rr:>2}") + ";" + (" " if ball is None
                                                                     else str(ball))
    return text


class WheelScript:
    """A scripted automated wheel: status lines from ``t`` = 0.2 s on.

    Args:
        wheel: the wheel's layout (``meta.wheel``).
        extended: write the extended fields.
        game: the wheel's game counter to start with.
        number: the last winning number shown in ``NN`` (None: blank).
        speed: ``SSS`` (tenths of rpm: 160 is 16 rpm).
        direction: ``D`` (0 clockwise, 1 counterclockwise).
        open_at: when the dealer opens bets (None: not opened).
        first_game, last_game: the counter's range (issue 16: 1-256 on a SlingShot 2, the
            default; 0-255 on a Mercury 360): after the last the next game is the first.
        meta: more ``meta`` keys (config overrides, e.g. ``min_ball_revolutions``).
    """

    def __init__(self, wheel: str = "single_zero", extended: bool = False, game: int = 94,
                 number: str | None = "33", speed: int = 160, direction: int = 0,
                 period: float = 0.5, open_at: float | None = 0.1, first_game: int = 1,
                 last_game: int = 256, **meta: Any) -> None:
        self.tb = TraceBuilder(wheel, wheel_source="serial", **meta)
        self.extended = extended
        self.game, self.number, self.speed, self.direction = game, number, speed, direction
        self.period = period
        self.first_game, self.last_game = first_game, last_game
        self.t = 0.2
        if open_at is not None:
            self.tb.inp(open_at, "open_bets")

    def raw(self, text: str, t: float | None = None) -> WheelScript:
        """Bytes as they arrive (no CR added), at ``t`` (default: now, without moving on)."""
        self.tb.add({"t": round(self.t if t is None else t, 6), "serial": "wheel", "text": text})
        return self

    def line(self, text: str) -> WheelScript:
        """One line ending in CR, now; then a period later."""
        self.raw(text + "\r")
        self.t += self.period
        return self

    def status(self, state: int, n: int = 1, *, flags: int = 0, number: Any = KEEP,
               speed: int | None = None, direction: int | None = None,
               rr: int | None = None, ball: int | None = None,
               game: int | None = None) -> WheelScript:
        """``n`` status lines of ``state``, one a period; what is given stays given."""
        if number is not KEEP:
            self.number = number
        if speed is not None:
            self.speed = speed
        if direction is not None:
            self.direction = direction
        if game is not None:
            self.game = game
        for _ in range(n):
            self.line(status_text(state, self.game, self.number, flags, self.speed,
                                  self.direction, rr, ball, self.extended))
        return self

    def wait(self, seconds: float) -> WheelScript:
        """The wheel says nothing for ``seconds``."""
        self.t += seconds
        return self

    def inp(self, action: str, **args: Any) -> WheelScript:
        """A dealer's input, now."""
        self.tb.inp(self.t, action, **args)
        return self

    def bet(self, kind: str, box: int, amount: int, **extra: Any) -> WheelScript:
        self.tb.bet(self.t, kind, box, amount, **extra)
        return self

    def spin(self, result: str | None, *, flags3: int = 0, flags4: int = 0, flags5: int = 0,
             bare: bool = True, rr: int | None = None, ball: int | None = None,
             next_game: bool = True) -> WheelScript:
        """A whole game: bets open (2 lines), ball in the rim (4), no more bets (4), the bare
        number, the winning number ``result`` (3 lines; none for None), then the next game's
        start (with the counter one more)."""
        self.status(2, 2)
        self.status(3, 4, flags=flags3, rr=None if rr is None else min(rr, 1), ball=ball)
        self.status(4, 4, flags=flags4, rr=rr, ball=ball)
        if result is not None:
            if bare:
                self.line(result.rjust(2))
            self.status(5, 3, flags=flags5, number=result, rr=rr, ball=ball)
        if next_game:
            self.status(1, 1, game=self.next_game())
        return self

    def next_game(self) -> int:
        """The counter of the next game: one more, the first after the last."""
        return self.first_game if self.game >= self.last_game else self.game + 1

    def events(self) -> list[dict[str, Any]]:
        return self.tb.events()
