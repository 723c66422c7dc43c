"""New decks (``new_shoe``, seed 002 Art. 4: "El cambio de barajas se realizará cuando se
encuentre alguna falla en las cartas o por no existir el número completo de cartas;
asimismo, a solicitud de los participantes, del Inspector o del personal del explotador")
are changed between games, never in the middle of one (hardware.md §4): a coup is dealt
from one shoe from its ``open_bets`` to its result. A ``new_shoe`` while a coup is under
way is refused with the reason (an ``alarm``, and the refusal to whoever sent it); the coup
goes on with the shoe that opened it; once it is over, the decks change and the new-decks
procedure (Art. 5) is due before the next coup.

The same card core runs every card table: the tests run it on Mini-Bacará and on Black
Jack Plus (the seed 002 Art. 4 test of that table is in
tests/articles/test_seed_002_blackjack_plus.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mini_baccarat_helpers import ART5, Deal, Run, ready, replay_deal

from controller.cli.compose import load_config
from controller.core.clock import VirtualClock
from controller.core.contract import Verdict
from controller.core.events import BetPlaced, DealerInput, SerialData
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

# The first coup of ../shared/traces/mini-baccarat-two-coups.jsonl: its bets and its nine
# cards in dealing order; the README there gives its outcome: box 2 Banca, box 4 Punto
# (a natural nine), box 5 Punto.
COUP1_BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))
COUP1_CARDS = ("9S", "5H", "QC", "3H", "7C", "4H", "JS", "4D", "8D")


@pytest.fixture
def replay(tmp_path: Path) -> Callable[[Deal], Run]:
    return functools.partial(replay_deal, tmp_path)


def mid_coup(after_cards: int, reason: str = "a marked card") -> Deal:
    """Coup 1 opened, its bets, no more bets, ``after_cards`` of its cards dealt, then a
    ``new_shoe``; the rest of its cards, then the Art. 5 steps and a burn."""
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS[:after_cards])
    deal.inp("new_shoe", reason=reason)
    return deal.cards(*COUP1_CARDS[after_cards:])


def test_new_shoe_in_the_middle_of_a_coup_is_refused_and_the_coup_ends_on_its_shoe(
        replay: Any) -> None:
    # Four cards out (one to each box in play, the Banca's face down), then new decks are
    # asked for: the adversary's b03 trace, which used to finish coup 1 with new cards.
    deal = mid_coup(4)
    deal.procedure(ART5, burn="2C")  # the Art. 5 steps of the decks that were not changed
    run = replay(deal)
    (refused,) = run.alarms("game_under_way")
    assert refused["message"].startswith("new_shoe: ")
    assert "coup 1" in refused["message"] and "seed 002 Art. 4" in refused["message"]
    (result,) = run.of("coup_result")
    assert not [r for r in run.of("shoe_closed") if r["seq"] < result["seq"]]
    # The coup was dealt from the one shoe, its nine cards in order, with its outcome.
    assert [card for _, card in run.cards()][:3] == list(COUP1_CARDS[:3])
    assert run.outcomes(1) == {2: "banca", 4: "punto", 5: "punto"}
    # No procedure is due on a shoe that was never closed: the steps are refused.
    assert not [r for r in run.of("shoe_procedure") if r["seq"] > refused["seq"]]


def test_new_shoe_while_bets_are_open_is_refused(replay: Any) -> None:
    # A coup is under way from its open_bets: its bets stand and it is dealt from this shoe.
    deal = ready().inp("open_bets").bet("punto", 4, 50)
    deal.inp("new_shoe", reason="incomplete deck").inp("no_more_bets").cards(*COUP1_CARDS[:4])
    run = replay(deal)
    assert run.alarms("game_under_way")
    assert not run.of("shoe_closed")
    assert [hand for hand, _ in run.cards()] == ["box 4", "banca", "box 4", "banca"]


def test_new_shoe_after_the_coup_changes_the_decks_and_art5_is_due(replay: Any) -> None:
    deal = ready().coup(COUP1_BETS, *COUP1_CARDS)
    deal.inp("new_shoe", reason="a marked card").inp("open_bets")
    deal.procedure(ART5, burn="3D").coup(COUP1_BETS, *COUP1_CARDS)
    run = replay(deal)
    assert not run.alarms("game_under_way")
    (closed,) = run.of("shoe_closed")
    assert (closed["reason"], closed["note"]) == ("decks_changed", "a marked card")
    assert closed["seq"] > run.of("coup_result")[0]["seq"]
    (not_ready,) = run.alarms("shoe_not_ready")  # the open_bets before the Art. 5 steps
    assert not_ready["seq"] > closed["seq"]
    assert [r["coup"] for r in run.of("coup_result")] == [1, 2]


@pytest.mark.parametrize("config, deal", [
    ("embedded:mini-baccarat-sim.toml",
     [("open_bets",), ("bet", "punto", 1, 10), ("no_more_bets",), ("card", "9S")]),
    ("embedded:blackjack-plus-sim.toml",
     [("open_bets",), ("bet", "main", 1, 10), ("no_more_bets",), ("card", "9S")]),
])
def test_the_refusal_is_the_verdict_of_whoever_asked(tmp_path: Path, config: str,
                                                     deal: list[tuple[Any, ...]]) -> None:
    # `tablectl input new_shoe` prints the table's verdict: refused, with the reason.
    loaded = load_config(config)
    clock = VirtualClock()
    with Journal(tmp_path / "j.sqlite", durable=False) as journal:
        table = Table(loaded, journal, EventLoop(clock, lambda e: None).call_at, clock.now)
        t = 0.0
        for step in ART5:
            t += 0.5
            table.handle(DealerInput(t, "procedure_step", {"step": step}))
        table.handle(SerialData(t, "shoe", b"[Burn]<Card:2C>\r\n"))
        for what, *args in deal:
            t += 0.5
            if what == "bet":
                table.handle(BetPlaced(t, args[0], args[1], args[2]))
            elif what == "card":
                table.handle(SerialData(t, "shoe", f"[Game]<Card:{args[0]}>\r\n".encode()))
            else:
                table.handle(DealerInput(t, what, {}))
        verdict = table.handle(DealerInput(t + 0.5, "new_shoe", {"reason": "a marked card"}))
        records = list(journal.records())
    assert isinstance(verdict, Verdict) and not verdict.accepted
    assert verdict.code == "game_under_way" and "coup 1" in verdict.reason
    assert str(verdict).startswith("refused: ")
    assert not [r for r in records if r["type"] == "shoe_closed"]
    assert [r["code"] for r in records if r["type"] == "alarm"] == ["game_under_way"]
