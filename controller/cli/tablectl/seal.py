"""``tablectl seal-init``: make the journal's sealing key and print its verification key once.

The key file goes beside the journal (``[journal] seal_key``, else the journal's path +
``.sealkey``), mode 0600: run it as the daemon's user (``sudo -u table-controller``). The
verification key is printed once and never again: the auditor keeps it off the machine and
gives it to ``tablectl verify --key``.
"""

from __future__ import annotations

import argparse

from controller.core.config import Config
from controller.core.words import fit, plain
from controller.store.seal import key_path_for, make_key


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    sub.add_parser("seal-init", parents=[common],
                   help="make the sealing key; print the verification key once",
                   description=plain(__doc__))


def run(config: Config, journal_path: str) -> int:
    """Make the key (exit 0) or say why not (JournalError: exit 1)."""
    path = key_path_for(journal_path, config.seal_key)
    verification = make_key(path)
    print(fit(f"sealing key made: {path} (epoch 0; the daemon seals from its next start)"))
    print(f"verification key (64 hex digits):\n  {verification}")
    print(fit("Write it down and keep it off this machine: it is shown only now. The "
              "auditor checks the journal with `tablectl verify --key <verification key>`.",
              0))
    return 0
