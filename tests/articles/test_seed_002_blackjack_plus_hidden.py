"""Seed 002 Art. 8: the dealer's cards are dealt face down ("una carta cubierta para sí
mismo") and stay hidden until he turns them, also when their reader line is damaged or the
dealer types them in a wrong form (held-out findings 2 and 4); nothing the table does
before the turn depends on them (Art. 10: the hole card is decided "cuando el dealer
descubre su carta cubierta"): a stand is taken whatever the dealer holds (finding 3).

Each test replays a Black Jack Plus trace (tests/articles/card_traces.py) and reads every
view the public has of its journal (tests/conftest.py ``public_views``: the table's screen,
the feed's messages, ``tablectl`` export, recall and status), with what the replay printed
and logged: none may show a card still face down. The journal keeps the evidence whole.
Names follow tests/articles/README.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from card_traces import Run, Trace, play, two_card_deal
from conftest import REPO, public_views, run_replay

from controller.store.journal import Journal

CONFIG = str(REPO / "config" / "blackjack-plus-sim.toml")


def dealt_to_the_dealer_first(line: str) -> Trace:
    """Main 10 on box 1; box 1's TS, then the dealer's first card (face down, Art. 8) as
    the reader sent it: ``line``."""
    trace = Trace(table="blackjack_plus", decks=6).coup((("main", 1, 10),), "TS")
    return trace.line(line)


def leaks(tmp_path: Path, trace: Trace, secret: str) -> list[str]:
    """The public views of ``trace``'s replay that show ``secret`` (none is right)."""
    n = len(list(tmp_path.glob("trace-*.jsonl")))
    path = tmp_path / f"trace-{n}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    run = run_replay(path, tmp_path / f"journal-{n}.sqlite")
    assert run.rc == 0, run.stderr
    views = public_views(run.journal, CONFIG)
    views |= {"replay's output": json.dumps(run.records), "log": run.stderr}
    return [name for name, text in views.items() if secret in text]


def journaled(tmp_path: Path) -> list[dict[str, object]]:
    (journal,) = sorted(tmp_path.glob("journal-*.sqlite"))[-1:]
    with Journal(journal, readonly=True) as j:
        return list(j.records())


def test_art_8_a_hole_card_whose_line_is_garbled_is_named_in_no_public_view(
        tmp_path: Path) -> None:
    # The dealer's first card, an ace, its suit byte garbled: "[Game]<Card:A5>".
    assert leaks(tmp_path, dealt_to_the_dealer_first("[Game]<Card:A5>"), "Card:A5") == []
    (alarm,) = [r for r in journaled(tmp_path) if r.get("code") == "bad_card"]
    assert alarm["stops_play"] and alarm["text"] == "[Game]<Card:A5>"  # the evidence


@pytest.mark.parametrize("line", ["rd:KS>", "Card:KS>"])
def test_art_8_what_is_left_of_a_hole_card_s_line_is_named_in_no_public_view(
        tmp_path: Path, line: str) -> None:
    assert leaks(tmp_path, dealt_to_the_dealer_first(line), ":KS") == []
    assert [r["text"] for r in journaled(tmp_path) if r.get("code") == "unknown_line"] == [
        line]


def typed_in_a_wrong_form() -> Trace:
    """The dealer's first card (9H) passed the reader without its head, so play stops for
    the cards dealt unread; the dealer types it without JSON's brackets or quotes (both
    refused), then as asked. Then box 1's 7C and the dealer's second card, 8D."""
    trace = dealt_to_the_dealer_first("Card:9H>")
    trace.inp("lost_cards", cards="9H").inp("lost_cards", cards="[9H]")
    return trace.inp("lost_cards", cards=["9H"]).cards("7C", "8D")


def test_art_8_a_hole_card_the_dealer_types_in_a_wrong_form_is_named_in_no_public_view(
        tmp_path: Path) -> None:
    assert leaks(tmp_path, typed_in_a_wrong_form(), "9H") == []
    records = journaled(tmp_path)
    assert [r["cards"] for r in records if r.get("action") == "lost_cards"] == [
        "9H", "[9H]", ["9H"]]  # the journal keeps what he typed
    assert [r["code"] for r in records if r.get("code") == "bad_input"] == ["bad_input"] * 2
    assert [(r["hand"], r["card"]) for r in records if r["type"] == "card"] == [
        ("box 1", "TS"), ("dealer", "9H"), ("box 1", "7C"), ("dealer", "8D")]


