"""A shoe line cut by a serial outage (issue 6, item 9): never spliced, its card never lost;
and cards dealt while the port was down never replaced by the next ones read (issue 16,
item 2): after the replug, while a card could be due, play waits for the dealer's
``lost_cards`` (the cards dealt meanwhile, [] for none).

The reader sends ``[Game]<Card:`` and the USB cable is pulled; after the replug it sends the
rest, ``TD>``. Joined, the two halves would read as a clean TD. The table is driven as the
daemon drives it: the transport's ``PortStatus`` events between the ``SerialData`` ones, in
virtual time, through the whole controller (codec, shoe session, game, journal). Expected
values come from CONTRACT §4 ("a misread card is never guessed: play waits for a dealer
correction") and seed 000 Art. 6 (dealing order), not from the code's output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cards.card import full_deck
from controller.cli.compose import load_config
from controller.core.clock import VirtualClock
from controller.core.events import BetPlaced, DealerInput, Event, PortStatus, SerialData
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

sys.path.insert(0, str(Path(__file__).resolve().parent / "articles"))
from card_traces import Trace, play

ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")  # seed 002 Art. 5 a-f


class Shoe:
    """Events for a Mini-Bacará table, 0.5 s apart, then the records the table journals."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.t = 0.0

    def _next(self) -> float:
        self.t += 0.5
        return self.t

    def inp(self, action: str, **args: Any) -> Shoe:
        self.events.append(DealerInput(self._next(), action, args))
        return self

    def bet(self, kind: str, box: int, amount: int) -> Shoe:
        self.events.append(BetPlaced(self._next(), kind, box, amount))
        return self

    def send(self, data: str) -> Shoe:
        self.events.append(SerialData(self._next(), "shoe", data.encode("latin-1")))
        return self

    def cards(self, *cards: str) -> Shoe:
        return self.send("".join(f"[Game]<Card:{c}>\r\n" for c in cards))

    def unplugged(self) -> Shoe:
        """The port goes away and comes back (SerialTransport's two PortStatus events)."""
        self.events.append(PortStatus(self._next(), "shoe", False, "read failed: [Errno 5]"))
        self.events.append(PortStatus(self._next(), "shoe", True, "opened /dev/ttyUSB0"))
        return self

    def ready(self) -> Shoe:
        for step in ART5:
            self.inp("procedure_step", step=step)
        return self.send("[Burn]<Card:2C>\r\n")

    def run(self, tmp_path: Path) -> Records:
        config = load_config("embedded:mini-baccarat-sim.toml")
        records = Records()
        with Journal(tmp_path / "journal.sqlite", durable=False) as journal:
            clock = VirtualClock()
            loop = EventLoop(clock, lambda e: None)
            table = Table(config, journal, loop.call_at, clock.now, records.sink)
            loop.handler = table.handle
            loop.run_events(self.events)
        return records


class Records:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def sink(self, body: str) -> None:
        self.items.append(json.loads(body))

    def of(self, *types: str) -> list[dict[str, Any]]:
        return [r for r in self.items if r["type"] in types]

    def alarms(self) -> list[str]:
        return [r["code"] for r in self.of("alarm")]

    def alarm(self, code: str) -> dict[str, Any]:
        (record,) = [r for r in self.of("alarm") if r["code"] == code]
        return record

    def cards(self) -> list[tuple[str, str, bool]]:
        return [(r["hand"], r["card"], r["manual"]) for r in self.of("card")]

    def outcomes(self) -> dict[int, str]:
        (result,) = self.of("coup_result")
        return {b["box"]: b["outcome"] for b in result["boxes"]}


def coup_cut_on_box_1_second_card() -> Shoe:
    """Punto on box 1. Seed 000 Art. 6 order: box 1 (9S), the Banca face down (3H), box 1
    (TD, cut by the outage), the Banca (4D)."""
    shoe = Shoe().ready().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    return shoe.cards("9S", "3H").send("[Game]<Card:").unplugged().send("TD>\r\n")


