"""The ``[draw_poker]`` section of a draw-poker table's config (seed 003 num. 1, 4)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.config import Config, Section
from controller.games.draw_poker.hand import BOXES
from controller.games.draw_poker.shoe import DECKS


@dataclass(frozen=True)
class DrawPokerConfig:
    """Draw-poker settings. ``decks`` and ``boxes`` are the seed's, 1 (num. 1) and 5
    (num. 4); a config may only repeat them. The house minimum and maximum of the ante
    (num. 4, 21) are the table's ``[limits]`` ``min_bet`` and ``max_bet``, in chips."""

    decks: int = DECKS
    boxes: int = len(BOXES)


def load_config(sec: Section, base: DrawPokerConfig | None) -> DrawPokerConfig:
    """The ``[draw_poker]`` table, or a trace's meta keys over ``base``.

    Raises:
        ConfigError: a wrong type, another number of decks or boxes; it names the file,
            line and key.
    """
    base = base or DrawPokerConfig()
    decks = sec.get("decks", int, base.decks)
    if decks != DECKS:
        raise sec.error("decks", f"{decks} decks: poker is dealt from one French deck of 52 "
                        "cards (seed 003 num. 1)")
    boxes = sec.get("boxes", int, base.boxes)
    if boxes != len(BOXES):
        raise sec.error("boxes", f"{boxes} boxes: a poker table seats 2 to {len(BOXES)} "
                        "players (seed 003 num. 4)")
    return DrawPokerConfig(decks=decks, boxes=boxes)


def check_config(config: Config, root: Section) -> None:
    """A poker table reads its cards from the shoe: ``[serial.shoe]`` is required, unless
    the embedded simulator supplies the shoe itself.

    Raises:
        ConfigError: ``serial.shoe`` is missing.
    """
    if "shoe" not in config.serial and not config.simulator.enabled:
        raise root.error_at("serial.shoe", "missing: a poker table reads its cards from the "
                            "shoe reader; add [serial.shoe] with its url (hardware.md), or "
                            "enable the [simulator]", near="table.game")
