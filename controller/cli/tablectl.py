"""``tablectl``: the technician's and the pit's maintenance tool (over SSH).

It reads the journal read-only, so it works while the daemon runs:
``status`` (table state, last game, alarms), ``recall --last N`` (games in full),
``verify`` (the hash chain; exit 1 naming the first bad record), and
``analyze mini_baccarat`` (exact probabilities through the table's own rules code).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TextIO

from controller.cli.control import ControlError, request
from controller.core.config import DEFAULT_CONFIG, load_config
from controller.core.errors import InputError, JournalError
from controller.store.journal import Journal
from controller.store.recall import games_in_full, public_view
from controller.trace import MAX_DEPTH, depth, loads_strict

EXIT_BAD = 1
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tablectl", description=__doc__)
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="the daemon's config file")
    parser.add_argument("--journal", help="journal file (default: the config's journal.path)")
    sub = parser.add_subparsers(dest="command", required=True)
    st = sub.add_parser("status", help="table state, last game, recent alarms")
    st.add_argument("--json", action="store_true")
    rc = sub.add_parser("recall", help="the last N games in full")
    rc.add_argument("--last", type=int, default=1)
    rc.add_argument("--json", action="store_true")
    sub.add_parser("verify", help="check the journal's hash chain")
    inp = sub.add_parser("input", help="send a dealer or inspector input to the daemon, "
                         "e.g. `input void reason=foreign_object`")
    inp.add_argument("action")
    inp.add_argument("args", nargs="*", metavar="KEY=VALUE")
    bet = sub.add_parser("bet", help="place a bet through the daemon")
    bet.add_argument("kind")
    bet.add_argument("--box", type=int, required=True)
    bet.add_argument("--amount", type=int, required=True)
    bet.add_argument("--numbers", nargs="+")
    bet.add_argument("--which", type=int)
    sub.add_parser("sensors", help="the live level of every GPIO input (1 = sees its target)")
    an = sub.add_parser("analyze", help="exact outcome probabilities of a game's rules")
    an.add_argument("game", choices=("mini_baccarat",))
    an.add_argument("--decks", type=int, default=4)
    an.add_argument("--five", choices=("draw", "stand"), default="draw")
    args = parser.parse_args(argv)
    try:
        if args.command == "analyze":
            return cmd_analyze(args.decks, args.five)
        if args.command in ("input", "bet", "sensors"):
            return cmd_control(load_config(args.config).control_socket, args)
        path = args.journal or load_config(args.config).journal_path
        with Journal(path, readonly=True) as journal:
            if args.command == "verify":
                return cmd_verify(journal)
            if args.command == "status":
                return cmd_status(journal, args.json)
            if args.last < 1:
                raise InputError("--last", None, None, f"must be at least 1, got {args.last}")
            return cmd_recall(journal, args.last, args.json)
    except InputError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (JournalError, ControlError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_BAD
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def cmd_verify(journal: Journal) -> int:
    result = journal.verify()
    if result.ok:
        print(f"ok: {result.records} records, hash chain intact ({journal.path})")
        return 0
    print(f"BROKEN at record {result.bad_seq}: {result.message} ({journal.path})")
    return EXIT_BAD


def cmd_status(journal: Journal, as_json: bool) -> int:
    """Print the table's state, its last game, the shoe (card tables) and recent alarms."""
    startup = journal.last_of("startup")
    game = startup.get("game") if startup else _game_from_records(journal)
    last_game = _newest(journal, ("spin_result", "spin_invalid", "spin_held", "coup_result"))
    alarms = [r for r in journal.records(after=max(0, journal.last_seq - 5000), types=("alarm",))]
    shoe = journal.last_of("shoe_procedure")
    card_table = game == "mini_baccarat"
    if card_table:
        table_state = _card_table_state(journal)
    else:
        state = journal.last_of("state")  # roulette journals its state machine's moves
        table_state = state["to"] if state else "closed"
    status: dict[str, Any] = {
        "journal": str(journal.path),
        "records": journal.last_seq,
        "game": game,
        "table_state": table_state,
        "last_game": public_view(last_game) if last_game else None,
        "recent_alarms": [public_view(a) for a in alarms[-5:]],
        "last_shoe_step": public_view(shoe) if shoe else None,
        "shoe": _shoe_status(journal) if card_table else None,
        "limits": None if card_table else _limits_status(journal),
    }
    if as_json:
        print(json.dumps(status, indent=2, sort_keys=True))
        return 0
    print(f"journal      {status['journal']} ({status['records']} records)")
    print(f"game         {status['game'] or 'unknown'}")
    print(f"table state  {status['table_state']}")
    print(f"last game    {_summary(last_game) if last_game else 'none yet'}")
    if status["shoe"] is not None:
        print(f"shoe         {_shoe_line(status['shoe'])}")
    if not card_table:
        print(f"limits       {_limits_line(status['limits'])}")
    print(f"alarms       {len(alarms)} in the last 5000 records")
    for alarm in status["recent_alarms"]:
        print(f"  seq {alarm['seq']:>7}  {alarm['code']}: {alarm['message']}")
    return 0


