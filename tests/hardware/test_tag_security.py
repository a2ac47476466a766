"""Cards that cannot be faked: clones, counterfeits, rewritten NDEF records, a card of
another pack, forged registry entries, locked tags, the deck check. Everything runs on the real
nfcpy driver against the simulated PN532 and NTAG213s; the referee is the real controller.

Nothing here asserts on time: tests wait for events (generous timeouts).
"""

from __future__ import annotations

import dataclasses
import json
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.device_events import CardSeen, DeviceEvent, ReaderStatus
from drivers.nfc.originality import OriginalityCheck
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator, tag_signer
from drivers.nfc.reader import TagWriteError
from firmware_host.cards.deck_check import check_deck
from firmware_host.cards.enroll import Originality, enroll
from firmware_host.cards.table_tags import TableTags
from firmware_host.checks.doctor import run_checks
from firmware_host.players.simtable import sim_uid
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_defaults import TableDefaults
from hardware import locks, ntag_signature
from hardware.table import TagPolicy, load_table_text
from hardware.tag_registry import CARDS, TagRegistry

WAIT = 15.0
FAST = PadTiming(poll_interval=0.005, leave_after=2, reopen_first=0.02, reopen_max=0.2)
KEY = tag_signer.sim_public_key()
SIGNER = tag_signer.sim_signer()


def signed_registry(packs: tuple[int, ...] = (1, 2)) -> TagRegistry:
    """Both simulated packs, enrolled genuine with their TEST signatures."""
    registry = TagRegistry()
    for pack in packs:
        for card in CARDS:
            uid = sim_uid(card, pack)
            registry.add(uid, card, pack, origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex())
    return registry


class Table:
    """One simulated pad under the table's tags wiring, feeding a real controller."""

    def __init__(self, tags: TableTags, sim: Pn532Simulator, zone: str = "hand.A") -> None:
        self.tags = tags
        self.sim = sim
        self.zone = zone
        self.events: queue.Queue[DeviceEvent] = queue.Queue()
        self.controller = Controller(TableDefaults(dealer="B"), card_for_uid=tags.card_for,
                                     pack_guard=tags.guard())
        self.pad = Pad(zone, sim.path, events=self.events, card_for=tags.card_for, timing=FAST,
                       **tags.pad_options())
        status = self.events.get(timeout=WAIT)
        assert isinstance(status, ReaderStatus) and status.online

    def seen(self) -> CardSeen:
        event = self.events.get(timeout=WAIT)
        assert isinstance(event, CardSeen)
        return dataclasses.replace(event, t=0.0)

    def lay(self, uid: str, *, kind: str = "genuine", ndef_text: str | None = None) -> tuple[CardSeen, list[tuple]]:
        """Lay a tag; the pad's event and what the referee made of it (kind, code)."""
        self.sim.place(uid, ndef_text, kind=kind)
        seen = self.seen()
        outcome = self.controller.handle(self.tags.card_event(seen))
        return seen, [(e.event, getattr(e, "code", None)) for e in outcome.events]

    def lift(self, uid: str) -> list[tuple]:
        self.sim.remove(uid)
        seen = self.seen()
        assert seen.gone
        outcome = self.controller.handle(self.tags.card_event(seen))
        return [(e.event, getattr(e, "code", None)) for e in outcome.events]

    def close(self) -> None:
        self.pad.close()


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(signer=SIGNER) as simulator:
        yield simulator


def table(sim: Pn532Simulator, policy: TagPolicy, registry: TagRegistry | None = None) -> Table:
    tags = TableTags.build(registry if registry is not None else signed_registry(), policy, simulated=True)
    return Table(tags, sim)


REQUIRE = TagPolicy(require_signature=True)


# -- originality ----------------------------------------------------------------------------------


def test_nxp_key_verifies_a_known_good_signature_and_nothing_else() -> None:
    uid = bytes.fromhex("04AB87F2CA1190")
    good = bytes.fromhex("67B1750BCCEB1174F9A33BF20E0226551A6366939B31F949848C3C087350FA90")
    assert ntag_signature.verify_signature(uid, good, ntag_signature.NXP_NTAG21X_KEY)
    assert not ntag_signature.verify_signature(bytes.fromhex("04AB87F2CA1191"), good, ntag_signature.NXP_NTAG21X_KEY)
    assert not ntag_signature.verify_signature(uid, good, KEY)  # the TEST key is not NXP's
    assert not ntag_signature.verify_signature(uid, good[:31] + b"\x00", ntag_signature.NXP_NTAG21X_KEY)


@pytest.mark.parametrize("name", ["nxp", "test", ntag_signature.NXP_NTAG21X_KEY.hex()])
def test_trusted_keys_by_name(name: str) -> None:
    assert len(ntag_signature.trusted_key(name)) == 33


@pytest.mark.parametrize("name", ["NXP", "04" + "00" * 32, "hello"])
def test_a_trusted_key_that_is_no_key_is_refused(name: str) -> None:
    with pytest.raises(ntag_signature.OriginalityError):
        ntag_signature.trusted_key(name)


@pytest.mark.parametrize(("kind", "status"), [
    ("genuine", "genuine"), ("clone", "no_signature"), ("counterfeit", "counterfeit"),
])
def test_the_reader_reads_each_kind_of_tag_for_what_it_is(sim: Pn532Simulator, kind: str, status: str) -> None:
    uid = sim_uid("KS")
    with NfcpyReader(sim.path) as reader:
        sim.place(uid, kind=kind)
        assert reader.poll() == (uid,)
        assert ntag_signature.judge(uid, reader.read_facts(uid), KEY) == status
        assert reader.poll() == (uid,)  # the pad lists it again after the check


