"""Exports of the journal: records by time, and one game's raw inputs as a trace.

:func:`records_between` gives the records journaled from one time to another, as the public
may see them (a card still face down is masked, by the game's ``present_game`` as recall
does; :func:`public_records` the same by seq, for ``tablectl status`` too).
:func:`evidence_trace` is the regulator's replay: the raw inputs of one game (GPIO
edges from its evidence batches, serial bytes, dealer inputs, bets), from where a fresh
table is in the state the journal's was (the game's :class:`EvidenceWindow`), as a trace
(CONTRACT §2) that ``table-controller replay`` turns into the same verdict. An input active
at the window's start (a sensor pass under way) begins with the edges since its last idle
level, so the replay reads no fault the live game never had.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Generator, Iterator
from typing import Any

from controller.core.config import Config
from controller.core.contract import GameSpec
from controller.core.errors import InputError, JournalError, UnreadableBatch
from controller.core.held import lines_of
from controller.store.journal import Journal

_NOT_ARGS = frozenset({"type", "seq", "t", "action", "source"})


def first_seq_at(journal: Journal, t: float) -> int:
    """The first record's ``seq`` with ``t`` at or after ``t`` (records' times never go
    back, so a binary search on ``seq`` finds it); one past the last when none is."""
    db = journal.db
    lo, hi = 1, journal.last_seq + 1
    while lo < hi:
        mid = (lo + hi) // 2
        row = db.execute("SELECT t FROM records WHERE seq = ?", (mid,)).fetchone()
        if row is not None and row[0] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


def records_between(journal: Journal, spec: GameSpec, since: float,
                    until: float | None = None) -> Generator[dict[str, Any], None, None]:
    """Records with ``since`` <= ``t`` (< ``until``) of a table of ``spec``'s game, as the
    public may see them (:func:`public_records`)."""
    first = first_seq_at(journal, since)
    last = first_seq_at(journal, until) - 1 if until is not None else None
    yield from public_records(journal, spec, first, last)


def public_records(journal: Journal, spec: GameSpec, first: int, last: int | None = None
                   ) -> Generator[dict[str, Any], None, None]:
    """Records ``first`` to ``last`` (seq; None: to the end), GPIO edges left out, as the
    public may see them: masked game by game by the game's ``present_game``, a face-down
    card hidden unless its turn is among them. A game ``first`` falls inside is read from
    its start (its records before ``first`` are not given): whether the shoe's bytes may
    carry a face-down card is known from its deal's start only."""
    row = journal.db.execute("SELECT MAX(seq) FROM records WHERE type = ? AND seq <= ?",
                             (spec.recall.start, first)).fetchone()
    start = row[0] if row and row[0] is not None else first
    chunk: list[dict[str, Any]] = []

    def shown() -> Iterator[dict[str, Any]]:
        return (r for r in spec.present_game(chunk) if r["seq"] >= first)

    for seq, type_, body in journal.bodies(min(start, first) - 1, last):
        rec = journal.parse(seq, type_, body)
        if rec.get("type") == spec.recall.start and chunk:
            yield from shown()
            chunk = []
        if rec.get("type") != "gpio":
            chunk.append(rec)
    yield from shown()


def rules_meta(config: Config) -> dict[str, Any]:
    """A trace's ``meta`` keys for the table's own settings (its game's section): its
    spec's ``trace_meta``, else the fields of its config dataclass."""
    spec = config.spec
    if spec.trace_meta is not None:
        return spec.trace_meta(config.rules)
    meta: dict[str, Any] = {}
    rules = config.rules
    if dataclasses.is_dataclass(rules) and not isinstance(rules, type):
        for key, value in dataclasses.asdict(rules).items():
            if value is not None:
                meta[key] = list(value) if isinstance(value, tuple) else value
    return meta


def evidence_trace(journal: Journal, config: Config, number: int) -> list[dict[str, Any]]:
    """The trace of game ``number`` of ``config``'s table (see the module doc): its meta
    line, the prelude, then every raw input from the window's origin to its verdict,
    times from 0 (seconds).

    Raises:
        InputError: the game cannot export its evidence (bad usage). JournalError: the
            journal has no such game, or it is still in play (no verdict yet).
    """
    spec = config.spec
    if spec.evidence_window is None:
        raise InputError("export --evidence", None, None,
                         f"a {spec.title} table does not export its evidence")
    window = spec.evidence_window(journal, number)
    if window is None:
        what = f"{spec.recall.number} {number}"
        started = journal.db.execute(
            "SELECT 1 FROM records WHERE type = ? AND json_valid(body) "
            "AND json_extract(body, ?) = ? LIMIT 1",
            (spec.recall.start, f"$.{spec.recall.number}", number)).fetchone()
        if started:
            raise JournalError(f"{what} is still in play in {journal.path}: its evidence is "
                               "not closed yet; try again after its result")
        raise JournalError(f"no {what} in {journal.path}")
    events = list(_inputs(journal, window.origin, window.end, spec))
    inputs = {obj["gpio"] for _, obj in events if "gpio" in obj} | set(spec.gpio(config))
    events[:0] = _active_at(journal, window.origin, inputs)
    events.sort(key=lambda e: e[0])  # stable: a record's order among equal times is kept
    t0 = events[0][0] if events else 0.0
    meta: dict[str, Any] = _over({"table": config.game, **rules_meta(config)}, window.meta)
    cards: Any = config.cards  # [cards] (controller.cards.count_out), when not the defaults
    if cards is not None and cards != type(cards)():
        meta["cards"] = dataclasses.asdict(cards)
    if window.limits is not None:
        meta["limits"] = dict(window.limits)
    out: list[dict[str, Any]] = [{"t": 0, "meta": meta}]
    out += [{"t": 0, **obj} for obj in window.prelude]
    out += [{"t": round(t - t0, 6), **obj} for t, obj in events]
    last = round(events[-1][0] - t0, 6) if events else 0.0
    out += [{"t": last, **obj} for obj in window.postlude]
    return out


