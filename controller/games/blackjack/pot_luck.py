"""Pot Luck Black Jack (seed 004, Peru 2000): the registry entry of the table (``SPEC``); its
rules are the package's (:mod:`controller.games.blackjack`), its pool and bonus the
operator's tables (:mod:`controller.games.blackjack.paytable`)."""

from controller.games.blackjack.spec import make_spec

SPEC = make_spec("pot_luck")