def test_line_cut_by_a_serial_outage_is_a_misread_the_dealer_corrects(tmp_path: Path) -> None:
    shoe = coup_cut_on_box_1_second_card().inp("card", card="TD")
    run = shoe.inp("lost_cards", cards=[]).cards("4D").run(tmp_path)
    # The two halves are never one line: no card "TD" read from the shoe.
    assert run.cards() == [("box 1", "9S", False), ("banca", "??", False),
                           ("box 1", "TD", True), ("banca", "4D", False)]
    assert run.alarms() == ["shoe_disconnected", "line_cut", "shoe_input_lost",
                            "unknown_line"]
    cut = run.alarm("line_cut")
    assert "cut by the port going down" in cut["message"] and cut["lost"] == "game"
    assert "misread" in cut["message"]
    # The tail after the replug, a line alone: journaled whole; the public sees "??" (a
    # raw line during the deal may be the Banca's face-down card).
    assert run.alarm("unknown_line")["text"] == "??"
    with Journal(tmp_path / "journal.sqlite", readonly=True) as journal:
        assert [a["text"] for a in journal.records(types=("alarm",))
                if a["code"] == "unknown_line"] == ["TD>"]
    (misread,) = [r for r in run.of("misread") if "hand" in r]
    assert misread["hand"] == "box 1" and cut["seq"] < misread["seq"]
    (down,) = [r for r in run.of("port") if not r["up"]]
    assert down["seq"] < cut["seq"]
    assert run.outcomes() == {1: "punto"}  # 9S TD = 9 against 3H 4D = 7


def test_line_cut_by_a_serial_outage_stops_play_until_the_correction(tmp_path: Path) -> None:
    # No correction: the next card read must not take box 1's place (it is the Banca's).
    run = coup_cut_on_box_1_second_card().cards("4D").run(tmp_path)
    assert [c for _, c, _ in run.cards()] == ["9S", "??"]
    stop = run.alarm("card_before_correction")
    # 4D may be the Banca's face-down card: the public sees it masked; the journal has it.
    assert stop["stops_play"] is True and stop["card"] == "??"
    with Journal(tmp_path / "journal.sqlite", readonly=True) as journal:
        (whole,) = [a for a in journal.records(types=("alarm",))
                    if a["code"] == "card_before_correction"]
    assert whole["card"] == "4D"
    assert not run.of("coup_result")


def test_face_down_card_cut_by_a_serial_outage_is_not_shown_in_the_alarm(
    tmp_path: Path,
) -> None:
    # The Banca's face-down card (seed 000 Art. 6) cut after its rank: "[Game]<Card:3".
    shoe = Shoe().ready().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    shoe.cards("9S").send("[Game]<Card:3").unplugged().send("H>\r\n")
    run = shoe.inp("card", card="3H").inp("lost_cards", cards=[]).cards("TD", "4D").run(
        tmp_path)
    assert "<Card:3" not in json.dumps(run.alarm("line_cut"))
    assert run.cards()[1] == ("banca", "??", True)
    assert run.outcomes() == {1: "punto"}


def test_burn_line_cut_by_a_serial_outage_stops_play_until_the_inspector(
    tmp_path: Path,
) -> None:
    # A burn card that passed unread: the shoe's composition is not known (RULES.md §3).
    shoe = Shoe().ready().send("[Burn]<Card:").unplugged().send("KS>\r\n").inp("open_bets")
    run = shoe.inp("inspector_clear", note="burn card checked").inp("open_bets").run(tmp_path)
    assert run.alarms() == ["shoe_disconnected", "line_cut", "bad_card", "unknown_line",
                            "play_stopped"]
    assert run.alarm("line_cut")["lost"] == "burn"
    assert run.alarm("bad_card")["stops_play"] is True
    assert len(run.of("coup_start")) == 1  # only after the inspector's clearance


def test_cut_card_line_cut_by_a_serial_outage_still_ends_the_shoe(tmp_path: Path) -> None:
    # 103 burns after the procedure's 2C: 104 of 208 cards left, half the pack, where the
    # cut card may sit (seed 002 Art. 5 e); then "[Cu", the outage, and "t]".
    burns = [c for c in full_deck() if str(c) != "2C"] + full_deck()
    shoe = Shoe().ready().send("".join(f"[Burn]<Card:{c}>\r\n" for c in burns))
    run = shoe.send("[Cu").unplugged().send("t]\r\n").inp("open_bets").run(tmp_path)
    assert run.alarms() == ["shoe_disconnected", "line_cut", "unknown_line", "shoe_not_ready"]
    cut_off = run.alarm("line_cut")
    assert cut_off["lost"] == "cut" and cut_off["text"] == "[Cu"
    (cut,) = run.of("cut_card")
    assert cut["seq"] > cut_off["seq"] and cut["cards_left"] == 104 and not cut["early"]
    (closed,) = run.of("shoe_closed")
    assert closed["reason"] == "cut_card"  # seed 002 Art. 6 is due before the next coup


