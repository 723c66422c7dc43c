"""``tablectl status``: is the daemon running, how old is the journal's last record, the
table's state, its last game, sensor faults and recent alarms.

Whether a daemon writes the journal comes from its lock file (``controller.cli.daemon.lock``);
when one runs, its live status line comes from the control socket (it shows a table whose
journal cannot be written, which the journal cannot). What is the game's own (the shoe, the
limits) comes from the game's spec (``GameSpec.status``).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.cards.masking import public_view
from controller.cli.control import ControlError, request
from controller.cli.daemon.lock import DaemonState, daemon_state
from controller.core.config import Config
from controller.core.contract import GameSpec
from controller.core.specs import Games
from controller.core.words import age, duration, fit, labelled, local_time
from controller.store.export import public_records
from controller.store.journal import Journal

ALARMS_WINDOW = 5000  # records: the alarms shown are among the last this many
LIVE_TIMEOUT_S = 2.0


def _public(journal: Journal, spec: GameSpec, alarms: list[dict[str, Any]]
            ) -> list[dict[str, Any]]:
    """``alarms`` as the public may see them: masked with the records of their games (an
    alarm may quote a card dealt face down, or the raw line that carried it)."""
    if not alarms:
        return []
    wanted = {a["seq"] for a in alarms}
    return [r for r in public_records(journal, spec, alarms[0]["seq"]) if r["seq"] in wanted]


def run(journal: Journal, config: Config, as_json: bool) -> int:
    """Print the daemon's state, the journal's last record, the table's state, its last
    game, what its game adds, the sensor faults since start and recent alarms. Returns 0
    once printed, whether the daemon runs or not (the first line says which)."""
    daemon = daemon_state(journal.path)
    live = _live(daemon, config) if daemon.running else None
    startup = journal.last_of("startup")
    game = journal_game(journal, config.games)
    # A journal with no game yet is the config's table's.
    spec = config.games.named(game) if game in config.games else config.spec
    last_game = newest(journal, spec.recall.last_game_types)
    last = next(journal.records(after=max(0, journal.last_seq - 1)), None)
    alarms = list(journal.records(after=max(0, journal.last_seq - ALARMS_WINDOW),
                                  types=("alarm",)))
    faults = sensor_faults(journal, startup["seq"] if startup else 0)
    own = spec.status(journal)
    dealer = journal.last_of("dealer")
    status: dict[str, Any] = {
        "daemon": daemon.as_json(),
        "live": live,
        "config": config.source,
        "journal": str(journal.path),
        "journal_access": journal.access,
        "records": journal.last_seq,
        "last_record": None if last is None else {
            "seq": last["seq"], "type": last["type"], "t": last["t"],
            "age_s": round(time.time() - last["t"], 3) if last["t"] > 1e9 else None},
        "game": game,
        "table_state": own.state,
        "dealer": None if dealer is None else {"name": dealer["name"], "seq": dealer["seq"],
                                               "t": dealer["t"]},
        "last_game": public_view(last_game) if last_game else None,
        "sensor_faults": faults,
        "recent_alarms": _public(journal, spec, alarms[-5:]),
        **own.fields,
    }
    if not daemon.running:
        print(fit(f"tablectl: warning: no daemon writes {journal.path}: what follows is as "
                  f"of its last record{', ' + age(last['t']) if last else ''}"), file=sys.stderr)
    if as_json:
        print(json.dumps(status, indent=2, sort_keys=True))
        return 0
    lines = [("daemon", _daemon_line(daemon))]
    if live is not None:
        lines.append(("live", f"{live.get('line') or live.get('error')}"))
    records = f"{journal.last_seq} records"
    if last is not None:
        records += f", the last {age(last['t'])} (#{last['seq']} {last['type']})"
    lines += [("journal", f"{journal.path}: {records}{_access(journal)}"),
              ("config", config.source), ("game", game or "unknown"),
              ("table state", status["table_state"])]
    if dealer is not None:
        lines.append(("dealer", f"{dealer['name']} (since #{dealer['seq']}, "
                                f"{age(dealer['t'])})"))
    lines.append(("last game", spec.recall.summary(last_game) if last_game
                  else spec.recall.none_yet))
    lines += own.lines
    since = "since the daemon's start" if startup else "in the journal"
    if not faults:
        lines.append(("sensors", f"no sensor fault {since}"))
    for i, (name, fault) in enumerate(sorted(faults.items())):
        lines.append(("sensors" if i == 0 else "",
                      f"{name}: {fault['count']} fault{'s' if fault['count'] > 1 else ''} "
                      f"{since}, the last {age(fault['last_t'])} (#{fault['last_seq']}): "
                      f"{fault['last_message']}"))
    lines.append(("alarms", f"{len(alarms)} in the last {ALARMS_WINDOW} records"))
    for label, text in lines:
        print(labelled(label, text))
    for alarm in status["recent_alarms"]:
        print(fit(f"  seq {alarm['seq']:>7}  {alarm['code']}: {alarm['message']}", 17))
    return 0


def no_journal(path: Path, config: Config, as_json: bool) -> int:
    """Status where the journal is not yet: one line (a daemon makes it at its first
    start). Returns 0, as status does whatever it finds."""
    daemon = daemon_state(path)
    if as_json:
        print(json.dumps({"daemon": daemon.as_json(), "config": config.source,
                          "journal": str(path), "records": None}, indent=2, sort_keys=True))
    else:
        print(fit(f"daemon NOT RUNNING, no journal at {path} yet (the daemon makes it "
                  f"when it first starts, with config {config.source})"))
    return 0


def _daemon_line(daemon: DaemonState) -> str:
    owner = daemon.owner
    if daemon.running:
        if owner is None:
            return f"running, pid {daemon.pid} (its lock file says nothing more)"
        return (f"running, pid {daemon.pid}, up {duration(time.time() - owner.started)} "
                f"(since {local_time(owner.started)}), config {owner.config}")
    if owner is None:
        return f"NOT RUNNING ({daemon.problem or 'its lock file cannot be read'})"
    last = f"the last one, pid {owner.pid}, started {local_time(owner.started)}"
    if owner.stopped is not None:
        return f"NOT RUNNING ({last}, stopped {local_time(owner.stopped)})"
    return f"NOT RUNNING ({last}, did not stop cleanly: killed, crashed or a power cut)"


def _access(journal: Journal) -> str:
    if journal.access == "copy":
        return " (read from a private copy: the last daemon left its WAL unmerged)"
    return ""


def _live(daemon: DaemonState, config: Config) -> dict[str, Any]:
    """The running daemon's status line from its control socket, or why there is none."""
    socket = daemon.owner.socket if daemon.owner and daemon.owner.socket else (
        config.control_socket)
    try:
        reply = request(socket, {"query": "status"}, timeout=LIVE_TIMEOUT_S)
    except ControlError as exc:
        return {"error": str(exc)}  # no daemon answers on SOCKET: why
    if not reply.get("ok"):
        return {"error": str(reply.get("error"))}
    return dict(reply.get("status") or {})


