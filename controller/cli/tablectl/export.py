"""``tablectl export``: records by time (``--since``, ``--until``; ``--format jsonl|csv``), or
one game's raw inputs as a trace (``--evidence N``) that ``table-controller replay`` turns
into the same verdict. A card still face down is never shown. Its output is records, one
JSON object a line (JSON Lines; a trace is JSON Lines too); ``--format csv`` for a
spreadsheet; with ``--json``, one JSON document as every command's: an array of the records
(or of the trace's lines).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TextIO

from controller.cli.tablectl.verify import parse_time
from controller.core.config import Config
from controller.core.errors import InputError
from controller.core.words import plain
from controller.store.chain import canonical
from controller.store.export import evidence_trace, records_between
from controller.store.journal import Journal
from controller.trace import write_trace


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    e = sub.add_parser("export", parents=[common], help="records from --since to "
                       "--until (jsonl or csv), or a game's raw inputs as a trace "
                       "(--evidence N)", description=plain(__doc__))
    e.add_argument("--since", help="first time (ISO 8601 UTC or seconds as the journal's t)")
    e.add_argument("--until", help="end time, not included")
    e.add_argument("--format", choices=("jsonl", "csv"), default="jsonl",
                   help="records as JSON Lines or CSV (default %(default)s)")
    e.add_argument("--evidence", type=int, metavar="N",
                   help="the trace of game N (spin or coup number): its raw inputs")
    e.add_argument("--out", help="write to this file (default: standard output)")


def run(journal: Journal, config: Config, args: argparse.Namespace) -> int:
    """Write the export; 0 when done.

    Raises:
        InputError: neither or both of --since and --evidence, a bad time (exit 2).
        JournalError: no such game, or it is still in play (exit 1).
    """
    if (args.since is None) == (args.evidence is None):
        raise InputError("export", None, None, "give --since TIME (records) or --evidence N "
                         "(a game's trace)")
    if args.json and args.format == "csv":
        raise InputError("--json", None, None, "one JSON document or CSV: not both")
    if args.evidence is not None:
        trace = evidence_trace(journal, config, args.evidence)
        if args.json:
            _to(args.out, lambda out: _array((json.dumps(o, separators=(",", ":"))
                                              for o in trace), out))
        elif args.out:
            write_trace(args.out, trace)
        else:
            for obj in trace:
                sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
        return 0
    since = parse_time(args.since, "--since")
    until = parse_time(args.until, "--until") if args.until else None
    # Closed here, while the journal is open: a reader that stops early (`| head`) ends the
    # export with BrokenPipeError, and a generator left to the garbage collector would read
    # a closed database (a traceback on stderr).
    fmt = "json" if args.json else args.format
    with contextlib.closing(records_between(journal, config.spec, since, until)) as records:
        _to(args.out, lambda out: _write(records, fmt, out))
    return 0


def _to(path: str | None, write: Callable[[TextIO], None]) -> None:
    """``write`` to the file at ``path``, or to standard output."""
    if path:
        with open(path, "w", encoding="utf-8", newline="") as out:
            write(out)
    else:
        write(sys.stdout)


def _array(items: Iterable[str], out: TextIO) -> None:
    """JSON texts as one JSON array, an item a line, written as they come."""
    out.write("[")
    for n, item in enumerate(items):
        out.write(("," if n else "") + "\n" + item)
    out.write("\n]\n")


def _write(records: Any, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        _array((canonical(rec) for rec in records), out)
        return
    if fmt == "jsonl":
        for rec in records:
            out.write(canonical(rec) + "\n")
        return
    writer = csv.writer(out)
    writer.writerow(["seq", "t", "time_utc", "type", "fields"])
    for rec in records:
        rest = {k: v for k, v in rec.items() if k not in ("seq", "t", "type")}
        writer.writerow([rec["seq"], rec["t"], _utc(rec["t"]), rec["type"],
                         json.dumps(rest, sort_keys=True, separators=(",", ":"))])


def _utc(t: float) -> str:
    """Epoch seconds as ISO 8601 UTC (a daemon's journal); trace seconds stay empty."""
    if t < 1e9:
        return ""
    return datetime.fromtimestamp(t, UTC).isoformat().replace("+00:00", "Z")