@pytest.mark.parametrize("partial", ["<Alarm:E3 Card N", "<W0x0", "\r"])
def test_line_without_a_card_cut_by_a_serial_outage_does_not_stop_play(
    tmp_path: Path, partial: str,
) -> None:
    shoe = Shoe().ready().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    shoe.cards("9S", "3H").send(partial).unplugged().inp("lost_cards", cards=[])
    run = shoe.cards("TD", "4D").run(tmp_path)
    assert run.cards() == [("box 1", "9S", False), ("banca", "??", False),
                           ("box 1", "TD", False), ("banca", "4D", False)]
    assert not run.of("misread")
    expected = ["shoe_disconnected"] + (["line_cut"] if partial.strip() else []) + [
        "shoe_input_lost"]
    assert run.alarms() == expected
    if partial.strip():
        assert run.alarm("line_cut")["lost"] is None
    assert run.outcomes() == {1: "punto"}


def coup_unplugged_after_the_banca_s_card() -> Shoe:
    """Punto on box 1; 9S to box 1, 3H to the Banca (face down); then the port goes down,
    the dealer deals box 1's second card (TD) while it is down, and after the replug the
    reader reads the Banca's second card (4D). Seed 000 Art. 6 order: box 1, the Banca,
    box 1, the Banca."""
    shoe = Shoe().ready().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    return shoe.cards("9S", "3H").unplugged().cards("4D")


def test_a_card_read_after_an_outage_never_takes_a_lost_card_s_place(tmp_path: Path) -> None:
    run = coup_unplugged_after_the_banca_s_card().run(tmp_path)
    # 4D is the Banca's: box 1's place may be TD's, dealt while the port was down.
    assert run.cards() == [("box 1", "9S", False), ("banca", "??", False)]
    lost = run.alarm("shoe_input_lost")
    assert "box 1" in lost["message"] and "lost_cards" in lost["message"]
    assert run.alarms() == ["shoe_disconnected", "shoe_input_lost", "card_waiting"]
    assert "4D" not in json.dumps(run.of("alarm"))
    assert not run.of("coup_result")


def test_the_dealer_enters_the_card_dealt_during_the_outage(tmp_path: Path) -> None:
    run = coup_unplugged_after_the_banca_s_card().inp("lost_cards", cards=["TD"]).run(tmp_path)
    assert run.cards() == [("box 1", "9S", False), ("banca", "??", False),
                           ("box 1", "TD", True), ("banca", "4D", False)]
    assert run.outcomes() == {1: "punto"}  # 9S TD = 9 against 3H 4D = 7


def test_an_outage_between_coups_does_not_stop_play(tmp_path: Path) -> None:
    shoe = Shoe().ready().unplugged().inp("open_bets").bet("punto", 1, 10)
    run = shoe.inp("no_more_bets").cards("9S", "3H", "TD", "4D").run(tmp_path)
    assert run.alarms() == ["shoe_disconnected"]
    assert run.outcomes() == {1: "punto"}


def test_lost_cards_with_nothing_lost_is_refused(tmp_path: Path) -> None:
    run = Shoe().ready().inp("lost_cards", cards=[]).run(tmp_path)
    assert run.alarms() == ["no_input_lost"]


@pytest.mark.parametrize("damaged", ["rd:5H>", "5H>", "[Game", "[", "[Burn]<Ca",
                                     "[Gamrd:5H>", "[Gxme]<Cxrd:5H>", "[Gxme]<Cxrd:5#>"])
def test_damaged_shoe_line_while_a_card_is_due_stops_play_for_lost_cards(
    tmp_path: Path, damaged: str,
) -> None:
    # Punto on box 1, Banca on box 2. Seed 000 Art. 6 order: box 1 (9S), box 2 (5H, its
    # line damaged: head or tail lost), the Banca (3H), box 1 (TD), box 2 (KC), the Banca
    # (4D). The line may have been a card: the next card (3H) must not take box 2's place.
    shoe = Shoe().ready().inp("open_bets").bet("punto", 1, 10).bet("banca", 2, 20)
    shoe.inp("no_more_bets").cards("9S").send(damaged + "\r\n").cards("3H")
    stopped = shoe.run(tmp_path / "stopped")
    assert "shoe_input_lost" in stopped.alarms()
    assert [c for _, c, _ in stopped.cards()] == ["9S"]  # 3H waits, placed nowhere
    run = shoe.inp("lost_cards", cards=["5H"]).cards("TD", "KC", "4D").run(tmp_path / "run")
    assert run.cards() == [("box 1", "9S", False), ("box 2", "5H", True),
                           ("banca", "??", False), ("box 1", "TD", False),
                           ("box 2", "KC", False), ("banca", "4D", False)]
    # Box 1 9S TD = 9 beats the Banca's 3H 4D = 7; box 2's 5H KC = 5 loses to it.
    assert run.outcomes() == {1: "punto", 2: "banca"}

