"""The composition root: the only controller module that wires the table, its loop and its
journal together (the daemon, both replays and the tests build it here), the one place the
registry of games is asked (:func:`games`: the config, the trace reader and every tool are
handed what it found), and the exit statuses ``table-controller`` shares. The controller
logic itself never touches hardware.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from controller.cli.daemon.journal_guard import JournalGuard
from controller.core import registry
from controller.core.config import DEFAULT_CONFIG, Config, check_for_daemon, read_config
from controller.core.loop import EventLoop
from controller.core.specs import Games
from controller.core.table import Table
from controller.store.journal import Journal
from controller.trace import Trace
from controller.trace import read_trace as read_trace_of

EXIT_BAD_INPUT = 2
EXIT_JOURNAL_UNREADABLE = 3
"""A record recovery cannot read: the start stops; restarting cannot help (the unit's
``RestartPreventExitStatus``)."""
EXIT_JOURNAL_UNWRITABLE = 4
"""A commit failed (disk full, read-only file system): the input was not journaled and
not acted on; the daemon stops, and recovers from the journal once restarted."""


def compose(config: Config, journal: Journal, clock: Any,
            sink: Callable[[str], None] | None = None, wall: bool = False,
            guard: JournalGuard | None = None) -> tuple[EventLoop, Table]:
    """The controller for ``config``: its loop on ``clock`` and the table it feeds. The one
    place the daemon, both replays and the tests build it; the hardware comes on top. With
    a ``guard`` (the daemon) a journal that cannot be written puts the table in the journal
    failing state instead of stopping the loop (``controller.cli.daemon.journal_guard``)."""
    loop = EventLoop(clock, lambda e: None)
    schedule = loop.call_at if guard is None else guard.schedule(loop.call_at)
    table = Table(config, journal, schedule, clock.now, sink,
                  wall=clock.wall if wall else None)
    loop.handler = table.handle if guard is None else guard.handler(table.handle)
    if guard is None:  # a replay's edges, without an object each (the daemon's are posted)
        loop.edge_handler = table.edge
    loop.on_doubt = table.timing_doubt
    if guard is not None:
        guard.bind(loop.call_at, table.emit)
    return loop, table


def games() -> Games:
    """The registered games (``controller/games/__init__.py``): the one lookup of the
    registry, whose result every process hands down."""
    return registry.games()


def load_config(path: str = DEFAULT_CONFIG, overrides: dict[str, Any] | None = None) -> Config:
    """The config at ``path`` (or the embedded default), read against the registered
    games, with a trace's ``meta`` keys (``overrides``) applied
    (:func:`controller.core.config.read_config`).

    Raises:
        ConfigError: as ``read_config``: names the file, line and key.
    """
    return read_config(games(), path, overrides)


def load_daemon_config(path: str) -> Config:
    """:func:`load_config` and the daemon's own checks
    (:func:`controller.core.config.check_for_daemon`): the config the daemon would run on
    (the install checks it so).

    Raises:
        ConfigError: as both.
    """
    config = load_config(path)
    check_for_daemon(config)
    return config


def read_trace(path: str, serial_ports: Iterable[str] | None = None) -> Trace:
    """The checked trace at ``path``, read against the registered games
    (:func:`controller.trace.read_trace`).

    Raises:
        TraceError: names the file, line and field.
    """
    return read_trace_of(path, games(), serial_ports)
