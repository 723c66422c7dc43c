"""Card-table traces for the article tests: built event by event, replayed whole.

A :class:`Trace` is a CONTRACT §2 trace for a card table (``mini_baccarat`` unless it says
another: ``blackjack_plus``, ``pot_luck``): dealer inputs, bets, and shoe lines in the
reference protocol of CONTRACT §4. :func:`play` replays it with ``table-controller replay``
(tests/conftest.py ``run_replay``) and gives its records as a :class:`Run`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

from conftest import run_replay

from controller.cli import tablectl
from controller.store.journal import Journal

NEW_DECKS = ("show", "turn", "scramble", "shuffle", "cut", "load")
"""Seed 002 / 004 Art. 5 (a)-(f), declared by the dealer; (g), the burn, is read."""
CUT_CARD = ("shuffle", "cut", "load")
"""Seed 002 / 004 Art. 6 (a)-(c); (d), the burn, is read."""
PACK = 4 * 52
"""Seed 000 Art. 2: a sabot of four decks."""

Bets = Sequence[tuple[str, int, int]]  # (kind, box, amount)


def deck() -> list[str]:
    """The 52 cards of a French deck as the reader writes them (rank then suit)."""
    return [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]


class Trace:
    """A card table's trace, events 0.5 s apart; ``ready`` starts with the Art. 5 procedure
    and its burn card (2C). ``table`` and ``decks`` (and ``meta``, more of the table's
    keys) go in its meta line. ``seen`` counts the cards read from the shoe since the last
    ``load`` step (as the shoe counts them, when none was refused)."""

    def __init__(self, ready: bool = True, table: str = "mini_baccarat", decks: int = 4,
                 **meta: Any) -> None:
        self.decks = decks
        self.seen: Counter[str] = Counter()
        self.events: list[dict[str, Any]] = [
            {"t": 0, "meta": {"table": table, "decks": decks, **meta}}]
        if ready:
            self.procedure(NEW_DECKS, burn="2C")

    def add(self, **event: Any) -> Trace:
        self.events.append({"t": len(self.events) * 0.5, **event})
        return self

    def inp(self, action: str, **args: Any) -> Trace:
        return self.add(input=action, **args)

    def bet(self, kind: str, box: int, amount: int) -> Trace:
        return self.add(bet=kind, box=box, amount=amount)

    def line(self, text: str) -> Trace:
        return self.add(serial="shoe", text=text + "\r\n")

    def cards(self, *cards: str, line: str = "Game") -> Trace:
        self.seen.update(cards)
        for card in cards:
            self.line(f"[{line}]<Card:{card}>")
        return self

    def procedure(self, steps: Sequence[str], burn: str | None) -> Trace:
        for step in steps:
            self.inp("procedure_step", step=step)
            if step == "load":
                self.seen.clear()
        return self.cards(burn, line="Burn") if burn else self

    @property
    def pack(self) -> int:
        """Cards in the full shoe."""
        return self.decks * 52

    def burn_until(self, left: int, burnt: Sequence[str] = ("2C",)) -> Trace:
        """Burn cards until ``left`` remain in the shoe, after the ``burnt`` ones: the deck's
        order over and over, so no card comes more often than the decks hold."""
        order = [c for c in deck() if c not in burnt] + deck() * (self.decks - 1)
        count = self.pack - len(burnt) - left
        assert 0 <= count <= len(order)
        self.seen.update(order[:count])
        return self.add(serial="shoe", text="".join(
            f"[Burn]<Card:{card}>\r\n" for card in order[:count])) if count else self

    def count_out(self, missing: Sequence[str] = (), done: bool = True) -> Trace:
        """The count-out of the closed shoe (seed 002 / 004 Art. 4): every card of the
        composition not ``seen`` yet, but ``missing`` (a card once a copy), in deck order,
        read as ``[Game]`` lines in one go; then ``count_out_done`` (unless ``done`` is
        False)."""
        left = Counter({card: self.decks for card in deck()}) - self.seen - Counter(missing)
        rest = [card for card in deck() for _ in range(left[card])]
        if rest:
            self.add(serial="shoe", text="".join(f"[Game]<Card:{c}>\r\n" for c in rest))
            self.seen.update(rest)
        return self.inp("count_out_done") if done else self

    def coup(self, bets: Bets, *cards: str) -> Trace:
        self.inp("open_bets")
        for kind, box, amount in bets:
            self.bet(kind, box, amount)
        return self.inp("no_more_bets").cards(*cards)


class Run:
    """The records a replay printed."""

    def __init__(self, records: list[dict[str, Any]], journal: Path | None = None) -> None:
        self.records = records
        self.journal = journal

    def of(self, *types: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] in types]

    def alarms(self, code: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.of("alarm") if code is None or a["code"] == code]

    def codes(self) -> list[str]:
        return [a["code"] for a in self.of("alarm")]

    def steps(self, procedure: str) -> list[str]:
        """The journaled steps of a shoe procedure (``new_decks`` or ``cut_card``)."""
        return [r["step"] for r in self.of("shoe_procedure") if r["procedure"] == procedure]

    def settlements(self, coup: int = 1) -> list[tuple[int, str, int, str, float]]:
        return sorted((s["box"], s["kind"], s["amount"], s["outcome"], s["payout"])
                      for s in self.of("settlement") if s["game"] == coup)

    def result(self, coup: int = 1) -> dict[str, Any]:
        (found,) = [r for r in self.of("coup_result") if r["coup"] == coup]
        return found

    def whole(self, *types: str) -> list[dict[str, Any]]:
        """The journal's records (of ``types``, or all), as journaled: a card dealt face
        down is masked in what a replay prints, never in the journal."""
        assert self.journal is not None
        with Journal(self.journal, readonly=True) as journal:
            return [r for r in journal.records() if not types or r["type"] in types]

    def dealt(self) -> list[tuple[str, str]]:
        """(hand, card) of every card dealt, as journaled, in order."""
        return [(r["hand"], r["card"]) for r in self.whole("card")]


# -- Black Jack (seeds 002 and 004) -------------------------------------------------------
BJ_DECKS = 6
"""The Black Jack Plus tables' shoe in these tests."""


