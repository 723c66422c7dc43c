"""The card table end to end: ``table-controller replay`` of Mini-Bacará traces (CONTRACT §2-4).

Every trace goes through the whole controller (the shoe codec, the shoe session, the game,
the journal) in virtual time. Expected values come from the seed articles (seed 000 for
the game, seed 002 Art. 4-6 for the shoe) and /work/shared/traces/README.md, not from the
controller's output.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from controller.cards.card import full_deck
from controller.cli import main as cli
from controller.cli import tablectl
from controller.core.clock import VirtualClock
from controller.core.config import load_config
from controller.core.logs import configure
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal
from controller.trace import read_trace

ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")  # seed 002 Art. 5 a-f
ART6 = ("shuffle", "cut", "load")  # seed 002 Art. 6

# /work/shared/traces/mini-baccarat-two-coups.jsonl, verbatim (4 decks; no shoe procedure).
EXAMPLE = """\
{"t": 0, "meta": {"table": "mini_baccarat", "decks": 4}}
{"t": 0.1, "input": "open_bets"}
{"t": 0.2, "bet": "banca", "box": 2, "amount": 10}
{"t": 0.25, "bet": "punto", "box": 4, "amount": 50}
{"t": 0.3, "bet": "banca", "box": 5, "amount": 20}
{"t": 0.35, "input": "no_more_bets"}
{"t": 0.65, "serial": "shoe", "text": "[Game]<Card:9S>\\r\\n"}
{"t": 1.35, "serial": "shoe", "text": "[Game]<Card:5H>\\r\\n"}
{"t": 2.05, "serial": "shoe", "text": "[Game]<Card:QC>\\r\\n"}
{"t": 2.75, "serial": "shoe", "text": "[Game]<Card:3H>\\r\\n"}
{"t": 3.45, "serial": "shoe", "text": "[Game]<Card:7C>\\r\\n"}
{"t": 4.15, "serial": "shoe", "text": "[Game]<Card:4H>\\r\\n"}
{"t": 4.85, "serial": "shoe", "text": "[Game]<Card:JS>\\r\\n"}
{"t": 5.55, "serial": "shoe", "text": "[Game]<Card:4D>\\r\\n"}
{"t": 6.25, "serial": "shoe", "text": "[Game]<Card:8D>\\r\\n"}
{"t": 10.95, "input": "open_bets"}
{"t": 11.05, "bet": "banca", "box": 1, "amount": 20}
{"t": 11.1, "bet": "punto", "box": 2, "amount": 50}
{"t": 11.15, "bet": "punto", "box": 3, "amount": 20}
{"t": 11.2, "bet": "punto", "box": 4, "amount": 50}
{"t": 11.25, "bet": "punto", "box": 5, "amount": 20}
{"t": 11.3, "bet": "banca", "box": 5, "amount": 20}
{"t": 11.35, "input": "no_more_bets"}
{"t": 11.65, "serial": "shoe", "text": "[Game]<Card:8C>\\r\\n"}
{"t": 12.35, "serial": "shoe", "text": "[Game]<Card:9H>\\r\\n"}
{"t": 13.05, "serial": "shoe", "text": "[Game]<Card:2D>\\r\\n"}
{"t": 13.75, "serial": "shoe", "text": "[Game]<Card:5S>\\r\\n"}
{"t": 14.45, "serial": "shoe", "text": "[Game]<Card:7D>\\r\\n"}
{"t": 15.15, "serial": "shoe", "text": "[Game]<Card:8S>\\r\\n"}
{"t": 15.85, "serial": "shoe", "text": "[Game]<Card:9H>\\r\\n"}
{"t": 16.55, "serial": "shoe", "text": "[Game]<Card:8S>\\r\\n"}
{"t": 17.25, "serial": "shoe", "text": "[Game]<Card:TD>\\r\\n"}
{"t": 17.95, "serial": "shoe", "text": "[Game]<Card:KC>\\r\\n"}
{"t": 18.65, "serial": "shoe", "text": "[Game]<Card:8D>\\r\\n"}
{"t": 19.35, "input": "five_choice", "box": 4, "choice": "draw"}
{"t": 19.55, "input": "five_choice", "box": 5, "choice": "draw"}
{"t": 19.75, "serial": "shoe", "text": "[Game]<Card:QS>\\r\\n"}
"""
EXAMPLE_OBJECTS: list[dict[str, Any]] = [json.loads(line) for line in EXAMPLE.splitlines()]
# The first coup of the example: bets, then its nine cards in dealing order.
COUP1_BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))
COUP1_CARDS = ("9S", "5H", "QC", "3H", "7C", "4H", "JS", "4D", "8D")
COUP1_FACE_DOWN = "3H"  # the Banca's first card (seed 000 Art. 6: dealt face down)


def banca_win(amount: int) -> float:
    """Seed 000 Art. 10: a winning Banca bet is paid 90% of the stake."""
    return amount * 9 / 10


# -- building and replaying traces ----------------------------------------------------
class Deal:
    """A Mini-Bacará trace built event by event, ``step`` seconds apart (CONTRACT §2)."""

    def __init__(self, decks: int = 4, step: float = 0.5, **meta: Any) -> None:
        self.objects: list[dict[str, Any]] = [
            {"t": 0, "meta": {"table": "mini_baccarat", "decks": decks, **meta}}]
        self.t = 0.0
        self.step = step

    def add(self, obj: dict[str, Any]) -> Deal:
        self.t = round(self.t + self.step, 6)
        self.objects.append({"t": self.t, **obj})
        return self

    def inp(self, action: str, **args: Any) -> Deal:
        return self.add({"input": action, **args})

    def bet(self, kind: str, box: int, amount: int) -> Deal:
        return self.add({"bet": kind, "box": box, "amount": amount})

    def serial(self, text: str) -> Deal:
        return self.add({"serial": "shoe", "text": text})

    def raw(self, data: bytes) -> Deal:
        return self.add({"serial": "shoe", "hex": data.hex()})

    def cards(self, *cards: str) -> Deal:
        for card in cards:
            self.serial(f"[Game]<Card:{card}>\r\n")
        return self

    def procedure(self, steps: tuple[str, ...] = ART5, burn: str | None = "2C") -> Deal:
        for step in steps:
            self.inp("procedure_step", step=step)
        if burn is not None:
            self.serial(f"[Burn]<Card:{burn}>\r\n")
        return self

    def coup(self, bets: tuple[tuple[str, int, int], ...], *cards: str) -> Deal:
        self.inp("open_bets")
        for kind, box, amount in bets:
            self.bet(kind, box, amount)
        return self.inp("no_more_bets").cards(*cards)

    def example_after_procedure(self) -> Deal:
        """The example trace's events, after the procedure and burn built so far."""
        offset = self.t
        for obj in EXAMPLE_OBJECTS[1:]:
            self.objects.append({**obj, "t": round(obj["t"] + offset, 6)})
        self.t = self.objects[-1]["t"]
        return self


