"""The referee: physical events in, table events and a frozen snapshot out.

Owns the :class:`~firmware_host.referee.controller.Controller`, a facade over the parts that each
keep one thing: ``card_namer`` (which card a tag is: setup tags, registry, badges, pack guard),
``pad_ledger`` (what lies on each pad), ``corrections`` (refused cards, warnings, what puts them
right), ``setup_menu`` (the setup in force and the open menu) and ``hand_log`` (a consumer of the
engine's events: last trick and hand, each hand's record), and ``game_under_way`` (the engine's
state, and each input's walk through those parts to the engine); the referee's own events
(``table_events``) and the table's defaults (``table_defaults``); the physical protocol in
both directions (``protocol``), the transcript's event types and parser (``transcript``: the
referee's input language, so it lives here rather than with the journal that stores its lines),
the pack guard, the table-setup menu and the :class:`~firmware_host.referee.snapshot.TableSnapshot`
that every output consumes, and each seat's private view (``private_view``: what that seat alone
may know, for its earpiece only).

May import: ``engine``, ``hardware`` (layout, names), ``firmware_host.errors``. Knows no journal,
no screen, no device and no player.
"""
