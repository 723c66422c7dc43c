"""A line is one input, never a byte (issue 20): a shoe's and a wheel's lines split at
every byte decode to the records the whole lines give, one ``serial`` record a line.

Expected records come from the whole lines' replay, never from the split one's.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import ReplayFn, run_replay
from mini_baccarat_helpers import Deal, ready, replay_deal
from wheel_lines import SERIAL_CONFIG, WheelScript, status_text

from controller.cli import main as cli
from controller.cli.tablectl import main as tablectl
from controller.core.held import batch_of_lines, lines_of
from controller.core.serial_lines import LineHold

BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))
CARDS = ("9S", "5H", "QC", "3H", "7C", "4H", "JS", "4D", "8D")


def untimed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records without their times (a split line's parts arrive later)."""
    return [{k: v for k, v in r.items() if k != "t"} for r in records]


def coup(split: int | None) -> Deal:
    """A coup whose second card's line comes whole, or in two reads cut at ``split``."""
    deal = ready().inp("open_bets")
    for kind, box, amount in BETS:
        deal.bet(kind, box, amount)
    deal.inp("no_more_bets").cards(CARDS[0])
    line = f"[Game]<Card:{CARDS[1]}>\r\n"
    if split is None:
        deal.serial(line)
    else:
        deal.serial(line[:split]).serial(line[split:])
    return deal.cards(*CARDS[2:])


def test_a_shoe_line_split_at_every_byte_gives_the_same_records(tmp_path: Path) -> None:
    whole = replay_deal(tmp_path, coup(None))
    assert len(whole.of("settlement")) == 3
    for split in range(1, len("[Game]<Card:5H>\r\n")):
        run = replay_deal(tmp_path, coup(split))
        assert untimed(run.records) == untimed(whole.records), f"split at byte {split}"


def test_a_shoe_read_a_byte_at_a_time_makes_one_record_a_line(tmp_path: Path) -> None:
    # socket:// gives one byte a read: still one serial record (one commit) a card line.
    deal = ready().inp("open_bets")
    for kind, box, amount in BETS:
        deal.bet(kind, box, amount)
    deal.inp("no_more_bets")
    for card in CARDS:
        for byte in f"[Game]<Card:{card}>\r\n":
            deal.serial(byte)
    run = replay_deal(tmp_path, deal)
    serial = run.of("serial")
    # The burn's line, then one a card (its CR's LF read in the next record); the last
    # line's LF is journaled when the input ends (every byte is journaled, once).
    assert len(serial) == 1 + len(CARDS) + 1 and serial[-1]["text"] == "\n"
    assert [c for _, c in run.cards()] == ["9S", "5H", "QC", "??", "7C", "4H", "JS", "4D", "8D"]


def wheel(split: int | None) -> WheelScript:
    """A game whose winning number's first state 5 line comes whole or cut at ``split``
    (its two parts 0.1 s apart)."""
    ws = WheelScript().status(2, 2).status(3, 3).status(4, 3).line("17")
    five = status_text(5, 94, "17", 0, 160, 0) + "\r"
    if split is None:
        ws.raw(five)
    else:
        ws.raw(five[:split]).raw(five[split:], t=ws.t + 0.1)
    ws.t += 0.5
    return ws.status(5, 2, number="17").status(1, 1, game=95)


def test_a_wheel_line_split_at_every_byte_gives_the_same_records(replay: ReplayFn) -> None:
    whole = replay(wheel(None).events(), config=SERIAL_CONFIG)
    assert whole.rc == 0 and [o["number"] for o in whole.outcomes] == ["17"]
    line = status_text(5, 94, "17", 0, 160, 0) + "\r"
    for split in range(1, len(line)):
        res = replay(wheel(split).events(), config=SERIAL_CONFIG)
        assert res.rc == 0, res.stderr
        assert untimed(res.records) == untimed(whole.records), f"split at byte {split}"


