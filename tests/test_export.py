"""``tablectl export``: a game's raw inputs as a trace that ``replay`` turns into the same
verdict (the regulator's replay), and the records of a time span as JSON Lines or CSV, a
card still face down never shown (seed 000 Art. 6)."""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, power_cut, run_replay, write_trace

from controller.cli import main as cli
from controller.cli.tablectl import main as tablectl

sys.path.insert(0, str(REPO / "tests" / "articles"))
from card_traces import NEW_DECKS, Trace, two_card_deal

ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")
# Measurements that depend on where the trace starts (its times, its numbering).
_PLACE = {"seq", "t", "spin", "game", "coup", "evidence", "launch_t", "left_t",
          "pocket_readings", "no_more_bets_t"}
# Each card table: its games' start record, the records of a game's verdict, their number.
CARD_GAMES = {
    "mini_baccarat": ("coup_start", ("coup_result",), "coup"),
    "blackjack_plus": ("coup_start", ("coup_result",), "coup"),
    "pot_luck": ("coup_start", ("coup_result", "pool_balance"), "coup"),
    "draw_poker": ("hand_start", ("hand_result", "rake"), "hand"),
}


def ctl(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = tablectl(list(args))
    return rc, out.getvalue()


def simulate(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "sim.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", *args, "--out", str(out)]) == 0
    return out


def verdict(records: list[dict[str, Any]], kinds: tuple[str, ...], number_field: str,
            number: int) -> list[dict[str, Any]]:
    """A game's verdict and settlements, without what depends on the trace's start (its
    times and numbering; a reason's detail in words gives times: its reasons are kept)."""
    out = []
    for r in records:
        if (r["type"] in kinds and r.get(number_field) == number) or (
                r["type"] == "settlement" and r["game"] == number):
            kept = {k: v for k, v in r.items() if k not in _PLACE
                    and not (k == number_field and r["type"] in kinds)}
            if isinstance(kept.get("details"), dict):
                kept["details"] = sorted(kept["details"])
            out.append(kept)
    return out


@pytest.fixture(scope="module")
def roulette(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("export-roulette")
    trace = simulate(tmp, "--spins", "8", "--seed", "5", "--scenario", "valid",
                     "--scenario", "too_few_revolutions", "--scenario", "chatter_ball_a",
                     "--scenario", "ball_suspended", "--scenario", "same_direction",
                     "--scenario", "valid", "--scenario", "rotor_reversed",
                     "--scenario", "valid")
    res = run_replay(trace, tmp / "journal.sqlite")
    assert res.rc == 0
    return res.journal, res.records


@pytest.mark.parametrize("spin", range(1, 9))
def test_a_spin_exported_replays_to_the_same_verdict(
        roulette: tuple[Path, list[dict[str, Any]]], tmp_path: Path, spin: int) -> None:
    journal, records = roulette
    out = tmp_path / "spin.jsonl"
    assert ctl("--journal", str(journal), "export", "--evidence", str(spin), "--out",
               str(out))[0] == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["meta"]["table"] == "roulette"
    assert any("gpio" in e for e in lines) and all(e["t"] >= 0 for e in lines)
    again = run_replay(out, tmp_path / "again.sqlite")
    assert again.rc == 0
    kinds = ("spin_result", "spin_invalid")
    (last,) = [r for r in again.records if r["type"] in kinds][-1:]
    want = verdict(records, kinds, "spin", spin)
    assert want and verdict(again.records, kinds, "spin", last["spin"]) == want


_DECISIONS = ("spin_result", "spin_invalid", "spin_held")
_A_TIME = re.compile(r"\d+\.\d+ s\b")


def decisions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decision records (verdicts, settlements, ``sensor_fault`` alarms) without what
    depends on where the trace starts (times, numbering; a time in words)."""
    out = []
    for r in records:
        if r["type"] in (*_DECISIONS, "settlement") or r.get("code") == "sensor_fault":
            kept = {k: v for k, v in r.items() if k not in _PLACE}
            if "message" in kept:
                kept["message"] = _A_TIME.sub("T s", kept["message"])
            if isinstance(kept.get("details"), dict):
                kept["details"] = {k: _A_TIME.sub("T s", str(v))
                                   for k, v in kept["details"].items()}
            out.append(kept)
    return out


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The newcomer's session: simulate --spins 20 --seed 7, replayed into a journal."""
    tmp = tmp_path_factory.mktemp("export-newcomer")
    res = run_replay(simulate(tmp, "--spins", "20", "--seed", "7"), tmp / "journal.sqlite")
    assert res.rc == 0
    return res.journal, res.records


@pytest.mark.parametrize("session, spins", [("newcomer", range(1, 21)),
                                            ("roulette", range(1, 9))])
def test_an_exported_spin_replays_to_exactly_its_live_decisions(
        request: pytest.FixtureRequest, tmp_path: Path, session: str, spins: range) -> None:
    """The export starts with each input's level at the window's start (a sensor pass
    under way gives its rise), so the replay has the live spin's verdict, reasons,
    settlements and sensor faults: none the live spin never had, none missing."""
    journal, records = request.getfixturevalue(session)
    ends = [r["seq"] for r in records if r["type"] in _DECISIONS]
    for spin in spins:
        (end,) = [r["seq"] for r in records if r["type"] in _DECISIONS and r["spin"] == spin][-1:]
        origin = max([s for s in ends if s < end and s not in
                      [r["seq"] for r in records if r.get("spin") == spin]], default=0)
        live = decisions([r for r in records if origin < r["seq"] <= end
                          and r["type"] != "settlement"]
                         + [r for r in records if r["type"] == "settlement"
                            and r["game"] == spin])
        out = tmp_path / f"spin-{spin}.jsonl"
        assert ctl("--journal", str(journal), "export", "--evidence", str(spin), "--out",
                   str(out))[0] == 0
        again = run_replay(out, tmp_path / f"again-{spin}.sqlite")
        assert again.rc == 0
        assert live and decisions(again.records) == live, f"spin {spin}"


def coup_trace(cards: tuple[str, ...]) -> list[dict[str, Any]]:
    """The Art. 5 procedure, a burn, then coup 1 of ../shared/traces with ``cards``."""
    objects: list[dict[str, Any]] = [{"t": 0, "meta": {"table": "mini_baccarat", "decks": 4}}]
    steps: list[dict[str, Any]] = [{"input": "procedure_step", "step": s} for s in ART5]
    steps += [{"serial": "shoe", "text": "[Burn]<Card:2C>\r\n"}, {"input": "open_bets"}]
    steps += [{"bet": k, "box": b, "amount": a}
              for k, b, a in (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))]
    steps += [{"input": "no_more_bets"}]
    steps += [{"serial": "shoe", "text": f"[Game]<Card:{c}>\r\n"} for c in cards]
    return objects + [{"t": 0.5 * i, **o} for i, o in enumerate(steps, 1)]


