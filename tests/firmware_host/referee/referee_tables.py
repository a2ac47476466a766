"""Positions the referee's tests start from: a deal, a controller brought to a phase, the
events summed up, the compact layout's pads (shared by the tests of the referee's parts)."""

from __future__ import annotations

import dataclasses
import random

import engine
import engine.random_play
from firmware_host.referee.controller import Controller
from firmware_host.referee.protocol import physical_events
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup

DEAL = [
    ("hand.B", "9S"), ("hand.B", "KD"), ("hand.B", "QD"),
    ("hand.A", "7S"), ("hand.A", "JS"), ("hand.A", "9H"),
    ("hand.B", "7C"), ("hand.B", "TC"),
    ("hand.A", "KC"), ("hand.A", "8D"),
]


TAG_KS = "04A224B2C31D80"


def card_event(zone: str, card: str, gone: bool = False) -> CardEvent:
    return CardEvent(zone, card, gone=gone)


def feed(table: Controller, events: list[PhysicalEvent]) -> list[engine.Event]:
    out: list[engine.Event] = []
    for event in events:
        out.extend(table.handle(event).events)
    return out


def table_at(phase: str, rules: str = "classic", **options: object) -> Controller:
    """A controller brought to ``phase`` (deal, propose, respond, exchange, play, trick)."""
    table = Controller()
    table.handle(Setup(rules=rules, dealer="A", tags={TAG_KS: "KS"}, options=dict(options)))
    if phase == "deal":
        return table
    steps: list[PhysicalEvent] = [card_event(z, c) for z, c in DEAL] + [card_event("turnup", "7H")]
    if phase in ("respond", "exchange"):
        steps.append(ButtonEvent("B", "yes"))
    if phase == "exchange":
        steps.append(ButtonEvent("A", "yes"))
    if phase in ("play", "trick"):
        steps.append(ButtonEvent("B", "no"))
    if phase == "trick":
        steps.append(card_event("play.B", "9S"))
    feed(table, steps)
    assert table.state.engine_state.phase == ("play" if phase == "trick" else phase)
    return table


def summary(events: list[engine.Event]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for e in events:
        data = e.to_json()
        detail = data.get("code") or data.get("bid") or data.get("card") or data.get("winner") or ""
        out.append((data["event"], str(detail), str(data.get("seat") or "")))
    return out


COMPACT = {"hand.A": "A", "play.A": "A", "hand.B": "B", "play.B": "B", "turnup": "centre", "discard": "centre"}


def compact_event(event: PhysicalEvent) -> PhysicalEvent:
    if isinstance(event, CardEvent):
        return dataclasses.replace(event, zone=COMPACT[event.zone])
    return event


def correct_move(state: engine.GameState, rng: random.Random) -> list[PhysicalEvent]:
    """What the players would rightly do next (a single dealt card mid-deal)."""
    if state.phase == "over":
        return [ButtonEvent("A", "yes")]
    if state.phase == "deal":
        free = [c for c in engine.CARDS if state.stock_mask >> c.index & 1]
        short = [s for s in "AB" if state.hands[0 if s == "A" else 1].bit_count() < 5]
        card = str(rng.choice(free))
        return [CardEvent(f"hand.{rng.choice(short)}", card) if short else CardEvent("turnup", card)]
    return physical_events(state, engine.random_play.random_action(state, rng))