def test_a_signature_for_another_uid_is_a_bad_signature(sim: Pn532Simulator) -> None:
    with Pn532Simulator(signer=lambda uid: SIGNER(bytes.fromhex(sim_uid("QH")))) as copier:
        uid = sim_uid("KS")
        copier.place(uid)
        with NfcpyReader(copier.path) as reader:
            assert ntag_signature.judge(uid, reader.read_facts(uid), KEY) == "bad_signature"


def test_the_check_is_asked_once_a_session_and_only_genuine_is_remembered(sim: Pn532Simulator) -> None:
    uid = sim_uid("KS")
    asked = []

    def judge(u: str, facts: ntag_signature.TagFacts | None) -> str:
        asked.append(u)
        return ntag_signature.judge(u, facts, KEY)

    check = OriginalityCheck(judge)
    with NfcpyReader(sim.path) as reader:
        sim.place(uid)
        reader.poll()
        assert check.check(uid, lambda: reader.read_facts(uid)) == "genuine"
        assert check.check(uid, lambda: reader.read_facts(uid)) == "genuine"
        assert asked == [uid]
        sim.remove(uid)
        sim.place(uid, kind="clone")
        other = OriginalityCheck(judge)
        assert other.check(uid, lambda: reader.read_facts(uid)) == "no_signature"
        assert other.check(uid, lambda: reader.read_facts(uid)) == "no_signature"
        assert asked.count(uid) == 3  # a failed verdict is asked again
        check.forget()
        assert check.verdict(uid) is None


# -- in play ----------------------------------------------------------------------------------------


def test_a_genuine_card_is_dealt(sim: Pn532Simulator) -> None:
    t = table(sim, REQUIRE)
    try:
        seen, judged = t.lay(sim_uid("KS"))
        assert seen.origin == "genuine" and seen.card == "KS"
        assert judged == []  # dealt: nothing to say yet
    finally:
        t.close()


@pytest.mark.parametrize(("kind", "origin"), [("clone", "no_signature"), ("counterfeit", "counterfeit")])
def test_a_clone_or_a_counterfeit_of_an_enrolled_card_is_refused(
    sim: Pn532Simulator, kind: str, origin: str
) -> None:
    t = table(sim, REQUIRE)
    try:
        seen, judged = t.lay(sim_uid("KS"), kind=kind)
        assert seen.origin == origin and seen.card == "KS"  # the pad names it; the referee decides
        assert judged == [("fault", "counterfeit_card")]
        outcome = t.controller.snapshot()
        assert "originality" in outcome.faults[0].message
        assert t.lift(sim_uid("KS")) == [("corrected", "counterfeit_card")]
    finally:
        t.close()


def test_without_the_requirement_a_clone_is_not_refused(sim: Pn532Simulator) -> None:
    t = table(sim, TagPolicy())
    try:
        seen, judged = t.lay(sim_uid("KS"), kind="clone")
        assert seen.origin is None  # the pads do not even ask
        assert judged == []
    finally:
        t.close()


def test_a_card_of_the_other_pack_is_a_fault(sim: Pn532Simulator) -> None:
    t = table(sim, TagPolicy())
    try:
        assert t.lay(sim_uid("KS", 1))[1] == []  # the first card: pack 1
        seen, judged = t.lay(sim_uid("QH", 2))
        assert seen.card == "QH"
        assert judged == [("fault", "foreign_pack")]
        assert "pack 2" in t.controller.snapshot().faults[0].message
        assert t.lift(sim_uid("QH", 2)) == [("corrected", "foreign_pack")]
        assert t.lay(sim_uid("QH", 1))[1] == []
    finally:
        t.close()


def test_an_unregistered_tag_with_a_card_s_ndef_text_is_not_that_card(sim: Pn532Simulator) -> None:
    """The cheat of the issue: ``ecarte:AH`` written by a phone on a blank tag."""
    t = table(sim, TagPolicy())
    try:
        seen, judged = t.lay("04DEADBEEF0001", ndef_text="ecarte:AH")
        assert seen.card is None  # with a registry the pads do not read NDEF records
        assert judged == [("fault", "unknown_tag")]
    finally:
        t.close()


def test_a_rewritten_ndef_record_on_an_enrolled_tag_changes_nothing(sim: Pn532Simulator) -> None:
    t = table(sim, REQUIRE)
    try:
        seen, _ = t.lay(sim_uid("7C"), ndef_text="ecarte:AH")
        assert seen.card == "7C"  # the registry names it by its UID
    finally:
        t.close()


def test_ndef_names_the_cards_of_an_unenrolled_pack_when_the_table_says_so(sim: Pn532Simulator) -> None:
    t = table(sim, TagPolicy(ndef_pack=2), signed_registry((1,)))
    try:
        seen, judged = t.lay("04DEADBEEF0001", ndef_text="ecarte:AH")
        assert seen.card == "AH" and judged == []  # pack 2 (by NDEF) chosen by the first card
        assert t.lay(sim_uid("KS", 1))[1] == [("fault", "foreign_pack")]
    finally:
        t.close()


def test_the_referee_decides_the_same_on_replay() -> None:
    """What reaches the journal (the card events) replays to the same faults."""
    tags = TableTags.build(signed_registry(), REQUIRE, simulated=True)
    lines = [
        tags.card_event(CardSeen("hand.A", sim_uid("KS", 1), "KS", origin="genuine")),
        tags.card_event(CardSeen("hand.A", sim_uid("QS", 1), "QS", origin="no_signature")),
        tags.card_event(CardSeen("hand.A", sim_uid("JS", 2), "JS", origin="genuine")),
    ]
    assert [(e.card, e.uid) for e in lines][1] == (None, sim_uid("QS", 1))

    def referee() -> list[list[str]]:
        controller = Controller(TableDefaults(dealer="B"), card_for_uid=tags.card_for, pack_guard=tags.guard())
        return [[getattr(e, "code", e.event) for e in controller.handle(line).events] for line in lines]

    assert referee() == referee() == [[], ["counterfeit_card"], ["foreign_pack"]]


