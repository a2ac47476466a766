"""Tags that cannot be faked, as the hardware tells them: NXP's originality signature judged for each
kind of tag a reader lists (alone, in a stack, signed for another UID, a UID not of seven bytes), the
lock that keeps a phone from rewriting a card (the datasheet's lock bytes, AUTHLIM, the lock secret's
file), and the table file's ``[tags]``. The real nfcpy driver reads the simulated PN532 and NTAG213s.

The tags in play, enrolled and checked as a pack: tests/firmware_host/cards/test_card_security.py;
doctor on a registry: tests/firmware_host/checks/test_doctor_registry.py; the commands:
tests/cli/test_tag_commands.py. Nothing here asserts on time: tests wait for events (generous
timeouts).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from signed_tags import FAST, KEY, SIGNER, TABLE, WAIT

from drivers.device_events import CardSeen, DeviceEvent
from drivers.nfc.originality import OriginalityCheck
from drivers.nfc.pad import Pad
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.reader import TagWriteError
from firmware_host.players.simtable import sim_uid
from hardware import locks, ntag_signature
from hardware.table import TagPolicy, load_table_text
from hardware.tag_registry import TagRegistry


@pytest.fixture
def sim() -> Iterator[Pn532Simulator]:
    with Pn532Simulator(signer=SIGNER) as simulator:
        yield simulator


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


def test_the_test_key_written_out_is_the_one_its_seed_derives_and_signs_with() -> None:
    """``trusted_key("test")`` is written out (a simulated table starts without ecdsa): the key its public
    seed derives, which the simulator's tags are signed with."""
    from drivers.nfc.pn532sim import tag_signer

    assert ntag_signature.trusted_key("test") == tag_signer.sim_public_key() == tag_signer.TEST_PUBLIC_KEY
    uid = bytes.fromhex(sim_uid("KS"))
    assert ntag_signature.verify_signature(uid, tag_signer.sim_signer()(uid), ntag_signature.trusted_key("test"))


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
        # the response timeout each command is given (RFConfiguration item 02) set aside
        sent = [bytes(c) for c in sim.commands if not bytes(c).startswith(b"\x32\x02")]
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

    assert "forged" in str(audit_registry(registry, ntag_signature.NXP_NTAG21X_KEY)[0])


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
