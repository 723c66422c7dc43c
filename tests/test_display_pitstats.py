"""The pit page's surveillance statistics (issue 21 item 2): the display folds each record
it follows into the game's own statistics over the last ``[display] stats_history``
games, and the figures are those ``tablectl stats --last N --json`` gives on the same
journal; a record the fold cannot read is one line on the page, never a traceback.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from controller.cards.masking import LiveMask
from controller.cli.compose import load_config
from controller.cli.tablectl import main as tablectl_main
from controller.core import registry
from display.pitstats import PitStats
from tests.display_helpers import REPO, records, simulated_journal

OWN = ("lines", "history", "games_folded", "problem")  # the page's keys, not the command's


def stats_json(journal: Path, *args: str) -> dict[str, Any]:
    """``tablectl stats --json`` on ``journal`` (the command, in process)."""
    out = io.StringIO()
    with redirect_stdout(out):
        rc = tablectl_main(["stats", "--journal", str(journal), "--json", *args])
    assert rc == 0, out.getvalue()
    return dict(json.loads(out.getvalue()))


@pytest.fixture(scope="module")
def roulette(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pitstats")
    trace, journal = folder / "r.jsonl", folder / "r.sqlite"
    from controller.cli import main as cli
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["simulate", "--table", "roulette", "--spins", "230", "--seed", "5",
                         "--out", str(trace)]) == 0
        assert cli.main(["replay", str(trace), "--journal", str(journal)]) == 0
    return journal


def folded(journal: Path, config: str, history: int) -> dict[str, Any]:
    """Every record of ``journal`` masked as the board masks it, then folded."""
    table = load_config(config)
    spec = registry.spec(table.game)
    pit, mask = PitStats(spec, table, history), LiveMask(spec.recall.start)
    for record in records(journal):
        pit.feed(mask.view(record))
    figures = pit.figures()
    assert figures is not None
    return figures


@pytest.mark.parametrize("history", [10, 200, 500])
def test_the_display_fold_equals_tablectl_stats_over_the_same_window(
        roulette: Path, history: int) -> None:
    mine = folded(roulette, "embedded:default.toml", history)
    theirs = stats_json(roulette, "--last", str(history))
    assert {k: v for k, v in mine.items() if k not in OWN} == theirs
    assert mine["games_folded"] == min(history, 230) and mine["history"] == history
    assert theirs["spins"] == min(history, 230)  # the window is the command's too


def test_the_card_tables_fold_equals_tablectl_stats(tmp_path: Path) -> None:
    journal = simulated_journal("mini_baccarat", tmp_path)
    config = str(REPO / "config" / "mini-baccarat-sim.toml")
    mine = folded(journal, config, 10)
    assert {k: v for k, v in mine.items() if k not in OWN} == stats_json(
        journal, "--config", config, "--last", "10")


def test_a_record_the_fold_cannot_read_is_named_not_a_traceback() -> None:
    table = load_config("embedded:default.toml")
    pit = PitStats(registry.spec(table.game), table, 500)
    empty = pit.figures()  # no game yet: the figures, no words, no traceback
    assert empty is not None and empty["games_folded"] == 0 and empty["lines"] == []
    pit.feed({"type": "spin_result", "seq": 7, "spin": 1, "number": "99"})
    pit.feed({"type": "spin_result", "seq": 8, "spin": 2, "number": "17"})
    figures = pit.figures()
    assert figures is not None and figures["spins"] == 1
    assert figures["problem"].startswith("record #7 (spin_result) not counted")


def test_stats_history_is_a_setting_checked_in_one_line(tmp_path: Path) -> None:
    from display.config import load

    config = tmp_path / "table.toml"
    text = (REPO / "config" / "mini-baccarat-sim.toml").read_text()
    assert load(str(REPO / "config" / "mini-baccarat-sim.toml")).stats_history == 500
    config.write_text(text + "\n[display]\nstats_history = 2000\n")
    assert load(str(config)).stats_history == 2000
    config.write_text(text + "\n[display]\nstats_history = 5\n")
    run = subprocess.run([sys.executable, "-m", "display.cli", "--config", str(config)],
                         cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"table-display: {config}:{text.count(chr(10)) + 3}: "
                               "field 'display.stats_history'")