def _active_at(journal: Journal, origin: int, inputs: set[str]
               ) -> list[tuple[float, dict[str, Any]]]:
    """The edges of each of ``inputs`` since its last idle level (0) before record
    ``origin``: a window that opens in the middle of a sensor pass starts with the pass's
    rise, so a fresh table reads that input as the journal's table did (never a fall with
    no rise before it). The journal is read backwards only until every input is idle."""
    pending, found = set(inputs), []
    with contextlib.closing(_edges_back(journal, origin)) as edges:
        for t, name, level in edges:
            if not pending:
                break
            if name in pending:
                if level == 0:
                    pending.discard(name)
                else:
                    found.append((t, {"gpio": name, "level": level}))
    return found[::-1]


def _edges_back(journal: Journal, origin: int
                ) -> Generator[tuple[float, str, int], None, None]:
    """The raw GPIO edges journaled up to record ``origin``, newest first: those of the
    evidence batches closed by then, then (a journal written in format 1) its ``gpio``
    records."""
    db = journal.db
    if journal.format >= 2:
        for (number,) in db.execute("SELECT batch FROM evidence WHERE seq <= ? "
                                    "ORDER BY batch DESC", (origin,)):
            for closing, batch in journal.batches(number, number):
                yield from reversed(journal.edges_of(closing, batch))
    for seq, body in db.execute("SELECT seq, body FROM records WHERE type = 'gpio' AND "
                                "seq <= ? ORDER BY seq DESC", (origin,)):
        rec = journal.parse(seq, "gpio", body)
        yield rec["t"], rec["input"], rec["level"]


def _over(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``more`` over it, table by table (``{"pool": {"opening_balance"}}``
    keeps the pool's other keys)."""
    out = dict(base)
    for key, value in more.items():
        old = out.get(key)
        out[key] = (_over(old, value) if isinstance(old, dict) and isinstance(value, dict)
                    else value)
    return out


def _lines(rec: dict[str, Any]) -> Iterator[tuple[float, dict[str, Any]]]:
    """Each line of a batch of serial lines, at its time (``controller.core.held``)."""
    try:
        lines = lines_of(rec)
    except (ValueError, TypeError, KeyError) as exc:
        raise JournalError(f"record {rec.get('seq')}: its batch of serial lines cannot be "
                           f"read ({exc}); run tablectl verify --full") from None
    for t, line in lines:
        yield t, {"serial": rec["port"], "text": line}


def _inputs(journal: Journal, origin: int, end: int, spec: GameSpec
            ) -> Iterator[tuple[float, dict[str, Any]]]:
    """The raw inputs of records ``origin`` to ``end`` as trace lines, at their times: the
    edges of their evidence batches, the dealer's inputs, the serial lines, and each bet
    (``spec``'s bet record, or the alarm that refused it) with every field it said."""
    bet_record = spec.bet_record
    fields = ("box", "amount", *(f.name for f in spec.bet_fields))
    for seq, type_, body in journal.bodies(origin, end):
        rec = journal.parse(seq, type_, body)
        kind, t = rec.get("type"), rec.get("t", 0.0)
        ref = rec.get("evidence")
        if isinstance(ref, dict):
            found = next(journal.batches(ref["batch"], ref["batch"]), None)
            if found is None:  # a trace without its edges would be another game's
                raise UnreadableBatch(journal.path, ref["batch"], "it is missing",
                                      journal.advice)
            for edge_t, name, level in journal.edges_of(*found):
                yield edge_t, {"gpio": name, "level": level}
        if kind == "gpio":  # a journal of format 1
            yield t, {"gpio": rec["input"], "level": rec["level"]}
        elif kind == "input" and rec.get("source") is None:  # a button is in its edges
            yield t, {"input": rec["action"],
                      **{k: v for k, v in rec.items() if k not in _NOT_ARGS}}
        elif kind == "serial" and "lines" in rec:  # a batch of lines
            yield from _lines(rec)
        elif kind == "serial":
            yield t, {"serial": rec["port"], "text": rec["text"]}
        elif kind == bet_record or (kind == "alarm" and rec.get("code") == "bet_refused"
                                    and isinstance(rec.get("bet"), dict)):
            bet = rec["bet"] if kind == "alarm" else rec
            yield t, {"bet": bet["kind"], **{k: bet[k] for k in fields if k in bet}}
