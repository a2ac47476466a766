"""The journal and what reads it back.

Owns the SQLite journal every physical event is written to before the referee acts on it
(``store``), its ``status``/``check``/``salvage`` tools (``tools``), a transcript run through a
fresh referee (``replay``), and the summaries of games and players (``summaries``). Only the
``store*`` modules speak SQL: ``store`` is the API, its parts sit beside it (``store_schema``,
``store_chain``, ``store_lock``, ``store_transaction``, ``store_errors``).

May import: ``firmware_host.referee`` (to replay lines into a fresh referee), ``engine``,
``firmware_host.errors``. Knows no screen, no device and no player.
"""
