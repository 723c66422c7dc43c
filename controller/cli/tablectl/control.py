"""``tablectl input`` and ``bet``: people's actions sent to the running daemon through its
control socket, and the table's verdict on each printed back."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

from controller.cli.control import request
from controller.core.config import Config
from controller.core.contract import GameSpec
from controller.core.errors import InputError
from controller.core.words import COLUMNS, fit
from controller.trace import MAX_DEPTH, depth
from controller.trace_lines import loads_strict

WIDTH = COLUMNS  # columns of a message for people


def add_parsers(sub: Any, config: Config | None, common: argparse.ArgumentParser) -> None:
    """The ``input`` and ``bet`` commands; their help lists what the configured game takes
    (its spec)."""
    spec = config.spec if config is not None else None
    inputs = _inputs_help(spec) if spec else "(the config could not be read)"
    inp = sub.add_parser(
        "input", parents=[common], help="send a dealer or inspector input to the daemon, e.g. "
        "`input void reason=foreign_object`", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Send a dealer's or inspector's input to the running daemon through its\n"
        "control socket, e.g. tablectl input void reason=foreign_object.",
        epilog=f"inputs of this {spec.title if spec else ''} table:\n{inputs}\n\nprints the "
        "table's verdict: \"accepted\" (exit 0) or \"refused: <reason>\" (exit 1)")
    inp.add_argument("action", help="the input (below)")
    inp.add_argument("args", nargs="*", default=[], metavar="KEY=VALUE",
                     help="the input's arguments; numbers and lists as JSON (boxes=[1,2])")
    kinds = _bets_help(spec) if spec else "(the config could not be read)"
    bet = sub.add_parser(
        "bet", parents=[common], help="place a bet through the daemon, e.g. `bet KIND --box 1 "
        "--amount 10`", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Place a bet through the running daemon's control socket,\ne.g. "
        "tablectl bet KIND --box 1 --amount 10.",
        epilog=f"bets of this {spec.title if spec else ''} table:\n{kinds}\n\nprints the "
        "table's verdict: \"accepted\" (exit 0) or \"refused: <reason>\" (exit 1)")
    bet.add_argument("kind", help="the bet kind (below)")
    bet.add_argument("--box", type=int, required=True, help="the box (betting position), from 1")
    bet.add_argument("--amount", type=int, required=True, help="whole chips")
    for fld in spec.bet_fields if spec else ():  # the fields of its bets besides box, amount
        bet.add_argument(f"--{fld.name}", nargs="+" if fld.many else None,
                         type=_yes_no if fld.type is bool else fld.type,
                         choices=fld.choices or None, dest=f"field_{fld.name}",
                         metavar=fld.name.upper(), help=fld.kind)


def _yes_no(text: str) -> bool:
    """A yes/no option's value (``--authorized yes``)."""
    answers = {"yes": True, "true": True, "no": False, "false": False}
    if text.lower() not in answers:
        raise argparse.ArgumentTypeError(f"{text!r}: yes or no")
    return answers[text.lower()]


def _bets_help(spec: GameSpec) -> str:
    usages = [" ".join([b.kind, *(f"--{f.name} {f.name.upper()}{' ...' if f.many else ''}"
                                  for f in b.fields)]) for b in spec.bets]
    width = max(map(len, usages), default=0)
    return "\n".join(textwrap.fill(f"  {usage:<{width}}  {b.help}", WIDTH,
                                   subsequent_indent=" " * (width + 4))
                     for usage, b in zip(usages, spec.bets, strict=True))


def _inputs_help(spec: GameSpec) -> str:
    lines = []
    for inp in spec.all_inputs:
        args = " ".join(f"{a.name}=" + ("..." if a.required else "[...]") for a in inp.args)
        lines.append(f"  {inp.action} {args}".rstrip())
        lines.append(fit(f"      {inp.help}", 6, 78))
        lines.extend(fit(f"      {a.name}: {a.kind}{'' if a.required else ' (optional)'}", 8, 78)
                     for a in inp.args)
    return "\n".join(lines)


def run(config: Config, args: argparse.Namespace) -> int:
    """Send an input or a bet to the running daemon; print its verdict (``--json``: the
    reply).

    Returns 0 (accepted), 1 (refused by the table), 2 (not a request the socket takes: the
    line says why).

    Raises:
        InputError: an argument that is not KEY=VALUE, given twice (the action's own key
            ``input`` included), or nested too deep (exit 2).
        ControlError: no daemon answers (exit 3).
    """
    message: dict[str, Any]
    if args.command == "bet":
        message = {"bet": args.kind, "box": args.box, "amount": args.amount}
        for key, value in vars(args).items():  # the game's own fields (add_parsers)
            if key.startswith("field_") and value is not None:
                message[key.removeprefix("field_")] = value
    else:
        message = {"input": args.action}
        said = {"input": f"the action {args.action}"}  # each key as given, to name it
        for item in args.args:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise InputError("input", None, item, "arguments are KEY=VALUE")
            if key in said:  # as the control socket and a trace refuse it: never the last
                raise InputError("input", None, key, f"given twice ({said[key]}, {item}): "
                                 "ambiguous, give it once")
            said[key] = item
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
        print(textwrap.fill(f"tablectl: refused by the daemon: {reply.get('error')}", WIDTH,
                            subsequent_indent="  "), file=sys.stderr)
    if not reply.get("ok"):
        return 2
    if reply.get("verdict") == "accepted":
        if not args.json:
            print("accepted")
        return 0
    if not args.json:
        print(fit(f"refused: {reply.get('reason')}"))
    return 1