# -- locked tags -----------------------------------------------------------------------------------


def test_a_locked_tag_refuses_a_phone_s_write_and_the_table_still_reads_it(sim: Pn532Simulator) -> None:
    uid = sim_uid("KS")
    secret = b"a table secret of 32 bytes......"
    with NfcpyReader(sim.path) as reader:
        sim.place(uid, "ecarte:KS")
        reader.lock(uid, locks.tag_password(secret, uid))
        tag = sim.tag(uid)
        assert tag.locked and not tag.read_protected
        assert bytes(tag.memory[43 * 4 : 45 * 4 - 2]) == locks.tag_password(secret, uid)
        with pytest.raises(TagWriteError):
            reader.write_text(uid, "ecarte:AH")  # a phone, without the password
        with pytest.raises(TagWriteError):
            reader.write_text(uid, "ecarte:AH", password=locks.tag_password(b"another secret, 32 bytes long..", uid))
        assert reader.read_text(uid) == "ecarte:KS"
        reader.write_text(uid, "ecarte:KS", password=locks.tag_password(secret, uid))  # the table may
        reader.lock(uid, locks.tag_password(secret, uid))  # locking again with the same secret: nothing to do
        with pytest.raises(TagWriteError):
            reader.lock(uid, locks.tag_password(b"another secret, 32 bytes long..", uid))


def test_a_counterfeit_chip_cannot_be_locked(sim: Pn532Simulator) -> None:
    uid = sim_uid("KS")
    with NfcpyReader(sim.path) as reader:
        sim.place(uid, kind="counterfeit")
        with pytest.raises(TagWriteError):
            reader.lock(uid, bytes(6))


def test_the_lock_secret_file_must_be_private_and_long(tmp_path: Path) -> None:
    secret = tmp_path / "lock.key"
    secret.write_bytes(b"short")
    secret.chmod(0o600)
    with pytest.raises(locks.LockSecretError, match="at least 16"):
        locks.load_secret(secret)
    secret.write_bytes(b"x" * 32)
    secret.chmod(0o644)
    with pytest.raises(locks.LockSecretError, match="chmod 600"):
        locks.load_secret(secret)
    secret.chmod(0o600)
    assert locks.load_secret(secret) == b"x" * 32


# -- enrolment -------------------------------------------------------------------------------------


def _operator(sim: Pn532Simulator, pad: Pad, registry: TagRegistry, tags: list[tuple[str, str]]) -> None:
    """Lays each (uid, kind) and lifts it once the walk has registered it."""
    for uid, kind in tags:
        sim.place(uid, kind=kind)
        deadline = time.monotonic() + WAIT
        while uid not in registry and time.monotonic() < deadline:
            time.sleep(0.005)
        sim.remove(uid)
        while uid in pad.present and time.monotonic() < deadline:
            time.sleep(0.005)


def test_enrolment_records_originality_and_locks_and_flags_a_clone(sim: Pn532Simulator, tmp_path: Path) -> None:
    secret = b"a table secret of 32 bytes......"
    events: queue.Queue[DeviceEvent] = queue.Queue()
    registry = TagRegistry()
    shown: list[list[str]] = []
    cards = ["KS", "QS", "JS"]
    with Pad("enroll", sim.path, events=events, card_for=None, read_ndef=False, timing=FAST) as pad:

        def check(uid: str) -> Originality:
            facts = pad.read_facts(uid)
            signature = facts.signature.hex() if facts is not None and facts.signature else None
            return Originality(ntag_signature.judge(uid, facts, KEY), signature)

        layer = threading.Thread(target=_operator, args=(sim, pad, registry, [
            (sim_uid("KS"), "genuine"), (sim_uid("QS"), "clone"), (sim_uid("JS"), "genuine"),
        ]), daemon=True)
        layer.start()
        result = enroll(events, registry, shown.append, cards=cards, save_to=tmp_path / "tags.json",
                        write_tag=pad.write_text, check=check,
                        lock=lambda uid: pad.lock(uid, locks.tag_password(secret, uid)),
                        lock_id=locks.lock_id(secret))
        layer.join(WAIT)
    assert result.complete
    assert [(e.card, e.origin, e.locked) for e in result.enrolled] == [
        ("KS", "genuine", True), ("QS", "no_signature", True), ("JS", "genuine", True),
    ]
    assert [e.card for e in result.flagged] == ["QS"]
    assert any("NOT GENUINE" in line for lines in shown for line in lines)
    saved = TagRegistry.load(tmp_path / "tags.json")
    ks = saved.entry(sim_uid("KS"))
    assert ks is not None and ks.origin == "genuine" and ks.locked and ks.lock_id == locks.lock_id(secret)
    assert ntag_signature.verify_signature(bytes.fromhex(ks.uid), bytes.fromhex(ks.signature or ""), KEY)
    assert sim.tag(sim_uid("KS")).locked and sim.tag(sim_uid("KS")).ndef_text() == "ecarte:KS"
    assert "password" not in (tmp_path / "tags.json").read_text()
    assert locks.tag_password(secret, sim_uid("KS")).hex() not in (tmp_path / "tags.json").read_text().lower()


# -- the deck check --------------------------------------------------------------------------------