def test_a_serial_wheel_spin_exported_replays_to_the_same_verdict(tmp_path: Path) -> None:
    """An automated wheel's spin (issue 12): its raw inputs are the status lines of port
    ``wheel``; the trace of its window gives the same verdict and settlements."""
    trace = simulate(tmp_path, "--spins", "6", "--seed", "5", "--wheel", "serial",
                     "--scenario", "valid", "--scenario", "same_direction",
                     "--scenario", "wheel_slow", "--scenario", "valid",
                     "--scenario", "wheel_stopped", "--scenario", "ball_suspended")
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0
    kinds = ("spin_result", "spin_invalid", "spin_held")
    assert [r["type"] for r in res.of(*kinds)] == [
        "spin_result", "spin_invalid", "spin_invalid", "spin_result", "spin_invalid",
        "spin_held"]
    for spin in range(1, 7):
        out = tmp_path / f"spin-{spin}.jsonl"
        assert ctl("--journal", str(res.journal), "export", "--evidence", str(spin), "--out",
                   str(out))[0] == 0
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines[0]["meta"]["wheel_source"] == "serial"
        assert any(e.get("serial") == "wheel" for e in lines) and not any("gpio" in e
                                                                          for e in lines)
        again = run_replay(out, tmp_path / f"again-{spin}.sqlite")
        assert again.rc == 0
        (last,) = [r for r in again.records if r["type"] in kinds][-1:]
        want = verdict(res.records, kinds, "spin", spin)
        assert want and verdict(again.records, kinds, "spin", last["spin"]) == want


@pytest.mark.parametrize("table", list(CARD_GAMES))
def test_a_card_game_exported_replays_to_the_same_verdict(tmp_path: Path, table: str) -> None:
    """A coup (Mini-Bacará, Black Jack Plus, Pot Luck: with its pool) or a poker hand."""
    start, kinds, number = CARD_GAMES[table]
    trace = simulate(tmp_path, "--table", table, "--coups", "30", "--seed", "3")
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0
    for game in (1, 17, 30):
        out = tmp_path / f"{number}-{game}.jsonl"
        assert ctl("--journal", str(res.journal), "export", "--evidence", str(game), "--out",
                   str(out))[0] == 0
        assert json.loads(out.read_text().splitlines()[0])["meta"]["table"] == table
        again = run_replay(out, tmp_path / f"again-{game}.sqlite")
        assert again.rc == 0
        last = again.of(start)[-1][number]
        want = verdict(res.records, kinds, number, game)
        assert want and verdict(again.records, kinds, number, last) == want


