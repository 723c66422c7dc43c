"""The games, one package each (``README.md`` here). ``PACKAGES`` lists them for the
registry (``controller.core.registry``), which loads them by name, each only when it is
asked for: the kernel names none.
"""

PACKAGES: dict[str, str] = {
    "roulette": "roulette",                # seed 001, Peru 1999
    "mini_baccarat": "mini_baccarat",      # seed 000, Uruguay decree 217/978
    "blackjack_plus": "blackjack.plus",    # seed 002, Peru 2016: Black Jack Plus
    "pot_luck": "blackjack.pot_luck",      # seed 004, Peru 2000: Pot Luck Black Jack
    "draw_poker": "draw_poker",            # seed 003, Montevideo
}
"""Each game's table name (its ``SPEC.name``) and the module that defines its ``SPEC``,
under ``controller.games``: adding a game is one line here."""

DEFAULT_GAME = "roulette"
"""The table of a config without ``[table] game`` and of a trace whose ``meta`` names none."""
