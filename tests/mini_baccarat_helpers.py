"""Shared helpers for the Mini-Bacará tests: the game on a list for a journal, card-table
traces replayed whole (``table-controller replay``, CONTRACT §2-4), and the shipped config
with one line changed. The article tests (tests/articles/test_seed_000_mini_baccarat*.py)
and the mechanics tests of tests/ share them (tests/conftest.py holds the roulette ones).

Nothing here computes an expected value: the tests work theirs out from the seed's articles.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from conftest import REPO

from controller.cards.card import parse_card
from controller.cli import main as cli
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.games.mini_baccarat.game import MiniBaccarat
from controller.store.records import Record, unpack

Bets = list[tuple[str, int, int]]  # (kind, box, amount)


# -- the game on a list for a journal ------------------------------------------------------
class GameTable:
    """A :class:`MiniBaccarat` game whose records go to a list (``records``)."""

    def __init__(self, **config: Any) -> None:
        self.records: list[dict[str, Any]] = []
        self.game = MiniBaccarat(self.emit, **config)
        self.t = 0.0

    def emit(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        record = {"type": type_, "seq": len(self.records) + 1, "t": self.t, **fields}
        self.records.append(record)
        return record

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == type_]

    def bet(self, kind: str, box: int, amount: int) -> None:
        self.t += 0.1
        self.game.place_bet(BetPlaced(self.t, kind, box, amount))

    def open(self, bets: Bets, boxes: list[int] | None = None) -> None:
        self.game.open_bets(self.t)
        for kind, box, amount in bets:
            self.bet(kind, box, amount)
        self.game.no_more_bets(self.t, boxes)

    def deal(self, cards: str, fives: dict[int, str] | None = None) -> None:
        """Deal ``cards`` (space separated) in order; answer the five options when asked."""
        for text in cards.split():
            if self.game.state == "five_options":
                self.choose(fives or {})
            self.t += 0.1
            self.game.card(self.t, parse_card(text))
        if self.game.state == "five_options":
            self.choose(fives or {})

    def choose(self, fives: dict[int, str]) -> None:
        for box, choice in fives.items():
            self.game.five_choice(self.t, box, choice)

    def result(self, box: int) -> dict[str, Any]:
        (record,) = [r for r in self.of("box_result") if r["box"] == box]
        return record

    def settlements(self, box: int) -> list[tuple[str, str, int | float]]:
        return [
            (s["kind"], s["outcome"], s["payout"]) for s in self.of("settlement") if s["box"] == box
        ]

    def seq(self, type_: str, **match: Any) -> int:
        """The seq of the one record of ``type_`` whose fields include ``match``."""
        (record,) = [r for r in self.of(type_) if all(r.get(k) == v for k, v in match.items())]
        return int(record["seq"])


def coup(bets: Bets, cards: str, fives: dict[int, str] | None = None,
         **config: Any) -> GameTable:
    """A game that took ``bets`` and was dealt ``cards`` (see :meth:`GameTable.deal`)."""
    table = GameTable(**config)
    table.open(bets)
    table.deal(cards, fives)
    return table


class Refused:
    """``with Refused("code"):`` asserts a RuleViolation with that code."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        assert exc_type is RuleViolation, f"expected RuleViolation {self.code}, got {exc_type}"
        assert exc.code == self.code
        return True


# -- card-table traces, replayed whole -----------------------------------------------------
ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")  # seed 002 Art. 5 a-f

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

    def count_out(self, decks: int = 4) -> Deal:
        """The count-out of the shoe closed at the cut card (seed 002 Art. 4): every card
        of the ``decks`` not read since the last ``load`` step (game and burn lines, the
        dealer's corrections), in deck order, then ``count_out_done``."""
        seen: Counter[str] = Counter()
        for obj in self.objects:
            if obj.get("input") == "procedure_step" and obj.get("step") == "load":
                seen.clear()
            elif obj.get("input") == "card":
                seen[obj["card"]] += 1
            elif "text" in obj:
                seen.update(re.findall(r"\[(?:Game|Burn)\]<Card:(\w\w)>", obj["text"]))
        deck = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
        rest = [card for card in deck for _ in range(decks - seen[card])]
        if rest:
            self.serial("".join(f"[Game]<Card:{card}>\r\n" for card in rest))
        return self.inp("count_out_done")

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


def ready(decks: int = 4, burn: str = "2C", **meta: Any) -> Deal:
    """A trace whose shoe is made ready: the new-decks procedure (seed 002 Art. 5) and a burn."""
    return Deal(decks, **meta).procedure(burn=burn)


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


def replay_deal(tmp_path: Path, deal: Deal) -> Run:
    """Replay ``deal`` in ``tmp_path`` (a fresh trace and journal each call); exit 0 expected."""
    n = len(list(tmp_path.glob("trace-*.jsonl"))) + 1
    trace = tmp_path / f"trace-{n}.jsonl"
    trace.write_text("".join(json.dumps(o) + "\n" for o in deal.objects), encoding="utf-8")
    journal = tmp_path / f"journal-{n}.sqlite"
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        rc = cli.main(["replay", str(trace), "--journal", str(journal)])
    assert rc == 0
    text = out.getvalue()
    return Run([json.loads(line) for line in text.splitlines()], journal, text)


# -- the shipped config --------------------------------------------------------------------
MINI = (REPO / "config/mini-baccarat-sim.toml").read_text()


def write_mini(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    """The shipped Mini-Bacará config with ``old`` replaced by ``new``; the line of the first
    line of ``new``."""
    assert MINI.count(old) == 1, old
    text = MINI.replace(old, new)
    path = tmp_path / "mini.toml"
    path.write_text(text)
    return path, text[:text.index(new)].count("\n") + 1
