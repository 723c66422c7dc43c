"""The card table end to end: ``table-controller replay`` of Mini-Bacará traces (CONTRACT §2-4).

Every trace goes through the whole controller (the shoe codec, the shoe session, the game,
the journal) in virtual time. Expected values come from seed 002 Art. 4-6 for the shoe,
CONTRACT §4 for the serial line, and /work/shared/traces/README.md, not from the
controller's output. The tests of seed 000's articles (the game) are in
tests/articles/test_seed_000_mini_baccarat*.py; the trace builder is shared with them
(tests/mini_baccarat_helpers.py).
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from mini_baccarat_helpers import Deal, Run, ready, replay_deal

from controller.cards.card import full_deck
from controller.cli import tablectl
from controller.cli.compose import load_config, read_trace
from controller.core.clock import VirtualClock
from controller.core.logs import configure
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

ART6 = ("shuffle", "cut", "load")  # seed 002 Art. 6

# The first coup of the example: bets, then its nine cards in dealing order.
COUP1_BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))
COUP1_CARDS = ("9S", "5H", "QC", "3H", "7C", "4H", "JS", "4D", "8D")
COUP1_FACE_DOWN = "3H"  # the Banca's first card (seed 000 Art. 6: dealt face down)


@pytest.fixture
def replay(tmp_path: Path) -> Callable[[Deal], Run]:
    """``replay(deal)``: the records of ``table-controller replay`` of the trace (exit 0)."""
    return functools.partial(replay_deal, tmp_path)


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


def test_joker_is_an_alarm_and_stops_play(replay: Any) -> None:
    deal = ready().coup((("punto", 1, 10),), "9S", "JK", "3H").inp("inspector_clear", note="x")
    deal.cards("3H", "7C", "4D")
    run = replay(deal)
    bad = run.alarms("bad_card")
    assert len(bad) == 1 and bad[0]["stops_play"] is True
    # 3H is the Banca's face-down card: masked in what the public sees, whole in the journal.
    assert [a["card"] for a in run.alarms("card_while_stopped")] == ["??"]
    with Journal(run.journal, readonly=True) as journal:
        assert [a["card"] for a in journal.records(types=("alarm",))
                if a["code"] == "card_while_stopped"] == ["3H"]
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
    deal.inp("inspector_clear", note="cut card was too high").count_out()
    deal.procedure(ART6, burn="KD")
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
    deal.count_out().procedure(ART6, burn="KD").coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
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
    deal.inp("open_bets").count_out().procedure(ART6, burn="KD")
    deal.coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
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
    deal.inp("inspector_clear", note="reshuffle").count_out().procedure(ART6, burn="KD")
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
    deal.inp("open_bets")  # refused: the count-out and the Art. 6 procedure are due
    deal.count_out().procedure(ART6, burn="KD").coup((("punto", 1, 10),), "9S", "3H", "TC", "4D")
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
    # A line is one input (issue 20): the burn's record, then one for each line of the
    # burst, all of the burst in one commit (a face-down card's line is masked: "??").
    texts = [r["text"] for r in run.of("serial")[1:]]
    assert len(texts) == 500 and texts[:111] == lines[:111]
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
    (_after_cut_between_coups, "count-out due (shoe closed: cut_card), then count_out_done"),
    (lambda: _after_cut_between_coups().cards("AS"),  # seed 002 Art. 4: one counted out
     f"count-out under way: {HALF_PACK - len(COUP1_CARDS) - 1} cards of the shoe not seen "
     "yet"),
    (lambda: _after_cut_between_coups().count_out(),
     "decks counted out complete: the procedure after the cut card due"),
    (lambda: _after_cut_between_coups().count_out().inp("procedure_step", step="shuffle"),
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
    assert (f"shoe         last step new_decks: burn; 201 cards left in the shoe (207 at "
            f"#{burn['seq']},\n               6 dealt since)\n") in out
    status = json.loads(status_of(run, "--json"))
    assert status["game"] == "mini_baccarat" and status["table_state"] == "dealing coup 1"
    assert status["shoe"]["cards_left"] == 207 and status["shoe"]["cards_dealt_since"] == 6
    assert status["shoe"]["last_step"]["step"] == "burn"


# -- tablectl recall: each record in one coup's block ----------------------------------
def test_recall_gives_a_coup_from_its_prelude_to_its_result(replay: Any) -> None:
    # Coup 1, the cut card, seed 002 Art. 6, coup 2: the procedure and coup 2's open_bets
    # belong to coup 2 (its prelude), not to the end of coup 1.
    deal = ready_near_the_cut().coup(COUP1_BETS, *COUP1_CARDS).serial("[Cut]\r\n")
    deal.count_out().procedure(ART6, burn="KD")
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
