"""The console scripts ``table-feed`` (on the table's Pi) and ``table-floor`` (on the
floor's server). Bad input is one line and a non-zero exit, never a traceback: exit 2 for
a bad config or a broker that refuses the login or whose certificate is not trusted,
1 for a floor that differs from a journal (``verify``) or a database that cannot be read.
SIGTERM and Ctrl-C stop either cleanly (the feed saves its cursor).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

import structlog

from controller.core.errors import InputError, TableControllerError
from controller.core.logs import configure

DEFAULT_TABLE_CONFIG = "/etc/table-controller/table.toml"
DEFAULT_FLOOR_CONFIG = "/etc/table-floor/floor.toml"


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def _log_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warning", "error"))
    parser.add_argument("--log-format", default="auto", choices=("auto", "console", "json"),
                        help="auto: JSON lines under journald, else console lines")


def feed_main(argv: Sequence[str] | None = None) -> int:
    """``table-feed``: publish a table's journal to the broker."""
    parser = argparse.ArgumentParser(
        prog="table-feed", description="Publish every committed record of a table's "
        "journal to the floor's MQTT broker (QoS 1, in seq order, face-down cards masked), "
        "and the table's status, retained.")
    parser.add_argument("--config", default=DEFAULT_TABLE_CONFIG,
                        help=f"the table's config, with its [feed] section (default "
                        f"{DEFAULT_TABLE_CONFIG})")
    parser.add_argument("--journal", help="the journal to follow (default: the config's)")
    parser.add_argument("--broker", help="mqtt://HOST:PORT or mqtts://HOST:PORT (default: "
                        "[feed] broker)")
    parser.add_argument("--cursor", help="the cursor file (default: [feed] cursor, else "
                        "the journal's path + .feed-cursor)")
    parser.add_argument("--once", action="store_true",
                        help="publish until every record committed at the start is "
                        "acknowledged, then exit")
    _log_options(parser)
    args = parser.parse_args(argv)
    configure(args.log_level, args.log_format)
    from feed.config import load_feed_config

    try:
        config = load_feed_config(args.config, args.broker, args.journal, args.cursor)
    except InputError as exc:
        print(f"table-feed: {exc}", file=sys.stderr)
        return 2
    from feed.publish import Feed

    feed = Feed(config)
    _stop_on_signals(feed.stop)
    structlog.get_logger("feed").info(
        "feed_start", message=f"table {config.table} ({config.journal}) to {config.broker.url}"
        f" as casino/{config.site}/{config.table}/records, from seq {feed.cursor.seq + 1}")
    return feed.run(once=args.once)


def floor_main(argv: Sequence[str] | None = None) -> int:
    """``table-floor``: the floor's side (run, status, verify)."""
    parser = argparse.ArgumentParser(
        prog="table-floor", description="Every table's records from the MQTT broker into "
        "PostgreSQL, their hash chains checked.")
    parser.add_argument("--config", default=DEFAULT_FLOOR_CONFIG,
                        help=f"the floor's config with its [floor] section (default "
                        f"{DEFAULT_FLOOR_CONFIG})")
    parser.add_argument("--database", help="a libpq connection string (default: "
                        "[floor] database)")
    _log_options(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="subscribe and store until stopped")
    run.add_argument("--broker", help="mqtt://HOST:PORT or mqtts://HOST:PORT (default: "
                     "[floor] broker)")
    st = sub.add_parser("status", help="every table: state, last game, held games, "
                        "alarms, lag")
    st.add_argument("--json", action="store_true", help="JSON instead of lines")
    ver = sub.add_parser("verify", help="compare the floor's copy of a table with its "
                         "journal")
    ver.add_argument("table", help="the table's name ([table] name)")
    ver.add_argument("--journal", required=True, help="the table's journal (a copy will do)")
    args = parser.parse_args(argv)
    configure(args.log_level, args.log_format)
    from feed.config import load_floor_config

    try:
        config = load_floor_config(args.config, getattr(args, "broker", None), args.database)
    except InputError as exc:
        print(f"table-floor: {exc}", file=sys.stderr)
        return 2
    if args.command == "run":
        from feed.floor import Floor

        floor = Floor(config)
        _stop_on_signals(floor.stop)
        return floor.run()
    return _report(config, args)


def _report(config: Any, args: argparse.Namespace) -> int:
    import psycopg

    from controller.cli.compose import games
    from feed import floor_report
    from feed.floor import _first_line, _where
    from feed.floor_db import connect

    try:
        conn = connect(config.database)
    except psycopg.Error as exc:
        print(f"table-floor: PostgreSQL ({_where(config)}) cannot be reached: "
              f"{_first_line(exc)}", file=sys.stderr)
        return 1
    try:
        if args.command == "status":
            return floor_report.status(conn, config, args.json)
        return floor_report.verify(conn, config, args.table, args.journal, games())
    except psycopg.Error as exc:
        print(f"table-floor: PostgreSQL: {_first_line(exc)}", file=sys.stderr)
        return 1
    except TableControllerError as exc:  # the journal to verify cannot be read
        print(f"table-floor: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `status | head` closed stdout early: end quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        conn.close()