def _deck_events(registry: TagRegistry, pack: int, *, skip: tuple[str, ...] = (),
                 extra: tuple[CardSeen, ...] = ()) -> queue.Queue[DeviceEvent]:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    for card in CARDS:
        if card not in skip:
            events.put(CardSeen("discard", sim_uid(card, pack), card, origin="genuine"))
            events.put(CardSeen("discard", sim_uid(card, pack), card, gone=True, origin="genuine"))
    for event in extra:
        events.put(event)
    return events


def test_the_deck_check_confirms_a_whole_pack() -> None:
    registry = signed_registry()
    report = check_deck(_deck_events(registry, 1), registry, lambda lines: None, quiet=0.2,
                        require_genuine=True)
    assert report.ok and report.pack == 1 and report.lines() == ["Pack 1: 32 cards OK"]


def test_the_deck_check_shows_what_is_missing_twice_foreign_and_fake() -> None:
    registry = signed_registry()
    extra = (
        CardSeen("discard", sim_uid("KS", 1), "KS", origin="no_signature"),  # a clone passed after it
        CardSeen("discard", sim_uid("QH", 2), "QH", origin="genuine"),       # the other pack
        CardSeen("discard", "04DEADBEEF0001", None, origin="counterfeit"),     # a stranger
    )
    report = check_deck(_deck_events(registry, 1, skip=("7C", "8D"), extra=extra), registry,
                        lambda lines: None, quiet=0.2, require_genuine=True)
    assert not report.ok and report.pack == 1
    assert report.missing == ("8D", "7C")
    assert report.repeated == ("KS",)
    assert report.foreign == ("QH of pack 2", "tag 04DEADBEEF0001: not registered")
    assert report.not_genuine == ("KS: no_signature",)
    assert report.lines()[:3] == ["Pack 1: 30/32 cards", "Missing: 8♦ 7♣", "Twice: K♠"]


def test_the_deck_check_over_a_pad_catches_a_clone(sim: Pn532Simulator) -> None:
    registry = signed_registry((1,))
    tags = TableTags.build(registry, REQUIRE, simulated=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with Pad("discard", sim.path, events=events, card_for=tags.card_for, timing=FAST, **tags.pad_options()) as pad:
        for card in ("KS", "QS"):
            sim.place(sim_uid(card))
        sim.place(sim_uid("JS"), kind="clone")
        deadline = time.monotonic() + WAIT
        while len(pad.present) < 2 and time.monotonic() < deadline:  # depth 2: the lowest two
            time.sleep(0.005)
        sim.lift_all()
        sim.place(sim_uid("JS"), kind="clone")
        report = check_deck(events, registry, lambda lines: None, pack=1, require_genuine=True, quiet=1.0,
                            linger=1.0)
    assert report.seen == ("KS", "QS", "JS")
    assert report.not_genuine == ("JS: no_signature",)


# -- doctor -----------------------------------------------------------------------------------------


TABLE = """
[table]
registry = "tags.json"
[pads]
"hand.A" = "sim"
"hand.B" = "sim"
turnup = "sim"
discard = "sim"
"play.A" = "sim"
"play.B" = "sim"
[buttons]
backend = "mock"
A = {{ yes = 5, no = 6, king = 13, led = 12 }}
B = {{ yes = 17, no = 27, king = 22, led = 23 }}
[[displays]]
bus = "sim"
[tags]
require_signature = true
{extra}
"""


def _registry_check(tmp_path: Path, registry: TagRegistry, extra: str = "") -> str:
    path = tmp_path / "table.toml"
    path.write_text(TABLE.format(extra=extra))
    registry.save(tmp_path / "tags.json")
    from hardware.table import load_table

    check = next(c for c in run_checks(load_table(path)) if c.name == "tag registry")
    return ("ok " if check.ok else "FAIL ") + check.detail


def test_doctor_passes_a_genuine_registry(tmp_path: Path) -> None:
    assert _registry_check(tmp_path, signed_registry()).startswith("ok ")


def test_doctor_reports_a_forged_entry(tmp_path: Path) -> None:
    registry = signed_registry((1,))
    data = json.loads(registry.to_json())
    data["tags"].append({"uid": "04DEADBEEF0001", "card": "KS", "pack": 2, "origin": "genuine",
                         "signature": data["tags"][0]["signature"]})  # another tag's signature
    forged = TagRegistry.from_json(json.dumps(data))
    detail = _registry_check(tmp_path, forged)
    assert detail.startswith("FAIL ") and "KS of pack 2 (tag 04DEADBEEF0001)" in detail and "forged" in detail


def test_doctor_reports_unchecked_tags_where_signatures_are_required(tmp_path: Path) -> None:
    registry = TagRegistry()
    registry.add(sim_uid("KS"), "KS")
    detail = _registry_check(tmp_path, registry)
    assert detail.startswith("FAIL ") and "unchecked" in detail


def test_doctor_reports_a_lock_secret_that_is_not_the_one_used(tmp_path: Path) -> None:
    registry = TagRegistry()
    uid = sim_uid("KS")
    registry.add(uid, "KS", origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex(), locked=True,
                 lock_id=locks.lock_id(b"the secret used at enrolment..."))
    secret = tmp_path / "lock.key"
    secret.write_bytes(b"another secret, 32 bytes long..")
    secret.chmod(0o600)
    detail = _registry_check(tmp_path, registry, 'lock_secret_file = "lock.key"')
    assert detail.startswith("FAIL ") and "another secret" in detail


# -- the table file ---------------------------------------------------------------------------------


def test_the_tags_section_is_parsed_and_checked() -> None:
    base = TABLE.replace('registry = "tags.json"\n', "").replace("require_signature = true\n{extra}", "{extra}")
    config = load_table_text(base.format(extra='require_signature = true\ntrusted_key = "test"\nndef_pack = 2'))
    assert config.tags == TagPolicy(require_signature=True, trusted_key="test", ndef_pack=2)
    with pytest.raises(Exception, match="ndef_pack") as error:
        load_table_text(base.format(extra='ndef_pack = 3\ntrusted_key = "nsa"\nrequire_sig = true'))
    assert "trusted_key" in str(error.value) and "require_sig" in str(error.value)


def test_every_tag_of_a_stack_is_checked_for_itself() -> None:
    """A card selected by the last listing is not mistaken for another of the stack."""
    uids = [sim_uid(card) for card in ("KS", "QS", "JS", "AS", "TS")]
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, KEY), remember=False)
    clone = sim_uid("9S")
    with Pn532Simulator(signer=SIGNER, depth=6, miss=0.0) as sim, \
            Pad("discard", sim.path, events=events, timing=FAST, originality=check):
        sim.place_stack(uids)  # listed 2 + 2 + 1: the fifth is left selected
        arrivals: dict[str, str | None] = {}
        deadline = time.monotonic() + WAIT
        while len(arrivals) < 6 and time.monotonic() < deadline:
            event = events.get(timeout=WAIT)
            if isinstance(event, CardSeen) and not event.gone:
                arrivals[event.uid] = event.origin
                if len(arrivals) == 5:
                    sim.place(clone, kind="clone")
    assert arrivals == {**dict.fromkeys(uids, "genuine"), clone: "no_signature"}


