"""A command imports only its own table's game (issue 20: a replay's start-up; a Pi's
start): the registry names every game without importing it, and a trace's words, a
config's sections and the command line's help come from the table's own game first."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO, one_spin, write_trace

OTHER_GAMES = ("mini_baccarat", "blackjack", "draw_poker")
CHILD = """
import contextlib, io, sys
from controller.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    rc = main.main(sys.argv[1:])
loaded = sorted({m.split(".")[2] for m in sys.modules if m.startswith("controller.games.")})
print(rc, " ".join(loaded))
"""


def test_a_roulette_replay_imports_no_other_game(tmp_path) -> None:
    tb, _ = one_spin()
    trace = write_trace(tmp_path / "spin.jsonl", tb.events())
    done = subprocess.run([sys.executable, "-c", CHILD, "replay", str(trace), "--journal",
                           str(tmp_path / "journal.sqlite")], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    rc, _, loaded = done.stdout.strip().partition(" ")
    assert rc == "0", done.stderr
    assert "roulette" in loaded.split()
    assert not set(loaded.split()) & set(OTHER_GAMES), loaded


def test_a_card_game_of_another_table_in_a_roulette_trace_is_still_a_known_word(
        tmp_path) -> None:
    # Every game's actions stay known words (a game refuses what it does not take, with
    # an alarm): looked for in the other games once the table's own do not have it.
    tb, _ = one_spin()
    events = [*tb.events(), {"t": 1.0, "input": "new_shoe"}]
    trace = write_trace(tmp_path / "spin.jsonl",
                        [events[0], *sorted(events[1:], key=lambda e: e["t"])])
    done = subprocess.run([sys.executable, "-c", CHILD, "replay", str(trace), "--journal",
                           str(tmp_path / "journal.sqlite")], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.stdout.startswith("0 "), done.stderr
