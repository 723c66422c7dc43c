"""A card table answers each dealer input and bet with the table's verdict (verify, then do:
issue 7 item 2), journals each bet once (its ``bet_placed``, or the ``alarm`` that refused
it with the bet whole), and reads the bets back from those records after a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.cli.compose import load_config
from controller.core.clock import VirtualClock
from controller.core.contract import Verdict
from controller.core.events import BetPlaced, DealerInput, Event, SerialData
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")  # seed 002 Art. 5 a-f


class Run:
    """A Mini-Bacará table on a journal at ``path``, fed events one at a time."""

    def __init__(self, path: Path) -> None:
        self.config = load_config("embedded:mini-baccarat-sim.toml", {"decks": 4})
        self.journal = Journal(path, durable=False)
        self.clock = VirtualClock()
        loop = EventLoop(self.clock, lambda e: None)
        self.table = Table(self.config, self.journal, loop.call_at, self.clock.now, None)
        self.t = 0.0

    def close(self) -> None:
        self.journal.close()

    def send(self, event: Event) -> Verdict | None:
        return self.table.handle(event)

    def inp(self, action: str, **args: Any) -> Verdict | None:
        self.t += 0.5
        return self.send(DealerInput(self.t, action, args))

    def bet(self, kind: str, box: int, amount: int, **extra: Any) -> Verdict | None:
        self.t += 0.5
        return self.send(BetPlaced(self.t, kind, box, amount, extra))

    def line(self, text: str) -> None:
        self.t += 0.5
        self.send(SerialData(self.t, "shoe", text.encode("latin-1")))

    def ready(self) -> Run:
        for step in ART5:
            self.inp("procedure_step", step=step)
        self.line("[Burn]<Card:2C>\r\n")
        return self

    def records(self) -> list[dict[str, Any]]:
        return list(self.journal.records())

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.records() if r["type"] == type_]


def test_open_bets_before_the_procedure_is_refused_with_the_seed_002_reason(
        tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    verdict = run.inp("open_bets")
    assert verdict == Verdict(False, "shoe_not_ready",
                              "the new_decks procedure (seed 002) is not complete")
    assert str(verdict) == "refused: the new_decks procedure (seed 002) is not complete"
    (alarm,) = run.of("alarm")
    assert alarm["code"] == "shoe_not_ready" and alarm["coup"] == 0
    assert alarm["message"] == "open_bets: the new_decks procedure (seed 002) is not complete"
    assert not run.of("coup_start")


def test_accepted_inputs_and_bets_say_so(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite").ready()
    assert run.inp("open_bets") == Verdict(True)
    assert run.bet("punto", 2, 50) == Verdict(True)
    assert run.inp("no_more_bets") == Verdict(True)
    assert not run.of("alarm")


def test_each_refusal_names_its_rule(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    assert run.inp("procedure_step", step="load").code == "procedure_out_of_order"  # Art. 5
    assert run.inp("inspector_clear").code == "play_not_stopped"
    assert run.inp("card", card="7H").code == "no_misread_pending"
    assert run.inp("card", card="JK").code == "bad_card"  # no joker (seed 002 Art. 4)
    assert run.inp("five_choice", box=True, choice="draw").code == "bad_input"
    assert run.inp("hit", box=1).code == "input_refused"  # not a Mini-Bacará input
    run.ready()
    assert run.inp("five_choice", box=1, choice="draw").code == "five_choice_not_due"
    # A typo of the choice is told as one, not as the coup's state (Art. 8).
    typo = run.inp("five_choice", box=1, choice="drwa")
    assert typo.code == "bad_input" and "draw or stand" in typo.reason
    assert run.inp("no_more_bets").code == "bets_not_open"
    run.inp("open_bets")
    assert run.inp("open_bets").code == "coup_in_progress"
    assert run.bet("punto", 9, 10).code == "unknown_box"  # five boxes (seed 000 Art. 2)
    assert run.bet("insurance", 1, 10).code == "insurance_not_offered"  # Art. 11
    assert run.inp("no_more_bets").code == "no_boxes_in_play"
    codes = [a["code"] for a in run.of("alarm")]
    assert codes == ["procedure_out_of_order", "play_not_stopped", "no_misread_pending",
                     "bad_card", "bad_input", "input_refused", "five_choice_not_due",
                     "bad_input", "bets_not_open", "coup_in_progress", "bet_refused", "bet_refused",
                     "no_boxes_in_play"]


def test_a_refused_input_journals_its_input_and_one_alarm_only(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite")
    before = len(run.records())
    run.inp("procedure_step", step="cut")
    assert [r["type"] for r in run.records()[before:]] == ["input", "alarm"]


def test_an_accepted_bet_is_one_record_with_every_field_of_the_bet(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite").ready()
    run.inp("open_bets")
    before = len(run.records())
    run.bet("punto", 2, 50)
    (placed,) = run.records()[before:]
    assert placed["type"] == "bet_placed"
    assert {k: placed[k] for k in ("kind", "box", "amount", "coup", "total")} == {
        "kind": "punto", "box": 2, "amount": 50, "coup": 1, "total": 50}
    assert not run.of("bet_request")


def test_a_refused_bet_is_one_alarm_that_carries_the_bet(tmp_path: Path) -> None:
    run = Run(tmp_path / "j.sqlite").ready()
    before = len(run.records())
    run.bet("banca", 3, 20)
    (alarm,) = run.records()[before:]
    assert alarm["type"] == "alarm" and alarm["code"] == "bet_refused"
    assert alarm["message"] == ("banca of 20 on box 3: bets_closed: bets are made before the "
                                "first card (Art. 4)")
    assert alarm["bet"] == {"kind": "banca", "box": 3, "amount": 20} and alarm["coup"] == 0


def test_bets_are_read_back_from_their_records_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    run = Run(path).ready()
    run.inp("open_bets")
    run.bet("punto", 2, 50)
    run.bet("banca", 2, 20000)  # over the box maximum (Art. 5): refused
    run.bet("banca", 4, 10)
    t = run.t
    run.close()

    again = Run(path)
    again.table.recover()
    (recovery,) = again.of("recovery")
    assert recovery["mismatch"] is None and recovery["records_checked"] > 0
    assert "records_completed" not in recovery  # nothing is ever completed on restart
    assert recovery["state"] == "bets_open" and recovery["coup"] == 1
    again.t = t
    assert again.bet("punto", 2, 10) == Verdict(True)  # the box's total goes on from 50
    assert again.of("bet_placed")[-1]["total"] == 60
    assert again.inp("no_more_bets") == Verdict(True)
    assert again.of("bets_closed")[-1]["boxes"] == [2, 4]
    again.close()
