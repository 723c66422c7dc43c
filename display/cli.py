"""``table-display``: the table's screen, served from its journal, read-only.

    table-display [--config FILE] [--journal FILE] [--listen HOST:PORT]

It reads the journal the config names (``--journal`` overrides it) and never writes it;
it serves ``/``, ``/pit``, ``/rules``, ``/state.json`` and ``/events`` on ``[display]
listen`` (``127.0.0.1:8321`` by default; ``--listen`` overrides it). Its start banner, one
line on stderr, gives the page's address. Exit 0 on SIGTERM or Ctrl-C; 2 for a bad config
or option (one line naming it); 1 when the address cannot be listened on.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence

import uvicorn

from controller.core.config import DEFAULT_CONFIG
from controller.core.errors import ConfigError
from display import board as board_module
from display.config import DisplayConfig, load
from display.rules import rules_text
from display.server import Hub, make_app


def parser() -> argparse.ArgumentParser:
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


def _bind(cfg: DisplayConfig) -> socket.socket:
    family = socket.AF_INET6 if ":" in cfg.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((cfg.host, cfg.port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        cfg = load(args.config, args.journal, args.listen)
    except ConfigError as exc:
        print(f"table-display: {exc}", file=sys.stderr)
        return 2
    spec = cfg.table.spec
    if not spec.display:
        print(f"table-display: a {spec.name} table has no screen", file=sys.stderr)
        return 2
    try:
        sock = _bind(cfg)
    except OSError as exc:
        print(f"table-display: cannot listen on {cfg.host}:{cfg.port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 1
    cfg = DisplayConfig(cfg.table, cfg.journal, cfg.host, sock.getsockname()[1],
                        cfg.language, cfg.history, cfg.stats_history)
    hub = Hub()
    board = board_module.Board(cfg, hub.publish_threadsafe)
    _, stop = board_module.start(board)
    app = make_app(hub, cfg.language, rules_text(spec))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           lifespan="on", timeout_graceful_shutdown=1))
    try:
        # One fact a line: each fits 80 columns (a long journal path keeps its own line).
        # Printed inside the try: a Ctrl-C as soon as it is read is a stop too.
        print(f"table-display: the table's screen at {cfg.address}\n"
              f"               the pit's page {cfg.address}pit\n"
              f"               the rules {cfg.address}rules\n"
              f"               {spec.title}, its journal read-only:\n"
              f"               {cfg.journal}\n"
              "               Ctrl-C stops it", file=sys.stderr, flush=True)
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C (or make run's) while uvicorn shuts down: a stop
        pass
    finally:
        stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
