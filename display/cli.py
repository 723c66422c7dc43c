"""``table-display``: the table's screen, served from its journal, read-only.

    table-display [--config FILE] [--journal FILE] [--listen HOST:PORT]

It reads the journal the config names (``--journal`` overrides it) and never writes it;
it serves ``/``, ``/pit``, ``/rules``, ``/state.json`` and ``/events`` on ``[display]
listen`` (``127.0.0.1:8321`` by default; ``--listen`` overrides it). Its start banner, on
stderr once it serves, gives the page's address. Exit 0 on SIGTERM or Ctrl-C (SIGINT) at
any moment, before the banner too, quietly; 2 for a bad config or option (one line naming
it); 1 when the address cannot be listened on.

Both signals are caught on ``main``'s first line, whatever disposition the process
inherited: a background job of a shell without job control (``make run``'s display, a CI
runner's) starts with SIGINT ignored, and a Ctrl-C that came before uvicorn took the
signal over was dropped by the kernel: the display served on, its banner promising that
Ctrl-C stops it. The modules that take a while to import are imported after.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
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


def parser() -> argparse.ArgumentParser:
    from controller.core.config import DEFAULT_CONFIG

    p = argparse.ArgumentParser(prog="table-display", description=(
        "Serve the table's screen (/), the pit's page (/pit), the rules (/rules) and the "
        "state as data (/state.json) from the journal, read-only, with server-sent "
        "events (/events)."))
    p.add_argument("--config", default=DEFAULT_CONFIG,
                   help="the table's TOML config: its journal, game and [display] section "
                        f"(default: {DEFAULT_CONFIG}, the embedded simulated table)")
    p.add_argument("--journal", help="the journal to read (default: the config's "
                                     "[journal] path)")
    p.add_argument("--listen", metavar="HOST:PORT", help="the address to serve on "
                   "(default: the config's [display] listen, 127.0.0.1:8321)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    stops = StopSignals()
    stops.catch()
    args = parser().parse_args(argv)
    from display.serve import serve

    return serve(args.config, args.journal, args.listen, stops)


if __name__ == "__main__":
    sys.exit(main())