def test_a_packet_of_each_kind_of_tag_is_judged_each_for_what_it_is() -> None:
    """Each tag is asked while the listing that found it holds it (READ_SIG first): a counterfeit's
    NAK sends it back to IDLE, and it is selected again, to be asked GET_VERSION and to be halted
    (else the next listing would find it again and miss the tags above)."""
    kinds = {sim_uid("KS"): ("counterfeit", "counterfeit"), sim_uid("QS"): ("genuine", "genuine"),
             sim_uid("JS"): ("clone", "no_signature"), sim_uid("AS"): ("genuine", "genuine")}
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, KEY))
    with Pn532Simulator(signer=SIGNER, depth=4, miss=0.0) as sim:
        for uid, (kind, _) in kinds.items():
            sim.place(uid, kind=kind)  # before the pad starts: its first poll cycle finds all four
        with Pad("discard", sim.path, events=events, timing=FAST, originality=check, read_ndef=False):
            arrivals = {}
            while len(arrivals) < len(kinds):
                event = events.get(timeout=WAIT)
                if isinstance(event, CardSeen) and not event.gone:
                    arrivals[event.uid] = event.origin
        sent = [bytes(c) for c in sim.commands]
    # the counterfeit: READ_SIG NAKed, InSelect, GET_VERSION NAKed, InSelect (to be halted)...
    nak = next(i for i in range(2, len(sent) - 1) if sent[i] == b"\x42\x60" and sent[i + 1] == b"\x54\x01")
    assert sent[nak - 3 : nak - 1] == [b"\x42\x3c\x00", b"\x54\x01"]
    assert b"\x42\x3c\x00" in sent[nak:]  # ... then another tag was asked, in the same poll cycle:
    first = next(i for i, c in enumerate(sent) if c[0] == 0x4A)
    last = max(i for i, c in enumerate(sent) if c == b"\x42\x3c\x00")
    assert not [c for c in sent[first:last] if c.startswith(b"\x32\x01")]  # no field reset
    assert arrivals == {uid: status for uid, (_, status) in kinds.items()}


def test_a_packet_signed_for_other_uids_is_a_bad_signature() -> None:
    uids = [sim_uid(card) for card in ("KS", "QS", "JS")]
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(lambda uid, facts: ntag_signature.judge(uid, facts, KEY))
    with Pn532Simulator(signer=lambda uid: SIGNER(bytes.fromhex(sim_uid("7C"))), depth=3, miss=0.0) as copier, \
            Pad("discard", copier.path, events=events, timing=FAST, originality=check, read_ndef=False):
        copier.place_stack(uids)
        arrivals = {}
        while len(arrivals) < len(uids):
            event = events.get(timeout=WAIT)
            if isinstance(event, CardSeen) and not event.gone:
                arrivals[event.uid] = event.origin
    assert arrivals == dict.fromkeys(uids, "bad_signature")


def test_the_reader_reads_each_card_s_own_signature_after_another_was_selected() -> None:
    uids = [sim_uid(card) for card in ("KS", "QS", "JS")]
    with Pn532Simulator(signer=SIGNER, depth=3, miss=0.0) as sim, NfcpyReader(sim.path) as reader:
        sim.place_stack(uids)
        listed = reader.poll()  # 2, then 1: the last listed is left selected
        assert sorted(listed) == sorted(uids)
        for uid in (listed[0], listed[-1], listed[-1]):
            assert ntag_signature.judge(uid, reader.read_facts(uid), KEY) == "genuine"


# -- the datasheet's locks, AUTHLIM, the 7-byte UID, verdicts on removal ----


NTAG213_VERSION = bytes.fromhex("0004040201000F03")
NXP_GOOD = bytes.fromhex("67B1750BCCEB1174F9A33BF20E0226551A6366939B31F949848C3C087350FA90")


def test_a_uid_that_is_not_seven_bytes_is_never_genuine() -> None:
    padded = "000000" + "04AB87F2CA1190"  # the genuine UID as a number, three zero bytes in front
    facts = ntag_signature.TagFacts(NTAG213_VERSION, NXP_GOOD)
    assert ntag_signature.judge("04AB87F2CA1190", facts, ntag_signature.NXP_NTAG21X_KEY) == "genuine"
    assert ntag_signature.judge(padded, facts, ntag_signature.NXP_NTAG21X_KEY) == "bad_signature"
    registry = TagRegistry()
    registry.add(padded, "KS", origin="genuine", signature=NXP_GOOD.hex())
    from hardware.registry_audit import audit_registry

    assert "forged" in audit_registry(registry, ntag_signature.NXP_NTAG21X_KEY)[0]


