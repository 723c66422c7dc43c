"""The draw-poker table around the game: the payment's arithmetic (seed 003 num. 15, 18, 19;
CONTRACT §7), the public view in ``tablectl status`` and ``recall`` (no hole card before the
showdown, a folded hand or a discard never), the verdicts a dealer gets, and a restart in the
middle of a hand."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import run_replay
from hypothesis import given
from hypothesis import strategies as st

from controller.cli.compose import load_config
from controller.cli.tablectl import main as tablectl_main
from controller.core.clock import VirtualClock
from controller.core.config import apply_overrides
from controller.core.events import BetPlaced, DealerInput, SerialData
from controller.core.table import Table
from controller.games.draw_poker.payment import Stake, chips, pay, rake_of, share
from controller.store.journal import Journal

sys.path.insert(0, str(Path(__file__).resolve().parent / "articles"))
from poker_traces import PokerTrace


def test_the_rake_is_rounded_half_up_to_the_cent() -> None:
    # CONTRACT §7: 5% on the total, rounded half up to the cent; amounts in cents.
    assert [rake_of(c) for c in (9, 10, 29, 30, 100, 2000)] == [0, 1, 1, 2, 5, 100]


def test_a_split_gives_the_odd_cents_one_each_from_mano() -> None:
    assert share(1425, 2) == [713, 712]
    assert share(100, 3) == [34, 33, 33]
    assert share(95, 1) == [95]


def test_a_split_pot_is_shared_whole_not_concept_by_concept() -> None:
    # Four antes of 1 and the loser's bet of 1: 4.75 after the 5% (3.80 of antes, 0.95 of
    # bets) among boxes 2, 3, 4 (from Mano): 158 cents each and one odd cent, to box 2.
    stakes = [Stake(1, 100, 100), Stake(2, 100, 100), Stake(3, 100, 100), Stake(4, 100, 100)]
    paid = pay(stakes, [2, 3, 4])
    assert [c.antes + c.bets for c in paid.paid] == [159, 158, 158]
    assert sum(c.antes for c in paid.paid) == 380 and sum(c.bets for c in paid.paid) == 95
    assert all(c.bets >= 0 for c in paid.paid)


@given(st.lists(st.tuples(st.integers(1, 500), st.integers(0, 3500)), min_size=2, max_size=5),
       st.data())
def test_a_split_pot_s_shares_differ_by_a_cent_at_most_the_first_from_mano_first(
        players: list[tuple[int, int]], data: st.DataObject) -> None:
    stakes = [Stake(box, ante * 100, bets * 100)
              for box, (ante, bets) in enumerate(players, start=1)]
    boxes = [s.box for s in stakes]
    winners = sorted(data.draw(st.lists(st.sampled_from(boxes), min_size=1, unique=True)))
    paid = pay(stakes, winners)
    takes = [c.antes + c.bets for c in paid.paid]
    # The pot after the 5%, shared whole: nothing made or lost, a cent apart at most, the
    # odd cents to the first winners from Mano (num. 18; the module's Decision).
    assert sum(takes) == paid.antes + paid.losers_bets - paid.rake
    assert max(takes) - min(takes) <= 1 and takes == sorted(takes, reverse=True)
    assert all(c.antes >= 0 and c.bets >= 0 for c in paid.paid)
    assert sum(c.antes for c in paid.paid) == paid.antes - paid.rake_antes


def test_the_payment_of_num_19_concept_by_concept() -> None:
    # Antes 3 x 10; box 3 wins; box 1 bet 100 and box 2 20; box 3's own bets 100.
    stakes = [Stake(1, 1000, 10000), Stake(2, 1000, 2000), Stake(3, 1000, 10000)]
    paid = pay(stakes, [3])
    assert (paid.antes, paid.losers_bets, paid.rake_antes, paid.rake_bets) == (3000, 12000,
                                                                               150, 600)
    (concept,) = paid.paid
    assert (concept.antes, concept.bets, concept.own_bets) == (2850, 11400, 10000)
    assert paid.losing_chips == 14000 and paid.rake == 750
    assert chips(2850) == 28.5 and chips(11400) == 114
    with pytest.raises(ValueError):
        pay(stakes, [4])


DEAL = {1: ("AS", "AH", "KD", "7C", "2S"), 2: ("QS", "QH", "JD", "9C", "3S"),
        3: ("TS", "TH", "8D", "6C", "4S")}


def played(tmp_path: Path) -> Path:
    trace = (PokerTrace().hand(10, DEAL)
             .acts(("bet", 1, 20), ("call", 2), ("call", 3))
             .discard(1, ["7C", "2S"], "KH", "9S").discard(2, ["9C", "3S"], "5C", "5D")
             .discard(3, []).acts(("bet", 1, 10), ("fold", 2), ("call", 3)))
    path = tmp_path / "hand.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    journal = tmp_path / "hand.sqlite"
    assert run_replay(path, journal).rc == 0
    return journal


def test_recall_shows_the_showdown_and_never_a_folded_hand_or_a_discard(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = played(tmp_path)
    capsys.readouterr()
    assert tablectl_main(["--journal", str(journal), "recall", "--last", "1"]) == 0
    out = capsys.readouterr().out
    words = set(out.replace(",", " ").replace(";", " ").split())
    for shown in ("AS", "AH", "KD", "KH", "9S", "TS", "TH", "8D", "6C", "4S"):
        assert shown in words  # the hands shown at the showdown (num. 15)
    for hidden in ("QS", "QH", "JD", "5C", "5D", "9C", "3S", "7C", "2S"):
        assert hidden not in out  # box 2 folded; the discards were thrown face down
    assert "won by box 1 (two_pair)" in out


def test_status_names_the_table_and_its_last_hand(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    journal = played(tmp_path)
    capsys.readouterr()
    assert tablectl_main(["--journal", str(journal), "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["game"] == "draw_poker"
    assert status["last_game"]["type"] == "hand_result"
    assert "shuffles due before the next hand" in status["table_state"]


def test_tablectl_analyze_offers_the_census(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        tablectl_main(["analyze", "draw_poker", "--help"])
    assert done.value.code == 0
    assert "2,598,960" in capsys.readouterr().out


def table(journal: Path) -> Table:
    config = apply_overrides(load_config(), {"table": "draw_poker"}, "test")
    clock = VirtualClock()
    return Table(config, Journal(journal, durable=False), lambda t, f: None, clock.now)


def test_a_dealer_gets_each_refusal_with_its_rule(tmp_path: Path) -> None:
    t = table(tmp_path / "j.sqlite")
    for n in range(4):
        assert t.handle(DealerInput(n, "procedure_step", {"step": "shuffle"})).accepted
    assert t.handle(DealerInput(4, "procedure_step", {"step": "cut", "by": "dealer"})).accepted
    assert t.handle(DealerInput(5, "open_bets")).accepted
    for box in (1, 2):
        assert t.handle(BetPlaced(6, "ante", box, 10)).accepted
    verdict = t.handle(BetPlaced(6, "ante", 6, 10))
    assert not verdict.accepted and "num. 4" in verdict.reason
    assert t.handle(DealerInput(7, "no_more_bets")).accepted
    for i, card in enumerate((*DEAL[1], *DEAL[2])):
        t.handle(SerialData(8 + i, "shoe", f"[Game]<Card:{card}>\r\n".encode()))
    verdict = t.handle(DealerInput(20, "bet", {"box": 1, "amount": 31}))
    assert not verdict.accepted and "num. 8 c" in str(verdict)
    assert t.handle(DealerInput(21, "bet", {"box": 2, "amount": 10})).code == "out_of_turn"
    assert t.handle(DealerInput(22, "bet", {"box": True, "amount": 10})).code == "bad_input"
    assert t.handle(DealerInput(23, "five_choice", {"box": 1})).code == "input_refused"
    assert t.handle(DealerInput(24, "bet", {"box": 1, "amount": 30})).accepted
    t.journal.close()


def test_a_restart_in_the_middle_of_the_draw_resumes_the_hand(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    trace = (PokerTrace().hand(10, DEAL).acts(("bet", 1, 20), ("call", 2), ("call", 3))
             .discard(1, ["7C", "2S"], "KH"))
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    assert run_replay(path, journal).rc == 0
    rest = PokerTrace(shuffled=False).cards("9S").discard(2, []).discard(3, []).acts(
        ("pass", 1), ("pass", 2), ("pass", 3))
    # The restart stops for lost_cards (issue 16 item 2): nothing was dealt meanwhile.
    meta, *events = [{**e, "t": 100.5 + e["t"]} for e in rest.events]
    rest.events = [meta, {"t": 100.5, "input": "lost_cards", "cards": []}, *events]
    path2 = tmp_path / "b.jsonl"
    path2.write_text("".join(json.dumps(e) + "\n" for e in rest.events), encoding="utf-8")
    res = run_replay(path2, journal)
    (recovery,) = res.of("recovery")
    assert recovery["mismatch"] is None
    assert recovery["waiting_for"].startswith("lost_cards")
    (hand,) = res.of("hand_result")
    assert (hand["outcome"], hand["winners"]) == ("showdown", [1])


def test_status_while_dealing_names_the_boxes_in_words() -> None:
    from controller.games.draw_poker.status import status

    class Journal:  # the one query status makes
        def last_of(self, kind: str) -> dict[str, object] | None:
            return {"type": "bets_closed", "seq": 20, "hand": 2,
                    "boxes": [2, 3, 4, 5]} if kind == "bets_closed" else None

    assert status(Journal()).state == "dealing hand 2 to boxes 2, 3, 4, 5"  # type: ignore[arg-type]
