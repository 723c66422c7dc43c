"""``tablectl input`` and ``bet``: people's actions sent to the running daemon through its
control socket, and the table's verdict on each printed back."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.cli.control import request
from controller.core.config import Config
from controller.core.errors import InputError
from controller.games import registry
from controller.trace import MAX_DEPTH, depth, loads_strict


def add_parsers(sub: Any, config: Config | None, common: argparse.ArgumentParser) -> None:
    """The ``input`` and ``bet`` commands; their help lists what the configured game takes
    (its registry entry)."""
    spec = registry.spec(config.game) if config is not None else None
    inputs = _inputs_help(spec) if spec else "(the config could not be read)"
    inp = sub.add_parser(
        "input", parents=[common], help="send a dealer or inspector input to the daemon, e.g. "
        "`input void reason=foreign_object`", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"inputs of this {spec.title if spec else ''} table:\n{inputs}\n\nprints the "
        "table's verdict: \"accepted\" (exit 0) or \"refused: <reason>\" (exit 1)")
    inp.add_argument("action")
    inp.add_argument("args", nargs="*", metavar="KEY=VALUE",
                     help="the input's arguments; numbers and lists as JSON (boxes=[1,2])")
    kinds = ", ".join(spec.bet_kinds) if spec else "(the config could not be read)"
    bet = sub.add_parser("bet", parents=[common], help="place a bet through the daemon",
                         epilog=f"bet kinds of this table: {kinds}. Prints the table's "
                         "verdict: \"accepted\" (exit 0) or \"refused: <reason>\" (exit 1)")
    bet.add_argument("kind")
    bet.add_argument("--box", type=int, required=True)
    bet.add_argument("--amount", type=int, required=True)
    bet.add_argument("--numbers", nargs="+")
    bet.add_argument("--which", type=int)


def _inputs_help(spec: Any) -> str:
    lines = []
    for inp in spec.inputs:
        args = " ".join(f"{a.name}=" + ("..." if a.required else "[...]") for a in inp.args)
        lines.append(f"  {inp.action} {args}".rstrip())
        lines.append(f"      {inp.help}")
        lines.extend(f"      {a.name}: {a.kind}{'' if a.required else ' (optional)'}"
                     for a in inp.args)
    return "\n".join(lines)


def run(config: Config, args: argparse.Namespace) -> int:
    """Send an input or a bet to the running daemon; print its verdict (``--json``: the
    reply).

    Returns 0 (accepted), 1 (refused by the table), 2 (not a request the socket takes: the
    line says why).

    Raises:
        InputError: an argument that is not KEY=VALUE, or nested too deep (exit 2).
        ControlError: no daemon answers (exit 3).
    """
    message: dict[str, Any]
    if args.command == "bet":
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
    reply = request(config.control_socket, message)
    if args.json:
        print(json.dumps(reply, sort_keys=True))
    elif not reply.get("ok"):
        print(f"tablectl: {reply.get('error')}", file=sys.stderr)
    if not reply.get("ok"):
        return 2
    if reply.get("verdict") == "accepted":
        if not args.json:
            print("accepted")
        return 0
    if not args.json:
        print(f"refused: {reply.get('reason')}")
    return 1
