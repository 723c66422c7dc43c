"""``tablectl verify``: the journal's hash chain, its evidence, its seals.

- ``verify``: what the daemon checks at start: the last checkpoint's own record (its hash,
  the seal after it; an edited one is passed over and named), then the chain, the
  ``type`` / ``t`` columns and the seals' head hashes from it to the head.
- ``verify --full``: every page (SQLite's integrity check), the chain from the first record,
  every evidence batch against its SHA-256, every record read as its declared type (its
  table's, when the journal names one game), and what the seals say without their key.
- ``verify --key KEY`` (or ``--key-file FILE``): ``--full`` and every seal's MAC with the
  auditor's verification key (``tablectl seal-init``), the seals' epochs and cadence;
  ``--until TIME``: the journal is known to reach that time;
  the epoch of the sealing key beside the journal tells how many seals were made.

Exit 0 when everything checked holds; 1 naming each problem.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from controller.core.errors import InputError, JournalError
from controller.core.specs import Games
from controller.core.words import fit, plain
from controller.store.journal import Journal
from controller.store.records import Schema, any_schema, schema
from controller.store.seal import Sealer, SealReport, parse_verification_key, verify_seals
from controller.store.verify import check_full, check_start


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    v = sub.add_parser("verify", parents=[common], help="check the journal: hash chain "
                       "(from the last checkpoint; --full: everything), evidence, seals "
                       "(--key)", description=plain(__doc__),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("--full", action="store_true",
                   help="every record from the first, every evidence batch, every page")
    v.add_argument("--key", help="the verification key (64 hex digits) printed by seal-init")
    v.add_argument("--key-file", help="a file holding the verification key")
    v.add_argument("--until", help="a time the journal is known to reach (ISO 8601 UTC, "
                   "e.g. 2026-12-01T18:00:00Z, or seconds as the journal's t)")


def parse_time(text: str, option: str) -> float:
    """A time given on the command line: seconds (as the journal's ``t``: epoch seconds in
    the daemon's journal, trace seconds in a replay's), or ISO 8601 (UTC unless it says).

    Raises:
        InputError: neither.
    """
    try:
        return float(text)
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(option, None, None, f"{text!r} is not a time: give ISO 8601 "
                         "(2026-12-01T18:00:00Z) or seconds") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def _key(args: argparse.Namespace) -> bytes | None:
    text = args.key
    if args.key_file:
        try:
            text = Path(args.key_file).read_text(encoding="ascii")
        except OSError as exc:
            raise InputError("--key-file", None, None, f"cannot read it: {exc}") from exc
    if text is None:
        return None
    try:
        return parse_verification_key(text)
    except ValueError as exc:
        raise InputError("--key", None, None, str(exc)) from exc


def journal_schema(journal: Journal, games: Games) -> Schema:
    """The record types ``journal`` may hold: its table's, when its ``startup`` records (a
    daemon's journal) or else its checkpoints (a replay's) name one of ``games``; else
    every game's (:func:`~controller.store.records.any_schema`)."""
    named: set[object] = set()
    for kind in ("startup", "checkpoint"):
        try:
            named = {game for (game,) in journal.db.execute(
                "SELECT DISTINCT json_extract(body, '$.game') FROM records WHERE type = ? "
                "AND json_valid(body)", (kind,))}
        except sqlite3.DatabaseError:  # a damaged page: read as any table's
            return any_schema(games)
        if named:
            break
    (game, *more) = named or {None}
    if not more and isinstance(game, str) and game in games:
        return schema(games.spec(game))
    return any_schema(games)


def run(journal: Journal, args: argparse.Namespace, games: Games,
        key_file: Path | None = None) -> int:
    """Check, print what holds and each problem; 0 when all holds, else 1. ``games``: the
    games whose records the journal may hold; ``key_file``: the daemon's sealing key,
    whose epoch says how many seals were made."""
    key = _key(args)
    until = parse_time(args.until, "--until") if args.until else None
    if not (args.full or key is not None or until is not None):
        check = check_start(journal)
        chain = check.chain
        if getattr(args, "json", False):
            _print_json(journal, ok=check.ok, records=chain.records, verified_from=chain.first,
                        bad_seq=chain.bad_seq, problems=check.problems)
            return 0 if check.ok else 1
        if not check.ok:
            print(f"BROKEN: {check.message} ({journal.path})")  # the message names the record
            return 1
        where = (f"from record {chain.first} (the last checkpoint)" if check.checkpoint
                 else "from the first")
        print(fit(f"ok: {chain.records} records {where} to the head, hash chain and columns "
                  f"intact ({journal.path}); `verify --full` checks every record"))
        return 0
    report = check_full(journal, journal_schema(journal, games))
    problems = list(report.problems)
    if not report.chain.ok:
        problems.insert(0, f"BROKEN: {report.chain.message}")  # the message names the record
    key_epoch = None
    if key_file is not None and key_file.exists():
        try:
            key_epoch = Sealer(key_file, 0).epoch
        except JournalError:
            problems.append(f"{key_file}: the sealing key is not readable as one")
    damaged = False
    try:
        seals = verify_seals(journal, key, until, key_epoch)
    except sqlite3.DatabaseError as exc:  # a damaged page: the integrity check named it
        damaged = True
        seals = SealReport(problems=[f"the seals cannot be checked: the journal's file is "
                                     f"damaged (SQLite: {exc})"])
    # A journal no daemon sealed (a replay's) is not at fault for having no seal.
    if seals.seals or key is not None or damaged:
        problems += seals.problems
    if getattr(args, "json", False):
        _print_json(journal, ok=not problems, records=report.chain.records, verified_from=1,
                    bad_seq=report.chain.bad_seq, problems=problems,
                    evidence_batches=report.batches, edges=report.edges, seals=seals.seals,
                    last_epoch=seals.last_epoch, seals_verified=key is not None)
        return 1 if problems else 0
    for line in problems:
        print(line)  # one line a problem, to grep
    if problems:
        print(f"FAILED: {len(problems)} problem{'s' if len(problems) > 1 else ''} in "
              f"{journal.path}")  # one line, to grep
        return 1
    print(fit(f"ok: {report.chain.records} records from the first, hash chain and columns "
              f"intact; {report.batches} evidence batches ({report.edges} edges) match their "
              f"records; every record reads as its type; every page is sound ({journal.path})"))
    if seals.seals:
        verified = "verified with the key" if key is not None else "not verified (no --key)"
        print(fit(f"seals: {seals.seals}, the last epoch {seals.last_epoch}; MACs {verified}"))
        for note in seals.notes:
            print(fit(f"note: {note}"))
    return 0


def _print_json(journal: Journal, **fields: object) -> None:
    """``verify --json``: what was checked and each problem, one JSON document."""
    print(json.dumps({"journal": str(journal.path), **fields}, indent=2, sort_keys=True))
