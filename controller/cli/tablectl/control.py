"""``tablectl input``, ``bet`` and ``sensors``: people's actions sent to the running daemon
through its control socket, and the table's verdict on each printed back."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.cli.control import request
from controller.core.config import Config
from controller.core.errors import InputError
from controller.games import registry
from controller.trace import MAX_DEPTH, depth, loads_strict


def add_parsers(sub: Any, config: Config | None) -> None:
    """The ``input``, ``bet`` and ``sensors`` commands; their help lists what the configured
    game takes (its registry entry)."""
    spec = registry.spec(config.game) if config is not None else None
    inputs = _inputs_help(spec) if spec else "(the config could not be read)"
    inp = sub.add_parser(
        "input", help="send a dealer or inspector input to the daemon, e.g. "
        "`input void reason=foreign_object`", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"inputs of this {spec.title if spec else ''} table:\n{inputs}\n\nprints the "
        "table's verdict: \"accepted\" (exit 0) or \"refused: <reason>\" (exit 1)")
    inp.add_argument("action")
    inp.add_argument("args", nargs="*", metavar="KEY=VALUE",
                     help="the input's arguments; numbers and lists as JSON (boxes=[1,2])")
    kinds = ", ".join(spec.bet_kinds) if spec else "(the config could not be read)"
    bet = sub.add_parser("bet", help="place a bet through the daemon",
                         epilog=f"bet kinds of this table: {kinds}. Prints the table's "
                         "verdict: \"accepted\" (exit 0) or \"refused: <reason>\" (exit 1)")
    bet.add_argument("kind")
    bet.add_argument("--box", type=int, required=True)
    bet.add_argument("--amount", type=int, required=True)
    bet.add_argument("--numbers", nargs="+")
    bet.add_argument("--which", type=int)
    sub.add_parser("sensors", help="the live level of every GPIO input (1 = sees its target), "
                   "and what each serial device last said (a serial wheel's status line and "
                   "its age)")


def _inputs_help(spec: Any) -> str:
    lines = []
    for inp in spec.inputs:
        args = " ".join(f"{a.name}=" + ("..." if a.required else "[...]") for a in inp.args)
        lines.append(f"  {inp.action} {args}".rstrip())
        lines.append(f"      {inp.help}")
        lines.extend(f"      {a.name}: {a.kind}{'' if a.required else ' (optional)'}"
                     for a in inp.args)
    return "\n".join(lines)


def _device_line(port: str, view: dict[str, Any]) -> str:
    """``wheel          '*X;3;241;32;0;137;0'  0.4 s ago, state 3 (ball in the rim), link
    talking``: a serial device's last line (quoted: an extended line ends in blank fields),
    its age (seconds) and the rest of its view."""
    line = view.get("last_line")
    if line is None:
        return f"{port:<14} no line yet ({view.get('link', '')})"
    rest = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in view.items()
                     if k not in ("last_line", "age_s") and v not in (None, 0))
    return f"{port:<14} {line!r}  {view.get('age_s')} s ago" + (f", {rest}" if rest else "")


def run(config: Config, args: argparse.Namespace) -> int:
    """Send an input, a bet or a sensors query to the running daemon; print its answer.

    Returns 0 (accepted, or the sensors), 1 (refused by the table), 2 (not a request the
    socket takes: the line says why).
    """
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
    reply = request(config.control_socket, message)
    if not reply.get("ok"):
        print(f"tablectl: {reply.get('error')}", file=sys.stderr)
        return 2
    if args.command == "sensors":
        for name, level in sorted(reply["sensors"].items()):
            print(f"{name:<14} {'ACTIVE' if level else 'idle'}")
        for port, view in sorted(reply.get("serial", {}).items()):
            print(_device_line(port, view))
        return 0
    if reply.get("verdict") == "accepted":
        print("accepted")
        return 0
    print(f"refused: {reply.get('reason')}")
    return 1