def test_a_bet_exported_keeps_every_field_its_game_declares(tmp_path: Path) -> None:
    """A standing player's authorized bet (seed 000 Art. 4-5: ``by``, ``authorized``)
    goes into the exported trace whole, so the replay takes it as the table did, and a
    bet refused for want of consent is refused again."""
    trace = Trace().inp("open_bets").bet("punto", 3, 10)
    trace.add(bet="punto", box=3, amount=20, by="standing", authorized=True)
    trace.add(bet="punto", box=3, amount=5, by="seated")  # no authorization: refused
    # Art. 6: box 3's first card, the Banca's face down, then each second card.
    trace.inp("no_more_bets").cards("9S", "3H", "TC", "4D")
    path = tmp_path / "coup.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    res = run_replay(path, tmp_path / "journal.sqlite")
    assert res.rc == 0, res.stderr
    out = tmp_path / "coup-1.jsonl"
    assert ctl("--journal", str(res.journal), "export", "--evidence", "1", "--out",
               str(out))[0] == 0
    bets = [json.loads(line) for line in out.read_text().splitlines() if '"bet"' in line]
    assert [(b["amount"], b.get("by"), b.get("authorized")) for b in bets] == [
        (10, None, None), (20, "standing", True), (5, "seated", None)]
    again = run_replay(out, tmp_path / "again.sqlite")
    assert again.rc == 0
    kinds = ("coup_result",)
    assert verdict(again.records, kinds, "coup", 1) == verdict(res.records, kinds, "coup", 1)
    assert [a["code"] for a in again.records if a["type"] == "alarm"
            and a.get("code") == "bet_refused"] == ["bet_refused"]


def test_a_pot_luck_coup_after_new_decks_exports_the_pool_as_it_stood(tmp_path: Path) -> None:
    """Seed 004 Art. 7: the pool carries from coup to coup. A coup dealt from new decks
    (its trace starts at the decks' change, seed 004 Art. 4) is replayed with the pool's
    balance of then, so its pool bet wins the same share. The table's config (the
    embedded Pot Luck one: the pool opens with 500, three sevens win half) is the
    daemon's: the export's meta carries its pay tables."""
    config = "embedded:pot-luck-sim.toml"
    trace = Trace(table="pot_luck", decks=6)
    for _ in range(2):
        trace.coup((("main", 1, 10), ("pool", 1, 4)), *two_card_deal([("7S", "7H")],
                                                                     ("9H", "8C")))
        trace.inp("hit", box=1).cards("7D")
        trace.inp("new_shoe", reason="requested").procedure(NEW_DECKS, burn="2C")
    path = write_trace(tmp_path / "pot.jsonl", trace.events)
    res = run_replay(path, tmp_path / "journal.sqlite", "--config", config)
    assert res.rc == 0
    balances = [r["balance"] for r in res.of("pool_balance")]
    assert balances == [252, 128]  # (500 + 4) - 252, then (252 + 4) - 128
    out = tmp_path / "coup-2.jsonl"
    assert ctl("--config", config, "--journal", str(res.journal), "export", "--evidence", "2",
               "--out", str(out))[0] == 0
    meta = json.loads(out.read_text().splitlines()[0])["meta"]
    assert meta["pool"]["opening_balance"] == 252 and "three_sevens" in meta["pool"]["hands"]
    again = run_replay(out, tmp_path / "again.sqlite")
    assert again.rc == 0 and [r["coup"] for r in again.of("coup_start")] == [1]
    kinds = ("coup_result", "pool_balance")
    want = verdict(res.records, kinds, "coup", 2)
    assert want and verdict(again.records, kinds, "coup", 1) == want


def test_a_coup_of_a_table_without_the_count_out_exports_that_setting(tmp_path: Path) -> None:
    """``[cards] count_out = false`` (the reader cannot take the cards back, hardware.md
    §4): a coup after a shoe closed at the cut card is exported with that setting in its
    meta, so that a replay without the config goes on to the Art. 6 procedure as the table
    did, instead of waiting for a count-out."""
    config = tmp_path / "bj.toml"
    config.write_text((REPO / "config/blackjack-plus-sim.toml").read_text()
                      + "\n[cards]\ncount_out = false\n")
    deal = two_card_deal([("AS", "KD")], ("9H", "8C"))
    trace = Trace(table="blackjack_plus", decks=6).burn_until(158).inp("open_bets")
    trace.bet("main", 1, 10).inp("no_more_bets").cards(*deal[:2]).line("[Cut]")
    trace.cards(*deal[2:]).procedure(("shuffle", "cut", "load"), burn="KD")
    trace.coup((("main", 1, 10),), *deal)
    res = run_replay(write_trace(tmp_path / "bj.jsonl", trace.events),
                     tmp_path / "journal.sqlite", "--config", str(config))
    assert res.rc == 0 and not res.of("count_out")
    out = tmp_path / "coup-2.jsonl"
    assert ctl("--config", str(config), "--journal", str(res.journal), "export",
               "--evidence", "2", "--out", str(out))[0] == 0
    assert json.loads(out.read_text().splitlines()[0])["meta"]["cards"] == {
        "count_out": False}
    again = run_replay(out, tmp_path / "again.sqlite")
    assert again.rc == 0 and not again.of("alarm")
    want = verdict(res.records, ("coup_result",), "coup", 2)
    assert want and verdict(again.records, ("coup_result",), "coup", 2) == want


