"""A card table restarted after its journal holds a checkpoint (issue 8: recovery from the last
game boundary, a closed shoe) goes on as if it had never stopped: the same coups and hands,
numbered on from the last, every verdict and settlement the same, Pot Luck's pool the same
balance (seed 004 Art. 7: it carries from coup to coup), and the restart plays again only
the inputs after the checkpoint.

Each simulated trace is played twice: whole, by one table; and cut in two, the second part
by a fresh table on the same journal (the daemon's restart: ``Table.recover``), the first
table taking a checkpoint at every game boundary it may.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from conftest import nothing_dealt_while_down, of_the_restart_stop

from controller.cli import main as cli
from controller.cli.compose import load_config, read_trace
from controller.core.clock import VirtualClock
from controller.core.config import DEFAULT_CONFIG, apply_overrides
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

TABLES = {  # the record that starts a game, and its number
    "blackjack_plus": ("coup_start", "coup"),
    "pot_luck": ("coup_start", "coup"),
    "draw_poker": ("hand_start", "hand"),
    "mini_baccarat": ("coup_start", "coup"),
}
COUPS = 40
# The table's own bookkeeping, which a restart adds: the rest are the decisions.
_BOOKKEEPING = {"startup", "shutdown", "recovery", "checkpoint", "seal", "evidence"}


def play(config: Any, path: Path, events: list[Any], checkpoint_every: int | None = None
         ) -> None:
    """A table on the journal at ``path`` (a fresh one: a restart when the journal holds
    records), recovered, then fed ``events``."""
    with Journal(path, durable=False) as journal:
        clock = VirtualClock(events[0].t if events else 0.0)
        loop = EventLoop(clock, lambda e: None)
        table = Table(config, journal, loop.call_at, clock.now, None)
        if checkpoint_every is not None:
            table.checkpoint_every = checkpoint_every
        loop.handler = table.handle
        table.recover()
        nothing_dealt_while_down(table)
        loop.run_events(events)


def journaled(path: Path) -> list[dict[str, Any]]:
    with Journal(path, readonly=True) as journal:
        return list(journal.records())


def simulated(tmp: Path, table: str) -> tuple[Any, Any]:
    """A simulated trace of ``table`` and its config, as ``replay`` reads them."""
    path = tmp / "sim.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--table", table, "--coups", str(COUPS), "--seed", "4",
                         "--out", str(path)]) == 0
    trace = read_trace(str(path))
    return trace, apply_overrides(load_config(DEFAULT_CONFIG), trace.meta, str(path))


def decisions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seq"} for r in records
            if r["type"] not in _BOOKKEEPING and not of_the_restart_stop(r)]


@pytest.fixture(scope="module", params=list(TABLES))
def split(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(table, the journal of the whole trace, the journal of the trace cut by a restart)."""
    table = request.param
    tmp = tmp_path_factory.mktemp(table)
    trace, config = simulated(tmp, table)
    play(config, tmp / "whole.sqlite", trace.events)
    # Cut at two thirds: past a closed shoe, in the middle of a game.
    cut = 2 * len(trace.events) // 3
    play(config, tmp / "cut.sqlite", trace.events[:cut], checkpoint_every=1)
    play(config, tmp / "cut.sqlite", trace.events[cut:])
    return table, journaled(tmp / "whole.sqlite"), journaled(tmp / "cut.sqlite")


def test_a_restart_from_a_checkpoint_gives_the_same_games_and_numbers(
        split: tuple[str, list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    table, whole, cut = split
    start, number = TABLES[table]
    assert decisions(cut) == decisions(whole)
    numbers = [r[number] for r in cut if r["type"] == start]
    assert numbers == list(range(1, COUPS + 1))


def test_the_restart_plays_again_only_the_inputs_after_the_last_checkpoint(
        split: tuple[str, list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    _, _, cut = split
    (recovery,) = [r for r in cut if r["type"] == "recovery"]
    checkpoints = [r for r in cut if r["type"] == "checkpoint" and r["seq"] < recovery["seq"]]
    assert checkpoints and recovery["since"] == checkpoints[-1]["seq"]
    assert recovery["mismatch"] is None
    after = [r for r in cut if checkpoints[-1]["seq"] < r["seq"] < recovery["seq"]
             and r["type"] in ("serial", "input", "port", "bet_placed", "ante_placed")]
    assert recovery["inputs"] == len(after) > 0


def test_pot_luck_s_pool_balance_is_the_checkpoint_s_whatever_the_config_opens(
        tmp_path: Path) -> None:
    """Seed 004 Art. 7: the pool carries from coup to coup; after a restart from a
    checkpoint its balance is the journal's, also when the config's opening balance has
    changed in between (a replay from the journal's start would open another pool)."""
    trace, config = simulated(tmp_path, "pot_luck")
    play(config, tmp_path / "whole.sqlite", trace.events)
    cut = 2 * len(trace.events) // 3
    play(config, tmp_path / "cut.sqlite", trace.events[:cut], checkpoint_every=1)
    other = apply_overrides(config, {"pool": {"opening_balance": 7}}, "meta")
    assert other.rules.pool.opening_balance != config.rules.pool.opening_balance
    play(other, tmp_path / "cut.sqlite", trace.events[cut:])
    whole, again = journaled(tmp_path / "whole.sqlite"), journaled(tmp_path / "cut.sqlite")
    balances = [(r["coup"], r["balance"]) for r in whole if r["type"] == "pool_balance"]
    assert balances and [(r["coup"], r["balance"]) for r in again
                         if r["type"] == "pool_balance"] == balances
    (recovery,) = [r for r in again if r["type"] == "recovery"]
    assert recovery["since"] > 0 and recovery["mismatch"] is None
