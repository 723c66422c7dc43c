"""Draw-poker traces for the tests: built event by event (CONTRACT §2 and §7), replayed whole.

A :class:`PokerTrace` starts, unless told otherwise, with the four shuffles seed 003 num. 2
asks before each hand. Cards go into the shoe in the order a hand is dealt: five to each
player, box 1's first (num. 7), then each discard followed by its replacements (num. 9).
:func:`replay` replays a trace with ``table-controller replay`` (tests/conftest.py), under a
config with the house's ante limits when given, and returns its records as a
:class:`card_traces.Run`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from card_traces import Run
from conftest import run_replay

SHUFFLES = 4
"""Seed 003 num. 2: "barajadas al menos cuatro veces antes de cada pase"."""


class PokerTrace:
    """A draw-poker trace, events 0.5 s apart."""

    def __init__(self, shuffled: bool = True) -> None:
        self.events: list[dict[str, Any]] = [{"t": 0, "meta": {"table": "draw_poker"}}]
        if shuffled:
            self.shuffles()

    def add(self, **event: Any) -> PokerTrace:
        self.events.append({"t": len(self.events) * 0.5, **event})
        return self

    def inp(self, action: str, **args: Any) -> PokerTrace:
        return self.add(input=action, **args)

    def ante(self, box: int, amount: int) -> PokerTrace:
        return self.add(bet="ante", box=box, amount=amount)

    def cards(self, *cards: str) -> PokerTrace:
        for card in cards:
            self.add(serial="shoe", text=f"[Game]<Card:{card}>\r\n")
        return self

    def shuffles(self, times: int = SHUFFLES, cut: str | None = "player") -> PokerTrace:
        for _ in range(times):
            self.inp("procedure_step", step="shuffle")
        return self.inp("procedure_step", step="cut", by=cut) if cut else self

    def open(self, antes: Mapping[int, int], mano: int | None = None) -> PokerTrace:
        """``open_bets``, the antes (box: chips), the Mano if named, ``no_more_bets``."""
        self.inp("open_bets")
        for box, amount in antes.items():
            self.ante(box, amount)
        if mano is not None:
            self.inp("mano", box=mano)
        return self.inp("no_more_bets")

    def deal(self, hands: Mapping[int, Sequence[str]]) -> PokerTrace:
        """Num. 7: each box's five cards, consecutively, box 1's first."""
        for box in sorted(hands):
            self.cards(*hands[box])
        return self

    def hand(self, ante: int, hands: Mapping[int, Sequence[str]],
             mano: int | None = None) -> PokerTrace:
        """A hand opened with ``ante`` from every box of ``hands``, and dealt them."""
        return self.open(dict.fromkeys(sorted(hands), ante), mano).deal(hands)

    def act(self, action: str, box: int, amount: int | None = None) -> PokerTrace:
        return self.inp(action, box=box, **({} if amount is None else {"amount": amount}))

    def acts(self, *moves: tuple[Any, ...]) -> PokerTrace:
        """Several actions: (action, box) or (action, box, amount)."""
        for move in moves:
            self.act(*move)
        return self

    def discard(self, box: int, thrown: Sequence[str], *replacements: str) -> PokerTrace:
        """Num. 9: ``box`` throws ``thrown``; the shoe gives ``replacements``."""
        return self.inp("discard", box=box, cards=list(thrown)).cards(*replacements)

    def order(self) -> list[int]:
        """The players of the hand opened last, clockwise from its Mano (num. 8 a)."""
        start = max(i for i, e in enumerate(self.events) if e.get("input") == "open_bets")
        boxes = sorted(e["box"] for e in self.events[start:] if e.get("bet") == "ante")
        mano = next((e["box"] for e in self.events[start:] if e.get("input") == "mano"),
                    boxes[0])
        return [b for b in boxes if b >= mano] + [b for b in boxes if b < mano]

    def called(self, amount: int | None = None) -> PokerTrace:
        """The first round: Mano bets ``amount`` (one ante by default), the others call."""
        order = self.order()
        ante = next(e["amount"] for e in reversed(self.events) if e.get("bet") == "ante")
        self.act("bet", order[0], amount or ante)
        return self.acts(*(("call", box) for box in order[1:]))

    def stand_pat(self) -> PokerTrace:
        """The draw: every player stands pat (an empty discard), in turn from Mano."""
        for box in self.order():
            self.discard(box, [])
        return self

    def showdown(self, hands: Mapping[int, Sequence[str]], ante: int = 10,
                 mano: int | None = None) -> PokerTrace:
        """A hand to the showdown: Mano bets one ante, the others call, all stand pat, all
        pass in the second round."""
        self.hand(ante, hands, mano).called().stand_pat()
        return self.acts(*(("pass", box) for box in self.order()))


def replay(tmp_path: Path, trace: PokerTrace,
           limits: tuple[int, int] | None = None) -> PokerRun:
    """Replay ``trace`` (a fresh journal each time), under the house's ante ``limits``
    (``[limits]`` min_bet, max_bet) when given; exit 0 expected."""
    n = len(list(tmp_path.glob("poker-*.jsonl")))
    path = tmp_path / f"poker-{n}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    args: list[str] = []
    if limits is not None:
        config = tmp_path / f"poker-{n}.toml"
        config.write_text(f'[table]\ngame = "draw_poker"\n[serial.shoe]\nurl = "loop://"\n'
                          f"[limits]\nmin_bet = {limits[0]}\nmax_bet = {limits[1]}\n",
                          encoding="utf-8")
        args = ["--config", str(config)]
    res = run_replay(path, tmp_path / f"poker-{n}.sqlite", *args)
    assert res.rc == 0, res.stderr
    return PokerRun(res.records, res.journal)


class PokerRun(Run):
    """The records a replay printed (the public view), and its ``journal`` file (whole)."""

    def __init__(self, records: list[dict[str, Any]], journal: Path) -> None:
        super().__init__(records)
        self.journal = journal


def refusals(run: Run) -> list[tuple[str, str]]:
    """(code, message) of every refusal: the alarms, a refused bet's by its own code (not the
    ``game_open`` alarm of a trace that ends with a hand under way)."""
    found = []
    for alarm in run.of("alarm"):
        code = alarm["code"]
        if code == "game_open":
            continue
        if code == "bet_refused":
            code = alarm["message"].split(": ")[1]
        found.append((code, alarm["message"]))
    return found


def codes(run: Run) -> list[str]:
    """The codes of every refusal, in order."""
    return [code for code, _ in refusals(run)]


def message(run: Run, code: str) -> str:
    """The message of the one refusal with ``code``."""
    (found,) = [m for c, m in refusals(run) if c == code]
    return found


def money(value: Any) -> Decimal:
    """An amount of a record (a JSON number), exactly, to the cent."""
    return Decimal(str(value))


def payouts(run: Run, hand: int = 1) -> dict[tuple[int, str], tuple[str, Any]]:
    """(box, kind): (outcome, payout) of the settlements of ``hand``."""
    return {(s["box"], s["kind"]): (s["outcome"], s["payout"])
            for s in run.of("settlement") if s["game"] == hand}


def result(run: Run, hand: int = 1) -> dict[str, Any]:
    (found,) = [r for r in run.of("hand_result") if r["hand"] == hand]
    return found
