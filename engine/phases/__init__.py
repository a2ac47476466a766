"""The phases of a hand, one module each: what :func:`engine.game.apply` dispatches an action to.

``deal`` (cut, deal, turn-up), ``exchange`` (propose, accept or refuse, discard, draw),
``king`` (announcing the king of trumps), ``tricks`` (play and its remedies), ``offers``
(doubling, offering the point), ``match`` (the end of a hand, a game, a match; penalties) and
``outcome`` (the value each handler returns). They share the state, the rules and the legality of
``engine``; nothing outside ``engine`` needs them but ``engine.phases.tricks.accept_play``.

May import: ``engine``'s other modules. Imports nothing of the table and does no I/O.
"""
