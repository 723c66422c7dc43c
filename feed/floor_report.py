"""``table-floor status`` and ``table-floor verify``: what the floor's database holds.

``status`` prints one block per table: whether its feed is online, the table's state, its
last game and result, the games held for a person, the floor's open alarms, and how far
behind the floor is (records the table's journal has that the floor does not, and the
age of the last one stored). ``verify`` compares the floor's copy of one table with the
table's journal, record by record: seq, hash, previous hash, and the body against the
journal's record passed through the same mask as the feed's (a masked body no longer
matches its hash, so the hashes come from the journal's chain).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg

from controller.cards.masking import LiveMask
from controller.cli.tablectl.status import journal_game
from controller.core.specs import Games
from controller.core.words import age, fit, labelled
from controller.store.chain import chain_hash
from controller.store.follow import Follower
from controller.store.journal import Journal
from feed.config import FloorConfig

SHOWN_DIFFERENCES = 10
_GAP = 14  # "  last game   ": where the values of a table's lines start


def status(conn: psycopg.Connection[Any], config: FloorConfig, as_json: bool) -> int:
    """Print every table of the site. Returns 0."""
    site = config.site
    tables: dict[str, dict[str, Any]] = {}

    def entry(table: str) -> dict[str, Any]:
        return tables.setdefault(table, {"table": table, "head_seq": 0, "stored": 0,
                                         "last_stored": None, "status": None, "alarms": []})

    for table in config.tables:
        entry(table)
    for table, head in conn.execute(
            "SELECT table_name, head_seq FROM chains WHERE site = %s", (site,)):
        entry(table)["head_seq"] = head
    for table, count, last in conn.execute(
            "SELECT table_name, count(*), extract(epoch FROM max(stored_at)) FROM records "
            "WHERE site = %s GROUP BY table_name", (site,)):
        entry(table).update(stored=count, last_stored=float(last))
    for table, st, received in conn.execute(
            "SELECT table_name, status, extract(epoch FROM received_at) FROM statuses "
            "WHERE site = %s", (site,)):
        entry(table).update(status=st, status_received=float(received))
    for table, kind, message in conn.execute(
            "SELECT table_name, kind, message FROM alarms WHERE site = %s AND "
            "resolved_at IS NULL ORDER BY id", (site,)):
        entry(table)["alarms"].append({"kind": kind, "message": message})
    for each in tables.values():
        head = (each["status"] or {}).get("journal_head")
        each["behind"] = None if head is None else max(0, head - each["head_seq"])
    if as_json:
        print(json.dumps({"site": site, "tables": [tables[t] for t in sorted(tables)]},
                         indent=2, sort_keys=True))
        return 0
    if not tables:
        print(f"site {site}: no table has sent anything yet")
    for name in sorted(tables):
        for line in _table_lines(tables[name]):
            print(line)
    return 0


def _table_lines(entry: dict[str, Any]) -> Iterator[str]:
    """A table's lines of ``status``, each at most 80 columns (a long one cut at spaces
    and indented under its label)."""
    st = entry.get("status") or {}
    if not st:
        online = "no status from its feed yet"
    elif st.get("online"):
        online = f"feed online, status {age(entry['status_received'])}"
    else:
        online = f"FEED OFFLINE ({st.get('problem')}), since {age(entry['status_received'])}"
    daemon = st.get("daemon") or {}
    yield fit(f"table {entry['table']} ({st.get('game') or 'game unknown'}): {online}")
    if st:
        yield labelled("  state", f"{st.get('state') or 'not known yet'}" + (
            "" if daemon.get("running") else " (its daemon is NOT RUNNING)"), _GAP)
        yield labelled("  last game", f"{st.get('last_game') or '-'}", _GAP)
        held = st.get("held") or []
        yield labelled("  held", ", ".join(f"game {h}" for h in held) if held else "none",
                       _GAP)
    alarms = entry["alarms"]
    yield labelled("  alarms", f"{len(alarms) or 'none'}" + (" open" if alarms else ""), _GAP)
    for alarm in alarms[-5:]:
        yield fit(f"    {alarm['kind']}: {alarm['message']}", 6)
    last = entry.get("last_stored")
    behind = entry.get("behind")
    broken = any(a["kind"] in ("broken_link", "conflict") for a in alarms)
    stored = f"{entry.get('stored', 0)} records stored, " + (
        "linked up to" if broken else "chain whole up to") + f" #{entry.get('head_seq', 0)}"
    if broken:
        stored += " (not whole: see its alarms)"
    if last is not None:
        stored += f", the last stored {age(last)}"
    yield labelled("  floor", stored, _GAP)
    if behind is not None:
        yield labelled("  lag", f"{behind} record{'s' if behind != 1 else ''} behind the "
                       f"journal (#{st.get('journal_head')})", _GAP)


def _floor_rows(conn: psycopg.Connection[Any], site: str, table: str
                ) -> Iterator[tuple[int, str, str, dict[str, Any]]]:
    last = 0
    while True:
        rows = conn.execute("SELECT seq, hash, prev, body FROM records WHERE site = %s AND "
                            "table_name = %s AND seq > %s ORDER BY seq LIMIT 5000",
                            (site, table, last)).fetchall()
        if not rows:
            return
        yield from rows
        last = rows[-1][0]


def _journal_rows(path: str, game_start: str
                  ) -> Iterator[tuple[int, str, str, dict[str, Any], bool]]:
    """The journal's records as the floor holds them (public bodies), each with whether
    its hash is the hash of the one before and its body (False: altered in the copy)."""
    follower = Follower(path)
    mask = LiveMask(game_start)
    after = 0
    try:
        while rows := follower.rows(after):
            for row in rows:
                yield (row.seq, row.hash, row.prev, mask.view(json.loads(row.body)),
                       chain_hash(row.prev, row.body) == row.hash)
            after = rows[-1].seq
    finally:
        follower.close()


def verify(conn: psycopg.Connection[Any], config: FloorConfig, table: str,
           journal_path: str, games: Games) -> int:
    """Compare the floor's records of ``table`` with the journal at ``journal_path`` (a
    table of one of ``games``: its game's start record parts the public bodies).
    Returns 0 when they are equal, 1 (the differences printed) when not."""
    with Journal(journal_path, readonly=True) as journal:
        game = journal_game(journal, games)
        total = journal.last_seq
    start = games.named(game).recall.start
    floor, mine = _floor_rows(conn, config.site, table), _journal_rows(journal_path, start)
    differences: list[str] = []
    a, b = next(floor, None), next(mine, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a[0] < b[0]):
            assert a is not None
            differences.append(f"#{a[0]}: on the floor, not in the journal")
            a = next(floor, None)
            continue
        if a is None or b[0] < a[0]:
            differences.append(f"#{b[0]}: in the journal, missing on the floor")
            b = next(mine, None)
            continue
        if not b[4]:  # the floor cannot say which is true: the journal's chain is broken
            differences.append(f"#{b[0]}: the journal's record is not what its hash covers "
                               "(`tablectl verify --full` on it)")
        for what, i in (("hash", 1), ("previous hash", 2), ("body", 3)):
            if a[i] != b[i]:
                differences.append(f"#{a[0]}: the floor's {what} differs from the journal's")
                break
        a, b = next(floor, None), next(mine, None)
    if not differences:
        print(fit(f"verify {table}: the floor holds the {total} records of the journal, "
                  "equal (seq, hashes, public bodies), the journal's chain whole"))
        print(f"  journal {journal_path}")  # a path stays whole, on a line of its own
        return 0
    print(fit(f"verify {table}: {len(differences)} difference"
              f"{'s' if len(differences) > 1 else ''} between the floor and the journal"))
    print(f"  journal {journal_path}")
    for line in differences[:SHOWN_DIFFERENCES]:
        print(fit(f"  {line}", 4))
    if len(differences) > SHOWN_DIFFERENCES:
        print(f"  ... and {len(differences) - SHOWN_DIFFERENCES} more")
    return 1
