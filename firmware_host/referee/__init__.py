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

The rest of the house sees it through this face (:data:`FACE`): the controller, the transcript's
events and lines, the outcome and its snapshot, the referee's events and their words, the table's
defaults, the physical protocol's events and the menu's lines.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

FACE = {
    "Controller": "controller",
    "contract_json": "event_words", "message": "event_words", "said_in": "event_words",
    "physical_events": "protocol",
    "Outcome": "snapshot", "PrivateView": "snapshot", "TableSnapshot": "snapshot",
    "TableDefaults": "table_defaults",
    "CONTRACT_EVENTS": "table_events", "Corrected": "table_events", "HandRecord": "table_events",
    "NewGame": "table_events", "Notice": "table_events", "ReaderState": "table_events",
    "MenuLine": "table_setup",
    "MAX_LINE_BYTES": "transcript", "ButtonEvent": "transcript", "CardEvent": "transcript",
    "PhysicalEvent": "transcript", "Setup": "transcript", "TranscriptError": "transcript", "dumps": "transcript",
    "event_line": "transcript", "parse_line": "transcript", "read_lines": "transcript",
    "read_numbered": "transcript", "read_transcript": "transcript", "setup_from_json": "transcript",
    "setup_problem": "transcript", "sighting_event": "transcript",
}
"""The referee's face: each name the rest of the house uses, and the module of the referee that
defines it. Outside the referee, ``from firmware_host.referee import Controller``, never its inner
modules (``tests/test_layering.py``); a name is imported when it is first asked for (PEP 562), so
that what needs only a snapshot or a transcript line loads no more of the referee than that."""

__all__ = [  # noqa: RUF022 -- in FACE's order: by module
    "Controller", "contract_json", "message", "said_in", "physical_events", "Outcome", "PrivateView", "TableSnapshot",
    "TableDefaults", "CONTRACT_EVENTS", "Corrected", "HandRecord", "NewGame", "Notice", "ReaderState", "MenuLine",
    "MAX_LINE_BYTES", "ButtonEvent", "CardEvent", "PhysicalEvent", "Setup", "TranscriptError", "dumps",
    "event_line", "parse_line", "read_lines", "read_numbered", "read_transcript", "setup_from_json",
    "setup_problem", "sighting_event",
]

if TYPE_CHECKING:
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.event_words import contract_json, message, said_in
    from firmware_host.referee.protocol import physical_events
    from firmware_host.referee.snapshot import Outcome, PrivateView, TableSnapshot
    from firmware_host.referee.table_defaults import TableDefaults
    from firmware_host.referee.table_events import (
        CONTRACT_EVENTS,
        Corrected,
        HandRecord,
        NewGame,
        Notice,
        ReaderState,
    )
    from firmware_host.referee.table_setup import MenuLine
    from firmware_host.referee.transcript import (
        MAX_LINE_BYTES,
        ButtonEvent,
        CardEvent,
        PhysicalEvent,
        Setup,
        TranscriptError,
        dumps,
        event_line,
        parse_line,
        read_lines,
        read_numbered,
        read_transcript,
        setup_from_json,
        setup_problem,
        sighting_event,
    )


def __getattr__(name: str) -> object:
    """A name of the face, from its module, the first time it is asked for."""
    module = FACE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
