"""The journal follower (``controller.store.follow``): the display's and the feed's source.

It reads committed records in order with their chain, wakes on a commit without a timer,
and says in words when the journal is missing or replaced, never raising."""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
from pathlib import Path

from controller.cards.masking import HIDDEN, LiveMask
from controller.store.chain import GENESIS, chain_hash
from controller.store.follow import Follower
from controller.store.journal import Journal


def _write(path: Path, n: int, start: float = 100.0) -> None:
    with Journal(path) as journal:
        for i in range(n):
            journal.append("alarm", start + i, {"code": "test", "message": f"m{i}"})


def test_rows_come_in_order_with_their_chain(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    _write(path, 5)
    follower = Follower(path)
    rows = follower.rows(0)
    assert [r.seq for r in rows] == [1, 2, 3, 4, 5]
    assert rows[0].prev == GENESIS
    for before, row in itertools.pairwise(rows):
        assert row.prev == before.hash
        assert row.hash == chain_hash(before.hash, row.body)
    assert [r.seq for r in follower.rows(3)] == [4, 5]
    assert follower.rows(3)[0].prev == rows[2].hash
    assert [r.seq for r in follower.rows(0, limit=2)] == [1, 2]
    assert follower.head() == 5
    follower.close()


def test_a_commit_wakes_the_follower(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    _write(path, 1)
    follower = Follower(path)
    assert follower.uses_inotify
    assert follower.changed()
    assert not follower.changed()
    done = threading.Event()

    def commit() -> None:
        done.wait(5)
        _write(path, 1, start=200.0)

    writer = threading.Thread(target=commit)
    writer.start()
    done.set()
    deadline = time.monotonic() + 10
    while not follower.rows(1) and time.monotonic() < deadline:
        follower.wait(10)
    writer.join()
    assert [json.loads(r.body)["t"] for r in follower.rows(1)] == [200.0]
    follower.close()


def test_missing_then_made_then_replaced(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    follower = Follower(path)
    assert follower.rows(0) == []
    assert follower.problem is not None and "no journal" in follower.problem
    _write(path, 2)
    assert len(follower.rows(0)) == 2 and follower.problem is None
    first = follower.generation
    other = tmp_path / "other.sqlite"
    _write(other, 1, start=500.0)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{other}{suffix}").exists():
            os.replace(f"{other}{suffix}", f"{path}{suffix}")
    rows = follower.rows(0)
    assert follower.generation == first + 1
    assert [json.loads(r.body)["t"] for r in rows] == [500.0]
    follower.close()


def test_not_a_journal_is_a_problem_in_words(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    path.write_text("not a database\n")
    follower = Follower(path)
    assert follower.rows(0) == []
    assert follower.problem is not None and "cannot be read" in follower.problem
    follower.close()


def test_live_mask_hides_a_face_down_card_and_the_raw_bytes_of_the_deal() -> None:
    mask = LiveMask("coup_start")
    seen = [mask.view(r) for r in (
        {"type": "coup_start", "coup": 1},
        {"type": "serial", "text": "AS"},
        {"type": "bets_closed"},
        {"type": "serial", "text": "KD"},
        {"type": "card", "hand": "banca", "card": "KD", "face_down": True},
        {"type": "card", "hand": "box1", "card": "2C"},
        {"type": "card_turned", "hand": "banca", "card": "KD"},
        {"type": "coup_start", "coup": 2},
        {"type": "serial", "text": "3H"},
    )]
    assert seen[1]["text"] == "AS"  # before the deal: nothing face down can be in it
    assert seen[3]["text"] == HIDDEN
    assert seen[4]["card"] == HIDDEN
    assert seen[5]["card"] == "2C"
    assert seen[6]["card"] == "KD"  # the turn shows it
    assert seen[8]["text"] == "3H"
