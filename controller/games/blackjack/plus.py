"""Black Jack Plus (seed 002, Peru 2016): the registry entry of the table (``SPEC``); its rules
are the package's (:mod:`controller.games.blackjack`)."""

from controller.games.blackjack.spec import make_spec

SPEC = make_spec("blackjack_plus")