class Run:
    """The records ``replay`` printed, and where its journal is."""

    def __init__(self, records: list[dict[str, Any]], journal: Path, stdout: str) -> None:
        self.records = records
        self.journal = journal
        self.stdout = stdout

    def of(self, *types: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] in types]

    def alarms(self, code: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.of("alarm") if code is None or r["code"] == code]

    def cards(self) -> list[tuple[str, str]]:
        return [(r["hand"], r["card"]) for r in self.of("card")]

    def settlements(self, game: int | None = None) -> list[tuple[int, str, int, str, float]]:
        return [(r["box"], r["kind"], r["amount"], r["outcome"], r["payout"])
                for r in self.of("settlement") if game is None or r["game"] == game]

    def outcomes(self, coup: int) -> dict[int, str]:
        (result,) = [r for r in self.of("coup_result") if r["coup"] == coup]
        return {b["box"]: b["outcome"] for b in result["boxes"]}


@pytest.fixture
def replay(tmp_path: Path) -> Any:
    counter = iter(range(1, 1000))

    def run(deal: Deal) -> Run:
        n = next(counter)
        trace = tmp_path / f"trace-{n}.jsonl"
        trace.write_text("".join(json.dumps(o) + "\n" for o in deal.objects), encoding="utf-8")
        journal = tmp_path / f"journal-{n}.sqlite"
        out = io.StringIO()
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            rc = cli.main(["replay", str(trace), "--journal", str(journal)])
        assert rc == 0
        text = out.getvalue()
        return Run([json.loads(line) for line in text.splitlines()], journal, text)

    return run


def ready(decks: int = 4, burn: str = "2C", **meta: Any) -> Deal:
    return Deal(decks, **meta).procedure(burn=burn)


# -- the example trace ----------------------------------------------------------------
def test_example_two_coups_give_the_readme_outcomes_and_art10_payouts(replay: Any) -> None:
    run = replay(ready().example_after_procedure())
    assert not run.alarms()
    # Coup 1 (README): Banca 3H 4D = 7 stands (Art. 9 d); box 5 draws 8D.
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}
    (result1,) = [r for r in run.of("coup_result") if r["coup"] == 1]
    assert result1["banca"] == {"cards": ["3H", "4D"], "total": 7, "natural": False}
    boxes1 = {b["box"]: (b["cards"], b["total"]) for b in result1["boxes"]}
    assert boxes1 == {2: (["9S", "7C"], 6), 4: (["5H", "4H"], 9), 5: (["QC", "JS", "8D"], 8)}
    assert sorted(run.settlements(1)) == sorted([
        (2, "banca", 10, "win", banca_win(10)),   # Art. 10: Banca paid 90%
        (4, "punto", 50, "win", 50),              # Punto even money
        (5, "banca", 20, "lose", -20),
    ])
    # Coup 2: Banca 8S QS = 8, a natural (Art. 9 a): every box loses, no third cards.
    assert run.outcomes(2) == {b: "banca" for b in range(1, 6)}
    (result2,) = [r for r in run.of("coup_result") if r["coup"] == 2]
    assert result2["banca"] == {"cards": ["8S", "QS"], "total": 8, "natural": True}
    assert all(len(b["cards"]) == 2 for b in result2["boxes"])
    assert sorted(run.settlements(2)) == sorted([
        (1, "banca", 20, "win", banca_win(20)),
        (2, "punto", 50, "lose", -50),
        (3, "punto", 20, "lose", -20),
        (4, "punto", 50, "lose", -50),
        (5, "punto", 20, "lose", -20),
        (5, "banca", 20, "win", banca_win(20)),
    ])
    choices = [(r["box"], r["choice"]) for r in run.of("five_choice")]
    assert choices == [(4, "draw"), (5, "draw")]


