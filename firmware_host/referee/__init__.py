"""The referee: physical events in, table events and a frozen snapshot out.

Owns the :class:`~firmware_host.referee.controller.Controller` (names each card, says which
zone a pad stands for, applies the engine's rules, answers faults), the physical protocol in
both directions (``protocol``), the transcript's event types and parser (``transcript``: the
referee's input language, so it lives here rather than with the journal that stores its lines),
the pack guard, the table-setup menu and the :class:`~firmware_host.referee.snapshot.TableSnapshot`
that every output consumes.

May import: ``engine``, ``hardware`` (layout, names), ``firmware_host.errors``. Knows no journal,
no screen, no device and no player.
"""
