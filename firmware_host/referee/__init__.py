"""The referee: physical events in, table events and a frozen snapshot out.

A function of its state, as the engine is: ``referee(state, event) -> (state, outcome)``
(``game_under_way``) takes a frozen :class:`~firmware_host.referee.referee_state.RefereeState` and
gives the next one, never changing the one it was given; the
:class:`~firmware_host.referee.controller.Controller` holds the current state for its callers. The
state's parts are frozen values, each keeping one thing: ``card_namer`` (which card a tag is: setup
tags, registry, badges, pack guard, the game's pack), ``pad_ledger`` (what lies on each pad),
``corrections`` (refused cards, warnings, what puts them right), ``setup_menu`` (the setup in force
and the open menu), ``hand_log`` (a consumer of the engine's events: the game's number, last trick
and hand, each hand's record) and ``elder_hint`` (the learners' hint); the referee's own events
(``table_events``) and the table's defaults (``table_defaults``); the physical protocol in
both directions (``protocol``), the transcript's event types and parser (``transcript``: the
referee's input language, so it lives here rather than with the journal that stores its lines),
the pack guard, the table-setup menu and the :class:`~firmware_host.referee.snapshot.TableSnapshot`
that every output consumes, and each seat's private view (``private_view``: what that seat alone
may know, for its earpiece only).

May import: ``engine``, ``hardware`` (layout, names), ``drivers.device_events`` (what the devices report:
a tag's ``Sighting`` and its ``Origin``, values, no device), ``firmware_host.errors``. Knows no journal,
no screen, no device and no player.
"""