# -- the shoe procedures (seed 002 Art. 5-6) ------------------------------------------
def test_first_game_refused_before_the_procedure_is_complete(replay: Any) -> None:
    deal = Deal().procedure(("show", "turn", "scramble"), burn=None).inp("open_bets")
    deal.procedure(("shuffle", "cut", "load"), burn=None).inp("open_bets")  # burn missing
    deal.serial("[Burn]<Card:2C>\r\n").coup(COUP1_BETS, *COUP1_CARDS)
    run = replay(deal)
    refused = run.alarms("shoe_not_ready")
    assert len(refused) == 2
    starts = run.of("coup_start")
    assert len(starts) == 1 and all(a["seq"] < starts[0]["seq"] for a in refused)
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_procedure_step_out_of_order_is_an_alarm(replay: Any) -> None:
    deal = Deal().procedure(("show", "shuffle"), burn=None)  # turn and scramble skipped
    run = replay(deal)
    (alarm,) = run.alarms()
    assert alarm["code"] == "procedure_out_of_order"
    assert [r["step"] for r in run.of("shoe_procedure")] == ["show"]


def test_card_over_the_4_deck_count_stops_play_until_the_inspector_clears(replay: Any) -> None:
    # The burn is the first 7H; box 1 gets 7H 7H, the Banca 7H face down: the Banca's
    # second 7H is a fifth 7H in 4 decks (seed 002 Art. 4).
    deal = ready(burn="7H").coup((("punto", 1, 10),), "7H", "7H", "7H", "7H")
    deal.cards("QD").inp("open_bets")  # refused while stopped
    deal.inp("inspector_clear", note="deck checked").cards("QD", "5C")
    run = replay(deal)
    over = run.alarms("card_over_count")
    assert len(over) == 1 and over[0]["stops_play"] is True
    while_stopped = run.alarms("card_while_stopped")
    assert [a["card"] for a in while_stopped] == ["QD"]
    assert len(run.alarms("play_stopped")) == 1  # the open_bets while stopped
    clear = run.of("inspector_clear")
    assert len(clear) == 1 and clear[0]["cleared"] == ["card_over_count"]
    # Only after the clearance does play go on: QD is the Banca's second card.
    assert run.cards() == [("box 1", "7H"), ("banca", "??"), ("box 1", "7H"),
                           ("banca", "QD"), ("box 1", "5C")]
    assert all(r["seq"] > clear[0]["seq"] for r in run.of("card")[3:])
    # Box 7H 7H 5C = 9 against Banca 7H QD = 7.
    assert run.outcomes(1) == {1: "punto"}


def test_joker_is_an_alarm_and_stops_play(replay: Any) -> None:
    deal = ready().coup((("punto", 1, 10),), "9S", "JK", "3H").inp("inspector_clear", note="x")
    deal.cards("3H", "7C", "4D")
    run = replay(deal)
    bad = run.alarms("bad_card")
    assert len(bad) == 1 and bad[0]["stops_play"] is True
    assert [a["card"] for a in run.alarms("card_while_stopped")] == ["3H"]
    assert run.cards() == [("box 1", "9S"), ("banca", "??"), ("box 1", "7C"), ("banca", "4D")]
    assert run.of("card_turned")[0]["card"] == "3H"


PACK = 4 * 52  # seed 000 Art. 2: a sabot of four decks
HALF_PACK = PACK // 2  # seed 002 Art. 5 e, 6 b: "la mitad del paquete"


def burn_down_to(deal: Deal, left: int) -> Deal:
    """Burn cards until ``left`` are in the shoe, after the procedure's burn (2C) only.

    The deck's order over and over (the first pass without 2C): no card is burned more
    often than the four decks hold, and at ``left`` >= 104 each card is burned twice at
    most, so two copies of every card are left for the coups of a test.
    """
    order = [c for c in full_deck() if str(c) != "2C"] + full_deck() * 3
    lines = "".join(f"[Burn]<Card:{card}>\r\n" for card in order[:PACK - 1 - left])
    return deal.serial(lines) if lines else deal


def ready_near_the_cut(left: int = HALF_PACK) -> Deal:
    """New decks, the procedure, and burns down to ``left`` cards: a cut card that comes
    up from then on sits where seed 002 Art. 5 e puts it (40 to half the pack)."""
    return burn_down_to(ready(), left)


def test_cut_card_with_fewer_than_40_cards_left_is_an_alarm(replay: Any) -> None:
    # The procedure's burn and 168 more burns, while coup 1 takes bets, leave 39 cards,
    # under the 40 of seed 002 Art. 5 e (that already raises cut_card_missing); then the
    # cut card, still in coup 1.
    deal = burn_down_to(ready().inp("open_bets").bet("punto", 1, 10), 39)
    deal.serial("[Cut]\r\n")
    run = replay(deal)
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == 39 and cut["late"] is True
    late = run.alarms("cut_card_late")
    assert len(late) == 1 and late[0]["stops_play"] is True
    assert "misplaced cut card" in late[0]["message"]
    assert run.alarms("cut_card_missing")  # the reserve was entered first
    assert not run.of("shoe_closed")  # coup 1 is under way: the shoe ends with it


