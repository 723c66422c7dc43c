"""The process the kill test SIGKILLs (tests/test_kill.py): a table on a durable journal,
playing a trace on trace time at a pace set so that it lasts seconds.

``python tests/kill_child.py TRACE JOURNAL CONFIG SECONDS [HELD]``: starts as the daemon
does (verify from the last checkpoint, ``startup``, recovery), then goes on with the trace
from where the journal says the table was, as a real table's inputs go on during an outage:
the shoe bytes, dealer inputs and bets the journal holds are not sent again, nor the GPIO
edges up to its last record (so a card table's restart in a coup is told none was dealt
meanwhile: ``lost_cards`` []). It prints ``ready`` once recovered, and ends cleanly at the
end. With ``HELD`` (``lines`` or ``notes``), it SIGKILLs itself the ``HELD_AFTER``-th time
an event leaves that kind held for the next commit (``controller.core.held``) while a game
is open, first printing ``held LINES NOTES SEQ``: the kill falls between a held record and
its commit. With ``KILL_MARK`` (a fraction, 0 to 1) in its environment, it prints ``mark``
once it has played that fraction of what is left of the trace, and goes on: the kill test
kills it a moment later, wherever it is then, so the kills fall in play however loaded the
machine is.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import replace

from controller.cli.compose import load_config, read_trace
from controller.cli.daemon.run import start_table
from controller.cli.main import RUN_ON_S
from controller.core.clock import VirtualClock
from controller.core.config import apply_overrides
from controller.core.events import BetPlaced, DealerInput, GpioEdge, SerialData
from controller.core.logs import configure, get_logger
from controller.core.table import Table
from controller.store.journal import Journal


def _holding(table: Table, kind: str) -> bool:
    """``kind`` (``lines``, ``notes``) is held while a game is open."""
    lines, notes = table.held()
    return (lines if kind == "lines" else notes) > 0 and table.game.open_game() is not None


def main(trace_path: str, journal_path: str, config_path: str, seconds: float,
         held: str = "") -> int:
    configure("error")
    trace = read_trace(trace_path)
    config = apply_overrides(load_config(config_path), trace.meta, trace_path)
    journal = Journal(journal_path, durable=True)
    db = journal.db
    serial = int(db.execute("SELECT coalesce(sum(length(json_extract(body, '$.text'))), 0) "
                            "FROM records WHERE type = 'serial'").fetchone()[0])
    # The trace's dealer inputs journaled (not this script's own lost_cards, below).
    inputs = int(db.execute("SELECT count(*) FROM records WHERE type = 'input' AND "
                            "json_extract(body, '$.action') IS NOT 'lost_cards'").fetchone()[0])
    bets = int(db.execute(
        "SELECT count(*) FROM records WHERE type IN ('bet', 'bet_placed') OR (type = 'alarm' "
        "AND json_extract(body, '$.code') = 'bet_refused')").fetchone()[0])
    last_t = journal.last_t
    events = []
    for event in trace.events:
        if isinstance(event, SerialData) and serial:
            if len(event.data) <= serial:
                serial -= len(event.data)
                continue
            event = replace(event, data=event.data[serial:])
            serial = 0
        elif isinstance(event, DealerInput) and inputs:
            inputs -= 1
            continue
        elif isinstance(event, BetPlaced) and bets:
            bets -= 1
            continue
        elif isinstance(event, GpioEdge) and event.t <= last_t:
            continue
        events.append(event)
    clock = VirtualClock(max(last_t, trace.events[0].t))
    loop, table = start_table(config, journal, clock, get_logger())
    waiting = getattr(table.game, "waiting", None)
    if waiting is not None and waiting.lost is not None:
        # A card table restarted in a coup stops for the cards dealt while it was down
        # (issue 16, item 2): none were, the trace goes on from where the journal is.
        table.handle(DealerInput(clock.now(), "lost_cards", {"cards": []}))
    print("ready", flush=True)
    pace = seconds / max(1, len(trace.events))
    times = int(os.environ.get("HELD_AFTER", "1"))
    mark = int(float(os.environ.get("KILL_MARK", "2")) * len(events))
    for n, event in enumerate(events):
        if n == mark:
            print("mark", flush=True)
        loop.run_events([event])
        if held and _holding(table, held) and (times := times - 1) == 0:
            lines, notes = table.held()
            print("held", lines, notes, journal.last_seq, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(pace)
    loop.run_until_idle(trace.duration + RUN_ON_S)
    table.end_of_input("the trace ended")
    table.shutdown("the trace ended")
    journal.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), *sys.argv[5:]))