def _newest(journal: Journal, types: Sequence[str]) -> dict[str, Any] | None:
    """The newest record of any of ``types``, or None."""
    found = [rec for kind in types if (rec := journal.last_of(kind)) is not None]
    return max(found, key=lambda rec: rec["seq"], default=None)


def _game_from_records(journal: Journal) -> str | None:
    """The game, when no ``startup`` record names it (a replay journals none): the game
    whose records the journal holds (spins: roulette; coups or the shoe's procedure:
    Mini-Bacará), the newest if both."""
    spin = _newest(journal, ("spin_start", "spin_result", "spin_invalid"))
    coup = _newest(journal, ("coup_start", "coup_result", "shoe_procedure"))
    if spin is None and coup is None:
        return None
    if coup is None or (spin is not None and spin["seq"] > coup["seq"]):
        return "roulette"
    return "mini_baccarat"


def _limits_status(journal: Journal) -> dict[str, Any] | None:
    """A roulette table's limits (seed 001 Art. 16) from its journal, or None before any
    record carries them: ``min_bet``, ``max_bet`` in force, ``seq`` of the record that
    says so (a ``state`` record carries its game's limits; an ``applied`` change made while
    the table was closed may be newer), and ``pending``: a change requested during the game
    in progress, applied once that game is settled (``min_bet``, ``max_bet``,
    ``requested_seq``), or None."""
    state = journal.last_of("state")
    in_force: dict[str, int] | None = state.get("limits") if state else None
    seq = state["seq"] if state is not None and in_force is not None else 0
    pending: dict[str, int] | None = None
    for rec in journal.records(types=("config_change",)):
        if rec.get("key") != "limits":
            continue
        limits = {"min_bet": rec["min_bet"], "max_bet": rec["max_bet"]}
        if rec.get("status") == "applied":
            pending = None
            if rec["seq"] > seq:
                in_force, seq = limits, rec["seq"]
        elif rec.get("status") == "requested":
            pending = {**limits, "requested_seq": rec["seq"]}
    if in_force is None:
        return None
    return {"min_bet": in_force["min_bet"], "max_bet": in_force["max_bet"], "seq": seq,
            "pending": pending}


def _limits_line(limits: dict[str, Any] | None) -> str:
    if limits is None:
        return "none journaled yet (the config's [limits] apply)"
    line = f"{limits['min_bet']}-{limits['max_bet']} chips in force (seq {limits['seq']})"
    pending = limits["pending"]
    if pending:
        line += (f"; {pending['min_bet']}-{pending['max_bet']} requested at seq "
                 f"{pending['requested_seq']}, from the next game (Art. 16)")
    return line


# A shoe closed for this reason needs this procedure next (controller.cards.shoe).
_PROCEDURE_AFTER = {"cut_card": "cut_card", "decks_changed": "new_decks"}
_COUP_STATES = ("coup_start", "bets_closed", "coup_result", "shoe_procedure", "shoe_closed")