@pytest.mark.parametrize("left", [HALF_PACK + 1, PACK - 1])
def test_art5e_6b_cut_card_with_more_than_half_the_pack_left_is_misplaced(
    replay: Any, left: int
) -> None:
    # Seed 002 Art. 5 e, 6 b: the cut card goes "a no menos de 40 cartas de la base y la
    # mitad del paquete". Appearing with 105 of 208 cards left (or right after the burn), it
    # was put too high: play stops on that shoe until the inspector clears it (RULES.md §3).
    deal = burn_down_to(ready(), left).serial("[Cut]\r\n").inp("open_bets")  # refused
    deal.inp("inspector_clear", note="cut card was too high").procedure(ART6, burn="KD")
    deal.coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
    run = replay(deal)
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == left and cut["early"] is True and cut["late"] is False
    (early,) = run.alarms("cut_card_early")
    assert early["stops_play"] is True and "misplaced cut card" in early["message"]
    assert [a["code"] for a in run.alarms()] == ["cut_card_early", "play_stopped"]
    assert len(run.of("coup_start")) == 1  # the only coup is the one after the clearance
    (clear,) = run.of("inspector_clear")
    assert clear["cleared"] == ["cut_card_early"]
    art6 = [r["step"] for r in run.of("shoe_procedure") if r["procedure"] == "cut_card"]
    assert art6 == [*ART6, "burn"]
    assert run.outcomes(1) == {1: "punto"}  # 9S TC = 9 against 3H 4D = 7


def test_art5e_6b_cut_card_with_exactly_half_the_pack_left_is_in_place(replay: Any) -> None:
    run = replay(ready_near_the_cut(HALF_PACK).serial("[Cut]\r\n"))
    (cut,) = run.of("cut_card")
    assert cut["cards_left"] == HALF_PACK and not cut["early"] and not cut["late"]
    assert not run.alarms()


@pytest.mark.parametrize("before", ["first_coup", "next_coup"])
def test_cut_card_between_coups_closes_the_shoe_at_once_for_art6(replay: Any,
                                                                 before: str) -> None:
    # RULES.md §3: the cut card ends the shoe after the current game; between coups there
    # is none, so the shoe closes now and seed 002 Art. 6 (shuffle, cut, load, burn) is due.
    deal = ready_near_the_cut()
    if before == "next_coup":
        deal.coup(COUP1_BETS, *COUP1_CARDS)
    deal.serial("[Cut]\r\n").inp("open_bets")  # refused: the procedure comes first
    deal.procedure(ART6, burn="KD").coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
    run = replay(deal)
    (cut,) = run.of("cut_card")
    (closed,) = run.of("shoe_closed")
    assert closed["reason"] == "cut_card" and closed["seq"] > cut["seq"]
    assert [a["code"] for a in run.alarms()] == ["shoe_not_ready"]
    art6 = [r["step"] for r in run.of("shoe_procedure") if r["procedure"] == "cut_card"]
    assert art6 == [*ART6, "burn"]
    coup = 2 if before == "next_coup" else 1
    assert run.outcomes(coup) == {1: "punto"}  # 9S TC = 9 against 3H 4D = 7


def test_cut_card_while_bets_are_open_ends_the_shoe_when_that_coup_ends(replay: Any) -> None:
    # Decision (CardTable.serial): the coup whose bets are open is the current game.
    deal = ready_near_the_cut().inp("open_bets")
    for kind, box, amount in COUP1_BETS:
        deal.bet(kind, box, amount)
    deal.serial("[Cut]\r\n").inp("no_more_bets").cards(*COUP1_CARDS)
    deal.inp("open_bets").procedure(ART6, burn="KD").coup((("punto", 1, 10),), "9S", "3H",
                                                           "TC", "4D")
    run = replay(deal)
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}
    (closed,) = run.of("shoe_closed")
    (result1,) = [r for r in run.of("coup_result") if r["coup"] == 1]
    assert closed["seq"] > result1["seq"]
    assert [a["code"] for a in run.alarms()] == ["shoe_not_ready"]
    assert run.outcomes(2) == {1: "punto"}


def test_reserve_reached_between_coups_closes_the_shoe_for_art6(replay: Any) -> None:
    # Burns between coups enter the 40-card reserve with no cut card (RULES.md §3): play
    # stops; once the inspector clears, the Art. 6 procedure, then a coup.
    deal = burn_down_to(ready(), 39)
    deal.inp("inspector_clear", note="reshuffle").procedure(ART6, burn="KD")
    deal.coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
    run = replay(deal)
    assert [a["code"] for a in run.alarms()] == ["cut_card_missing"]
    (closed,) = run.of("shoe_closed")
    assert closed["reason"] == "cut_card" and closed["cards_left"] == 39
    art6 = [r["step"] for r in run.of("shoe_procedure") if r["procedure"] == "cut_card"]
    assert art6 == [*ART6, "burn"]
    assert run.outcomes(1) == {1: "punto"}


