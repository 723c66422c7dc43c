"""The two Black Jack tables as a technician runs them: the README's commands (the daemon on
each embedded simulated table, ``simulate`` then ``replay``), ``tablectl status`` and
``recall`` on their journals, and their configs' errors (file, line, key)."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_replay

from controller.cli import main as cli
from controller.cli import tablectl
from controller.cli.compose import games, load_config
from controller.core.clock import VirtualClock
from controller.core.errors import ConfigError
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.games.blackjack.config import check_daemon
from controller.store.journal import Journal
from controller.trace import trace_from_objects

CONFIGS = {"blackjack_plus": REPO / "config" / "blackjack-plus-sim.toml",
           "pot_luck": REPO / "config" / "pot-luck-sim.toml"}
COUPS = 150
WAIT = 30.0


def simulated(tmp_path: Path, table: str, seed: int = 3) -> Path:
    out = tmp_path / f"{table}.jsonl"
    err = io.StringIO()
    with redirect_stderr(err):
        assert cli.main(["simulate", "--table", table, "--coups", str(COUPS), "--seed",
                         str(seed), "--config", str(CONFIGS[table]), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def replayed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[str, Path, Any]:
    table = request.param
    tmp_path = tmp_path_factory.mktemp(table)
    trace = simulated(tmp_path, table)
    res = run_replay(trace, tmp_path / "journal.sqlite", "--config", str(CONFIGS[table]))
    assert res.rc == 0, res.stderr
    return table, trace, res


def test_a_simulated_trace_replays_into_every_coup_refusing_nothing(
        replayed: tuple[str, Path, Any]) -> None:
    table, trace, res = replayed
    assert json.loads(trace.read_text().splitlines()[0])["meta"]["table"] == table
    assert len(res.of("coup_result")) == COUPS
    assert not res.of("alarm"), res.of("alarm")[:3]
    # Every bet settled once: main bets by hand, insurance and Pot Luck's by box.
    bets = Counter((b["coup"], b["box"], b["kind"]) for b in res.of("bet_placed"))
    settled = Counter((s["game"], s["box"], s["kind"]) for s in res.of("settlement"))
    assert {k: 1 for k in bets} == {k: v for k, v in settled.items() if k[2] != "split"}


def test_the_simulated_players_make_every_decision(replayed: tuple[str, Path, Any]) -> None:
    table, _, res = replayed
    actions = Counter(d["action"] for d in res.of("decision"))
    inputs = Counter(r["action"] for r in res.of("input"))
    assert inputs["second_card_exposed"] > 0
    kinds = {b["kind"] for b in res.of("bet_placed")}
    if table == "pot_luck":
        # Seed 004 has no surrender or insurance: off by default at Pot Luck.
        assert set(actions) == {"hit", "stand", "double", "split"}
        assert "insurance" not in kinds and not res.of("insurance_offered")
        assert {"pool", "bonus"} <= kinds and res.of("pool_balance")
    else:
        assert set(actions) == {"hit", "stand", "double", "split", "surrender"}
        assert "insurance" in kinds
        # Each question asked is closed by the dealer before the decisions (Art. 10).
        assert len(res.of("insurance_offered")) == inputs["close_insurance"] > 0


def test_the_same_seed_simulates_the_same_trace(tmp_path: Path) -> None:
    first = simulated(tmp_path / "a", "blackjack_plus", seed=9).read_bytes()
    assert simulated(tmp_path / "b", "blackjack_plus", seed=9).read_bytes() == first


def tablectl_out(journal: Path, *args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(journal), *args]) == 0
    return out.getvalue()


def test_tablectl_tells_a_black_jack_journal_and_recalls_its_coups(
        replayed: tuple[str, Path, Any]) -> None:
    table, _, res = replayed
    status = json.loads(tablectl_out(res.journal, "status", "--json"))
    assert status["game"] == table  # told by its records: a replay journals no startup
    assert status["table_state"] == f"coup {COUPS} over"
    text = tablectl_out(res.journal, "status")
    assert re.search(rf"last game +coup {COUPS}: dealer ", text)
    if table == "pot_luck":
        last = res.of("pool_balance")[-1]["balance"]
        assert status["pool_balance"] == last and f"pool         {last} chips" in text
    recall = tablectl_out(res.journal, "recall", "--last", "2")
    assert recall.count("== coup") == 2 and "coup_result  coup" in recall


def test_tablectl_still_tells_a_mini_baccarat_journal(tmp_path: Path) -> None:
    # Mini-Bacará journals coup_start and coup_result too.
    trace = tmp_path / "mini.jsonl"
    with redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--table", "mini_baccarat", "--coups", "3",
                         "--out", str(trace)]) == 0
    res = run_replay(trace, tmp_path / "mini.sqlite")
    assert json.loads(tablectl_out(res.journal, "status", "--json"))["game"] == "mini_baccarat"
    assert "Banca" in tablectl_out(res.journal, "recall")


# -- the README's command: the daemon on each embedded simulated table ----------------------
@pytest.mark.parametrize("table", sorted(CONFIGS))
def test_the_daemon_runs_each_simulated_table(tmp_path: Path, table: str) -> None:
    text = CONFIGS[table].read_text(encoding="utf-8")
    text = re.sub(r'path = "var/[^"]+"', f'path = "{tmp_path / "j.sqlite"}"', text)
    text = re.sub(r'socket = "var/[^"]+"', f'socket = "{tmp_path / "c.sock"}"', text)
    text = text.replace("spins = 0 ", "spins = 3 ").replace("speed = 1.0", "speed = 50.0")
    config = tmp_path / "sim.toml"
    config.write_text(text, encoding="utf-8")
    log = open(tmp_path / "daemon.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "run", "--config",
                             str(config)], cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + WAIT
        while len(_records(tmp_path / "j.sqlite", "coup_result")) < 3:
            assert proc.poll() is None and time.monotonic() < deadline, (
                (tmp_path / "daemon.log").read_text())
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT) == 0
        log.close()
    with Journal(tmp_path / "j.sqlite", readonly=True) as journal:
        assert journal.verify().ok
        codes = {r["code"] for r in journal.records(types=("alarm",))}
    assert codes <= {"reader_warning"}  # the daemon's noise: misreads corrected, warnings


def _records(path: Path, kind: str) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    try:
        with Journal(path, readonly=True) as journal:
            return list(journal.records(types=(kind,)))
    except Exception:  # the daemon is creating it: look again
        return []


# -- configs --------------------------------------------------------------------------------------
def config_error(tmp_path: Path, text: str) -> ConfigError:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(str(path))
    return info.value


HEAD = '[table]\ngame = "pot_luck"\n\n[serial.shoe]\nurl = "loop://"\n\n[pot_luck]\n'


@pytest.mark.parametrize(("body", "field", "words"), [
    ('blackjack_pays = "4:1"\n', "pot_luck.blackjack_pays", "1:1"),
    ('dealer = "h18"\n', "pot_luck.dealer", "s17, h17"),
    ("decks = 1\n", "pot_luck.decks", "2 decks at least"),
    ("boxes = 8\n", "pot_luck.boxes", "out of range"),
    ("[pot_luck.pool.hands.x]\nranks = [\"7\"]\nshare = 0.5\n", "pot_luck.pool.hands.x.ranks",
     "2 to 11 ranks"),
    ("[pot_luck.pool.hands.x]\nranks = [\"7\", \"7\"]\n", "pot_luck.pool.hands.x.share",
     "missing"),
    ("[pot_luck.pool.hands.x]\nsuited = true\nshare = 1.5\n", "pot_luck.pool.hands.x.share",
     "out of range"),
    ("[pot_luck.pool.hands.x]\nshare = 0.5\n", "pot_luck.pool.hands.x", "no condition"),
    ("[pot_luck.bonus.hands.x]\ntotal = 21\npays = 2\ncolour = \"red\"\n",
     "pot_luck.bonus.hands.x.colour", "unknown key"),
])
def test_a_bad_value_names_the_file_line_and_key(tmp_path: Path, body: str, field: str,
                                                 words: str) -> None:
    exc = config_error(tmp_path, HEAD + body)
    assert exc.field == field and words in exc.message and exc.line is not None
    lines = (HEAD + body).splitlines()
    assert field.rsplit(".", 1)[-1] in lines[exc.line - 1] or lines[exc.line - 1].startswith("[")


def test_a_pot_luck_daemon_needs_its_pool_table(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(HEAD, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        check_daemon(load_config(str(path)))
    assert info.value.field == "pot_luck.pool.hands"
    check_daemon(load_config(str(CONFIGS["pot_luck"])))  # the example's table: it runs


def test_the_example_pay_tables_say_they_are_an_example() -> None:
    text = CONFIGS["pot_luck"].read_text(encoding="utf-8")
    assert "AN EXAMPLE, NOT A PAY TABLE" in text and "Replace the tables" in text
    for name in ("blackjack-plus-sim.toml", "pot-luck-sim.toml"):  # embedded: the same
        assert (REPO / "controller" / "data" / name).read_bytes() == (
            REPO / "config" / name).read_bytes()


# -- a restart in the middle of a coup -----------------------------------------------------------
def coup_objects() -> list[dict[str, Any]]:
    """New decks, a burn, box 1's 10 chips: TS 6H against 9C and AD, the AD exposed by
    mistake (Art. 8: the up card; the 9C the hole card, never shown turned up before the
    dealer's turn), insurance asked and closed, then
    a hit (2S), a stand, and the dealer's 9C AD (soft 20) stands."""
    objects: list[dict[str, Any]] = [{"t": 0, "meta": {"table": "blackjack_plus", "decks": 6}}]
    steps = [{"input": "procedure_step", "step": s}
             for s in ("show", "turn", "scramble", "shuffle", "cut", "load")]
    cards = [{"serial": "shoe", "text": f"[Game]<Card:{c}>\r\n"} for c in ("TS", "9C", "6H", "AD")]
    for n, obj in enumerate([*steps, {"serial": "shoe", "text": "[Burn]<Card:2C>\r\n"},
                             {"input": "open_bets"}, {"bet": "main", "box": 1, "amount": 10},
                             {"input": "no_more_bets"}, *cards,
                             {"input": "second_card_exposed"},
                             {"input": "close_insurance"},
                             {"input": "hit", "box": 1},
                             {"serial": "shoe", "text": "[Game]<Card:2S>\r\n"},
                             {"input": "stand", "box": 1}], 1):
        objects.append({"t": 0.5 * n, **obj})
    return objects


def play_on(journal: Path, objects: list[dict[str, Any]]) -> None:
    """A fresh table on ``journal`` (a restart): recover, then play ``objects``."""
    events = trace_from_objects("coup", enumerate(objects, 1), games()).events
    with Journal(journal, durable=False) as j:
        clock = VirtualClock(events[0].t if events else 0.0)
        loop = EventLoop(clock, lambda e: None)
        table = Table(load_config("embedded:blackjack-plus-sim.toml"), j, loop.call_at,
                      clock.now, None)
        loop.handler = table.handle
        table.recover()
        loop.run_events(events)


def resume(journal: Path, objects: list[dict[str, Any]], half: int) -> list[dict[str, Any]]:
    """The restart after ``objects[:half]``: the daemon was down with a card that could be
    due, so play stops for the dealer's lost_cards (none was dealt: ``[]``), then the
    rest of ``objects``; the journal's records."""
    lost = {"t": objects[half]["t"] - 0.25, "input": "lost_cards", "cards": []}
    play_on(journal, [objects[0], lost, *objects[half:]])
    with Journal(journal, readonly=True) as j:
        return list(j.records())


def as_played(resumed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of a resumed journal without the restart's own (the recovery, the stop
    for lost cards and the dealer's answer), ``seq`` aside."""
    return [{k: v for k, v in r.items() if k != "seq"} for r in resumed
            if r["type"] != "recovery" and r.get("code") != "restart_input_lost"
            and r.get("action") != "lost_cards"]


def test_a_coup_cut_by_a_restart_resumes_where_it_was(tmp_path: Path) -> None:
    objects = coup_objects()
    whole, cut = tmp_path / "whole.sqlite", tmp_path / "cut.sqlite"
    play_on(whole, objects)
    half = len(objects) - 4  # the close, the hit, its card, the stand to come
    play_on(cut, objects[:half])  # dealt, the second card exposed: the power goes
    resumed = resume(cut, objects, half)
    (recovery,) = [r for r in resumed if r["type"] == "recovery"]
    assert recovery["mismatch"] is None and recovery["state"] == "insurance"
    with Journal(whole, readonly=True) as j:
        expected = [{k: v for k, v in r.items() if k != "seq"} for r in j.records()]
    assert as_played(resumed) == expected
    assert [(r["card"], r["up_card"]) for r in resumed if r["type"] == "card_turned"] == [
        ("AD", True), ("9C", False)]


def test_a_restart_while_the_up_card_is_not_turned_yet_never_shows_the_first(
        tmp_path: Path) -> None:
    # The power goes right after the deal, before the dealer says his second card (AD)
    # was exposed: the restart journals no turn of the 9C, and the coup goes on as one.
    objects = coup_objects()
    whole, cut = tmp_path / "whole.sqlite", tmp_path / "cut.sqlite"
    play_on(whole, objects)
    half = len(objects) - 5  # the exposure, the close, the hit, its card, the stand
    play_on(cut, objects[:half])
    resumed = resume(cut, objects, half)
    (recovery,) = [r for r in resumed if r["type"] == "recovery"]
    assert recovery["mismatch"] is None
    with Journal(whole, readonly=True) as j:
        expected = [{k: v for k, v in r.items() if k != "seq"} for r in j.records()]
    assert as_played(resumed) == expected
    assert [(r["card"], r["up_card"]) for r in resumed if r["type"] == "card_turned"] == [
        ("AD", True), ("9C", False)]
