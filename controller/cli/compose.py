"""The composition root: the only controller module that wires the table, its loop and its
journal together (the daemon, both replays and the tests build it here), and the exit
statuses ``table-controller`` shares. The controller logic itself never touches hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.cli.daemon.journal_guard import JournalGuard
from controller.core.config import Config
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

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
    if guard is not None:
        guard.bind(loop.call_at, table.emit)
    return loop, table
