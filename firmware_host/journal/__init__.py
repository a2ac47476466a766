"""The journal and what reads it back.

Owns the SQLite journal every physical event is written to before the referee acts on it
(``store``), its ``status``/``check``/``salvage`` tools (``tools``), a transcript run through a
fresh referee (``replay``), and the history of games and players (``history``).

May import: ``firmware_host.referee`` (to replay lines into a fresh referee), ``engine``,
``firmware_host.errors``. Knows no screen, no device and no player.
"""
