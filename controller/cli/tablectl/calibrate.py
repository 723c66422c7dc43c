"""``tablectl calibrate ...``: commissioning a table's sensors through its game's own code
(the game's spec names its calibration: a roulette's pocket sensor angle, from a
ball at rest in a known pocket; hardware.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from controller.core.config import Config
from controller.core.errors import InputError
from controller.core.specs import load_attribute
from controller.store.journal import Journal


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    # The game's own options (a roulette's --pocket 17) are what tablectl does not know:
    # main() hands them over as ``args.options``.
    cal = sub.add_parser("calibrate", parents=[common], add_help=False,
                         help="commission the sensors (a roulette: tablectl calibrate "
                              "--pocket 17; its options: tablectl calibrate --help)",
                         description="Commissioning of a table's sensors through its game's "
                         "own code; its options: tablectl calibrate --help.")
    cal.set_defaults(common=common)  # listed in the game's help


def run(journal: Journal, config: Config, args: argparse.Namespace) -> int:
    """Run the configured game's calibration on the journal (what the sensors journaled).

    Raises:
        InputError: the game has nothing to calibrate (exit 2).
    """
    spec = config.spec
    if not spec.calibrate:
        if {"-h", "--help"} & set(args.options):
            print(f"usage: tablectl calibrate [options]\n\nCommissioning of a table's sensors: "
                  f"a {spec.title} table has none to calibrate.")
            return 0
        raise InputError("calibrate", None, None, f"a {spec.title} table has no sensor to "
                         "calibrate")
    command: Callable[..., int] = load_attribute(spec.calibrate)
    return command(journal, config, list(args.options), args.json, [args.common])
