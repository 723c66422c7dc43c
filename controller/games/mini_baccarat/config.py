"""The ``[mini_baccarat]`` section of a Mini-Bacará table's config (seed 000 Art. 2, 11)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.cards.procedures import cut_card_reserve_bounds
from controller.core.config import Config
from controller.core.section import Section
from controller.games.mini_baccarat.rules import BOXES, DECKS
from controller.games.mini_baccarat.shoe import CUT_CARD_MIN_REMAINING


@dataclass(frozen=True)
class MiniBaccaratConfig:
    """Mini-Bacará settings (seed 000 Art. 2, 11; RULES.md §2-3).

    ``decks`` and ``boxes`` are the decree's, 4 and 5 (Art. 2); a config may only repeat
    them. ``cut_card_min_remaining``: fewest cards below the cut card (seed 002 Art. 5 e).
    """

    decks: int = 4
    boxes: int = 5
    insurance_pays_on: str = "natural_nine"
    cut_card_min_remaining: int = CUT_CARD_MIN_REMAINING


def load_config(sec: Section, base: MiniBaccaratConfig | None) -> MiniBaccaratConfig:
    """The ``[mini_baccarat]`` table, or a trace's meta keys over ``base``.

    Seed 000 Art. 2 fixes the table: five seated bettors ("cinco apostadores sentados") in
    numbered boxes, and a sabot of four decks ("un 'sabot' compuesto por los cuatro
    mazos"). ``decks`` may only say 4 and ``boxes`` 5. ``cut_card_min_remaining`` (cards)
    is 40 (seed 002 Art. 5 e) up to half the 4-deck pack, 104: above that no cut card
    could be placed. This is the one check of the shoe's size and reserve: the shoe
    session and the game take them as given.

    Raises:
        ConfigError: a wrong type, another number of decks or boxes, a value out of range;
            it names the file, line and key.
    """
    base = base or MiniBaccaratConfig()
    decks = sec.get("decks", int, base.decks)
    if decks != DECKS:
        raise sec.error("decks", f"{decks} decks: a Mini-Bacará sabot is {DECKS} decks "
                        "(seed 000 Art. 2, \"los cuatro mazos\")")
    boxes = sec.get("boxes", int, base.boxes)
    if boxes != len(BOXES):
        raise sec.error("boxes", f"{boxes} boxes: a Mini-Bacará table seats {len(BOXES)} "
                        "bettors in numbered boxes (seed 000 Art. 2, \"cinco apostadores "
                        "sentados\")")
    return MiniBaccaratConfig(
        decks=decks,
        boxes=boxes,
        insurance_pays_on=sec.choice("insurance_pays_on", base.insurance_pays_on,
                                     ("natural_nine", "banca_natural")),
        cut_card_min_remaining=sec.number("cut_card_min_remaining", base.cut_card_min_remaining,
                                          *cut_card_reserve_bounds(decks, CUT_CARD_MIN_REMAINING),
                                          integer=True),
    )


def check_config(config: Config, root: Section) -> None:
    """A Mini-Bacará table reads its cards from the shoe: ``[serial.shoe]`` is required,
    unless the embedded simulator supplies the shoe itself.

    Raises:
        ConfigError: ``serial.shoe`` is missing.
    """
    if "shoe" not in config.serial and not config.simulator.enabled:
        # Without it the table would start and never see a card.
        raise root.error_at("serial.shoe", "missing: a Mini-Bacará table reads its cards from "
                            "the shoe reader; add [serial.shoe] with its url (hardware.md), or "
                            "enable the [simulator]", near="table.game")