@pytest.mark.parametrize("noise", ["<Alarm:E3 Card Not Read", "\xff\xfe\x00", "HELLO"])
def test_a_line_shown_to_hold_no_card_does_not_stop_play(tmp_path: Path, noise: str) -> None:
    # A reader alarm that lost its end, noise with nothing of a card line (CONTRACT §4:
    # "Any other line is counted and journaled as an alarm").
    shoe = Shoe().ready().inp("open_bets").bet("punto", 1, 10).inp("no_more_bets")
    run = shoe.cards("9S").send(noise + "\r\n").cards("3H", "TD", "4D").run(tmp_path)
    assert run.alarms() == ["unknown_line"]
    assert run.outcomes() == {1: "punto"}  # 9S TD = 9 against 3H 4D = 7


@pytest.mark.parametrize("damaged", ["[Gamrd:KS>", "[Gxme]<Cxrd:KS>"])
def test_black_jack_a_card_line_damaged_in_its_middle_never_moves_the_cards_after_it(
        tmp_path: Path, damaged: str) -> None:
    # The held-out tester's trace (finding 1): main 10 on boxes 1 and 2. Seed 002 Art. 8
    # order: box 1 TS, box 2 9H, the dealer KS (face down; its line lost bytes in its
    # middle), box 1 6D, box 2 2C, the dealer 5H. Then box 1 stands, box 2 hits 8C and
    # stands, the dealer draws 4D.
    trace = Trace(table="blackjack_plus", decks=6).coup((("main", 1, 10), ("main", 2, 10)),
                                                        "TS", "9H")
    trace.line(damaged).cards("6D", "2C", "5H")
    stopped = play(tmp_path, trace)
    assert "shoe_input_lost" in stopped.codes()
    assert stopped.dealt() == [("box 1", "TS"), ("box 2", "9H")]  # 6D 2C 5H wait
    trace.inp("lost_cards", cards=["KS"]).inp("stand", box=1).inp("hit", box=2).cards("8C")
    run = play(tmp_path, trace.inp("stand", box=2).cards("4D"))
    assert run.dealt() == [("box 1", "TS"), ("box 2", "9H"), ("dealer", "KS"),
                           ("box 1", "6D"), ("box 2", "2C"), ("dealer", "5H"),
                           ("box 2", "8C"), ("dealer", "4D")]
    # Box 1 TS 6D = 16 loses to the dealer's KS 5H 4D = 19; box 2 9H 2C 8C = 19 pushes.
    assert run.settlements() == [(1, "main", 10, "lose", -10), (2, "main", 10, "push", 0)]


def test_an_outage_in_the_count_out_starts_it_again_never_a_false_shortfall(
        tmp_path: Path) -> None:
    # Seed 002 Art. 4 (the count-out, controller/cards/count_out.py): cards that passed
    # while the port was down were never read; the dealer runs the count-out again.
    deck = [str(c) for c in full_deck()]
    shoe = Shoe().ready()
    shoe.send("".join(f"[Burn]<Card:{c}>\r\n" for c in deck if c != "2C")
               + "".join(f"[Burn]<Card:{c}>\r\n" for c in deck))  # 2 of each card seen
    shoe.send("[Cut]\r\n")  # between coups, with half the pack left: the shoe closes at once
    left = deck * 2  # the other two copies of each card
    shoe.cards(*left[:30]).unplugged()  # 10 more passed unread meanwhile
    shoe.cards(*left).inp("count_out_done")  # all again, from the first
    records = shoe.run(tmp_path)
    assert records.alarms() == ["shoe_disconnected", "count_out_restarted"]
    (counted,) = records.of("count_out")
    assert counted["missing"] == [] and counted["cards"] == len(left) == 104