def _card_table_state(journal: Journal) -> str:
    """A card table's state in words, from its newest coup or shoe record.

    Only roulette journals ``state`` records; a card table's state is where its newest
    ``coup_start``, ``bets_closed``, ``coup_result``, ``shoe_procedure`` or ``shoe_closed``
    left it. A newer ``recovery`` record (a restart) resumed that same state.
    """
    rec = _newest(journal, _COUP_STATES)
    recovery = journal.last_of("recovery")
    if rec is None:
        text = ("shoe procedure new_decks due (seed 002 Art. 5)" if recovery is None
                else _recovered_state(recovery))
    else:
        text = _coup_state(rec)
    if recovery is not None and (rec is None or recovery["seq"] > rec["seq"]):
        text += f"; resumed after a restart (seq {recovery['seq']})"
        if recovery.get("waiting_for"):
            text += f", waiting for the card of {recovery['waiting_for']}"
    return text


def _coup_state(rec: dict[str, Any]) -> str:
    kind = rec["type"]
    if kind == "coup_start":
        return f"bets open, coup {rec['coup']}"
    if kind == "bets_closed":
        return f"dealing coup {rec['coup']}"
    if kind == "coup_result":
        return f"coup {rec['coup']} over"
    if kind == "shoe_procedure":
        if rec["step"] == "burn":  # the burn completes a procedure (seed 002 Art. 5 g, 6)
            return f"shoe procedure {rec['procedure']} complete: the next coup may open"
        return f"shoe procedure {rec['procedure']} under way, last step {rec['step']}"
    procedure = _PROCEDURE_AFTER.get(rec.get("reason", ""), "cut_card")
    return f"shoe procedure {procedure} due (shoe closed: {rec.get('reason')})"


def _recovered_state(rec: dict[str, Any]) -> str:
    """The state a ``recovery`` record names (a game state id) in words."""
    state, coup = rec.get("state"), rec.get("coup")
    if state == "idle":
        return "no coup yet"
    if state == "bets_open":
        return f"bets open, coup {coup}"
    if state == "coup_over":
        return f"coup {coup} over"
    return f"dealing coup {coup}"


def _shoe_status(journal: Journal) -> dict[str, Any]:
    """The shoe: its last procedure step, and its cards left where a record says.

    ``cards_left`` is exact at record ``cards_left_seq`` (a burn, the cut card, the shoe's
    closing, a restart); ``cards_dealt_since`` counts the card records after it. None while
    a procedure is under way (the cards are out of the shoe).
    """
    step = journal.last_of("shoe_procedure")
    status: dict[str, Any] = {
        "last_step": {k: step[k] for k in ("seq", "procedure", "step")} if step else None,
        "cards_left": None, "cards_left_seq": None, "cards_dealt_since": None,
    }
    counted = _newest(journal, ("burn", "cut_card", "shoe_closed", "recovery"))
    # A procedure step after it (the burn's own step aside) gathered the cards: the
    # count is known again at the procedure's burn.
    reshuffling = step is not None and counted is not None and (
        step["seq"] > counted["seq"] and step["step"] != "burn")
    if counted is not None and not reshuffling:
        left = counted.get("cards_left", counted.get("shoe_cards_left"))
        if isinstance(left, int):
            dealt = sum(1 for _ in journal.records(after=counted["seq"], types=("card",)))
            status.update(cards_left=left, cards_left_seq=counted["seq"],
                          cards_dealt_since=dealt)
    return status


def _shoe_line(shoe: dict[str, Any]) -> str:
    step = shoe["last_step"]
    parts = [f"last step {step['procedure']}: {step['step']}" if step else "no procedure step"]
    if shoe["cards_left"] is not None:
        parts.append(f"{shoe['cards_left']} cards left at seq {shoe['cards_left_seq']}, "
                     f"{shoe['cards_dealt_since']} dealt since")
    return "; ".join(parts)


def _summary(record: dict[str, Any]) -> str:
    by = f", decided by {record['decided_by']}" if record.get("decided_by") else ""
    if record["type"] == "spin_result":
        return (f"spin {record['spin']}: {record['number']} ({record['ball_revolutions']} ball "
                f"revolutions, ball {record['ball_direction']}, rotor {record['rotor_direction']} "
                f"at {record['rotor_rpm']} rpm{by})")
    if record["type"] == "spin_invalid":
        reasons = ", ".join(record["reasons"])
        return f"spin {record['spin']}: INVALID, {record['reason']} ({reasons}{by})"
    if record["type"] == "spin_held":
        why = "; ".join(f"{k}: {v}" for k, v in sorted(record["details"].items()))
        seen = record.get("candidate") or "no pocket read"
        return (f"spin {record['spin']}: HELD for the inspector ({why}); the sensors point to "
                f"{seen}; decide with `tablectl input confirm_result number=N by=NAME` or "
                f"`tablectl input void reason=R by=NAME`")
    boxes = ", ".join(f"box {b['box']} {b['outcome']}" for b in record["boxes"])
    return f"coup {record['coup']}: Banca {record['banca']['total']}; {boxes}"