def test_art_8_a_card_is_shown_in_recall_once_the_dealer_turned_it(tmp_path: Path) -> None:
    # Box 1 stands on TS 7C = 17: 9H is the up card, 8D the hole card turned at his turn;
    # 17 against 17 is a push. Recall then shows both.
    trace = typed_in_a_wrong_form().inp("stand", box=1)
    leaks(tmp_path, trace, "9H")
    (journal,) = tmp_path.glob("journal-*.sqlite")
    recalled = public_views(journal, CONFIG)["recall --json"]
    assert '"9H"' in recalled and '"8D"' in recalled
    assert [(r["box"], r["outcome"]) for r in journaled(tmp_path)
            if r["type"] == "settlement"] == [(1, "push")]


# -- a stand while a card read waits for its place (held-out finding 3) ---------------------
def stand_against(hole: str) -> Trace:
    """Main 10 on box 1: TS 2D (12); the dealer KC (his first card, turned up when the deal
    ends) and ``hole`` (Art. 8). 5S is read before box 1's decision; then box 1 stands
    (the tester's bj_standleak traces)."""
    trace = Trace(table="blackjack_plus", decks=6)
    trace.coup((("main", 1, 10),), *two_card_deal([("TS", "2D")], ("KC", hole)))
    return trace.cards("5S").inp("stand", box=1)


def before_the_hole_card_turns(run: Run) -> list[tuple[object, ...]]:
    """What the public saw up to the hole card's turn, the cards' faces left out."""
    turn = next(i for i, r in enumerate(run.records)
                if r["type"] == "card_turned" and not r["up_card"])
    return [(r["type"], r.get("code"), r.get("action"), r.get("hand"))
            for r in run.records[:turn]]


def test_art_8_10_a_stand_is_taken_alike_whatever_the_covered_card_says(
        tmp_path: Path) -> None:
    # Art. 10: the hole card is decided "cuando el dealer descubre su carta cubierta"; until
    # then nothing the table shows may depend on it. 16 and 17 in the hole: the same.
    sixteen, seventeen = play(tmp_path, stand_against("6H")), play(tmp_path, stand_against("7H"))
    assert before_the_hole_card_turns(sixteen) == before_the_hole_card_turns(seventeen)
    for run in (sixteen, seventeen):
        assert [(r["box"], r["action"]) for r in run.of("decision")] == [(1, "stand")]
    # KC 6H = 16 draws: 5S is his (he dealt himself before the stand was entered), 21
    # beats box 1's 12.
    assert sixteen.result()["dealer"]["cards"] == ["KC", "6H", "5S"]
    assert sixteen.settlements() == [(1, "main", 10, "lose", -10)]
    # KC 7H = 17 draws none: 5S has no place. Play stops for the inspector once the hole
    # card is turned, and nothing is settled.
    stop = seventeen.alarms("card_without_place")
    assert len(stop) == 1 and stop[0]["stops_play"]
    hole = next(r for r in seventeen.records if r["type"] == "card_turned" and not r["up_card"])
    assert hole["card"] == "7H" and hole["seq"] < stop[0]["seq"]
    assert not seventeen.of("settlement") and not seventeen.of("coup_result")


def test_art_8_the_inspector_voids_the_coup_held_for_a_card_without_place(
        tmp_path: Path) -> None:
    trace = stand_against("7H").inp("void", reason="card_without_place", by="inspector")
    run = play(tmp_path, trace.inp("open_bets"))
    (void,) = run.of("game_void")
    assert (void["game"], void["by"]) == (1, "inspector")
    assert run.settlements() == [(1, "main", 10, "push", 0)]  # the stake returned
    assert not run.of("coup_result") and len(run.of("coup_start")) == 2  # the next coup


def test_art_8_the_inspector_resumes_play_and_the_coup_is_settled_without_the_card(
        tmp_path: Path) -> None:
    # The layout checked (5S set aside), the inspector resumes play: box 1 TS 2D = 12 loses
    # to the dealer's KC 7H = 17; 5S is in no hand.
    run = play(tmp_path, stand_against("7H").inp("inspector_clear", note="5S set aside"))
    result = run.result()
    assert result["dealer"]["cards"] == ["KC", "7H"]
    assert result["boxes"][0]["hands"][0]["cards"] == ["TS", "2D"]
    assert run.settlements() == [(1, "main", 10, "lose", -10)]
    assert "5S" not in [card for _, card in run.dealt()]