def test_cut_card_ends_the_shoe_after_the_coup_then_art6_before_the_next(replay: Any) -> None:
    deal = ready_near_the_cut().coup(COUP1_BETS, *COUP1_CARDS[:5]).serial("[Cut]\r\n")
    deal.cards(*COUP1_CARDS[5:])
    deal.inp("open_bets")  # refused: the Art. 6 procedure is due
    deal.procedure(ART6, burn="KD").coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
    run = replay(deal)
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}  # the coup finished
    (closed,) = run.of("shoe_closed")
    (result1,) = [r for r in run.of("coup_result") if r["coup"] == 1]
    assert closed["reason"] == "cut_card" and closed["seq"] > result1["seq"]
    refused = run.alarms("shoe_not_ready")
    assert len(refused) == 1 and refused[0]["seq"] > closed["seq"]
    art6 = [r["step"] for r in run.of("shoe_procedure") if r["procedure"] == "cut_card"]
    assert art6 == [*ART6, "burn"]
    assert run.outcomes(2) == {1: "punto"}  # 9S TC = 9 against 3H 4D = 7


# -- dealing --------------------------------------------------------------------------
def test_misread_then_dealer_correction_is_journaled_as_manual(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:4]).serial("[Game]<Game>\r\n")
    deal.inp("card", card="7C").cards(*COUP1_CARDS[5:])
    run = replay(deal)
    assert not run.alarms()
    (misread,) = [r for r in run.of("misread") if "hand" in r]
    assert misread["hand"] == "box 2"
    manual = [r for r in run.of("card") if r["manual"]]
    assert [(r["hand"], r["card"]) for r in manual] == [("box 2", "7C")]
    with Journal(run.journal, readonly=True) as journal:
        stored = [r for r in journal.records(types=("card",)) if r["manual"]]
    assert [(r["hand"], r["card"]) for r in stored] == [("box 2", "7C")]
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_insurance_pays_2_to_1_on_a_banca_natural_nine_and_loses_otherwise(
    replay: Any,
) -> None:
    # Box 1: 2C 4D = 6 stands. The Banca's first card, turned, is 9H: insurance (Art. 11).
    deal = ready().coup((("punto", 1, 100),), "2C", "9H", "4D").bet("insurance", 1, 50)
    deal.cards("KS")  # Banca 9H KS = 9, a natural nine: insurance wins
    deal.coup((("punto", 1, 100),), "2D", "9S", "4S").bet("insurance", 1, 40)
    deal.cards("5C", "2H")  # Banca 9S 5C = 4, draws 2H = 6: insurance lost
    run = replay(deal)
    assert not run.alarms()
    offered = run.of("insurance_offered")
    assert [o["boxes"] for o in offered] == [[{"box": 1, "max": 50}]] * 2
    assert run.settlements(1) == [(1, "insurance", 50, "win", 100), (1, "punto", 100, "lose", -100)]
    assert run.settlements(2) == [(1, "insurance", 40, "lose", -40), (1, "punto", 100, "push", 0)]


def test_five_choice_after_the_banca_second_card_is_late(replay: Any) -> None:
    # Box 1 (Punto) 2C 3D = 5, box 2 AH 3S = 4; Banca 3H 3C = 6.
    deal = ready().coup((("punto", 1, 10), ("punto", 2, 10)), "2C", "AH", "3H", "3D", "3S")
    deal.inp("five_choice", box=1, choice="stand").cards("3C")
    deal.inp("five_choice", box=1, choice="draw")  # after the Banca's second card
    deal.cards("5D")  # box 2's third card: 9
    run = replay(deal)
    (late,) = run.alarms()
    assert late["code"] == "late_five_choice"
    assert [(r["box"], r["choice"]) for r in run.of("five_choice")] == [(1, "stand")]
    assert run.outcomes(1) == {1: "banca", 2: "punto"}
    assert run.cards()[-1] == ("box 2", "5D")


def test_art8_five_choice_changed_after_the_face_down_card_is_turned_is_refused(
    replay: Any,
) -> None:
    # Seed 000 Art. 8: "Decidida la opción, el tallador descubrirá su carta tapada". Box 1
    # (Punto) 2C 3D = 5 stands, box 2 AH 3S = 4; the choice turns the Banca's 3H. The
    # change to "draw", before the Banca's second card, comes too late.
    deal = ready().coup((("punto", 1, 10), ("punto", 2, 10)), "2C", "AH", "3H", "3D", "3S")
    deal.inp("five_choice", box=1, choice="stand")
    deal.inp("five_choice", box=1, choice="draw")  # after the turn: refused
    deal.cards("3C", "5D")  # Banca 3H 3C = 6; box 2 draws 5D: 9; the Banca stands on 6
    run = replay(deal)
    (late,) = run.alarms()
    assert late["code"] == "late_five_choice" and "carta tapada" in late["message"]
    (turned,) = run.of("card_turned")
    assert turned["seq"] < late["seq"]
    assert [(r["box"], r["choice"]) for r in run.of("five_choice")] == [(1, "stand")]
    assert run.cards()[-2:] == [("banca", "3C"), ("box 2", "5D")]  # box 1 took no third card
    assert run.outcomes(1) == {1: "banca", 2: "punto"}  # 5 against 6; 9 against 6


