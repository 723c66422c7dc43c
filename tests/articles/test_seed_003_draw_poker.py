"""Seed 003 (draw poker, Montevideo): its numbered paragraphs, "num. 1" to "num. 22".

There is no ``draw_poker`` game yet, and no shared module implements any of these
paragraphs (the 52-card deck of num. 1 and the four shuffles of num. 2 belong to a shoe of
one deck, which no card table uses so far): this file has no test, and the audit shows
every paragraph in the controller's scope "not implemented". Its tests go here, named
after the paragraph and its letter (tests/articles/README.md): ``test_num_8c_<what>`` tests
num. 8 (c), the cap of three antes on a first-round bet.
"""
