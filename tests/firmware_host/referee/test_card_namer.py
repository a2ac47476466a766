"""The card namer: the setup's tags, the sighting (the event's, else the registry's), badges, the pack guard."""

from __future__ import annotations

from referee_tables import TAG_KS, summary

from drivers.device_events import Sighting
from firmware_host.referee.card_namer import CardNamer, NamedCard
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import CardEvent, Setup
from hardware.tag_registry import TagRegistry

REGISTRY = TagRegistry()
REGISTRY.add("04AA0101000000", "KS", 1)
REGISTRY.add("04AA0201000000", "KS", 2)
REGISTRY.add("04A20000000000", "JH", 1)
REGISTRY.add("04A10000000000", "7C", 1)


def test_the_event_s_card_then_the_setup_s_tags_then_the_registry() -> None:
    namer = CardNamer({"04A10000000000": "QH"}, registry=REGISTRY)
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04A10000000000", "AS")))[1].card == "AS"
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04A10000000000")))[1].card == "QH"
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04A20000000000")))[1].card == "JH"
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04A3")))[1] == NamedCard(None, Sighting("04A3"))


def test_a_setup_s_tags_add_to_the_table_s_and_are_what_it_writes() -> None:
    namer = CardNamer({"04A1": "QH"})
    namer = namer.use({"04A2": "JH"})
    assert namer.tags == {"04A1": "QH", "04A2": "JH"}
    namer = namer.use({})
    assert namer.tags == {"04A1": "QH"}


def test_a_badge_is_no_card_and_a_card_is_no_badge() -> None:
    namer = CardNamer({"04B0": "KS"}, badges={"04B0": "player:Anne", "04B1": "rules:italian"})
    badge = NamedCard(None, Sighting("04B1"), badge="rules:italian")
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04B1")))[1] == badge
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04B0")))[1].badge is None  # the tag names a card first


def test_the_pack_guard_names_registered_tags_and_refuses_the_other_pack_until_the_next_game() -> None:
    namer = CardNamer(registry=REGISTRY)
    namer, named = namer.name(CardEvent("hand.A", sighting=Sighting("04AA0101000000")))
    assert named.card == "KS" and namer.pack == 1
    namer, refused = namer.name(CardEvent("hand.B", sighting=Sighting("04AA0201000000")))
    assert refused.card is None and refused.fault is not None and refused.fault[0] == "foreign_pack"
    assert refused.key == "uid:04AA0201000000"
    namer = namer.new_game()
    assert namer.name(CardEvent("hand.B", sighting=Sighting("04AA0201000000")))[1].fault is None


def test_the_guard_does_not_judge_a_tag_the_setup_names() -> None:
    namer = CardNamer({"04AA0101000000": "QD"}, registry=REGISTRY, require_genuine=True)
    namer, named = namer.name(CardEvent("hand.A", sighting=Sighting("04AA0101000000")))
    assert named == NamedCard("QD", Sighting("04AA0101000000"))
    assert namer.pack is None
    pack_2 = CardEvent("hand.A", sighting=Sighting("04AA0201000000", "KS"))
    assert namer.name(pack_2)[1].fault is None  # pack 2: no pack chosen
    assert namer.name(CardEvent("hand.A", sighting=Sighting("04AA0201000000")))[1].fault[0] == "counterfeit_card"  # type: ignore[index]


# -- moved from test_controller: the same tests through the Controller --------------------------


def test_registry_lookup_resolves_uids_not_in_setup() -> None:
    registry = TagRegistry()
    registry.add("0A0B0C0D", "QH")
    table = Controller(registry=registry)
    table.handle(Setup(rules="classic", dealer="A", tags={TAG_KS: "KS"}))
    table.handle(CardEvent("hand.B", sighting=Sighting("0A0B0C0D")))
    table.handle(CardEvent("hand.B", sighting=Sighting(TAG_KS)))
    assert {str(c) for c in table.state.engine_state.hand("B")} == {"QH", "KS"}
    refused = table.handle(CardEvent("hand.B", sighting=Sighting("FFFF"))).events
    assert summary(refused) == [("fault", "unknown_tag", "A")]  # the dealer handles the hand pads
    assert table.state.engine_state.hands[1].bit_count() == 2
