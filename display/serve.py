"""The display's process once :mod:`display.cli` caught its stop signals: its settings, its
listening socket, the board's thread and uvicorn serving the application; the banner is
printed once uvicorn serves (its own handlers of SIGINT and SIGTERM in place, the socket
accepted from), so a stop signal sent as soon as it is read is one uvicorn acts on.
"""

from __future__ import annotations

import socket
import sys
from typing import TYPE_CHECKING

import uvicorn

from controller.core.errors import ConfigError
from display import board as board_module
from display.config import DisplayConfig, load
from display.rules import rules_text
from display.server import Hub, make_app

if TYPE_CHECKING:
    from display.stops import StopSignals


class BannerServer(uvicorn.Server):
    """uvicorn's server that prints ``banner`` on stderr once it has started, unless it was
    asked to exit by then (no banner promises what a stopping process will not keep)."""

    def __init__(self, config: uvicorn.Config, banner: str) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            print(self.banner, file=sys.stderr, flush=True)


def banner(cfg: DisplayConfig) -> str:
    """The start banner: one fact a line, each fitting 80 columns (a long journal path
    keeps a line of its own)."""
    return (f"table-display: the table's screen at {cfg.address}\n"
            f"               the pit's page {cfg.address}pit\n"
            f"               the rules {cfg.address}rules\n"
            f"               {cfg.table.spec.title}, its journal read-only:\n"
            f"               {cfg.journal}\n"
            "               Ctrl-C stops it")


def _bind(cfg: DisplayConfig) -> socket.socket:
    family = socket.AF_INET6 if ":" in cfg.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((cfg.host, cfg.port))
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(config: str, journal: str | None, listen: str | None, stops: StopSignals) -> int:
    """Serve the display of the table's config at ``config`` (``--journal`` and
    ``--listen`` over it) until a stop signal; the exit code (see :mod:`display.cli`)."""
    try:
        cfg = load(config, journal, listen)
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
    try:
        app = make_app(hub, cfg.language, rules_text(spec))
        server = BannerServer(uvicorn.Config(app, log_level="warning", access_log=False,
                                             lifespan="on", timeout_graceful_shutdown=1),
                              banner(cfg))
        stops.hand_to(server)
        server.run(sockets=[sock])
    finally:
        stop.set()
    return 0