def cmd_recall(journal: Journal, last: int, as_json: bool) -> int:
    with journal.snapshot():  # the game starts and their records from one state
        games = games_in_full(journal, last)
    if as_json:
        print(json.dumps(games, indent=2, sort_keys=True))
        return 0
    if not games:
        print("no game in the journal yet")
    for game in games:
        print(f"== {game['title']}")
        for rec in game["records"]:
            print("   " + _line(rec))
    return 0


def _line(rec: dict[str, Any]) -> str:
    kind = rec["type"]
    head = f"seq {rec['seq']:>7}  {_time(rec['t'])}  {kind}"
    if kind in ("spin_result", "spin_invalid", "spin_held", "coup_result"):
        detail = _summary(rec)
        if kind != "coup_result":
            detail += (f"; laps {rec.get('lap_times')}; rotor periods "
                       f"{rec.get('rotor_periods')}; pocket readings "
                       f"{[r['number'] for r in rec.get('pocket_readings', [])]}")
            if rec.get("details"):
                detail += f"; {rec['details']}"
        return f"{head}  {detail}"
    rest = {k: v for k, v in rec.items() if k not in ("type", "seq", "t")}
    return f"{head}  {json.dumps(rest, sort_keys=True)}"


def _time(t: float) -> str:
    # The daemon stamps wall time (epoch seconds); a replay stamps trace seconds.
    if t > 1e9:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"
    return f"t {t:.3f} s"


def cmd_control(socket_path: str, args: argparse.Namespace) -> int:
    """Send an input, a bet or a sensors query to the running daemon."""
    message: dict[str, Any]
    if args.command == "sensors":
        message = {"query": "sensors"}
    elif args.command == "bet":
        message = {"bet": args.kind, "box": args.box, "amount": args.amount}
        if args.numbers:
            message["numbers"] = args.numbers
        if args.which is not None:
            message["which"] = args.which
    else:
        message = {"input": args.action}
        for item in args.args:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise InputError("input", None, item, "arguments are KEY=VALUE")
            try:
                message[key] = loads_strict(value)  # numbers, lists: boxes=[1,2]
            except (ValueError, RecursionError):
                message[key] = value
            if depth(message[key]) > MAX_DEPTH:
                raise InputError("input", None, key, f"nested more than {MAX_DEPTH} levels "
                                 "deep")
    reply = request(socket_path, message)
    if not reply.get("ok"):
        print(f"tablectl: refused: {reply.get('error')}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "sensors":
        for name, level in sorted(reply["sensors"].items()):
            print(f"{name:<14} {'ACTIVE' if level else 'idle'}")
        return 0
    print(f"posted {reply.get('posted')}: watch `tablectl recall` for what the table did")
    return 0


def cmd_analyze(decks: int, five: str) -> int:
    if not 1 <= decks <= 8:
        raise InputError("--decks", None, None, f"must be 1 to 8, got {decks}")
    from controller.games.mini_baccarat.game import analyze, format_analysis

    bar = ProgressBar(sys.stderr)
    result = analyze(decks, five, progress=bar.update)
    bar.close()
    print(format_analysis(result))
    return 0


class ProgressBar:
    """A one-line progress bar on ``stream``, shown only once the work has taken more than
    a second (a quick answer prints nothing but the answer)."""

    def __init__(self, stream: TextIO, after_s: float = 1.0, width: int = 40) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.after_s = after_s
        self.width = width
        self.shown = False

    def update(self, fraction: float) -> None:
        if time.monotonic() - self.start < self.after_s:
            return
        self.shown = True
        filled = int(fraction * self.width)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
                          f"{fraction:6.1%}")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


if __name__ == "__main__":
    sys.exit(main())
