"""The referee is a function of its state: ``referee(state, event)`` never changes ``state``.

A state handled twice with the same event gives equal results, and a state kept (the service's
failure path keeps the state before an event it rejects) goes on as if the events after it never
came. The stream mixes the players' right moves with anything a table may see: cards laid and
lifted anywhere, tags known, unknown, of another pack or badges, buttons, setup lines, readers
going offline and back, and a setup the engine cannot play (the referee raises).
"""

from __future__ import annotations

import contextlib
import copy
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referee_tables import TAG_KS, correct_move

import engine
from drivers.device_events import Sighting
from firmware_host.journal.store import Journal
from firmware_host.referee.controller import Controller
from firmware_host.referee.game_under_way import reader, referee
from firmware_host.referee.referee_state import RefereeState, setup_line, snapshot, start
from firmware_host.referee.snapshot import Outcome
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup
from firmware_host.service import InputLine, TableService, reporter
from hardware.layout import ZONES
from hardware.tag_registry import TagEntry, TagRegistry

REGISTRY = TagRegistry()
REGISTRY.add("04AA0101000000", "7C", 1)
REGISTRY.add("04AA0201000000", "8C", 2)
BADGES = {"04B0000000000A": "player:Anne", "04B0000000000B": "rules:german", "04B0000000000C": "target:3"}
UIDS = [TAG_KS, "04CC000000000A", "04AA0101000000", "04AA0201000000", "DEADBEEF", *BADGES]
CARD_NAMES = [str(c) for c in engine.CARDS]


def _advisor(rules: engine.RuleSet, hand: int, turn_up: int, lang: str) -> str:
    """A learner's hint that names what it was asked (the referee asks it before the elder decides)."""
    return f"{rules.name} {hand:x} {turn_up} {lang}"


def _table() -> RefereeState:
    return start(TableDefaults(dealer="A", badges=BADGES, tags={TAG_KS: "KS"}), registry=REGISTRY,
                 advisor=_advisor, game=7)


def _copy(state: RefereeState) -> RefereeState:
    """A deep copy of ``state`` (its registry is the table's: the same object, as its lookups compare by it)."""
    return copy.deepcopy(state, memo={id(REGISTRY): REGISTRY})


Input = PhysicalEvent | tuple[str, bool]
"""A physical event, or a reader (zone, online)."""

setups = st.one_of(
    st.builds(lambda r, t: Setup(rules=r, tags=t), st.sampled_from(["classic", "german", "bezique"]),
              st.sampled_from([{}, {"04CC000000000A": "QS"}])),
    st.builds(lambda p: Setup(players=p), st.sampled_from([("Anne", "Bruno"), ("A", "B")])),
)
noise = st.one_of(
    setups,
    st.builds(lambda z, c, g: CardEvent(z, c, gone=g), st.sampled_from(ZONES), st.sampled_from(CARD_NAMES),
              st.booleans()),
    st.builds(lambda z, u, g: CardEvent(z, gone=g, sighting=Sighting(u)), st.sampled_from(ZONES), st.sampled_from(UIDS),
              st.booleans()),
    st.builds(ButtonEvent, st.sampled_from("AB"), st.sampled_from(("yes", "no", "king"))),
    st.tuples(st.sampled_from(["play.A", "turnup"]), st.booleans()),
)
streams = st.tuples(st.lists(setups, max_size=2),
                    st.lists(st.one_of(st.just("move"), st.just("move"), st.just("move"), noise), max_size=120)
                    ).map(lambda parts: [*parts[0], *parts[1]])
"""Setup lines first (before the first card the referee reads them), then moves and noise."""


def _step(state: RefereeState, item: Input) -> tuple[RefereeState, Outcome]:
    if isinstance(item, tuple):
        return reader(state, item[0], item[1])
    return referee(state, item)


def _walk(seed: int, stream: list[object]) -> list[Input]:
    """The inputs of ``stream`` (each ``move`` the players' right move from where the table is)."""
    rng, state, inputs = random.Random(seed), _table(), list[Input]()
    for step in stream:
        items: list[Input] = [*correct_move(state.engine_state, rng)] if step == "move" else [step]  # type: ignore[list-item]
        for item in items:
            inputs.append(item)
            with contextlib.suppress(engine.NotationError):  # refused: the state before it goes on
                state, _ = _step(state, item)
    return inputs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), stream=streams)
def test_the_referee_never_changes_the_state_it_is_given(seed: int, stream: list[object]) -> None:
    state = _table()
    for item in _walk(seed, stream):
        kept = _copy(state)
        try:
            after, outcome = _step(state, item)
        except engine.NotationError:
            assert state == kept  # the service's failure path keeps it: nothing to roll back
            with pytest.raises(engine.NotationError):
                _step(state, item)
            continue
        assert state == kept, item
        assert _step(state, item) == (after, outcome)  # the same state and event: the same result
        assert snapshot(after) == outcome.snapshot
        state = after


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), stream=streams, cut=st.integers(0, 200))
def test_a_state_kept_goes_on_as_if_what_came_after_it_never_came(seed: int, stream: list[object],
                                                                   cut: int) -> None:
    inputs = _walk(seed, stream)
    cut = min(cut, len(inputs))
    states = [_table()]
    for item in inputs:
        try:
            states.append(_step(states[-1], item)[0])
        except engine.NotationError:
            states.append(states[-1])
    kept = states[cut]
    # the rest of the stream again, from the state kept (the states after it were made and dropped)
    again = kept
    for item in inputs[cut:]:
        with contextlib.suppress(engine.NotationError):
            again = _step(again, item)[0]
    assert again == states[-1]
    assert snapshot(again) == snapshot(states[-1]) and setup_line(again) == setup_line(states[-1])


