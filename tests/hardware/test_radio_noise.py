"""The radio as it is: a Type 2 command garbled or lost is sent again as nfcpy sends it, a NAK is an
answer, and a tag that gave no valid answer is judged nothing (it is asked again); over a noisy
simulated field no genuine card is ever refused and every clone or counterfeit that answers is."""

from __future__ import annotations

import functools
import queue

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from waiting import HANG_S

from drivers.device_events import CardSeen, DeviceEvent, Origin, ReaderStatus
from drivers.nfc.originality import OriginalityCheck, TagFacts
from drivers.nfc.pad import Pad, PadTiming
from drivers.nfc.pn532_reader import NfcpyReader
from drivers.nfc.pn532sim import Pn532Simulator, tag_signer
from drivers.nfc.pn532sim.noise import Garble, of_level
from drivers.nfc.reader import READER_ERRORS
from hardware import ntag_signature

KEY = tag_signer.sim_public_key()
UID = "04A1B2C3D4E501"
_READ_SIG, _GET_VERSION = bytes.fromhex("42 3C 00"), bytes.fromhex("42 60")
_TIMEOUT_ITEM = bytes.fromhex("32 02")


def judge(uid: str, facts: TagFacts | None) -> Origin:
    return ntag_signature.judge(uid, facts, KEY)


class Heard:
    """An inquiry that asks every tag (but ``known`` ones) and keeps what each answered."""

    def __init__(self, known: frozenset[str] = frozenset()) -> None:
        self.facts: dict[str, TagFacts] = {}
        self.known = known

    def wants(self, uid: str) -> bool:
        return uid not in self.facts and uid not in self.known

    def answered(self, uid: str, facts: TagFacts) -> bool:
        self.facts[uid] = facts
        return True


@pytest.mark.parametrize("kind", list(Garble))
def test_a_garbled_or_lost_read_sig_is_sent_again_and_the_card_is_genuine(kind: Garble) -> None:
    with Pn532Simulator(miss=0.0, signer=tag_signer.sim_signer()) as sim, NfcpyReader(sim.path) as reader:
        sim.place(UID)
        sim.garble_answers(kind)
        heard = Heard()
        assert reader.poll(ask=heard) == (UID,)
        assert judge(UID, heard.facts[UID]) == Origin.GENUINE
        sent = [bytes(c) for c in sim.commands]
        assert sent.count(_READ_SIG) == 2 and _GET_VERSION not in sent  # sent again, not GET_VERSION instead


def test_a_card_garbled_every_time_gets_no_verdict_and_is_asked_again() -> None:
    check = OriginalityCheck(judge, attempts=10)  # asked at every poll (the back-off after ten)
    with Pn532Simulator(miss=0.0, signer=tag_signer.sim_signer()) as sim, NfcpyReader(sim.path) as reader:
        sim.place(UID)
        for poll in range(6):  # nfcpy's three tries, at each of six polls
            sim.garble_answers(Garble.PARITY, Garble.LOST, Garble.CRC)
            heard = Heard()
            assert reader.poll(ask=heard) == (UID,)
            assert UID not in heard.facts  # no answer: nothing judged on it
            assert check.check(UID, lambda: reader.read_facts(UID)) is None, poll
        sent = [bytes(c) for c in sim.commands]
        assert sent.count(_READ_SIG) == 18 and _GET_VERSION not in sent
        heard = Heard()
        reader.poll(ask=heard)  # the radio clears: the card answers
        assert check.check(UID, lambda: heard.facts[UID]) == Origin.GENUINE


def test_a_nak_is_an_answer_sent_once_and_a_garbled_get_version_no_verdict() -> None:
    with Pn532Simulator(miss=0.0) as sim, NfcpyReader(sim.path) as reader:
        sim.place(UID, kind="counterfeit")
        heard = Heard()
        reader.poll(ask=heard)
        assert judge(UID, heard.facts[UID]) == Origin.COUNTERFEIT
        sent = [bytes(c) for c in sim.commands]
        assert sent.count(_READ_SIG) == 1 and sent.count(_GET_VERSION) == 1  # NAKs: not sent again
        sim.garble_answers(Garble.PARITY, Garble.PARITY, Garble.PARITY)  # read_facts asks GET_VERSION first
        assert reader.read_facts(UID) is None  # its NAK lost three times: not counterfeit on that evidence
        assert judge(UID, reader.read_facts(UID)) == Origin.COUNTERFEIT  # the next time it answers