# -- seed 000 Art. 2: five boxes, four decks --------------------------------------------
@pytest.mark.parametrize("box", [6, 99])
def test_art2_a_bet_on_a_box_beyond_the_five_is_refused(replay: Any, box: int) -> None:
    deal = ready().inp("open_bets").bet("punto", box, 10).bet("punto", 5, 10)
    deal.inp("no_more_bets").cards("9S", "3H", "TC", "4D")
    run = replay(deal)
    (refused,) = run.alarms()
    assert refused["code"] == "bet_refused" and "unknown_box" in refused["message"]
    assert [(r["box"], r["amount"]) for r in run.of("bet_placed")] == [(5, 10)]
    assert run.outcomes(1) == {5: "punto"}  # 9S TC = 9 against 3H 4D = 7


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_art2_a_trace_for_another_number_of_decks_is_refused(tmp_path: Path,
                                                             decks: int) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(o) + "\n" for o in Deal(decks).objects))
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = cli.main(["replay", str(trace), "--journal", str(tmp_path / "j.sqlite")])
    assert rc == 2
    (line,) = err.getvalue().splitlines()
    assert str(trace) in line and "meta.decks" in line and "seed 000 Art. 2" in line


# -- the Banca's face-down card (seed 000 Art. 6) -------------------------------------
def before_turn(lines: list[str], turned_marker: str) -> list[str]:
    """The lines before the first one containing ``turned_marker``."""
    for i, line in enumerate(lines):
        if turned_marker in line:
            return lines[:i]
    return lines


def half_coup() -> Deal:
    """Coup 1 of the example up to the boxes' second cards: the Banca's card not turned."""
    return ready().coup(COUP1_BETS, *COUP1_CARDS[:6])


def test_face_down_card_is_masked_in_the_replayed_card_record_and_kept_in_the_journal(
    replay: Any,
) -> None:
    run = replay(ready().example_after_procedure())
    (down,) = [r for r in run.of("card") if r["face_down"] and r["coup"] == 1]
    assert down["card"] == "??"
    (turned,) = [r for r in run.of("card_turned") if r["coup"] == 1]
    assert turned["card"] == COUP1_FACE_DOWN and turned["seq"] > down["seq"]
    with Journal(run.journal, readonly=True) as journal:
        stored = [r for r in journal.records(types=("card",)) if r["face_down"]]
    assert stored[0]["card"] == COUP1_FACE_DOWN and stored[0]["seq"] == down["seq"]


def test_face_down_card_never_in_the_replay_output_before_it_is_turned(replay: Any) -> None:
    run = replay(ready().example_after_procedure())
    shown = before_turn(run.stdout.splitlines(), '"type":"card_turned"')
    assert not [line for line in shown if COUP1_FACE_DOWN in line]


def test_face_down_card_corrected_after_a_misread_stays_hidden_until_turned(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:3]).serial("[Game]<Game>\r\n")
    deal.inp("card", card=COUP1_FACE_DOWN).cards(*COUP1_CARDS[4:])
    run = replay(deal)
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}
    shown = before_turn(run.stdout.splitlines(), '"type":"card_turned"')
    assert not [line for line in shown if COUP1_FACE_DOWN in line]


def test_face_down_card_not_in_tablectl_recall_before_it_is_turned(replay: Any) -> None:
    run = replay(half_coup())
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(run.journal), "recall", "--last", "1"]) == 0
    assert "card" in out.getvalue()
    assert COUP1_FACE_DOWN not in out.getvalue()


def test_face_down_card_not_in_tablectl_recall_json_cards(replay: Any) -> None:
    run = replay(half_coup())
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(run.journal), "recall", "--json"]) == 0
    (game,) = json.loads(out.getvalue())
    cards = [r for r in game["records"] if r["type"] == "card"]
    assert [r["card"] for r in cards if r["face_down"]] == ["??"]


def test_face_down_card_not_in_tablectl_status(replay: Any) -> None:
    run = replay(half_coup())
    for args in (["status"], ["status", "--json"]):
        out = io.StringIO()
        with redirect_stdout(out):
            assert tablectl.main(["--journal", str(run.journal), *args]) == 0
        assert COUP1_FACE_DOWN not in out.getvalue()


@contextmanager
def log_to(buffer: io.StringIO) -> Iterator[None]:
    """structlog at debug level, as JSON lines into ``buffer``; restored afterwards."""
    with redirect_stderr(buffer):
        configure("debug", "json")
    try:
        yield
    finally:
        configure("warning", "console")


def test_face_down_card_not_in_the_log_before_it_is_turned(tmp_path: Path) -> None:
    trace_path = tmp_path / "trace.jsonl"
    deal = ready().example_after_procedure()
    trace_path.write_text("".join(json.dumps(o) + "\n" for o in deal.objects))
    trace = read_trace(str(trace_path))
    config = load_config("embedded:mini-baccarat-sim.toml", {"decks": 4})
    buffer = io.StringIO()
    with log_to(buffer), Journal(tmp_path / "j.sqlite", durable=False) as journal:
        clock = VirtualClock()
        loop = EventLoop(clock, lambda e: None)
        table = Table(config, journal, loop.call_at, clock.now, None)
        loop.handler = table.handle
        loop.run_events(trace.events)
    lines = buffer.getvalue().splitlines()
    assert any('"card_turned"' in line for line in lines)
    shown = before_turn(lines, '"card_turned"')
    assert any('"face_down": true' in line for line in shown)  # the card was logged, masked
    assert not [line for line in shown if COUP1_FACE_DOWN in line]