def test_the_game_number_is_the_state_s_and_each_new_game_is_the_next() -> None:
    state = start(TableDefaults(dealer="A", badges=BADGES), game=7)
    assert snapshot(state).game == 7
    badge = CardEvent("hand.A", sighting=Sighting("04B0000000000A"))
    state, outcome = referee(state, badge)  # a badge: the game starts again
    assert [e.event for e in outcome.events] == ["new_game"] and outcome.snapshot.game == 8
    state, outcome = referee(state, ButtonEvent("A", "king"))  # the menu ...
    state, outcome = referee(state, ButtonEvent("A", "king"))  # ... closed: the game it shows starts
    assert [e.event for e in outcome.events] == ["new_game"] and outcome.snapshot.game == 9


def test_a_check_that_compares_states_can_fail() -> None:
    """The properties compare whole states: a state that differs in any part is not equal."""
    state = _table()
    after, _ = referee(state, CardEvent("hand.B", "9S"))
    assert after != state and after.pads != state.pads and after.engine_state != state.engine_state
    assert _copy(state) == state and _copy(state) is not state


class FailingRegistry:
    """A registry that fails on a tag it does not know (a lookup that raises)."""

    def entry(self, uid: str) -> TagEntry | None:
        return {"04CC000000000A": TagEntry("04CC000000000A", "QS")}[uid]


def test_the_service_keeps_the_state_before_an_event_the_referee_fails_on(tmp_path: Path) -> None:
    """Nothing to roll back: the state before an event the referee fails on (here a registry's lookup
    that raises for a tag it does not know) is the state after it, the very value, and play goes on."""
    told: list[str] = []
    with Journal(tmp_path / "j.sqlite") as journal:
        controller = Controller(TableDefaults(dealer="B"), registry=FailingRegistry())
        service = TableService(journal=journal, controller=controller, report=reporter("en", told.append))
        service.resume()
        service.handle(InputLine(Setup(rules="german", players=("Anne", "Bruno")), fed=False))
        service.handle(InputLine(CardEvent("hand.A", sighting=Sighting("04CC000000000A")), fed=False))
        before = service.controller.state
        service.handle(InputLine(CardEvent("hand.A", sighting=Sighting("04DD000000000B")), fed=False))
        assert service.controller.state is before and service.stats.rejected == 1 and "KeyError" in told[-1]
        service.handle(InputLine(CardEvent("hand.A", "KS"), fed=False))
        state = service.controller.state
        assert state.engine_state.rules.name == "german" and state.engine_state.players[:2] == ("Anne", "Bruno")
        assert sorted(str(c) for c in state.engine_state.hand("A")) == ["KS", "QS"]


def test_an_event_the_referee_fails_on_leaves_nothing_of_it_behind(tmp_path: Path) -> None:
    """The learners' advisor fails once, on the turn-up (the hint is asked after the engine took it):
    the event is rejected in the journal and nothing of it stays in the referee either, so the table
    and its journal agree (before, the engine's state and the pad ledger kept the turn-up)."""
    asked: list[int] = []

    def advisor(rules: engine.RuleSet, hand: int, turn_up: int, lang: str) -> str:
        asked.append(turn_up)
        if len(asked) == 1:
            raise RuntimeError("the coach is away")
        return "stand"

    deal = [("hand.B", "9S"), ("hand.B", "KD"), ("hand.B", "QD"), ("hand.A", "7S"), ("hand.A", "JS"),
            ("hand.A", "9H"), ("hand.B", "7C"), ("hand.B", "TC"), ("hand.A", "KC"), ("hand.A", "8D")]
    told: list[str] = []
    with Journal(tmp_path / "j.sqlite") as journal:
        service = TableService(journal=journal, controller=Controller(TableDefaults(dealer="A"), advisor=advisor),
                               report=reporter("en", told.append))
        service.resume()
        for zone, card in deal:
            service.handle(InputLine(CardEvent(zone, card), fed=False))
        assert service.handle(InputLine(CardEvent("turnup", "7H"), fed=False)) == ()
        assert service.stats.rejected == 1 and "RuntimeError" in told[-1]
        engine = service.controller.state.engine_state
        assert engine.phase == "deal" and engine.turn_up < 0
        # the turn-up read again is the turn-up laid: the table goes on as its journal does
        assert [e.event for e in service.handle(InputLine(CardEvent("turnup", "7H"), fed=False))] == ["trump"]
        assert service.controller.snapshot().hint == "stand"
