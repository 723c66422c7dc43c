"""Seed 001 Art. 14 (a disputed game recalled in full) and Art. 16 (the bet limits, changed
only after the game in play), through the whole controller.

Art. 14: "Cuando un jugador no este de acuerdo ... podra solicitar la presencia del
Inspector": the controller's part (RULES.md §1) is that ``tablectl recall`` gives a
disputed spin in full from the journal, and nothing of another spin. Art. 16: "Estos
limites podran modificarse ... despues de concluir dicha partida": a change asked while a
game is in progress (from the opening of bets to its settlement) applies once that game
is settled, at once while the table is closed; the bets outside the limits in force are
refused, each game's ``state`` records carry its limits, and ``tablectl status`` shows
them. Traces are replayed with ``table-controller replay`` (tests/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ReplayFn, accepted_amounts, one_spin, run_replay, table_trace, write_trace

from controller.cli.tablectl import main as tablectl_main


# -- Art. 14: the disputed game, recalled in full --------------------------------------
def test_art_14_recall_gives_each_spin_in_full_with_its_bets_and_settlements(
        example_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(example_journal), "recall", "--last", "1"]) == 0
    out = capsys.readouterr().out
    assert [x for x in out.splitlines() if len(x) > 80] == []
    out = out.replace("\n" + " " * 16, " ")  # a record's lines cut at 80 columns, joined
    assert out.startswith("== spin 2")
    assert "kind straight; numbers 00" in out  # the straight bet, placed before the launch
    assert "payout 350" in out and "payout -20" in out
    assert "spin 1" not in out


def test_art_14_recall_gives_each_record_to_one_spin_only(
        example_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Art. 14: a disputed spin recalled in full, and nothing of the next spin in it.
    assert tablectl_main(["--journal", str(example_journal), "recall", "--last", "2",
                          "--json"]) == 0
    spin1, spin2 = json.loads(capsys.readouterr().out)
    assert [spin1["title"], spin2["title"]] == ["spin 1", "spin 2"]
    assert not [r for r in spin1["records"] if r["type"] == "bet"]
    last = spin1["records"][-1]
    assert last["type"] == "state" and last["trigger"] == "reopen"  # spin 1 ends there
    # Spin 2's bets, placed after the reopen, open its block, before its spin_start.
    types = [r["type"] for r in spin2["records"]]
    # Each bet input is journaled once: its bet record (issue 7).
    assert types[:types.index("spin_start")] == ["bet", "bet"]
    seqs = [r["seq"] for game in (spin1, spin2) for r in game["records"]]
    assert seqs == sorted(set(seqs))
    assert not [r for game in (spin1, spin2) for r in game["records"] if r["type"] == "gpio"]


def test_art_14_recall_ends_a_voided_spin_at_its_last_settlement_when_no_reopen_follows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.store.journal import Journal

    path = tmp_path / "voided.sqlite"
    with Journal(path, durable=False) as journal:
        for type_, fields in [
            ("spin_start", {"spin": 1}),
            ("state", {"game": 2, "trigger": "restart", "from": "ball_in_play", "to": "closed"}),
            ("spin_invalid", {"spin": 1, "reason": "interrupted", "reasons": ["interrupted"]}),
            ("settlement", {"game": 1, "box": 1, "kind": "red", "amount": 10,
                            "outcome": "push", "payout": 0}),
            ("input", {"action": "open_bets"}),
            ("state", {"game": 2, "trigger": "open_bets", "from": "closed", "to": "bets_open"}),
            ("bet", {"game": 2, "box": 1, "kind": "red", "amount": 10}),
            ("gpio", {"input": "ball_launch", "level": 1}),
            ("spin_start", {"spin": 2}),
        ]:
            journal.append(type_, 1.0, fields)
    assert tablectl_main(["--journal", str(path), "recall", "--last", "2", "--json"]) == 0
    spin1, spin2 = json.loads(capsys.readouterr().out)
    assert [r["type"] for r in spin1["records"]] == [
        "spin_start", "state", "spin_invalid", "settlement"]
    assert [r["type"] for r in spin2["records"]] == ["input", "state", "bet", "spin_start"]


# -- Art. 16: limits --------------------------------------------------------------------
@pytest.mark.parametrize(("amount", "accepted"), [(1, True), (1000, True), (1001, False)])
def test_art_16_default_limits_are_1_to_1000_chips(replay: ReplayFn, amount: int,
                                                   accepted: bool) -> None:
    res = replay(table_trace({"t": 0.1, "input": "open_bets"},
                             {"t": 0.5, "bet": "black", "box": 1, "amount": amount}))
    assert bool(res.of("bet")) is accepted
    assert [a["code"] for a in res.alarms()] == ([] if accepted else ["bet_refused"])


def limits_probe(t: float) -> list[dict[str, Any]]:
    """Bets that tell which limits are in force: 4 and 501 only under 1-1000."""
    return [{"t": t, "bet": "even", "box": 2, "amount": 4},
            {"t": t + 0.01, "bet": "odd", "box": 3, "amount": 501},
            {"t": t + 0.02, "bet": "low", "box": 4, "amount": 5},
            {"t": t + 0.03, "bet": "high", "box": 5, "amount": 500}]


def test_art_16_limits_change_while_the_table_is_closed_applies_at_once(
        replay: ReplayFn) -> None:
    res = replay(table_trace({"t": 0.05, "input": "set_limits", "min_bet": 5, "max_bet": 500},
                             {"t": 0.1, "input": "open_bets"},
                             *limits_probe(1.0)))
    assert accepted_amounts(res, 0) == [5, 500]
    assert [a["code"] for a in res.alarms()] == ["bet_refused", "bet_refused"]
    opened = res.of("state")[0]
    assert opened["to"] == "bets_open"
    assert opened["limits"] == {"min_bet": 5, "max_bet": 500}


def test_art_16_limits_change_while_bets_are_open_waits_for_the_settlement(
        replay: ReplayFn) -> None:
    # Bets are open (the game has started) and no ball is thrown yet: the change waits, so
    # every bet of this game is judged under the same limits, 1-1000.
    tb, spin = one_spin(pocket=8)
    tb.inp(0.3, "set_limits", min_bet=5, max_bet=500)
    tb.add(*limits_probe(0.5))
    end = spin.rotor.a[-1]
    tb.add(*limits_probe(end + 1.0))  # the next game: 5-500
    res = replay(tb)
    assert res.outcome()["number"] == "17"
    settled = res.of("settlement")
    assert sorted(s["amount"] for s in settled) == [4, 5, 500, 501]
    last_settlement = max(s["seq"] for s in settled)
    assert accepted_amounts(res, last_settlement) == [5, 500]
    applied = [r for r in res.of("config_change") if r["status"] == "applied"]
    assert len(applied) == 1 and applied[0]["seq"] > last_settlement
    # Each game's state records carry the limits it was played under.
    game_limits = {(r["game"], r["limits"]["min_bet"], r["limits"]["max_bet"])
                   for r in res.of("state")}
    assert game_limits == {(1, 1, 1000), (2, 5, 500)}
    reopened = res.of("state")[-1]
    assert (reopened["to"], reopened["game"], reopened["limits"]) == (
        "bets_open", 2, {"min_bet": 5, "max_bet": 500})
    assert applied[0]["seq"] < reopened["seq"]  # applied before the next game opens


def test_art_16_limits_change_applies_when_the_table_closes(replay: ReplayFn) -> None:
    # No spin at all: the game ends when the dealer closes the table (bets returned).
    res = replay(table_trace({"t": 0.1, "input": "open_bets"},
                             {"t": 0.2, "bet": "red", "box": 1, "amount": 4},
                             {"t": 0.5, "input": "set_limits", "min_bet": 5, "max_bet": 500},
                             *limits_probe(1.0),
                             {"t": 2.0, "input": "close_table"},
                             {"t": 3.0, "input": "open_bets"},
                             *limits_probe(4.0)))
    closed = next(r["seq"] for r in res.of("state") if r["to"] == "closed")
    assert accepted_amounts(res, 0, closed) == [4, 4, 501, 5, 500]
    assert accepted_amounts(res, closed) == [5, 500]
    assert {s["outcome"] for s in res.of("settlement")} == {"push"}


def test_art_16_a_second_request_during_a_game_replaces_the_first(replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=8)
    tb.inp(0.3, "set_limits", min_bet=2, max_bet=800)
    tb.inp(spin.launch + 1.0, "set_limits", min_bet=5, max_bet=500)
    tb.add(*limits_probe(spin.rotor.a[-1] + 1.0))
    res = replay(tb)
    applied = [r for r in res.of("config_change") if r["status"] == "applied"]
    assert [(r["min_bet"], r["max_bet"]) for r in applied] == [(5, 500)]
    assert applied[0]["seq"] > res.outcome()["seq"]
    assert accepted_amounts(res, 0) == [5, 500]


def test_art_16_a_requested_change_survives_a_restart(tmp_path: Path) -> None:
    # Requested with bets open, then the controller restarts (a replay with --journal on the
    # same journal recovers from it, as the daemon does): the game goes on under 1-1000 and
    # the change applies once it is settled.
    db = tmp_path / "journal.sqlite"
    first = table_trace({"t": 0.1, "input": "open_bets"},
                        {"t": 0.3, "input": "set_limits", "min_bet": 5, "max_bet": 500})
    assert run_replay(write_trace(tmp_path / "a.jsonl", first), db).rc == 0
    tb, spin = one_spin(pocket=8, open_at=None)
    tb.add(*limits_probe(0.5))
    tb.add(*limits_probe(spin.rotor.a[-1] + 1.0))
    res = run_replay(write_trace(tmp_path / "b.jsonl", tb.events()), db)
    assert res.rc == 0
    assert res.outcome()["number"] == "17"
    last_settlement = max(s["seq"] for s in res.of("settlement"))
    assert accepted_amounts(res, 0, last_settlement) == [4, 501, 5, 500]
    assert accepted_amounts(res, last_settlement) == [5, 500]
    assert [r["status"] for r in res.of("config_change")] == ["applied"]


def cut_after_no_more_bets(tmp_path: Path) -> Path:
    """A journal cut after the dealer's "no va más" and before any launch: bets of 4 and
    501 chips taken under 1-1000, then a change to 5-500 requested during that game."""
    db = tmp_path / "journal.sqlite"
    first = table_trace({"t": 0.1, "input": "open_bets"},
                        {"t": 0.2, "bet": "even", "box": 2, "amount": 4},
                        {"t": 0.25, "bet": "odd", "box": 3, "amount": 501},
                        {"t": 0.3, "input": "set_limits", "min_bet": 5, "max_bet": 500},
                        {"t": 0.4, "input": "no_more_bets"})
    res = run_replay(write_trace(tmp_path / "a.jsonl", first), db)
    assert res.rc == 0 and res.of("state")[-1]["to"] == "no_more_bets"
    assert not res.of("spin_start")
    return db


def test_art_16_a_game_cut_after_no_more_bets_is_voided_before_the_change_applies(
        tmp_path: Path) -> None:
    # Art. 16: the change waits "despues de concluir dicha partida". The restart cannot play
    # the cut game on (a ball thrown while the controller was down went unseen): it voids
    # it (CONTRACT §5: no verdict it cannot make), returns its bets, and only then applies
    # the change. The next spin is a new game, under 5-500, with none of the old bets.
    db = cut_after_no_more_bets(tmp_path)
    tb, _ = one_spin(pocket=8)  # the dealer opens bets again after the restart
    tb.add(*limits_probe(0.5))
    res = run_replay(write_trace(tmp_path / "b.jsonl", tb.events()), db)
    assert res.rc == 0
    voided, result = res.outcomes
    assert (voided["type"], voided["spin"], voided["reason"]) == ("spin_invalid", 1,
                                                                   "interrupted")
    assert "no va más" in voided["details"]["interrupted"]
    returned = [s for s in res.of("settlement") if s["game"] == 1]
    assert sorted((s["amount"], s["outcome"], s["payout"]) for s in returned) == [
        (4, "push", 0), (501, "push", 0)]
    (applied,) = [r for r in res.of("config_change") if r["status"] == "applied"]
    assert applied["seq"] > max(s["seq"] for s in returned) > voided["seq"]
    assert (result["spin"], result["number"]) == (2, "17")
    assert res.of("spin_start")[0]["limits"] == {"min_bet": 5, "max_bet": 500}
    game_limits = {(r["game"], r["limits"]["min_bet"]) for r in res.of("state")}
    assert {(1, 1), (2, 5)} <= game_limits and (2, 1) not in game_limits
    # Spin 2 settles only its own bets, taken under 5-500.
    assert sorted(s["amount"] for s in res.of("settlement") if s["game"] == 2) == [5, 500]


def test_art_14_recall_gives_a_game_voided_before_its_launch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = cut_after_no_more_bets(tmp_path)
    restart = table_trace({"t": 0.5, "input": "set_limits", "min_bet": 5, "max_bet": 500})
    assert run_replay(write_trace(tmp_path / "b.jsonl", restart), db).rc == 0
    assert tablectl_main(["--journal", str(db), "recall", "--last", "1", "--json"]) == 0
    (game,) = json.loads(capsys.readouterr().out)
    assert game["title"] == "spin 1"
    types = [r["type"] for r in game["records"]]
    assert types[:2] == ["input", "state"] and "spin_invalid" in types
    assert types.count("bet") == 2 and types[-2:] == ["settlement", "settlement"]


def test_art_16_limits_applied_before_a_restart_stay_in_force(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    first = table_trace({"t": 0.05, "input": "set_limits", "min_bet": 5, "max_bet": 500})
    assert run_replay(write_trace(tmp_path / "a.jsonl", first), db).rc == 0
    res = run_replay(write_trace(tmp_path / "b.jsonl", table_trace(
        {"t": 0.1, "input": "open_bets"}, *limits_probe(0.5))), db)
    assert accepted_amounts(res, 0) == [5, 500]
    assert res.of("state")[0]["limits"] == {"min_bet": 5, "max_bet": 500}


def test_art_16_limits_change_during_a_spin_waits_for_its_settlement(replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=8)  # single zero index 8 is 17
    tb.inp(spin.launch + 1.0, "set_limits", min_bet=5, max_bet=500)
    # Still before "no va más": the spin's limits (1-1000) hold.
    tb.add(*limits_probe(spin.launch + 2.0))
    end = spin.rotor.a[-1]
    tb.add(*limits_probe(end + 1.0))  # after the settlement: 5-500
    res = replay(tb)
    assert res.outcome()["number"] == "17"
    settled = res.of("settlement")
    assert sorted(s["amount"] for s in settled) == [4, 5, 500, 501]
    last_settlement = max(s["seq"] for s in settled)
    assert accepted_amounts(res, last_settlement) == [5, 500]
    # The change is journaled as applied after the game ended (RULES.md §1 Art. 16).
    applied = [r for r in res.records if r["type"] not in ("input", "bet")
               and (r.get("min_bet"), r.get("max_bet")) == (5, 500)]
    assert applied and max(r["seq"] for r in applied) > last_settlement


def test_art_16_limits_changed_during_a_spin_apply_after_its_settlement(
        replay: ReplayFn) -> None:
    # Default limits 1-1000 chips. A change to 5-500 asked while the ball turns: the bets
    # of this game are judged under 1-1000, the next game's under 5-500.
    probe = [{"bet": "even", "box": 1, "amount": 4}, {"bet": "odd", "box": 2, "amount": 5},
             {"bet": "low", "box": 3, "amount": 600}]
    tb, spin = one_spin(pocket=8, bets=[{"t": 0.5 + i / 10, **b} for i, b in enumerate(probe)])
    tb.inp(spin.launch + 1.0, "set_limits", min_bet=5, max_bet=500)
    after = spin.rotor.a[-1] + 1.0  # the next game: bets open again after the settlement
    tb.add(*({"t": after + i / 10, **b} for i, b in enumerate(probe)))
    res = replay(tb)
    assert res.rc == 0
    assert res.outcome()["type"] == "spin_result"
    last_settlement = max(s["seq"] for s in res.of("settlement"))
    accepted = [(b["amount"], b["seq"] > last_settlement) for b in res.of("bet")]
    assert accepted == [(4, False), (5, False), (600, False), (5, True)]
    refused = [a for a in res.alarms("bet_refused") if a["seq"] > last_settlement]
    assert len(refused) == 2
    (applied,) = [r for r in res.of("config_change") if r["status"] == "applied"]
    assert (applied["min_bet"], applied["max_bet"]) == (5, 500)
    assert applied["seq"] > last_settlement


def limits_journal(tmp_path: Path, settle: bool) -> Path:
    """A change requested during a game: the game played out (``settle``), or the journal
    while that game's bets are still open."""
    tb, spin = one_spin(pocket=8)
    tb.inp(spin.launch + 1.0, "set_limits", min_bet=5, max_bet=500)
    events = tb.events()
    if not settle:
        events = [events[0], {"t": 0.1, "input": "open_bets"},
                  {"t": 0.2, "input": "set_limits", "min_bet": 5, "max_bet": 500}]
    db = tmp_path / "journal.sqlite"
    assert run_replay(write_trace(tmp_path / "t.jsonl", events), db).rc == 0
    return db


