"""Unreadable traces and configs (CONTRACT §3): ``replay`` exits 2 with ONE line on stderr
naming the file, the line and the field, and journals nothing. A bet that is well formed
as data but not allowed by the layout (Art. 13) is table business, not bad input: it is
refused with an ``alarm`` (code ``bet_refused``) and the replay exits 0.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_replay

META = {"t": 0, "meta": {"table": "roulette"}}
OPEN = {"t": 0.1, "input": "open_bets"}


def journaled(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    except sqlite3.OperationalError:  # no table: nothing was ever written
        return 0
    finally:
        con.close()


def assert_rejected(tmp_path: Path, trace: Path, where: str, line: int, field: str | None,
                    *args: str) -> None:
    db = tmp_path / "journal.sqlite"
    res = run_replay(trace, db, *args)
    assert res.rc == 2
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, res.stderr
    assert f"{where}:{line}" in lines[0]
    if field is not None:
        assert field in lines[0]
    assert res.records == []
    assert journaled(db) == 0


def write_lines(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines))
    return path


# -- bad traces: (the line at fault, the field it must name) ---------------------------
BAD_LINES: dict[str, tuple[Any, str | None]] = {
    "malformed_json": ('{"t": 1.0, "input": "open_bets"', None),
    "t_missing": ({"input": "open_bets"}, "t"),
    "t_negative": ({"t": -1.0, "input": "open_bets"}, "t"),
    "t_not_a_number": ({"t": "1.0", "input": "open_bets"}, "t"),
    "t_back_in_time": ({"t": 0.05, "input": "open_bets"}, "t"),
    "unknown_gpio_input": ({"t": 1.0, "gpio": "ball_c", "level": 1}, "gpio"),
    "level_2": ({"t": 1.0, "gpio": "ball_a", "level": 2}, "level"),
    "unknown_bet_kind": ({"t": 1.0, "bet": "voisins", "box": 1, "amount": 10}, "bet"),
    "numbers_not_strings": ({"t": 1.0, "bet": "straight", "box": 1, "amount": 10,
                             "numbers": [17]}, "numbers"),
    "unknown_dealer_input": ({"t": 1.0, "input": "spin_faster"}, "input"),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_trace_line(tmp_path: Path, case: str) -> None:
    bad, field = BAD_LINES[case]
    # The bad line is line 4, after a good table opening and a good bet.
    good_bet = {"t": 0.5, "bet": "red", "box": 1, "amount": 10}
    trace = write_lines(tmp_path / "bad.jsonl", [META, OPEN, good_bet, bad,
                                                 {"t": 2.0, "input": "no_more_bets"}])
    assert_rejected(tmp_path, trace, str(trace), 4, field)


@pytest.mark.parametrize(("meta", "field"), [
    ({"table": "roulette", "colour": "green"}, "colour"),
    ({"table": "roulette", "wheel": "triple_zero"}, "wheel"),
    ({"table": "roulette", "min_ball_revolutions": 0}, "min_ball_revolutions"),
    ({"table": "craps"}, "table"),
])
def test_bad_meta_override(tmp_path: Path, meta: dict[str, Any], field: str) -> None:
    trace = write_lines(tmp_path / "bad.jsonl", [{"t": 0, "meta": meta}, OPEN])
    assert_rejected(tmp_path, trace, str(trace), 1, field)


def test_missing_trace_file(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    res = run_replay(tmp_path / "nowhere.jsonl", db)
    assert res.rc == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere.jsonl" in lines[0]
    assert journaled(db) == 0


# -- bad configs: (the line to change or add, the key it must name) --------------------
DEFAULT = (REPO / "controller/data/default.toml").read_text()


def bad_config(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    """The default config with ``old`` replaced by ``new``; the line number of ``new``."""
    assert old in DEFAULT
    text = DEFAULT.replace(old, new, 1)
    path = tmp_path / "table.toml"
    path.write_text(text)
    # The last line of ``new``, where it stands in the file.
    return path, text[:text.index(new)].count("\n") + len(new.splitlines())


BAD_CONFIGS: dict[str, tuple[str, str, str]] = {
    "min_ball_revolutions_0": ("min_ball_revolutions = 3", "min_ball_revolutions = 0",
                               "min_ball_revolutions"),
    "unknown_key": ("max_rotor_period_ratio = 1.5",
                    "max_rotor_period_ratio = 1.5\nrotor_colour = \"red\"", "rotor_colour"),
    "pin_used_twice": ("[gpio.inputs.ball_b]\npin = 27", "[gpio.inputs.ball_b]\npin = 17",
                       "pin"),
    "ball_b_deg_400": ("wheel = \"single_zero\"", "wheel = \"single_zero\"\nball_b_deg = 400",
                       "ball_b_deg"),
    "wrong_type": ("drop_timeout_factor = 2.0", "drop_timeout_factor = \"2.0\"",
                   "drop_timeout_factor"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config(tmp_path: Path, case: str) -> None:
    old, new, key = BAD_CONFIGS[case]
    config, line = bad_config(tmp_path, old, new)
    trace = write_lines(tmp_path / "good.jsonl", [META, OPEN])
    assert_rejected(tmp_path, trace, str(config), line, key, "--config", str(config))


# -- well-typed bets the layout refuses: alarms, exit 0 ----------------------------------
REFUSED_BETS: list[dict[str, Any]] = [
    {"bet": "split", "numbers": ["1", "5"]},  # not adjacent on the layout
    {"bet": "split", "numbers": ["17"]},
    {"bet": "straight", "numbers": ["17", "18"]},
    {"bet": "straight", "numbers": ["37"]},
    {"bet": "straight", "numbers": ["00"]},  # no 00 on a single-zero wheel
    {"bet": "street", "numbers": ["1", "2", "4"]},
    {"bet": "corner", "numbers": ["1", "2", "3", "4"]},
    {"bet": "six_line", "numbers": ["1", "2", "3", "7", "8", "9"]},
    {"bet": "five_numbers", "numbers": ["0", "00", "1", "2", "3"]},  # double zero only
    {"bet": "dozen", "which": 4},
    {"bet": "column", "which": 0},
    {"bet": "dozen"},
    {"bet": "red", "numbers": ["1"]},
]


@pytest.mark.parametrize("bet", REFUSED_BETS, ids=lambda b: json.dumps(b, separators=(",", ":")))
def test_bet_against_the_layout_is_an_alarm(tmp_path: Path, bet: dict[str, Any]) -> None:
    trace = write_lines(tmp_path / "t.jsonl", [
        META, OPEN, {"t": 0.5, "box": 1, "amount": 10, **bet},
        {"t": 0.6, "bet": "black", "box": 2, "amount": 10}])
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0, res.stderr
    assert [a["code"] for a in res.alarms()] == ["bet_refused"]
    assert [(b["box"], b["kind"]) for b in res.of("bet")] == [(2, "black")]