# -- the serial line (CONTRACT §4) ----------------------------------------------------
def test_burst_of_500_lines_in_one_serial_event(replay: Any) -> None:
    deal = ready().inp("open_bets")
    for kind, box, amount in COUP1_BETS:
        deal.bet(kind, box, amount)
    deal.inp("no_more_bets")
    lines = []
    for card in COUP1_CARDS:
        lines.append(f"[Game]<Card:{card}>\r\n")
        lines += ["<W0x01>\r\n"] * 54
    lines += ["<W0x01>\r\n"] * (500 - len(lines))
    assert len(lines) == 500
    deal.serial("".join(lines))
    run = replay(deal)
    assert len(run.of("serial")) == 2  # the burn, then the burst
    assert len(run.alarms("reader_warning")) == 491 and len(run.alarms()) == 491
    assert [c for _, c in run.cards()] == ["9S", "5H", "QC", "??", "7C", "4H", "JS", "4D", "8D"]
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_a_line_split_in_three_serial_events(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:2])
    deal.serial("[Game]<Ca").serial("rd:Q").serial("C>\r\n").cards(*COUP1_CARDS[3:])
    run = replay(deal)
    assert not run.alarms()
    assert run.cards()[2] == ("box 5", "QC")
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_garbage_bytes_between_lines_are_alarms_and_play_goes_on(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:3])
    deal.raw(b"\x00\xff\x1b[2J\x7f\r\n\r\n\xfe\xfe\n").cards(*COUP1_CARDS[3:])
    run = replay(deal)
    unknown = run.alarms("unknown_line")
    assert len(unknown) == 2 and len(run.alarms()) == 2
    assert [c for _, c in run.cards()] == ["9S", "5H", "QC", "??", "7C", "4H", "JS", "4D", "8D"]
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_a_card_line_garbled_by_noise_waits_for_the_dealer_correction(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:4]).raw(b"\x00\xff[Game]<Card:7C>\r\n")
    deal.inp("card", card="7C").cards(*COUP1_CARDS[5:])
    run = replay(deal)
    assert ("box 2", "7C") in run.cards() and ("box 4", "4H") in run.cards()
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_an_overlong_line_is_an_alarm_and_play_goes_on(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:5])
    deal.serial("<Alarm:E9 " + "X" * 300 + ">\r\n").cards(*COUP1_CARDS[5:])
    run = replay(deal)
    (alarm,) = run.alarms()
    assert alarm["code"] == "line_too_long" and alarm["length"] == 311
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_an_overlong_card_line_waits_for_the_dealer_correction(replay: Any) -> None:
    # CONTRACT §4: a misread card is never guessed. The over-long line still shows that
    # box 4's second card (4H) passed: it is not lost, so no later card goes to the wrong hand.
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:5])
    deal.serial("[Game]<Card:4H" + "X" * 300 + ">\r\n").inp("card", card="4H")
    deal.cards(*COUP1_CARDS[6:])
    run = replay(deal)
    (alarm,) = run.alarms()
    assert alarm["code"] == "line_too_long" and alarm["length"] == 315
    (misread,) = [r for r in run.of("misread") if "hand" in r]
    assert misread["hand"] == "box 4" and misread["seq"] > alarm["seq"]
    assert [c for _, c in run.cards()] == ["9S", "5H", "QC", "??", "7C", "4H", "JS", "4D", "8D"]
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


def test_an_overlong_burn_line_stops_play(replay: Any) -> None:
    # The burn card passed but was not read: the shoe's composition is unknown (RULES.md §3).
    deal = Deal().procedure(burn=None).serial("[Burn]<Card:2C" + "X" * 300 + ">\r\n")
    deal.inp("open_bets")
    run = replay(deal)
    assert [a["code"] for a in run.alarms()] == ["line_too_long", "bad_card", "play_stopped"]
    assert run.alarms("bad_card")[0]["stops_play"] is True
    assert not run.of("coup_start")


def test_noise_without_a_line_end_then_a_card_line_deals_the_card(replay: Any) -> None:
    noise = bytes(range(0x20, 0x7F)) * 1000  # ~100 KB of printable noise, no line end
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:4])
    deal.raw(noise + b"\r\n[Game]<Card:7C>\r\n").cards(*COUP1_CARDS[5:])
    run = replay(deal)
    assert [a["code"] for a in run.alarms()] == ["line_too_long"]
    assert [c for _, c in run.cards()] == ["9S", "5H", "QC", "??", "7C", "4H", "JS", "4D", "8D"]
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}


# -- dealer inputs given as JSON (a bool is not a box number) ---------------------------
def test_five_choice_with_box_true_is_refused(replay: Any) -> None:
    # Box 1 (Punto) 2C 3D = 5, box 2 AH 3S = 4; Banca 3H 3C = 6 (Art. 8: box 1 chooses).
    deal = ready().coup((("punto", 1, 10), ("punto", 2, 10)), "2C", "AH", "3H", "3D", "3S")
    deal.inp("five_choice", box=True, choice="draw")  # JSON true is not box 1
    deal.inp("five_choice", box=1, choice="stand").cards("3C", "5D")
    run = replay(deal)
    assert [a["code"] for a in run.alarms()] == ["bad_input"]
    assert [(r["box"], r["choice"]) for r in run.of("five_choice")] == [(1, "stand")]
    assert run.outcomes(1) == {1: "banca", 2: "punto"}


