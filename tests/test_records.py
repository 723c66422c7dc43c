"""Typed records (issue 8, issue 22): one frozen dataclass per record type, the one place its
fields are defined, that a game makes whole and emits (mypy checks each field where a
record is made; an unknown or missing field is a TypeError there); ``emit`` checks every
record against the table's schema too, so an undeclared type, a field the schema does not
declare (in a mapping of fields) or a value of the wrong type fails loudly, with what to
do."""

from __future__ import annotations

import contextlib
import dataclasses
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import TRACES, run_replay
from mini_baccarat_helpers import EXAMPLE

from controller.cards.records import CardAlarm
from controller.cli import main as cli
from controller.cli.compose import load_config
from controller.cli.tablectl.verify import journal_schema
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.games.roulette.records import SpinResult, SpinStart
from controller.store.journal import Journal
from controller.store.records import (
    ABSENT,
    NO_FIELDS,
    Absent,
    Group,
    Record,
    RecordError,
    RecordSpec,
    Schema,
    _merge,
    check,
    extends,
    group,
    record,
    unpack,
)
from controller.store.records import any_schema as any_schema_of
from controller.store.records import schema as schema_of
from controller.store.shared import RECORDS as SHARED_RECORDS
from controller.store.shared import Alarm, Gpio
from controller.store.verify import check_full


def any_schema() -> Schema:
    return any_schema_of(registry.games())


def schema(name: str) -> Schema:
    return schema_of(registry.spec(name))


@pytest.fixture
def table(tmp_path: Path) -> Table:
    journal = Journal(tmp_path / "j.sqlite", durable=False)
    clock = VirtualClock()
    loop = EventLoop(clock, lambda e: None)
    return Table(load_config(), journal, loop.call_at, clock.now)


@record("hand_result")
class HandOver(Record):
    hand: int


def test_an_undeclared_record_type_says_where_to_declare_it(table: Table) -> None:
    with pytest.raises(RecordError, match=r"'hand_result' is not declared.*records\.py.*"
                       r"GameSpec\(records=\.\.\.\)"):
        table.emit(HandOver(hand=1))
    assert table.journal.last_seq == 0  # nothing journaled


def test_an_unknown_field_names_the_class_that_declares_the_type(table: Table) -> None:
    with pytest.raises(RecordError, match=r"record 'alarm': unknown field 'colour'; declare "
                       r"it in controller\.(store\.shared\.Alarm|.*)"):
        table.emit(CardAlarm(code="x", message="y", tag={"colour": 1}))  # no card table's


def test_a_missing_field_and_a_wrong_value_are_refused(table: Table) -> None:
    with pytest.raises(TypeError, match="message"):
        Alarm(code="x")  # type: ignore[call-arg]
    with pytest.raises(RecordError, match="field 'bets': True where int is due"):
        table.emit(SpinStart(spin=1, bets=True, limits={}))
    with pytest.raises(RecordError, match="field 'number': int 17 where str is due"):
        table.emit(SpinResult(spin=1, number=17, pocket_index=3))  # type: ignore[arg-type]
    assert table.journal.last_seq == 0


def test_a_legacy_type_is_read_never_made(table: Table) -> None:
    with pytest.raises(RecordError, match="'gpio' is not declared"):
        table.emit(Gpio(input="ball_a", level=1))
    known = _merge(SHARED_RECORDS)
    check(known, {"type": "gpio", "seq": 1, "t": 0.5, "input": "ball_a", "level": 1})


def test_a_game_declares_its_records_and_extends_shared_ones() -> None:
    @record("hand_result")
    class HandResult(Record):
        hand: int
        winners: list[int]
        rake: float | Absent = ABSENT

    @extends
    class AlarmHand(Alarm):
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


@group
class Measured(Group):
    laps: int | Absent = ABSENT
    rpm: float | Absent | None = ABSENT


@record("reading")
class Reading(Record):
    spin: int
    note: str | Absent = ABSENT
    measured: Measured = Measured()
    tag: Mapping[str, Any] = NO_FIELDS