def test_a_clone_laid_after_its_genuine_twin_was_lifted_is_refused(sim: Pn532Simulator) -> None:
    t = table(sim, REQUIRE)  # the default: check_every_arrival off
    try:
        seen, judged = t.lay(sim_uid("KS"))
        assert seen.origin == "genuine" and judged == []
        t.lift(sim_uid("KS"))
        seen, judged = t.lay(sim_uid("KS"), kind="clone")  # same UID, zero signature
        assert seen.origin == "no_signature"
        assert judged == [("fault", "counterfeit_card")]
    finally:
        t.close()


def _nfcpy_tag(reader: NfcpyReader, uid: str) -> object:
    """nfcpy's own Type 2 tag object for ``uid`` (what a phone's stack would hold)."""
    tag = reader._activate(uid)  # the reader's nfcpy activation, to send raw WRITEs as a phone would
    assert tag is not None
    return tag


def test_the_simulated_tag_enforces_its_static_and_dynamic_lock_bytes(sim: Pn532Simulator) -> None:
    import nfc.tag

    uid = sim_uid("KS")
    with NfcpyReader(sim.path) as reader:
        sim.place(uid, "ecarte:KS")
        tag: Any = _nfcpy_tag(reader, uid)
        tag.write(4, b"\x01\x02\x03\x04")  # free before the lock bits
        tag.write(2, b"\x00\x00\x10\x00")  # static lock bit L4: page 4 read-only
        with pytest.raises(nfc.tag.TagCommandError):
            tag.write(4, b"\x05\x06\x07\x08")
        tag = _nfcpy_tag(reader, uid)
        tag.write(5, b"\x01\x02\x03\x04")  # page 5 is not locked
        tag.write(2, b"\x00\x00\x00\x00")  # one-time programmable: clearing does nothing
        with pytest.raises(nfc.tag.TagCommandError):
            tag.write(4, b"\x05\x06\x07\x08")
        tag = _nfcpy_tag(reader, uid)
        tag.write(40, b"\x02\x00\x00\x00")  # dynamic lock byte 0 bit 1: pages 18-19
        tag.write(17, b"\x01\x02\x03\x04")
        with pytest.raises(nfc.tag.TagCommandError):
            tag.write(18, b"\x01\x02\x03\x04")
        tag = _nfcpy_tag(reader, uid)
        tag.write(2, b"\x00\x00\x02\x00")  # BL 9-4: the lock bits of pages 4-9 are frozen
        tag.write(2, b"\x00\x00\x20\x00")  # so L5 does not take
        tag.write(5, b"\x09\x09\x09\x09")
        assert bytes(sim.tag(uid).memory[20:24]) == b"\x09\x09\x09\x09"
        assert tag.protect() is True  # nfcpy's permanent write protection: every lock bit
        with pytest.raises(TagWriteError):
            reader.write_text(uid, "ecarte:AH")  # a phone rewriting the record
        assert bytes(sim.tag(uid).memory[16:20]) == b"\x01\x02\x03\x04"  # page 4 as it was locked


def test_a_brute_force_of_a_locked_tag_stops_at_authlim(sim: Pn532Simulator) -> None:
    import nfc.tag

    uid = sim_uid("KS")
    secret = b"a table secret of 32 bytes......"
    right = locks.tag_password(secret, uid)
    with NfcpyReader(sim.path) as reader:
        sim.place(uid, "ecarte:KS")
        reader.lock(uid, right, auth_limit=locks.AUTHLIM)
        chip = sim.tag(uid)
        assert chip.locked and chip.auth_limit == locks.auth_attempts() == 8 and chip.config_locked
        for guess in range(7):  # below the limit, the right password still works and resets the count
            with pytest.raises(TagWriteError):
                reader.write_text(uid, "ecarte:AH", password=guess.to_bytes(6, "big"))
        reader.write_text(uid, "ecarte:KS", password=right)
        for guess in range(40):  # an attacker's brute force through the reader (2**32 passwords)
            try:
                reader.write_text(uid, "ecarte:AH", password=guess.to_bytes(6, "big"))
            except TagWriteError:
                continue
        assert chip.auth_exhausted and chip.failed_auths == 8  # refused from the 8th on, right or wrong
        with pytest.raises(TagWriteError):
            reader.write_text(uid, "ecarte:KS", password=right)  # locked for ever, even to the table
        assert reader.read_text(uid) == "ecarte:KS"
    with Pn532Simulator(signer=SIGNER) as other, NfcpyReader(other.path) as reader:
        other.place(uid, "ecarte:KS")
        reader.lock(uid, right, auth_limit=locks.AUTHLIM)
        tag: Any = _nfcpy_tag(reader, uid)
        assert tag.authenticate(right)
        with pytest.raises(nfc.tag.TagCommandError):  # CFGLCK: not even the table can lift the limit
            tag.write(0x2A, b"\x00\x00\x00\x00")


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=Path(__file__).resolve().parents[2])


def _table_dir(tmp_path: Path, registry: TagRegistry, extra: str = "") -> Path:
    path = tmp_path / "table.toml"
    path.write_text(TABLE.format(extra=extra))
    registry.save(tmp_path / "tags.json")
    return path