def test_no_more_bets_with_boxes_true_is_refused(replay: Any) -> None:
    deal = ready().inp("open_bets").bet("punto", 1, 10)
    deal.inp("no_more_bets", boxes=[True]).inp("no_more_bets", boxes=[1])
    run = replay(deal)
    # The trace ends with the coup dealt no card: named as still open (CONTRACT §3 replay).
    assert [a["code"] for a in run.alarms()] == ["bad_input", "game_open"]
    assert [r["boxes"] for r in run.of("bets_closed")] == [[1]]


# -- tablectl status on a card table ---------------------------------------------------
def status_of(run: Run, *args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(run.journal), "status", *args]) == 0
    return out.getvalue()


def _after_cut_between_coups() -> Deal:
    return ready_near_the_cut().coup(COUP1_BETS, *COUP1_CARDS).serial("[Cut]\r\n")


@pytest.mark.parametrize(("make", "state"), [
    (ready, "shoe procedure new_decks complete: the next coup may open"),
    (lambda: ready().inp("open_bets"), "bets open, coup 1"),
    (half_coup, "dealing coup 1"),
    (lambda: ready().coup(COUP1_BETS, *COUP1_CARDS), "coup 1 over"),
    (_after_cut_between_coups, "shoe procedure cut_card due (shoe closed: cut_card)"),
    (lambda: _after_cut_between_coups().inp("procedure_step", step="shuffle"),
     "shoe procedure cut_card under way, last step shuffle"),
])
def test_tablectl_status_gives_the_card_table_state(replay: Any, make: Any, state: str) -> None:
    # A replay journal has no startup record: the game comes from its coup records.
    out = status_of(replay(make()))
    assert f"table state  {state}\n" in out
    assert "game         mini_baccarat\n" in out


def test_tablectl_status_gives_the_shoe_and_its_cards_left(replay: Any) -> None:
    run = replay(half_coup())
    (burn,) = run.of("burn")
    assert burn["cards_left"] == 4 * 52 - 1  # the procedure's burn (seed 002 Art. 5 g)
    out = status_of(run)
    assert "game         mini_baccarat\n" in out
    assert "table state  dealing coup 1\n" in out
    assert (f"shoe         last step new_decks: burn; 207 cards left at seq {burn['seq']}, "
            "6 dealt since\n") in out
    status = json.loads(status_of(run, "--json"))
    assert status["game"] == "mini_baccarat" and status["table_state"] == "dealing coup 1"
    assert status["shoe"]["cards_left"] == 207 and status["shoe"]["cards_dealt_since"] == 6
    assert status["shoe"]["last_step"]["step"] == "burn"


# -- tablectl recall: each record in one coup's block ----------------------------------
def test_recall_gives_a_coup_from_its_prelude_to_its_result(replay: Any) -> None:
    # Coup 1, the cut card, seed 002 Art. 6, coup 2: the procedure and coup 2's open_bets
    # belong to coup 2 (its prelude), not to the end of coup 1.
    deal = ready_near_the_cut().coup(COUP1_BETS, *COUP1_CARDS).serial("[Cut]\r\n")
    deal.procedure(ART6, burn="KD")
    run = replay(deal.coup((("punto", 1, 10),), "9S", "3H", "TC", "4D"))
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(run.journal), "recall", "--last", "2",
                              "--json"]) == 0
    coup1, coup2 = json.loads(out.getvalue())
    assert [coup1["title"], coup2["title"]] == ["coup 1", "coup 2"]
    assert coup1["records"][-1]["type"] == "coup_result"
    types = [r["type"] for r in coup2["records"]]
    prelude = coup2["records"][:types.index("coup_start")]
    assert [r["step"] for r in prelude if r["type"] == "shoe_procedure"] == [*ART6, "burn"]
    assert [r["type"] for r in prelude][-1] == "input"  # the dealer's open_bets
    assert {"cut_card", "shoe_closed", "burn"} <= {r["type"] for r in prelude}
    assert not [r for r in prelude if r["type"] == "serial"]
    seqs = [r["seq"] for game in (coup1, coup2) for r in game["records"]]
    assert seqs == sorted(set(seqs))
    # Coup 1's cards are all shown: its face-down card was turned.
    assert "??" not in [r["card"] for r in coup1["records"] if r["type"] == "card"]


@pytest.mark.parametrize("chunks", [
    # the face-down line split across two reads
    ["[Game]<Card:9S>\r\n[Game]<Card:5H>\r\n[Game]<Card:QC>\r\n[Game]<Card:3",
     "H>\r\n"],
    # the start of the face-down line rides with the box's card before it
    ["[Game]<Card:9S>\r\n[Game]<Card:5H>\r\n[Game]<Card:QC>\r\n[Game]<Ca", "rd:3H>\r\n"],
])
def test_face_down_card_split_across_reads_stays_hidden(replay: Any,
                                                        chunks: list[str]) -> None:
    # Seed 000 Art. 6: the Banca's first card is dealt face down; 3H here (the example).
    deal = ready().coup(COUP1_BETS)
    for chunk in chunks:
        deal.serial(chunk)
    run = replay(deal)
    assert run.cards()[3] == ("banca", "??")
    assert not [line for line in run.stdout.splitlines() if "3" in line and "Card:3" in line]
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(run.journal), "recall", "--last", "1"]) == 0
    assert "Card:3" not in out.getvalue() and "rd:3H" not in out.getvalue()