def two_card_deal(boxes: Sequence[Sequence[str]], dealer: Sequence[str]) -> list[str]:
    """The shoe's cards in the order of Art. 8 (seeds 002, 004): a card to each box left to
    right, one to the dealer, a second to each box, the dealer's second."""
    return [b[0] for b in boxes] + [dealer[0]] + [b[1] for b in boxes] + [dealer[1]]


def blackjack_plus(ready: bool = True) -> Trace:
    """A Black Jack Plus table (seed 002) with a 6-deck shoe."""
    return Trace(ready, table="blackjack_plus", decks=BJ_DECKS)


def one_box(hand: tuple[str, str], dealer: tuple[str, str], bet: int = 10) -> Trace:
    """Black Jack Plus: bets open, box 1's ``bet``, no more bets, and the two-card deal
    (seed 002 Art. 8)."""
    return blackjack_plus().coup((("main", 1, bet),), *two_card_deal([hand], dealer))


def turned(run: Run) -> list[tuple[str, bool]]:
    """(card, up_card) of every ``card_turned`` record, in order."""
    return [(r["card"], r["up_card"]) for r in run.of("card_turned")]


def bj_total(cards: Sequence[str]) -> tuple[int, bool]:
    """Seed 004 Art. 3: figures and the ten 10, an ace 11 or 1; (total, soft)."""
    points = [1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in cards]
    hard = sum(points)
    return (hard + 10, True) if 1 in points and hard + 10 <= 21 else (hard, False)


def play(tmp_path: Path, trace: Trace, *args: str) -> Run:
    """Replay ``trace`` (in ``tmp_path``, a fresh journal each time; ``args`` more options of
    ``replay``, e.g. ``--config``); exit 0 expected."""
    n = len(list(tmp_path.glob("trace-*.jsonl")))
    path = tmp_path / f"trace-{n}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace.events), encoding="utf-8")
    res = run_replay(path, tmp_path / f"journal-{n}.sqlite", *args)
    assert res.rc == 0, res.stderr
    return Run(res.records, res.journal)


def tablectl_out(journal: Path, *args: str) -> str:
    """What ``tablectl --journal JOURNAL ARGS`` prints (exit 0 expected)."""
    out = StringIO()
    with redirect_stdout(out):
        assert tablectl.main(["--journal", str(journal), *args]) == 0
    return out.getvalue()
