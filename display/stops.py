"""The display's stop signals, caught before anything slow is imported (:mod:`display.cli`
says why): a module of its own, light, that the server's module (:mod:`display.serve`)
hands its server to."""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import uvicorn

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """SIGINT and SIGTERM, each a stop, exit 0.

    Until :meth:`hand_to`, nothing is served: a stop signal ends the process where it is
    (``SystemExit(0)``: no traceback, even outside ``main``). From then on it asks the
    server to exit, as uvicorn's own handlers do while it serves (``Server.serve`` takes
    the signals over, then gives them back and sends itself those it caught).
    """

    def __init__(self) -> None:
        self.server: uvicorn.Server | None = None

    def catch(self) -> None:
        for sig in STOP_SIGNALS:
            signal.signal(sig, self._stop)

    def hand_to(self, server: uvicorn.Server) -> None:
        """From now on a stop signal is ``server``'s to act on (it has not started)."""
        self.server = server

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        if self.server is None:
            sys.exit(0)
        self.server.should_exit = True  # uvicorn skips or ends its loop, then shuts down