def test_art_16_status_shows_the_limits_in_force_and_the_change_waiting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = limits_journal(tmp_path, settle=False)
    assert tablectl_main(["--journal", str(db), "status"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("limits"))
    assert "1-1000 chips in force" in line and "5-500 requested" in line
    assert tablectl_main(["--journal", str(db), "status", "--json"]) == 0
    limits = json.loads(capsys.readouterr().out)["limits"]
    assert (limits["min_bet"], limits["max_bet"]) == (1, 1000)
    assert (limits["pending"]["min_bet"], limits["pending"]["max_bet"]) == (5, 500)


def test_art_16_status_shows_the_new_limits_once_the_game_is_settled(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = limits_journal(tmp_path, settle=True)
    assert tablectl_main(["--journal", str(db), "status", "--json"]) == 0
    limits = json.loads(capsys.readouterr().out)["limits"]
    assert (limits["min_bet"], limits["max_bet"], limits["pending"]) == (5, 500, None)


@pytest.mark.parametrize("during_a_game", [False, True], ids=["closed", "bets_open"])
def test_art_16_the_players_are_told_of_a_limits_change_before_it_takes_effect(
        replay: ReplayFn, during_a_game: bool) -> None:
    # "previa comunicación a los jugadores que se encuentran en la mesa": an announcement
    # the display shows, journaled before the change applies.
    if during_a_game:
        tb, _ = one_spin(pocket=8)
        tb.inp(0.3, "set_limits", min_bet=5, max_bet=500)
        res = replay(tb)
    else:
        res = replay(table_trace({"t": 0.05, "input": "set_limits", "min_bet": 5,
                                  "max_bet": 500}))
    (told,) = res.of("limits_announced")
    assert told["text"] == "from the next spin, limits 5\u2013500"
    assert (told["min_bet"], told["max_bet"]) == (5, 500)
    assert told["applies"] == ("after_game" if during_a_game else "now")
    (applied,) = [r for r in res.of("config_change") if r["status"] == "applied"]
    assert told["seq"] < applied["seq"]
    if during_a_game:  # told while the game is played, applied once it is over
        assert told["seq"] < res.outcome()["seq"] < applied["seq"]
