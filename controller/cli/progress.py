"""A progress bar for long exact computations on a terminal (``tablectl analyze``)."""

from __future__ import annotations

import time
from typing import TextIO


class ProgressBar:
    """A one-line progress bar on ``stream``, shown only once the work has taken more than
    ``after_s`` seconds (a quick answer prints nothing but the answer)."""

    def __init__(self, stream: TextIO, after_s: float = 1.0, width: int = 40) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.after_s = after_s
        self.width = width
        self.shown = False

    def update(self, fraction: float) -> None:
        """Show ``fraction`` (0 to 1) of the work done."""
        if time.monotonic() - self.start < self.after_s:
            return
        self.shown = True
        filled = int(fraction * self.width)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{fraction:6.1%}")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
