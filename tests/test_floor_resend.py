"""The floor gets back what a killed broker lost (issue 18): Mosquitto writes its
persistence only now and then, so a SIGKILL loses messages it had acknowledged to a feed.
The floor sees the hole in the chain (or a feed whose status says more was acknowledged
than came), raises a gap alarm, asks the feed on ``casino/{site}/{table}/resend`` and the
feed sends again from its journal: the floor ends equal to the journal, every record once,
the alarm closed.

Real parts (tests/floor_parts.py); expected values from the journal, read with sqlite3.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from floor_parts import (
    Broker,
    finished,
    floor_config,
    journal_head,
    missing_parts,
    postgres,
    replay,
    simulate_journal,
    spawn,
    stop_all,
    wait_for,
)
from processes import stopped
from test_feed_floor import (
    assert_floor_equals_journal,
    feed_config,
    floor_subscribed,
    journal_rows,
    named,
    stored,
)

pytestmark = pytest.mark.skipif(missing_parts() is not None, reason=str(missing_parts()))


def alarms(dsn: str, table: str) -> list[tuple[str, bool]]:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return [(kind, closed) for kind, closed in conn.execute(
            "SELECT kind, resolved_at IS NOT NULL FROM alarms WHERE table_name = %s "
            "ORDER BY id", (table,))]


def test_records_a_killed_broker_lost_are_sent_again_from_the_journal(
        tmp_path: Path) -> None:
    """The floor away (the broker holds the table's records for its session, in memory),
    the feed publishing a table as it plays; the broker killed (SIGKILL) once it has
    acknowledged a part, and restarted: those records are gone from it. The floor back:
    it alarms the gap, asks, and the feed sends them again."""
    trace = simulate_journal(tmp_path, "mini_baccarat", 120)
    broker = Broker(tmp_path / "broker")
    broker.start()
    procs: list[subprocess.Popen[bytes]] = []
    with postgres() as pg:
        dsn = pg.new_database("resend")
        floor_toml = floor_config(tmp_path, broker, dsn)
        floor_log, feed_log = tmp_path / "floor.log", tmp_path / "feed.log"
        try:
            floor = spawn("table-floor", "--config", str(floor_toml), "run", log=floor_log)
            floor_subscribed(dsn, broker)  # its session exists at the broker
            assert stopped(floor, timeout=20)[0] == 0
            journal = tmp_path / "mb.sqlite"
            config = feed_config(tmp_path, broker, "mb-1", "mini_baccarat", journal)
            procs.append(replay(trace, journal))
            procs.append(spawn("table-feed", "--config", str(config), log=feed_log))
            cursor = Path(f"{journal}.feed-cursor")
            wait_for("the broker to acknowledge a part", lambda: cursor.exists() and
                     json.loads(cursor.read_text())["seq"] >= 500, 60,
                     progress=lambda: journal_head(journal))
            broker.stop(signal.SIGKILL)
            broker.start()
            procs.append(spawn("table-floor", "--config", str(floor_toml), "run",
                               log=floor_log))
            # the replay: the journal is whole
            assert finished(procs[0], "the replay", lambda: journal_head(journal)) == 0
            total = len(journal_rows(journal))
            wait_for(f"all {total} records", lambda: stored(dsn, "mb-1") == total, 90,
                     progress=lambda: stored(dsn, "mb-1"))
            assert_floor_equals_journal(dsn, "mb-1", "mini_baccarat", journal)
            wait_for("the gap alarm closed", lambda: (got := alarms(dsn, "mb-1")) and
                     all(closed for _, closed in got), 10)
        finally:
            stop_all(procs[1:])
            broker.stop()
    assert {kind for kind, _ in alarms_seen(floor_log)} == {"gap"}
    assert named(floor_log, "resend_asked")
    resent = named(feed_log, "resend")
    assert resent and "the floor asks for records from #" in resent[0]


def alarms_seen(log: Path) -> list[tuple[str, str]]:
    """The floor's alarm lines: (kind, words); kind told by the words."""
    return [("gap" if "missing" in m else "broken_link", m)
            for m in named(log, "chain_alarm")]
