"""Typed records (issue 8): one frozen dataclass per record type, the one place its fields are
defined; ``emit`` checks every record against it, so an undeclared type, an unknown field,
a missing one or a value of the wrong type fails loudly, with what to do."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import SHARED, run_replay

from controller.core.clock import VirtualClock
from controller.core.config import load_config
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal
from controller.store.records import ABSENT, Absent, RecordError, _merge, check, extends, record
from controller.store.shared import RECORDS as SHARED_RECORDS


@pytest.fixture
def table(tmp_path: Path) -> Table:
    journal = Journal(tmp_path / "j.sqlite", durable=False)
    clock = VirtualClock()
    loop = EventLoop(clock, lambda e: None)
    return Table(load_config(), journal, loop.call_at, clock.now)


def test_an_undeclared_record_type_says_where_to_declare_it(table: Table) -> None:
    with pytest.raises(RecordError, match=r"'hand_result' is not declared.*records\.py.*"
                       r"GameSpec\(records=\.\.\.\)"):
        table.emit("hand_result", hand=1)
    assert table.journal.last_seq == 0  # nothing journaled


def test_an_unknown_field_names_the_class_that_declares_the_type(table: Table) -> None:
    with pytest.raises(RecordError, match=r"record 'alarm': unknown field 'colour'; declare "
                       r"it in controller\.(store\.shared\.Alarm|.*)"):
        table.emit("alarm", code="x", message="y", colour="red")


def test_a_missing_field_and_a_wrong_value_are_refused(table: Table) -> None:
    with pytest.raises(RecordError, match="missing field 'message'"):
        table.emit("alarm", code="x")
    with pytest.raises(RecordError, match="field 'bets': True where int is due"):
        table.emit("spin_start", spin=1, bets=True, limits={})
    with pytest.raises(RecordError, match="field 'number': int 17 where str is due"):
        table.emit("spin_result", spin=1, number=17, pocket_index=3)
    assert table.journal.last_seq == 0


def test_a_legacy_type_is_read_never_made(table: Table) -> None:
    with pytest.raises(RecordError, match="'gpio' is not declared"):
        table.emit("gpio", input="ball_a", level=1)
    known = _merge(SHARED_RECORDS)
    check(known, {"type": "gpio", "seq": 1, "t": 0.5, "input": "ball_a", "level": 1})


def test_a_game_declares_its_records_and_extends_shared_ones() -> None:
    @record("hand_result")
    class HandResult:
        hand: int
        winners: list[int]
        rake: float | Absent = ABSENT

    @extends("alarm")
    class AlarmHand:
        hand: int | Absent = ABSENT

    assert dataclasses.is_dataclass(HandResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made = HandResult(hand=1, winners=[2])
        made.hand = 2  # type: ignore[misc]
    known = _merge((*SHARED_RECORDS, HandResult, AlarmHand))
    check(known, {"type": "hand_result", "seq": 1, "t": 0, "hand": 3, "winners": [1]})
    check(known, {"type": "alarm", "seq": 2, "t": 0, "code": "c", "message": "m", "hand": 3})
    with pytest.raises(RecordError, match="unknown field 'hand'"):
        check(_merge(SHARED_RECORDS), {"type": "alarm", "seq": 2, "t": 0, "code": "c",
                                      "message": "m", "hand": 3})


@pytest.mark.parametrize("name", ["roulette-two-spins", "mini-baccarat-two-coups"])
def test_every_record_of_a_replay_is_its_declared_type(tmp_path: Path, name: str) -> None:
    trace = SHARED / "traces" / f"{name}.jsonl"
    if not trace.exists():
        pytest.skip("../shared/traces is not beside the checkout")
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 0
    assert res.records and not any(r["type"] == "gpio" for r in res.records)
