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
import sys
from collections.abc import Sequence

from display.stops import StopSignals


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