def sensor_faults(journal: Journal, after: int) -> dict[str, dict[str, Any]]:
    """The ``sensor_fault`` alarms after record ``after`` (the daemon's start), by the
    input each names first: ``count``, ``last_seq``, ``last_t``, ``last_message``."""
    faults: dict[str, dict[str, Any]] = {}
    for alarm in journal.records(after=after, types=("alarm",)):
        if alarm.get("code") != "sensor_fault":
            continue
        message = str(alarm.get("message", ""))
        name = message.split(" ", 1)[0] or "unnamed"
        entry = faults.setdefault(name, {"count": 0})
        entry.update(count=entry["count"] + 1, last_seq=alarm["seq"], last_t=alarm["t"],
                     last_message=message)
    return faults


def newest(journal: Journal, types: Sequence[str]) -> dict[str, Any] | None:
    """The newest record of any of ``types``, or None."""
    found = [rec for kind in types if (rec := journal.last_of(kind)) is not None]
    return max(found, key=lambda rec: rec["seq"], default=None)


def journal_game(journal: Journal, games: Games) -> str | None:
    """The journal's game: the one its newest ``startup`` record names, else the one of
    ``games`` its records tell (``game_from_records``)."""
    startup = journal.last_of("startup")
    return startup.get("game") if startup else game_from_records(journal, games)


def game_from_records(journal: Journal, games: Games) -> str | None:
    """The game, when no ``startup`` record names it (a replay journals none): the game
    whose games the journal holds (their start and result records), the newest if several;
    in a journal with no game yet, the one its markers name (two card tables journal the
    same shoe records: a game's own records decide before them). Games that journal the
    same record types (two card tables' ``coup_result``) tie on the newest: the one with
    more of its own record types in the journal wins, then the first registered."""
    for kinds in (_own_records, _markers):
        best: tuple[int, int, GameSpec] | None = None
        for spec in games:
            found = [rec for kind in dict.fromkeys(kinds(spec))
                     if (rec := journal.last_of(kind))]
            if not found:
                continue
            own = sum(1 for kind in dict.fromkeys((*_own_records(spec), *_markers(spec)))
                      if journal.last_of(kind))
            key = (max(rec["seq"] for rec in found), own)
            if best is None or key > best[:2]:
                best = (*key, spec)
        if best is not None:
            return best[2].name
    return None


def _own_records(spec: GameSpec) -> tuple[str, ...]:
    return (spec.recall.start, *spec.recall.results, *spec.recall.shown)


def _markers(spec: GameSpec) -> tuple[str, ...]:
    return spec.recall.markers
