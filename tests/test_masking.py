"""Cards dealt face down stay hidden until turned (seed 000 Art. 6; seed 002 Art. 8): the one
masking of controller/cards/masking.py, as live presentation and recall use it."""

from __future__ import annotations

from typing import Any

from controller.cards.masking import present_game, present_input

Record = dict[str, Any]


def serial(text: str) -> Record:
    return {"type": "serial", "port": "shoe", "text": text}


def card(hand: str, value: str, face_down: bool = False, manual: bool = False) -> Record:
    return {"type": "card", "hand": hand, "card": value, "face_down": face_down,
            "manual": manual}


def turned(hand: str, value: str) -> Record:
    return {"type": "card_turned", "hand": hand, "card": value}


def correction(value: str) -> list[Record]:
    return [{"type": "input", "action": "card", "card": value},
            {"type": "manual_card", "card": value}]


DEAL = [{"type": "coup_start", "coup": 1}, {"type": "bets_closed", "coup": 1},
        serial("[Game]<Card:9S>\r\n"), card("box 1", "9S")]


def shown_cards(records: list[Record]) -> list[str]:
    return [r.get("card") or r.get("text") for r in records
            if r["type"] in ("card", "serial", "manual_card", "input")]


def test_live_the_face_down_card_and_the_bytes_that_carried_it_are_hidden() -> None:
    records = [serial("[Game]<Card:3H>\r\n"), card("banca", "3H", face_down=True)]
    assert shown_cards(present_input(records, face_down_pending=True)) == ["??", "??"]


def test_live_a_card_is_shown_as_dealt_even_when_the_same_input_turns_it() -> None:
    # A burst: the face-down card and the cards up to its turn in one read.
    records = [serial("[Game]<Card:3H>\r\n[Game]<Card:7C>\r\n"),
               card("banca", "3H", face_down=True), card("box 1", "7C"), turned("banca", "3H")]
    shown = present_input(records, face_down_pending=False)
    assert shown_cards(shown) == ["??", "??", "7C"]
    assert shown[3] == turned("banca", "3H")


def test_live_raw_bytes_are_hidden_while_the_game_says_a_face_down_card_may_come() -> None:
    part = [serial("[Game]<Ca")]  # the start of a line: perhaps the face-down card
    assert shown_cards(present_input(part, face_down_pending=True)) == ["??"]
    assert shown_cards(present_input(part, face_down_pending=False)) == ["[Game]<Ca"]


def test_live_a_corrected_face_down_card_hides_the_correction() -> None:
    records = [*correction("3H"), card("banca", "3H", face_down=True, manual=True)]
    assert shown_cards(present_input(records, face_down_pending=True)) == ["??", "??", "??"]


def test_recall_before_the_turn_hides_the_card_its_carriers_and_the_bytes_since_the_deal(
) -> None:
    records = [*DEAL, serial("[Game]<Card:3"), serial("H>\r\n"),
               card("banca", "3H", face_down=True), serial("[Game]<Card:7C>\r\n"),
               card("box 1", "7C")]
    assert shown_cards(present_game(records)) == ["??", "9S", "??", "??", "??", "??", "7C"]


def test_recall_before_the_deal_shows_the_raw_bytes() -> None:
    records = [{"type": "coup_start", "coup": 1}, serial("<W0x01>\r\n")]
    assert present_game(records) == records


def test_recall_after_the_turn_hides_nothing() -> None:
    records = [*DEAL, serial("[Game]<Card:3H>\r\n"), card("banca", "3H", face_down=True),
               turned("banca", "3H")]
    assert present_game(records) == records


def test_recall_a_misread_face_down_card_corrected_by_hand_hides_the_misread_line() -> None:
    records = [*DEAL, serial("[Game]<Game>\r\n"), {"type": "misread", "hand": "banca"},
               *correction("3H"), card("banca", "3H", face_down=True, manual=True)]
    assert shown_cards(present_game(records)) == ["??", "9S", "??", "??", "??", "??"]


def test_recall_each_face_down_card_is_shown_once_its_own_turn_came() -> None:
    # Several face-down cards (a poker deal): one turned, the other still hidden.
    records = [*DEAL, serial("[Game]<Card:KD>\r\n"), card("box 2", "KD", face_down=True),
               serial("[Game]<Card:2S>\r\n"), card("box 3", "2S", face_down=True),
               turned("box 2", "KD")]
    assert [r["card"] for r in present_game(records) if r["type"] == "card"] == [
        "9S", "KD", "??"]


def test_an_alarm_naming_a_card_read_during_the_deal_hides_it() -> None:
    from controller.cards.masking import LiveMask, present_game

    alarm = {"type": "alarm", "code": "card_while_stopped", "card": "QH",
             "message": "card QH read while play is stopped"}
    live = LiveMask("hand_start")
    seen = [live.view(r) for r in ({"type": "hand_start"}, {**alarm, "seq": 1},
                                   {"type": "bets_closed"}, {**alarm, "seq": 2})]
    assert seen[1]["card"] == "QH"  # before the deal nothing face down is out
    assert seen[3]["card"] == "??" and "QH" not in seen[3]["message"]
    shown = present_game([{"type": "hand_start"}, {"type": "bets_closed"},
                          {"type": "card", "hand": "box1", "card": "2C", "face_down": True},
                          alarm])
    assert shown[3]["card"] == "??" and "QH" not in shown[3]["message"]