def test_a_record_s_body_holds_what_was_given_and_the_fields_it_carries() -> None:
    """A record's body leaves an absent field out, puts a group's fields and a mapping of
    fields (``NO_FIELDS`` by default: a dealer input's arguments, a card game's tag) in
    it as fields of its own; the schema declares a group's fields, never the mapping."""

    made = Reading(spin=3, measured=Measured(rpm=None), tag={"coup": 2})
    assert made.body() == {"spin": 3, "rpm": None, "coup": 2}
    assert Reading.TYPE == "reading" and unpack(made, t=1.5) == (
        "reading", {"spin": 3, "rpm": None, "coup": 2, "t": 1.5})
    spec = Reading.SPEC
    assert isinstance(spec, RecordSpec)
    assert [f.key for f in spec.fields] == ["spin", "note", "laps", "rpm"]
    with pytest.raises(TypeError):
        Reading(spin=3, colour="red")  # type: ignore[call-arg]
    with pytest.raises(RecordError, match="tag gives spin again"):
        Reading(spin=3, tag={"spin": 4}).body()


@pytest.mark.parametrize("name", ["roulette-two-spins", "mini-baccarat-two-coups"])
def test_every_record_of_a_replay_is_its_declared_type(tmp_path: Path, name: str) -> None:
    # The shared folder's traces, as the suite keeps them (it stands alone without it).
    trace = TRACES / f"{name}.jsonl"
    if name == "mini-baccarat-two-coups":
        trace = tmp_path / trace.name
        trace.write_text(EXAMPLE, encoding="utf-8")
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 0
    assert res.records and not any(r["type"] == "gpio" for r in res.records)


def test_a_type_two_games_declare_reads_as_either_where_the_game_is_not_known() -> None:
    """``coup_start`` is Mini-Bacará's (no dealer's rule) and Black Jack's (``dealer``, Pot
    Luck's ``pool_balance``): each table's schema has its own; a journal whose game cannot
    be told is read as either, and a field neither declares is still refused."""
    mini = {"type": "coup_start", "seq": 1, "t": 0, "coup": 1, "decks": 4, "min_bet": 1,
            "max_bet": 10}
    blackjack = {**mini, "decks": 6, "dealer": "s17", "pool_balance": 500}
    check(schema("mini_baccarat"), mini)
    check(schema("pot_luck"), blackjack)
    with pytest.raises(RecordError, match="missing field 'dealer'"):
        check(schema("pot_luck"), mini)
    with pytest.raises(RecordError, match="unknown field 'dealer'"):
        check(schema("mini_baccarat"), blackjack)
    for rec in (mini, blackjack):
        check(any_schema(), rec)
    with pytest.raises(RecordError, match="unknown field 'colour'"):
        check(any_schema(), {**mini, "colour": "red"})
    with pytest.raises(RecordError, match="field 'dealer': int 17 where str is due"):
        check(any_schema(), {**blackjack, "dealer": 17})


SIMULATED = {
    "roulette": ["--spins", "6", "--seed", "2", "--wheel", "gpio"],
    "roulette_serial": ["--spins", "6", "--seed", "2", "--wheel", "serial"],
    "mini_baccarat": ["--table", "mini_baccarat", "--coups", "45", "--seed", "2"],
    "blackjack_plus": ["--table", "blackjack_plus", "--coups", "30", "--seed", "2"],
    "pot_luck": ["--table", "pot_luck", "--coups", "30", "--seed", "2"],
    "draw_poker": ["--table", "draw_poker", "--coups", "30", "--seed", "2"],
}


@pytest.mark.parametrize("name", list(SIMULATED))
def test_a_simulated_table_s_journal_reads_as_its_own_records(tmp_path: Path,
                                                             name: str) -> None:
    """Every table journals only its declared types (``emit`` checks them), and ``verify
    --full`` reads the journal back as its table's: the one its checkpoints name."""
    trace = tmp_path / "sim.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", *SIMULATED[name], "--out", str(trace)]) == 0
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 0 and res.records
    game = name.removesuffix("_serial")
    with Journal(res.journal, readonly=True) as journal:
        known = journal_schema(journal, registry.games())
        report = check_full(journal, known)
        checkpoints = journal.last_checkpoint()
    assert report.ok, report.problems
    # A short roulette replay ends before its 500th record (a serial wheel's lines are
    # batched, issue 20): no checkpoint names its game.
    assert (checkpoints is not None) == (game != "roulette")
    assert known == (schema(game) if checkpoints is not None else any_schema())
    for rec in res.records:
        check(schema(game), rec)
