"""Each game's view for the table's screen (its package's ``display.py``), fed records as the
public sees them, checked against what the seed says the table shows; expected values
worked out here by hand."""

from __future__ import annotations

from typing import Any

from controller.cards.masking import HIDDEN, LiveMask
from controller.cli.compose import load_config
from controller.games.blackjack.display import BlackjackView
from controller.games.roulette.display import RouletteView

ROULETTE = load_config("embedded:default.toml")
BLACKJACK = load_config("embedded:blackjack-plus-sim.toml")
LIMITS = {"min_bet": 1, "max_bet": 1000}


def _state(to: str, game: int, limits: dict[str, int] = LIMITS) -> dict[str, Any]:
    return {"type": "state", "from": "", "to": to, "game": game, "trigger": "",
            "limits": limits}


def _spin(view: RouletteView, n: int, number: str) -> None:
    view.feed(_state("ball_in_play", n))
    view.feed({"type": "spin_result", "spin": n, "number": number, "pocket_index": 0})
    view.feed(_state("settled", n))


def test_seed_001_art_12_an_invalid_spin_s_reason_in_words() -> None:
    for language, words in (("es", "tiro nulo: la bolita dio 2 vueltas, menos de 3"),
                            ("en", "invalid spin: the ball made 2 revolutions, fewer than 3")):
        view = RouletteView(ROULETTE, language, 100)
        view.feed(_state("no_more_bets", 1))
        view.feed({"type": "spin_invalid", "spin": 1, "reason": "too_few_revolutions",
                   "reasons": ["too_few_revolutions"], "ball_revolutions": 2})
        shown = view.view()
        assert shown["result"] == words
        assert shown["last_numbers"] == []  # an invalid spin has no number


def test_seed_001_art_16_a_limits_change_waits_for_the_game_to_end() -> None:
    view = RouletteView(ROULETTE, "es", 100)
    view.feed(_state("ball_in_play", 1))
    view.feed({"type": "config_change", "key": "limits", "min_bet": 5, "max_bet": 500,
               "status": "requested"})
    shown = view.view()
    assert shown["limits"] == LIMITS
    assert shown["pending_limits"] == {"min_bet": 5, "max_bet": 500,
                                       "from": "desde el próximo tiro"}
    view.feed({"type": "config_change", "key": "limits", "min_bet": 5, "max_bet": 500,
               "status": "applied"})
    shown = view.view()
    assert shown["limits"] == {"min_bet": 5, "max_bet": 500}
    assert shown["pending_limits"] is None


def test_a_held_spin_is_shown_with_what_decides_it_until_decided() -> None:
    view = RouletteView(ROULETTE, "en", 100)
    view.feed(_state("held", 3))
    view.feed({"type": "spin_held", "spin": 3, "reason": "sensor_fault", "candidate": "17",
               "details": {"ball_a": "4 corrections, more than 3"}})
    shown = view.view()
    assert shown["state"] == "held" and shown["state_text"] == "spin held for the inspector"
    assert shown["held"][0]["game"] == 3
    assert "tablectl input confirm_result number=17 by=inspector" in shown["held"][0]["decide"]
    view.feed({"type": "spin_result", "spin": 3, "number": "17", "pocket_index": 0,
               "decided_by": "inspector"})
    view.feed(_state("settled", 3))
    assert view.view()["held"] == [] and view.view()["last_numbers"] == ["17"]