def _secret(tmp_path: Path) -> bytes:
    secret = b"a table secret of 32 bytes......"
    (tmp_path / "lock.key").write_bytes(secret)
    (tmp_path / "lock.key").chmod(0o600)
    return secret


def test_run_refuses_a_configuration_doctor_fails_quoting_doctor(tmp_path: Path) -> None:
    registry = signed_registry()  # both packs registered
    table_file = _table_dir(tmp_path, registry, "ndef_pack = 2")  # ... and pack 2 read by NDEF record
    (tmp_path / "none.jsonl").write_text("")
    doctor = _cli("doctor", str(table_file))
    line = next(x for x in doctor.stdout.splitlines() if x.startswith("[FAIL] tag registry"))
    assert "read by NDEF record (ndef_pack) but has registered tags" in line
    run = _cli("run", str(table_file), "--events", str(tmp_path / "none.jsonl"), "--journal", str(tmp_path / "j.db"))
    assert run.returncode == 2, run.stderr
    assert line in run.stderr and "Traceback" not in run.stderr


def test_a_registry_with_two_cards_swapped_is_caught_by_its_seals(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(card)
        registry.add(uid, card, 1, origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex(),
                     seal=locks.entry_seal(secret, uid, card, 1))
    table_file = _table_dir(tmp_path, registry, 'lock_secret_file = "lock.key"')
    assert _cli("doctor", str(table_file)).stdout.splitlines()[1].startswith("[ok  ] tag registry")
    data = json.loads((tmp_path / "tags.json").read_text())
    first, second = data["tags"][0], data["tags"][31]  # K♠ and 7♣
    first["card"], second["card"] = second["card"], first["card"]
    (tmp_path / "tags.json").write_text(json.dumps(data))
    doctor = _cli("doctor", str(table_file))
    assert doctor.returncode != 0
    assert "7C of pack 1 (tag 04ECA701075A80): its seal does not match" in doctor.stdout
    run = _cli("run", str(table_file), "--events", "-", "--journal", str(tmp_path / "j.db"))
    assert run.returncode == 2 and "its seal does not match" in run.stderr


@pytest.mark.parametrize("line", [
    '{"zone": "turnup", "card": "KS"}',
    '{"setup": {"tags": {"04ECA701075A80": "7C"}}}',
])
def test_where_a_registry_is_loaded_the_stream_may_not_name_cards(tmp_path: Path, line: str) -> None:
    table_file = _table_dir(tmp_path, signed_registry())
    (tmp_path / "events.jsonl").write_text(line + "\n")
    run = _cli("run", str(table_file), "--events", str(tmp_path / "events.jsonl"), "--journal", str(tmp_path / "j.db"),
               "--json")
    assert run.returncode == 2, run.stderr
    assert "names its cards by their tags" in run.stderr + run.stdout
    assert '"card": "KS"' not in run.stdout and '"card": "7C"' not in run.stdout  # nothing refereed


class _Sink:
    """Where the table's route puts what reaches the referee."""

    def __init__(self) -> None:
        self.physical: list[object] = []

    def put_physical(self, event: object) -> None:
        self.physical.append(event)

    def put_device_event(self, event: object) -> None:
        self.physical.append(event)


@pytest.mark.parametrize(("kind", "named"), [("genuine", True), ("clone", False), ("counterfeit", False)])
def test_a_badge_is_signature_checked_like_a_card(sim: Pn532Simulator, kind: str, named: bool) -> None:
    badge = "04BADCE0000001"
    tags = TableTags.build(signed_registry(), TagPolicy(require_signature=True, check_every_arrival=True),
                           simulated=True, badges=frozenset({badge}))
    controller = Controller(TableDefaults(dealer="B", badges={badge: "player:Anne"}), card_for_uid=tags.card_for,
                            pack_guard=tags.guard())
    sink = _Sink()
    events: queue.Queue[DeviceEvent] = queue.Queue()
    with Pad("play.A", sim.path, events=events, card_for=tags.card_for, timing=FAST, **tags.pad_options()):
        assert isinstance(events.get(timeout=WAIT), ReaderStatus)
        sim.place(badge, kind=kind)
        seen = events.get(timeout=WAIT)
        assert isinstance(seen, CardSeen) and seen.uid == badge
        tags.route(sink)(seen)  # type: ignore[arg-type]
    for event in sink.physical:
        controller.handle(event)  # type: ignore[arg-type]
    assert (controller.snapshot().players[0] == "Anne") is named


def _pass(sim: Pn532Simulator, pad: Pad, uid: str, kind: str = "genuine") -> None:
    sim.place(uid, kind=kind)
    deadline = time.monotonic() + WAIT
    while uid not in pad.present and time.monotonic() < deadline:
        time.sleep(0.002)
    sim.remove(uid)
    while pad.present and time.monotonic() < deadline:
        time.sleep(0.002)


def test_the_deck_check_reads_on_after_the_32nd_card_until_the_pack_has_left(sim: Pn532Simulator) -> None:
    registry = signed_registry()
    tags = TableTags.build(registry, REQUIRE, simulated=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()
    shown: list[object] = []
    with Pad("discard", sim.path, events=events, card_for=tags.card_for, timing=FAST, **tags.pad_options()) as pad:

        def operator() -> None:
            for card in CARDS:
                _pass(sim, pad, sim_uid(card, 1))
            _pass(sim, pad, sim_uid("KS", 1), kind="clone")  # a second K♠ (its UID copied)
            _pass(sim, pad, sim_uid("QH", 2))  # a card of the other pack
            _pass(sim, pad, "04DEADBEEF0033")  # a 33rd tag

        layer = threading.Thread(target=operator, daemon=True)
        layer.start()
        report = check_deck(events, registry, shown.append, pack=1, require_genuine=True, quiet=1.0)
        layer.join(WAIT)
    assert report.seen == CARDS and not report.missing
    assert report.repeated == ("KS",)
    assert report.not_genuine == ("KS: no_signature",)
    assert report.foreign == ("QH of pack 2", "tag 04DEADBEEF0033: not registered")
    assert not report.ok and report.finished and report.lying == 0
    progress = [r for r in shown if not r.finished]  # type: ignore[attr-defined]
    assert [len(r.seen) for r in progress][-4:] == [32, 32, 32, 32]  # it read on after the 32nd


def test_deck_on_the_command_line_checks_signatures_and_catches_a_pack_of_clones(tmp_path: Path) -> None:
    table_file = _table_dir(tmp_path, signed_registry())
    clones = _cli("deck", str(table_file), "--pack", "1", *(arg for card in CARDS for arg in ("--clone", card)))
    assert clones.returncode == 1, clones.stderr
    assert "Pack 1: 32 cards OK" not in clones.stdout
    said = clones.stdout.splitlines()
    assert sum(line.startswith("Not genuine: ") and "it gave no signature" in line for line in said) == 32
    assert "Not genuine: KS: it gave no signature (K♠)" in said
    assert not (tmp_path / "deck_checks.json").exists()
    doctor = _cli("doctor", str(table_file)).stdout
    assert "pack 1 NEVER CHECKED" in doctor and "pack 2 NEVER CHECKED" in doctor
    whole = _cli("deck", str(table_file))
    assert whole.returncode == 0 and whole.stdout.splitlines()[-1] == "Pack 1: 32 cards OK"
    assert "32/32" in whole.stdout  # the OLED's progress, printed too
    doctor = _cli("doctor", str(table_file)).stdout
    assert re.search(r"pack 1 checked \w{3} \d+, 20\d\d", doctor) and "pack 2 NEVER CHECKED" in doctor  # a date


def test_enroll_badge_checks_locks_and_writes_the_badges_file(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    registry = TagRegistry()
    for card in CARDS:
        uid = sim_uid(card)
        registry.add(uid, card, 1, origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex(),
                     seal=locks.entry_seal(secret, uid, card, 1))
    table_file = _table_dir(tmp_path, registry, 'lock_secret_file = "lock.key"')
    done = _cli("enroll", str(table_file), "--badge", "Anne", "--lock")
    assert done.returncode == 0, done.stderr
    badges = json.loads((tmp_path / "badges.json").read_text())["badges"]
    assert list(badges.values()) == ["player:Anne"]
    uid = next(iter(badges))
    assert f"badge player:Anne: tag {uid} (genuine, locked)" in done.stdout
    rule = _cli("enroll", str(table_file), "--badge", "target:7")
    assert rule.returncode == 0 and sorted(json.loads((tmp_path / "badges.json").read_text())["badges"].values()) == [
        "player:Anne", "target:7"]
    assert _cli("enroll", str(table_file), "--badge", "target:x").returncode == 2


def test_the_table_file_can_ask_for_the_deck_check_before_the_first_deal(tmp_path: Path) -> None:
    table_file = _table_dir(tmp_path, signed_registry(), "deck_check_first = true")
    (tmp_path / "events.jsonl").write_text(json.dumps({"zone": "hand.A", "uid": sim_uid("KS")}) + "\n")
    assert "deck_check_first" in _cli("doctor", str(table_file)).stdout
    run = _cli("run", str(table_file), "--events", str(tmp_path / "events.jsonl"), "--journal",
               str(tmp_path / "j.db"), "--json")
    assert run.returncode == 0, run.stderr
    assert "1" in json.loads((tmp_path / "deck_checks.json").read_text())["packs"]  # written when it passed
    # then the table referees: a tag named by UID on the stream goes through the registry and the
    # pack guard, and nothing vouches for its signature there
    assert "counterfeit_card" in run.stdout


def test_enroll_lock_sets_authlim_and_seals_and_doctor_reports_them(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    table_file = _table_dir(tmp_path, TagRegistry(), 'lock_secret_file = "lock.key"')
    (tmp_path / "tags.json").unlink()
    done = _cli("enroll", str(table_file), "--lock")
    assert done.returncode == 0, done.stderr
    registry = TagRegistry.load(tmp_path / "tags.json")
    assert len(registry) == 32
    assert all(e.locked and e.auth_limit == 8 and e.origin == "genuine" for e in registry)
    assert all(e.seal == locks.entry_seal(secret, e.uid, e.card, e.pack) for e in registry)
    line = next(x for x in _cli("doctor", str(table_file)).stdout.splitlines() if "tag registry" in x)
    assert line.startswith("[ok  ]") and "8 wrong passwords (AUTHLIM" in line and "CFGLCK" in line
    assert "32 sealed" in line
    data = json.loads((tmp_path / "tags.json").read_text())
    for item in data["tags"]:
        del item["auth_limit"]  # as a tag locked before AUTHLIM was set
    (tmp_path / "tags.json").write_text(json.dumps(data))
    line = next(x for x in _cli("doctor", str(table_file)).stdout.splitlines() if "tag registry" in x)
    assert line.startswith("[FAIL]") and "locked without a limit on wrong passwords (AUTHLIM)" in line


def test_deck_check_first_without_a_registry_fails_doctor_and_run_refuses(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(TABLE.replace('registry = "tags.json"\n', "").format(extra="deck_check_first = true"))
    doctor = _cli("doctor", str(path))
    line = next(x for x in doctor.stdout.splitlines() if x.startswith("[FAIL] deck check"))
    run = _cli("run", str(path), "--events", "-", "--journal", str(tmp_path / "j.db"))
    assert run.returncode == 2 and line in run.stderr
