"""The ``[blackjack_plus]`` and ``[pot_luck]`` sections of a Black Jack table's config: the shoe,
the boxes, the rules decisions of RULES.md §4 and, for Pot Luck, the pool and bonus tables
(seed 004 Art. 7; :mod:`controller.games.blackjack.paytable`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from controller.cards.card import RANKS
from controller.cards.procedures import cut_card_reserve_bounds
from controller.core.config import MAX_LIMIT, Config
from controller.core.section import Section, show_value
from controller.games.blackjack.paytable import HandPattern, PayTable
from controller.games.blackjack.rules import (
    DEALER_BLACKJACK_TAKES,
    DEALER_RULES,
    DOUBLE_ON,
    SPLIT_PAIRS,
    Rules,
)
from controller.games.blackjack.shoe import CUT_CARD_MIN_REMAINING

MAX_BOXES = 7
"""The most betting boxes a Black Jack cloth has (Art. 7: "tantos jugadores como número de
casillas ... contenga el paño"; seven is the common cloth)."""
MAX_DECKS = 8


@dataclass(frozen=True)
class Pool:
    """Pot Luck's pool: the chips the house opens it with and its table of qualifying hands
    (each ``prize`` a share of the pool, 0 to 1)."""

    opening_balance: int = 0
    table: PayTable = field(default_factory=PayTable)


@dataclass(frozen=True)
class BlackjackConfig:
    """A Black Jack table's own settings.

    Attributes:
        table: ``blackjack_plus`` (seed 002) or ``pot_luck`` (seed 004).
        decks: decks in the shoe, 2 to 8 (the seeds' pages that would say are missing; one
            deck cannot hold the cut card of Art. 5 e).
        boxes: betting boxes on the cloth, numbered 1 up in dealing order.
        cut_card_min_remaining: fewest cards below the cut card (Art. 5 e: 40).
        rules: the rules decisions (RULES.md §4).
        pool: Pot Luck's pool; ``bonus`` its bonus table (multiples); None at Black Jack
            Plus.
        pool_limits, bonus_limits: (minimum, maximum) chips of a pool bet and of a bonus
            (seed 004 Art. 7: "dentro de los límites establecidos para la mesa").
        surrender, insurance: the table takes surrenders (seed 002 Art. 9) and offers
            insurance against an ace up (Art. 10). On by default at Black Jack Plus; off
            by default at Pot Luck, whose seed 004 has neither in its text: on there only
            where the operator's rules say so.
    """

    table: str
    decks: int = 6
    boxes: int = MAX_BOXES
    cut_card_min_remaining: int = CUT_CARD_MIN_REMAINING
    rules: Rules = field(default_factory=Rules)
    pool: Pool | None = None
    bonus: PayTable | None = None
    pool_limits: tuple[int, int] = (1, 100)
    bonus_limits: tuple[int, int] = (1, 100)
    surrender: bool = True
    insurance: bool = True


def loader(table: str) -> Any:
    """The ``load_config`` of the table called ``table`` (its GameSpec's)."""

    def load_config(sec: Section, base: BlackjackConfig | None) -> BlackjackConfig:
        return load(table, sec, base)

    return load_config


def load(table: str, sec: Section, base: BlackjackConfig | None) -> BlackjackConfig:
    """The table's section, or a trace's meta keys over ``base``.

    Raises:
        ConfigError: a wrong type, an unknown key or a value out of range (the pay tables'
            too); it names the file, line and key.
    """
    pot_luck = table == "pot_luck"
    base = base or BlackjackConfig(table, pool=Pool() if pot_luck else None,
                                   bonus=PayTable() if pot_luck else None,
                                   surrender=not pot_luck, insurance=not pot_luck)
    decks = sec.number("decks", base.decks, 1, MAX_DECKS, integer=True)
    if decks * 52 // 2 < CUT_CARD_MIN_REMAINING:
        raise sec.error("decks", f"{decks} deck: the cut card goes no less than "
                        f"{CUT_CARD_MIN_REMAINING} cards from the bottom and no more than half "
                        "the pack (Art. 5 e): a shoe holds 2 decks at least")
    r = base.rules
    rules = Rules(
        blackjack_pays=_ratio(sec, "blackjack_pays", r.blackjack_pays),
        dealer=sec.choice("dealer", r.dealer, DEALER_RULES),
        double_on=sec.choice("double_on", r.double_on, DOUBLE_ON),
        double_after_split=sec.get("double_after_split", bool, r.double_after_split),
        split_pairs=sec.choice("split_pairs", r.split_pairs, SPLIT_PAIRS),
        split_aces_one_card=sec.get("split_aces_one_card", bool, r.split_aces_one_card),
        dealer_blackjack_takes=sec.choice("dealer_blackjack_takes", r.dealer_blackjack_takes,
                                          DEALER_BLACKJACK_TAKES),
    )
    config = BlackjackConfig(
        table=table,
        decks=decks,
        boxes=sec.number("boxes", base.boxes, 1, MAX_BOXES, integer=True),
        cut_card_min_remaining=sec.number(
            "cut_card_min_remaining", base.cut_card_min_remaining,
            *cut_card_reserve_bounds(decks, CUT_CARD_MIN_REMAINING), integer=True),
        rules=rules,
        surrender=sec.get("surrender", bool, base.surrender),
        insurance=sec.get("insurance", bool, base.insurance),
    )
    if table != "pot_luck":
        return config
    pool = base.pool or Pool()
    if sec.has("pool"):
        pool_sec = sec.section("pool")
        pool = Pool(pool_sec.number("opening_balance", 0, 0, MAX_LIMIT, integer=True),
                    _pay_table(pool_sec, "share"))
        pool_sec.finish()
    bonus = base.bonus or PayTable()
    if sec.has("bonus"):
        bonus_sec = sec.section("bonus")
        bonus = _pay_table(bonus_sec, "pays")
        bonus_sec.finish()
    return replace(config, pool=pool, bonus=bonus,
                   pool_limits=_limits(sec, "pool", base.pool_limits),
                   bonus_limits=_limits(sec, "bonus", base.bonus_limits))


def as_meta(config: BlackjackConfig) -> dict[str, Any]:
    """The table's settings as a trace's ``meta`` keys, as :func:`load` reads them back
    (the section's own keys: a payout as "3:2", the pay tables by hand name)."""
    r = config.rules
    pays = r.blackjack_pays
    meta: dict[str, Any] = {
        "decks": config.decks, "boxes": config.boxes,
        "cut_card_min_remaining": config.cut_card_min_remaining,
        "blackjack_pays": f"{pays.numerator}:{pays.denominator}", "dealer": r.dealer,
        "double_on": r.double_on, "double_after_split": r.double_after_split,
        "split_pairs": r.split_pairs, "split_aces_one_card": r.split_aces_one_card,
        "dealer_blackjack_takes": r.dealer_blackjack_takes,
        "surrender": config.surrender, "insurance": config.insurance,
    }
    if config.pool is not None:
        meta["pool"] = {"opening_balance": config.pool.opening_balance,
                        "hands": _table_meta(config.pool.table, "share")}
    if config.bonus is not None:
        meta["bonus"] = {"hands": _table_meta(config.bonus, "pays")}
    if config.table == "pot_luck":
        for kind, (low, high) in (("pool", config.pool_limits), ("bonus", config.bonus_limits)):
            meta[f"{kind}_min_bet"], meta[f"{kind}_max_bet"] = low, high
    return meta


def _table_meta(table: PayTable, prize_key: str) -> dict[str, Any]:
    hands: dict[str, Any] = {}
    for p in table.hands:
        conditions = {"ranks": list(p.ranks) if p.ranks is not None else None,
                      "suited": p.suited, "blackjack": p.blackjack, "total": p.total,
                      "cards": p.cards}
        hands[p.name] = {prize_key: float(p.prize),
                         **{k: v for k, v in conditions.items() if v is not None}}
    return hands


def _ratio(sec: Section, key: str, default: Fraction) -> Fraction:
    """A payout written "3:2" (3 to 2), from 1:1 to 2:1."""
    text = sec.get(key, str, f"{default.numerator}:{default.denominator}")
    m = re.fullmatch(r"\s*(\d{1,4})\s*:\s*(\d{1,4})\s*", text)
    ratio = Fraction(int(m[1]), int(m[2])) if m and int(m[2]) else None
    if ratio is None or not 1 <= ratio <= 2:
        raise sec.error(key, f"{text!r} is not a payout from \"1:1\" to \"2:1\", e.g. \"3:2\"")
    return ratio


def _limits(sec: Section, kind: str, default: tuple[int, int]) -> tuple[int, int]:
    low = sec.number(f"{kind}_min_bet", default[0], 1, MAX_LIMIT, integer=True)
    high = sec.number(f"{kind}_max_bet", default[1], 1, MAX_LIMIT, integer=True)
    if high < low:
        raise sec.error(f"{kind}_max_bet", f"{high} is below {kind}_min_bet {low}")
    return low, high


def _pay_table(sec: Section, prize_key: str) -> PayTable:
    """``[<section>.hands.<name>]`` tables, in the file's order: the conditions of each
    qualifying hand and its ``share`` of the pool (0 to 1) or the multiple it ``pays``."""
    hands = sec.section("hands")
    patterns = []
    for name in hands.data:
        patterns.append(_pattern(hands.section(name), name, prize_key))
    hands.finish()
    return PayTable(tuple(patterns))


def _pattern(sec: Section, name: str, prize_key: str) -> HandPattern:
    if prize_key not in sec.data:
        what = "its share of the pool, 0 to 1" if prize_key == "share" else "its multiple"
        raise sec.error(prize_key, f"missing: {what}")
    if prize_key == "share":
        prize = Fraction(repr(sec.number("share", 1.0, 0.0, 1.0, open_low=True)))
    else:
        prize = Fraction(repr(sec.number("pays", 1.0, 0.0, 10_000.0, open_low=True)))
    ranks = sec.get("ranks", list, None)
    if ranks is not None:
        ranks = [("T" if r == "10" else r.upper()) if isinstance(r, str) else r for r in ranks]
        if not 2 <= len(ranks) <= 11 or not all(isinstance(r, str) and r in RANKS
                                                for r in ranks):
            raise sec.error("ranks", f"{show_value(sec.data['ranks'])}: 2 to 11 ranks of "
                            f"{', '.join(RANKS)} (10 for T)")
    cards = sec.number("cards", None, 2, 11, integer=True)  # type: ignore[arg-type]
    if ranks is not None and cards is not None and cards != len(ranks):
        raise sec.error("cards", f"{cards} cards, but {len(ranks)} ranks are given")
    pattern = HandPattern(
        name=name, prize=prize, ranks=tuple(ranks) if ranks is not None else None,
        suited=sec.get("suited", bool, None), blackjack=sec.get("blackjack", bool, None),
        total=sec.number("total", None, 4, 21, integer=True),  # type: ignore[arg-type]
        cards=cards)
    if all(getattr(pattern, k) is None for k in ("ranks", "suited", "blackjack", "total",
                                                  "cards")):
        raise sec.error("", "no condition: give ranks, suited, blackjack, total or cards")
    sec.finish()
    return pattern


def check_config(config: Config, root: Section) -> None:
    """A Black Jack table reads its cards from the shoe: ``[serial.shoe]`` is required,
    unless the embedded simulator supplies the shoe itself.

    Raises:
        ConfigError: ``serial.shoe`` is missing.
    """
    if "shoe" not in config.serial and not config.simulator.enabled:
        raise root.error_at("serial.shoe", "missing: a Black Jack table reads its cards from "
                            "the shoe reader; add [serial.shoe] with its url (hardware.md), or "
                            "enable the [simulator]", near="table.game")


def check_daemon(config: Config) -> None:
    """A Pot Luck table does not run without its pool table: the hands that win the pool
    are the operator's (seed 004's pages are missing).

    Raises:
        ConfigError: ``[pot_luck.pool.hands]`` is empty.
    """
    from controller.core.errors import ConfigError

    rules = config.rules
    if rules.pool is not None and not rules.pool.table.hands:
        raise ConfigError(config.source, None, "pot_luck.pool.hands",
                          "no qualifying hand: the pool's pay table is the operator's (seed "
                          "004 Art. 7; see config/pot-luck-sim.toml for an example)")