def test_last_numbers_newest_first_and_the_shares_of_the_history() -> None:
    view = RouletteView(ROULETTE, "en", 10)  # statistics over the last 10 spins
    spins = ["5", "5", "0", "1", "2", "13", "25", "36", "19", "18", "32", "32"]
    for n, number in enumerate(spins, 1):
        _spin(view, n, number)
    shown = view.view()
    assert shown["last_numbers"] == spins[::-1][:10]
    # The last 10: 0 1 2 13 25 36 19 18 32 32. Red: 1 25 36 19 18 32 32 = 7; black: 2 13.
    shares = shown["shares"]
    assert (shares["red"], shares["black"], shares["zero"]) == (70.0, 20.0, 10.0)
    assert (shares["odd"], shares["even"]) == (40.0, 50.0)  # odd: 1 13 25 19
    assert (shares["low"], shares["high"]) == (40.0, 50.0)  # low: 1 2 13 18
    assert (shares["dozen_1"], shares["dozen_2"], shares["dozen_3"]) == (20.0, 30.0, 40.0)
    assert [h["number"] for h in shown["hot"]][:1] == ["32"] and shown["hot"][0]["count"] == 2
    assert shown["cold"][0] == {"number": "3", "count": 0, "colour": "red"}
    assert [i["colour"] for i in shown["panels"][0]["items"]][-3:] == ["black", "red", "green"]


def test_seed_002_art_8_the_hole_card_is_never_shown_before_it_is_turned() -> None:
    view = BlackjackView(BLACKJACK, "en", 100)
    mask = LiveMask("coup_start")
    records = [
        {"type": "coup_start", "coup": 1, "decks": 6, "min_bet": 1, "max_bet": 1000,
         "dealer": "s17"},
        {"type": "bets_closed", "coup": 1, "boxes": [1]},
        {"type": "card", "coup": 1, "hand": "box 1", "card": "9S", "face_down": False,
         "manual": False},
        {"type": "card", "coup": 1, "hand": "dealer", "card": "KD", "face_down": True,
         "manual": False},
        {"type": "card", "coup": 1, "hand": "box 1", "card": "8C", "face_down": False,
         "manual": False},
        {"type": "card", "coup": 1, "hand": "dealer", "card": "AH", "face_down": True,
         "manual": False},
        {"type": "card_turned", "coup": 1, "hand": "dealer", "card": "KD", "up_card": True},
    ]
    for rec in records[:-1]:
        view.feed(mask.view(rec))
    shown = view.view()
    assert shown["dealer_cards"] == [HIDDEN, HIDDEN] and shown["up_card"] is None
    assert "KD" not in str(shown) and "AH" not in str(shown)
    assert shown["hands"]["box 1"]["total"] == "17"
    view.feed(mask.view(records[-1]))
    shown = view.view()
    assert shown["up_card"] == "KD" and shown["dealer_cards"] == ["KD", HIDDEN]
    assert "AH" not in str(shown)
    dealer = shown["panels"][0]["hands"][0]
    assert (dealer["name"], dealer["total"]) == ("dealer", "10")


def test_a_record_the_view_cannot_read_is_named_on_the_pit_page_not_fatal(
        tmp_path: Any) -> None:
    from display.board import Board
    from display.config import load

    board = Board(load("embedded:default.toml", str(tmp_path / "none.sqlite")), print)
    board.feed({"type": "spin_result", "seq": 7, "t": 1.0})  # no spin, no number
    board.feed({"type": "state", "seq": 8, "t": 2.0, "to": "bets_open", "game": 2,
                "limits": LIMITS, "from": "closed", "trigger": "open_bets"})
    state = board.build()
    assert state["pit"]["unreadable"].startswith("record #7 (spin_result) not shown")
    assert state["state"] == "bets_open"


def test_a_damaged_or_forged_record_is_named_and_the_display_reads_on(tmp_path: Any) -> None:
    import sqlite3

    from display.board import Board
    from display.config import load
    from tests.display_helpers import config_of, records, simulated_journal

    journal = simulated_journal("mini_baccarat", tmp_path)
    whole = records(journal)
    db = sqlite3.connect(journal)
    with db:  # one body not JSON, one forged with another record's seq
        db.execute("UPDATE records SET body = '{not json' WHERE seq = 5")
        db.execute("UPDATE records SET body = ? WHERE seq = 9",
                   ('{"type": "coup_result", "seq": 3, "t": 1.0}',))
    db.close()
    board = Board(load(config_of("mini_baccarat"), str(journal)), print)
    assert board.catch_up() == len(whole)  # no traceback; every row passed
    assert board.build()["pit"]["unreadable"] == (
        "record #9 cannot be read: its body is not this row's record")
    assert board.seq == whole[-1]["seq"]