def test_no_such_game_is_one_clear_error(roulette: tuple[Path, list[dict[str, Any]]],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    # README: exit 1 for a game not in the journal (2 is bad usage), as recall.
    assert tablectl(["--journal", str(roulette[0]), "export", "--evidence", "99"]) == 1
    assert "no spin 99 in" in capsys.readouterr().err


def test_a_spin_still_in_play_is_said_so(roulette: tuple[Path, list[dict[str, Any]]],
                                         tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    journal, records = roulette
    (start,) = [r for r in records if r["type"] == "spin_start" and r["spin"] == 3]
    cut = tmp_path / "in-play.sqlite"
    cut.write_bytes(journal.read_bytes())
    power_cut(cut, start["t"])  # the journal as it was when spin 3 had just started
    assert tablectl(["--journal", str(cut), "export", "--evidence", "3", "--out",
                     str(tmp_path / "spin3.jsonl")]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "spin 3 is still in play" in line and "after its result" in line
    assert not (tmp_path / "spin3.jsonl").exists()


def test_records_by_time_as_jsonl_and_csv(roulette: tuple[Path, list[dict[str, Any]]]) -> None:
    journal, records = roulette
    since, until = records[10]["t"], records[40]["t"]
    want = [r["seq"] for r in records if since <= r["t"] < until]
    rc, out = ctl("--journal", str(journal), "export", "--since", str(since), "--until",
                  str(until))
    assert rc == 0 and [json.loads(line)["seq"] for line in out.splitlines()] == want
    rc, out = ctl("--journal", str(journal), "export", "--since", str(since), "--until",
                  str(until), "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and [int(row["seq"]) for row in table] == want
    assert {row["type"] for row in table} <= {r["type"] for r in records}
    first = next(r for r in records if r["seq"] == want[0])
    assert json.loads(table[0]["fields"]) == {k: v for k, v in first.items()
                                              if k not in ("seq", "t", "type")}
    # --json: one JSON document, as every command's (the notes of issue 22).
    rc, out = ctl("--journal", str(journal), "export", "--since", str(since), "--until",
                  str(until), "--json")
    assert rc == 0 and [rec["seq"] for rec in json.loads(out)] == want
    rc, out = ctl("--journal", str(journal), "export", "--evidence", "2", "--json")
    trace = json.loads(out)
    assert rc == 0 and trace[0]["meta"]["table"] == "roulette" and len(trace) > 1
    assert tablectl(["--journal", str(journal), "export", "--since", "0", "--json",
                     "--format", "csv"]) == 2


def test_an_export_never_shows_a_card_still_face_down(tmp_path: Path) -> None:
    # Coup 1 up to box 2's second card: the Banca's first card, 3H, is face down.
    path = tmp_path / "journal.sqlite"
    trace = write_trace(tmp_path / "coup.jsonl", coup_trace(("9S", "5H", "QC", "3H", "7C")))
    assert run_replay(trace, path).rc == 0
    rc, out = ctl("--journal", str(path), "export", "--since", "0")
    assert rc == 0 and "3H" not in out
    cards = [json.loads(line) for line in out.splitlines()]
    assert [r["card"] for r in cards if r["type"] == "card"] == ["9S", "5H", "QC", "??", "7C"]
    rc, out = ctl("--journal", str(path), "export", "--since", "0", "--format", "csv")
    assert rc == 0 and "3H" not in out


@pytest.mark.parametrize("command", [
    ("export", "--since", "0"), ("export", "--since", "0", "--format", "csv"),
    ("export", "--evidence", "3"), ("recall", "--last", "3"),
])
def test_a_reader_that_stops_early_ends_the_command_quietly(
        newcomer: tuple[Path, list[dict[str, Any]]], command: tuple[str, ...]) -> None:
    # `tablectl export --since ... | head -5`: the reader takes 5 lines and goes; a pipe of
    # one page makes the command still be writing then.
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    child = subprocess.Popen([sys.executable, "-m", "controller.cli.tablectl", "--journal",
                              str(newcomer[0]), *command], stdout=write,
                             stderr=subprocess.PIPE, text=True, cwd=REPO)
    os.close(write)
    with os.fdopen(read) as out:
        lines = [out.readline() for _ in range(5)]
    assert child.stderr is not None
    err = child.stderr.read()
    assert child.wait(timeout=120) == 0 and err == "" and all(lines)
