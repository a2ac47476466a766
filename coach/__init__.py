"""The coach: double-dummy results, the odds of standing or proposing, the *jeu de règle*,
and the review of a played hand. Pure: no I/O; every rule of play comes from :mod:`engine`.

See ``docs/coach.md``.
"""
