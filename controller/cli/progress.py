"""A progress bar for long exact computations on a terminal (``tablectl analyze``)."""

from __future__ import annotations

import time
from typing import TextIO


class ProgressBar:
    """A one-line progress bar on ``stream``, shown only once the work has taken more than
    ``after_s`` seconds (a quick answer prints nothing but the answer).

    The bar redraws itself with carriage returns, which only a terminal makes one line:
    on anything else (a file, a pipe, a log) it writes one line when it would first show,
    and one when the work is done.
    """

    def __init__(self, stream: TextIO, after_s: float = 1.0, width: int = 40) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.after_s = after_s
        self.width = width
        self.shown = False
        try:
            self.terminal = stream.isatty()
        except (AttributeError, ValueError):  # no isatty, or the stream is closed
            self.terminal = False

    def update(self, fraction: float) -> None:
        """Show ``fraction`` (0 to 1) of the work done."""
        elapsed = time.monotonic() - self.start
        if elapsed < self.after_s:
            return
        if not self.terminal:
            if not self.shown:
                self.shown = True
                self.stream.write(f"working: {fraction:.1%} done after {elapsed:.1f} s\n")
                self.stream.flush()
            return
        self.shown = True
        filled = int(fraction * self.width)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{fraction:6.1%}")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line (a terminal's), or write the closing line (anything else)."""
        if self.shown:
            self.stream.write("\n" if self.terminal else
                              f"done in {time.monotonic() - self.start:.1f} s\n")
            self.stream.flush()