def test_the_response_timeout_is_set_before_each_command_as_nfcpy_sets_it() -> None:
    with Pn532Simulator(miss=0.0) as sim, NfcpyReader(sim.path) as reader:
        sim.place(UID, kind="clone")  # READ_SIG gives zeros: GET_VERSION asked too
        heard = Heard()
        reader.poll(ask=heard)
        assert judge(UID, heard.facts[UID]) == Origin.NO_SIGNATURE
        sent = [bytes(c) for c in sim.commands]

    def timeout_before(command: bytes) -> bytes:
        at = sent.index(command)
        return next(c for c in reversed(sent[:at]) if c.startswith(_TIMEOUT_ITEM))

    assert timeout_before(_READ_SIG) == bytes.fromhex("32 02 0A 0B 0B")  # 102.4 ms, nfcpy's for 0.1 s
    assert timeout_before(_GET_VERSION) == bytes.fromhex("32 02 0A 0B 08")  # 12.8 ms, nfcpy's for 0.01 s


def test_a_pad_reports_a_card_whose_first_answers_were_garbled_as_genuine_and_only_then() -> None:
    events: queue.Queue[DeviceEvent] = queue.Queue()
    check = OriginalityCheck(judge)
    timing = PadTiming(poll_interval=0.005, idle_wait=0.0)
    with Pn532Simulator(miss=0.0, signer=tag_signer.sim_signer()) as sim:
        sim.garble_answers(*[Garble.PARITY] * 12)  # four polls' worth of nfcpy's three tries
        with Pad("hand.A", sim.path, events=events, card_for={UID: "KS"}.get, timing=timing, originality=check):
            status = events.get(timeout=HANG_S)
            assert isinstance(status, ReaderStatus) and status.online
            sim.place(UID)
            seen = events.get(timeout=HANG_S)
    assert isinstance(seen, CardSeen) and not seen.gone and seen.sighting.origin == Origin.GENUINE
    assert events.empty()


# -- over a noisy field: no genuine card refused, every clone and counterfeit that answers refused ------


KINDS = {"genuine": Origin.GENUINE, "clone": Origin.NO_SIGNATURE, "counterfeit": Origin.COUNTERFEIT}
MOST_POLLS = 2_000
"""Polls a card is given to answer (each three tries): far more than the noisiest rate tried needs."""


def arrivals(level: float, seed: int, count: int, *, on_a_card: bool) -> dict[str, int]:
    """``count`` cards laid one by one on a pad (on a card lying there with ``on_a_card``: one up the
    stack), at noise ``level``, each polled until it is judged, then lifted; the verdicts counted by
    kind (a kind's wrong verdict fails at once)."""
    check = OriginalityCheck(judge)
    counted = dict.fromkeys(KINDS, 0)
    lying = frozenset({"04FFFFFFFFFF00"} if on_a_card else ())
    with Pn532Simulator(miss=0.0, depth=2, signer=tag_signer.sim_signer(), noise=of_level(level), seed=seed) as sim, \
            NfcpyReader(sim.path) as reader:
        for resident in lying:
            sim.place(resident)
        for n in range(count):
            kind = ("genuine", "genuine", "clone", "genuine", "counterfeit")[n % 5]
            uid = f"04A1{seed % 0xFFFF:04X}{n:06X}"
            sim.place(uid, kind=kind)
            verdict = None
            for _ in range(MOST_POLLS):
                heard = Heard(lying)
                try:
                    reader.poll(ask=heard)
                except READER_ERRORS:
                    reader.resync()  # as a pad does (a frame lost on a busy machine)
                    continue
                facts = heard.facts.get(uid)
                if facts is not None and (verdict := check.check(uid, functools.partial(lambda f: f, facts))):
                    break
            assert verdict == KINDS[kind], (kind, uid, level, seed)
            counted[kind] += 1
            sim.remove(uid)
            check.forget(uid)
        assert level == 0 or count < 1_000 or sim.noise.garbled + sim.noise.lost > 100  # the noise was there
    return counted


@pytest.mark.slow
@pytest.mark.parametrize(("level", "on_a_card"), [(1, False), (3, False), (10, False), (5, True)])
def test_no_genuine_card_is_refused_over_ten_thousand_arrivals(level: float, on_a_card: bool) -> None:
    # 2,500 arrivals a level, four levels: from the model's default rates to ten times them (a
    # settled card's answer garbled 5 % of the time and lost 2 %; one just laid, 50 % and 20 %), and
    # five times them one card up a stack (× 3 more)
    counted = arrivals(level, seed=level, count=2_500, on_a_card=on_a_card)
    assert sum(counted.values()) == 2_500 and counted["genuine"] == 1_500


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), level=st.floats(0.0, 40.0), on_a_card=st.booleans())
def test_the_verdicts_hold_at_every_seed_and_rate(seed: int, level: float, on_a_card: bool) -> None:
    counted = arrivals(level, seed, 60, on_a_card=on_a_card)
    assert counted == {"genuine": 36, "clone": 12, "counterfeit": 12}