def test_every_byte_comes_out_once_in_order() -> None:
    hold = LineHold(limit=8)
    stream = b"AB\r\nCD\rEF\nGH\r" + b"\nX\r\n" + b"0123456789ABCDEFG" + b"tail"
    out = []
    for i, byte in enumerate(stream):
        out += hold.feed("p", float(i), bytes([byte]))
    rest = hold.drain("p", 99.0)
    assert rest is not None and rest[1].endswith(b"tail") and len(rest[1]) < 8
    assert b"".join(data for _, data in out) + rest[1] == stream
    assert [data for _, data in out][:4] == [b"AB\r", b"\nCD\r", b"EF\n", b"GH\r"]
    assert out[0][0] == 0.0 and out[1][0] == 4.0  # a line's time: its first byte's


def test_a_batch_of_wheel_lines_exports_every_line_at_its_time(tmp_path: Path) -> None:
    # Issue 20: the wheel's lines are journaled in batches (a repeat not written again);
    # export still gives each raw line, at the time it came.
    trace = tmp_path / "wheel.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--wheel", "serial", "--spins", "3", "--seed", "4",
                         "--out", str(trace)]) == 0
    sent = "".join(e["text"] for e in map(json.loads, trace.open()) if "serial" in e)
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0
    batched = [r for r in res.of("serial") if "lines" in r]
    # A repeat is its time alone: no "+size" after it.
    assert batched and any("+" not in entry for r in batched for entry in r["lines"].split())
    out = tmp_path / "spin-2.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        assert tablectl(["--journal", str(res.journal), "export", "--evidence", "2",
                         "--out", str(out)]) == 0
    got = [(e["t"], e["text"]) for e in map(json.loads, out.open()) if "serial" in e]
    # Every byte of the window, in order, each line whole at its time (half a second
    # apart, as the wheel sends them; the window starts at 0).
    assert len(got) > 20 and "".join(text for _, text in got) in sent
    assert all(text.endswith("\r") for _, text in got)
    assert {round(b[0] - a[0], 6) for a, b in itertools.pairwise(got)} >= {0.5}


def test_verify_full_names_a_tampered_batch_of_wheel_lines(tmp_path: Path) -> None:
    # A batch of lines is a hash-chained record: one byte changed in it breaks the chain
    # there, and ``verify --full`` says which record.
    trace = tmp_path / "wheel.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--wheel", "serial", "--spins", "2", "--seed", "4",
                         "--out", str(trace)]) == 0
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0
    (seq, body) = next((r["seq"], r) for r in res.of("serial") if "lines" in r)
    con = sqlite3.connect(res.journal, isolation_level=None)
    (stored,) = con.execute("SELECT body FROM records WHERE seq = ?", (seq,)).fetchone()
    tampered = stored.replace(body["text"][:6], body["text"][:5] + "9", 1)
    assert tampered != stored
    con.execute("UPDATE records SET body = ? WHERE seq = ?", (tampered, seq))
    con.close()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = tablectl(["--journal", str(res.journal), "verify", "--full"])
    assert rc == 1
    assert out.getvalue().splitlines()[0].startswith(f"BROKEN: record {seq}")


def test_a_batch_of_lines_reads_the_same_in_its_compact_and_its_old_form() -> None:
    # Issue 20: a batch's line times are one string (µs after the line before, "+size"
    # for a new text); a journal written before has [[µs after since, size], ...].
    lines = [(10.0, "*X;2\r"), (10.5, "*X;2\r"), (11.000001, "*X;3\r"), (11.5, "*X;3\r")]
    batch = batch_of_lines(lines)
    assert batch["lines"] == "0+5 500000 500001+5 499999"
    assert batch["text"] == "*X;2\r*X;3\r"
    old = {**batch, "lines": [[0, 5], [500000, 0], [1000001, 5], [1500000, 0]]}
    assert lines_of(batch) == lines_of(old) == lines
    with pytest.raises(ValueError, match="runs past"):
        lines_of({**batch, "lines": "0+5 1+9"})
