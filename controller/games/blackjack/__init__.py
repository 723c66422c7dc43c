"""Black Jack: two tables of one game, Black Jack Plus (seed 002, Peru 2016) and Pot Luck Black
Jack (seed 004, Peru 2000), dealt from the shoe (RULES.md §3-5; CONTRACT §6).

The registry lists the two variants (``blackjack.plus``, ``blackjack.pot_luck``: each
module's ``SPEC``, built by ``spec``). Where each rule is, by article:

- Seed 004 Art. 3, card values (ace 11 or 1, figures 10): ``rules`` (``total``,
  ``is_blackjack``, ``is_bust``), with the dealer's rule and the RULES.md §4 decisions
  (``Rules``: blackjack 3 to 2, s17/h17, doubles, splits, the dealer's blackjack without a
  peek), read from the config by ``config``.
- Art. 4-6 of each seed, the deck and shoe procedures: ``shoe`` (the data, with each seed's
  article numbers), enforced by the card core's shoe session (``controller.cards``).
- Art. 7, the bets (one hand per box, chips, the limits; Pot Luck's pool bet required with
  the bet, the bonus optional): ``checks`` (the statechart's validators).
- Art. 8, the two-card deal, the up card and the card exposed by mistake: ``hands`` (the
  dealing order, what is due next) and ``chart`` (``CoupChart``, the statechart).
- Seed 002 Art. 9, surrender, and Art. 10, insurance: ``checks`` and ``chart``; their
  settlements, and every other bet's, in ``settle``.
- Seed 004 Art. 7, the pool and the bonus: ``paytable`` (the operator's tables of
  qualifying hands), ``settle.pool``; the balance is journaled (``pool_balance``).

Beside them: ``game`` (``Blackjack``, the card game its card table deals: verify, then do),
``analysis`` (the dealer's exact finished-hand distribution, ``tablectl analyze
blackjack``), ``recall``, ``status`` and ``simulation`` (the simulated dealer and players).
"""
