"""The ``[draw_poker]`` section of a draw-poker table's config (seed 003 num. 1, 4)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.config import MAX_LIMIT, Config
from controller.core.section import Section
from controller.games.draw_poker.hand import BOXES
from controller.games.draw_poker.shoe import DECKS


@dataclass(frozen=True)
class DrawPokerConfig:
    """Draw-poker settings. ``decks`` and ``boxes`` are the seed's, 1 (num. 1) and 5
    (num. 4); a config may only repeat them. The house minimum and maximum of the ante
    (num. 4, 21) are the table's ``[limits]`` ``min_bet`` and ``max_bet``, in chips; those
    of the later bets ("Apuestas Posteriores", num. 21) are ``[draw_poker]``
    ``later_min_bet`` and ``later_max_bet`` (None: not set, the rounds' caps of num. 8 and
    12 alone)."""

    decks: int = DECKS
    boxes: int = len(BOXES)
    later_min_bet: int | None = None
    later_max_bet: int | None = None

    @property
    def later_limits(self) -> tuple[int, int] | None:
        """(minimum, maximum) of the later bets, chips, or None when not set."""
        if self.later_min_bet is None or self.later_max_bet is None:
            return None
        return self.later_min_bet, self.later_max_bet


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
    later = base.later_limits
    if sec.has("later_min_bet") or sec.has("later_max_bet"):
        low = sec.number("later_min_bet", later[0] if later else 1, 1, MAX_LIMIT, integer=True)
        high = sec.number("later_max_bet", later[1] if later else MAX_LIMIT, 1, MAX_LIMIT,
                          integer=True)
        if high < low:
            raise sec.error("later_max_bet", f"{high} is below later_min_bet {low}")
        later = (low, high)
    return DrawPokerConfig(decks=decks, boxes=boxes, later_min_bet=later and later[0],
                           later_max_bet=later and later[1])


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
