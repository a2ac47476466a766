"""The emulated PN532: exact frames on the pty, and the real nfcpy driver on it."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator

import ndef
import nfc
import nfc.clf
import nfc.clf.pn532
import nfc.clf.transport
import nfc.tag
import pytest
from pn532_commands import command

from drivers.nfc.pn532sim import Pn532Simulator
from drivers.nfc.pn532sim.field import anticollision_order
from drivers.nfc.pn532sim.frames import ACK, ERROR_FRAME, NACK, FrameParser, frame
from drivers.nfc.pn532sim.ntag213 import Ntag213, crc_a
from drivers.nfc.tty import RawTty

KS = "04A224B2C31D80"
QH = "04B1C2D3E4F501"

GET_FIRMWARE_VERSION = bytes.fromhex("0000FF02FED4022A00")
FIRMWARE_ANSWER = bytes.fromhex("0000FF06FAD50332010607E800")


def exchange(port: RawTty, data: bytes) -> tuple[bytes, bytes]:
    """Write ``data``, return the ACK and the answer frame."""
    port.write(data)
    return bytes(port.read(2000)), bytes(port.read(2000))


@pytest.fixture
def clf(sim: Pn532Simulator) -> Iterator[nfc.ContactlessFrontend]:
    device = nfc.clf.pn532.init(RawTty(sim.path))
    frontend = nfc.ContactlessFrontend()
    frontend.device = device
    yield frontend
    frontend.close()


# -- frames -------------------------------------------------------------------


def test_crc_a_and_frames() -> None:
    assert crc_a(b"\x30\x00") == bytes.fromhex("02A8")
    assert frame(bytes.fromhex("D402")) == GET_FIRMWARE_VERSION
    extended = frame(bytes(300))
    assert extended[:8] == bytes.fromhex("0000FFFFFF012CD3")
    assert (sum(extended[8:-1])) & 0xFF == 0


def test_get_firmware_version_exact_frames(port: RawTty) -> None:
    assert exchange(port, GET_FIRMWARE_VERSION) == (ACK, FIRMWARE_ANSWER)


@pytest.mark.parametrize(
    "wakeup",
    [b"\x55\x55\x00\x00\x00", bytes(10), b"\x55" * 24 + bytes(3)],
    ids=["55-55-00", "nfcpy-zeros", "long-55"],
)
def test_wakeup_preamble_is_skipped(port: RawTty, wakeup: bytes) -> None:
    assert exchange(port, wakeup + GET_FIRMWARE_VERSION) == (ACK, FIRMWARE_ANSWER)


def test_sam_configuration_as_nfcpy_expects(port: RawTty) -> None:
    ack, answer = exchange(port, bytes.fromhex("0000ff05fbd4140100001700"))
    assert (ack, answer) == (ACK, bytes.fromhex("0000ff02fed5151600"))


@pytest.mark.parametrize(
    "bad",
    [
        bytes.fromhex("0000FF02FED4022B00"),  # data checksum
        bytes.fromhex("0000FF02FDD4022A00"),  # length checksum
        bytes.fromhex("0000FF02FED5012A00"),  # not a host frame (TFI D5)
    ],
    ids=["data-checksum", "length-checksum", "frame-identifier"],
)
def test_bad_frames_get_no_answer(sim: Pn532Simulator, port: RawTty, bad: bytes) -> None:
    port.write(bad)
    with pytest.raises(OSError) as caught:
        port.read(60)
    assert caught.value.errno == errno.ETIMEDOUT
    assert sim.stats.bad_frames == 1
    assert exchange(port, GET_FIRMWARE_VERSION) == (ACK, FIRMWARE_ANSWER)


def test_nack_repeats_the_last_answer(port: RawTty) -> None:
    exchange(port, GET_FIRMWARE_VERSION)
    port.write(NACK)
    assert bytes(port.read(2000)) == FIRMWARE_ANSWER


def test_host_ack_cancels_quietly(sim: Pn532Simulator, port: RawTty) -> None:
    port.write(ACK)
    with pytest.raises(OSError):
        port.read(60)
    assert sim.stats.acks == 1


def test_unknown_command_gets_the_error_frame(port: RawTty) -> None:
    assert exchange(port, frame(bytes.fromhex("D4FE"))) == (ACK, ERROR_FRAME)


def test_extended_frame_diagnose_line_test(port: RawTty) -> None:
    data = b"\x00" + bytes(range(256)) + bytes(6)
    ack, answer = exchange(port, frame(b"\xd4\x00" + data))
    assert ack == ACK
    assert answer[:5] == bytes.fromhex("0000FFFFFF")
    assert answer[8:10] == b"\xd5\x01" and answer[10:-2] == data


def test_registers_read_and_write(port: RawTty) -> None:
    assert command(port, 0x06, bytes.fromhex("6303 6339")) == bytes.fromhex("8026")
    assert command(port, 0x08, bytes.fromhex("6303 00")) == b""
    assert command(port, 0x06, bytes.fromhex("6303")) == b"\x00"


def test_in_list_passive_target_answers(sim: Pn532Simulator, port: RawTty) -> None:
    assert command(port, 0x4A, b"\x01\x00") == b"\x00"
    assert command(port, 0x06, bytes.fromhex("6339")) == b"\x26"  # REQA left in the FIFO
    sim.place(KS)
    found = command(port, 0x4A, b"\x01\x00")
    assert found == bytes.fromhex("01 01 0044 00 07") + bytes.fromhex(KS)
    assert sim.rf_on
    assert command(port, 0x4A, b"\x01\x03\x00") == b"\x00"  # no type B cards


def test_the_field_switches_are_logged_once_each(sim: Pn532Simulator, port: RawTty) -> None:
    """A listing switches the field on, RFConfiguration item 1 off (UM0701-02, RFConfiguration) and a
    PowerDown too; a second listing with the field on, or a second off, changes nothing."""
    command(port, 0x4A, b"\x01\x00")
    command(port, 0x4A, b"\x01\x00")
    command(port, 0x32, b"\x01\x00")
    command(port, 0x32, b"\x01\x00")
    command(port, 0x32, b"\x01\x01")
    command(port, 0x16, b"\x20")
    changes = sim.field_changes
    assert [on for _, on in changes] == [True, False, True, False]
    times = [t for t, _ in changes]
    assert times == sorted(times)


def test_in_data_exchange_reads_pages(sim: Pn532Simulator, port: RawTty) -> None:
    tag = sim.place(KS)
    command(port, 0x4A, b"\x01\x00")
    answer = command(port, 0x40, b"\x01\x30\x03")
    assert answer == b"\x00" + bytes(tag.memory[12:28])
    assert answer[1:5] == bytes.fromhex("E1101200")
    assert command(port, 0x40, b"\x01\xa2\x05\x01\x02\x03\x04") == b"\x00"
    assert tag.memory[20:24] == b"\x01\x02\x03\x04"
    assert command(port, 0x52, b"\x01") == b"\x00"  # InRelease
    assert command(port, 0x40, b"\x01\x30\x00") == b"\x27"  # no target any more


def test_in_communicate_thru_appends_crc_when_the_host_checks_it(
    sim: Pn532Simulator, port: RawTty
) -> None:
    sim.place(KS)
    command(port, 0x4A, b"\x01\x00")
    assert command(port, 0x42, b"\x60") == b"\x00" + Ntag213.VERSION  # chip checks the CRC
    command(port, 0x08, bytes.fromhex("6303 00"))  # receive CRC off, as nfcpy does
    version = command(port, 0x42, b"\x60")
    assert version == b"\x00" + Ntag213.VERSION + crc_a(Ntag213.VERSION)
    signature = command(port, 0x42, b"\x3c\x00")
    assert len(signature) == 1 + 32 + 2
    assert command(port, 0x42, b"\xa2\x04\xaa\xbb\xcc\xdd") == b"\x00\x0a"  # 4-bit ACK
    assert command(port, 0x42, b"\x30\x2d") == b"\x00\x00"  # page 45: NAK
    assert command(port, 0x42, b"\x30\x00") == b"\x01"  # after a NAK the tag is mute
    assert command(port, 0x32, b"\x01\x02") == b""  # field off, field on: it answers again
    command(port, 0x4A, b"\x01\x00")
    assert len(command(port, 0x42, b"\x30\x00")) == 1 + 16  # CRC checked by the chip again


def test_faults_corrupt_answers_then_recover(sim: Pn532Simulator, port: RawTty) -> None:
    sim.corrupt_answers(2)
    for _ in range(2):
        ack, answer = exchange(port, GET_FIRMWARE_VERSION)
        assert ack == ACK
        assert answer != FIRMWARE_ANSWER and answer[:-2] == FIRMWARE_ANSWER[:-2]
    assert exchange(port, GET_FIRMWARE_VERSION) == (ACK, FIRMWARE_ANSWER)
    assert sim.stats.corrupted == 2


def test_faults_no_answer_then_recover(sim: Pn532Simulator, port: RawTty) -> None:
    sim.ignore_commands(2)
    for _ in range(2):
        port.write(GET_FIRMWARE_VERSION)
        with pytest.raises(OSError):
            port.read(60)
    assert exchange(port, GET_FIRMWARE_VERSION) == (ACK, FIRMWARE_ANSWER)
    assert sim.stats.dropped == 2


def test_frame_parser_resyncs_after_garbage() -> None:
    parser = FrameParser()
    stream = b"\xff\x13" + frame(b"\xd4\x02") + b"\x00\x00\xff\x00\xff\x00"
    kinds = [item.kind for piece in (stream[:7], stream[7:]) for item in parser.feed(piece)]
    assert kinds == ["command", "ack"]


# -- the tag ------------------------------------------------------------------


def test_ntag213_memory_layout() -> None:
    tag = Ntag213(KS, ndef_text="ecarte:KS")
    uid = bytes.fromhex(KS)
    assert tag.memory[0:3] == uid[:3] and tag.memory[3] == 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
    assert tag.memory[4:8] == uid[3:] and tag.memory[8] == uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
    assert tag.memory[12:16] == bytes.fromhex("E1101200")
    assert tag.memory[16] == 0x03  # NDEF message TLV on page 4
    assert tag.ndef_text() == "ecarte:KS"
    assert Ntag213(KS).memory[16:19] == bytes.fromhex("0300FE")
    tag.state = "active"
    assert tag.answer(b"\x30\x2c") == bytes(4) + tag.memory[0:12]  # rolls over after page 44
    assert tag.answer(b"\xa2\x00\x00\x00\x00\x00") == b"\x00"  # UID pages are read-only
    with pytest.raises(ValueError, match="7 bytes"):
        Ntag213("0102030405")


def test_anticollision_picks_the_tag_sending_one_first() -> None:
    # 04 00 .. vs 04 01 ..: first difference in the 2nd byte, bit 0: 01 wins.
    low, high = Ntag213("04000000000000"), Ntag213("04010000000000")
    assert anticollision_order([low, high]) == [high, low]
    # 04 02 vs 04 01: bit 0 differs first (1 vs 0) although 02 > 01.
    two = Ntag213("04020000000000")
    assert anticollision_order([two, high])[0] is high


# -- nfcpy on the simulator --------------------------------------------------------


@pytest.mark.parametrize("transport", [RawTty, nfc.clf.transport.TTY], ids=["RawTty", "nfcpy-TTY"])
def test_nfcpy_init_on_the_simulator(sim: Pn532Simulator, transport: type) -> None:
    device = nfc.clf.pn532.init(transport(sim.path))
    try:
        assert device.chipset_name == "PN532v1.6"
        codes = [c[0] for c in sim.commands]
        assert codes[:2] == [0x02, 0x14]  # nfcpy's raw GetFirmwareVersion, SAMConfiguration
        assert 0x00 in codes  # the diagnose line test (an extended frame)
    finally:
        device.close()
    assert sim.commands[-1][0] == 0x16  # PowerDown on close


def test_nfcpy_senses_activates_and_reads_ndef(
    sim: Pn532Simulator, clf: nfc.ContactlessFrontend
) -> None:
    assert clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1) is None
    sim.place(KS, ndef_text="ecarte:KS")
    target = clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1)
    assert target is not None
    assert target.sdd_res == bytearray.fromhex(KS)
    assert target.sens_res == bytearray.fromhex("4400")
    assert target.sel_res == bytearray.fromhex("00")
    tag = nfc.tag.activate(clf, target)
    assert tag is not None and tag.product == "NXP NTAG213"
    assert [r.text for r in tag.ndef.records] == ["ecarte:KS"]
    assert tag.signature == sim.tag(KS).signature
    tag.ndef.records = [ndef.TextRecord("ecarte:QH")]
    assert sim.tag(KS).ndef_text() == "ecarte:QH"


def test_nfcpy_formats_and_writes_a_blank_tag(
    sim: Pn532Simulator, clf: nfc.ContactlessFrontend
) -> None:
    sim.place(QH)
    tag = nfc.tag.activate(clf, clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1))
    assert tag.ndef is not None and tag.ndef.length == 0 and tag.ndef.capacity > 100
    tag.ndef.records = [ndef.TextRecord("ecarte:QH")]
    assert sim.tag(QH).ndef_text() == "ecarte:QH"


def test_two_tags_on_one_pad(sim: Pn532Simulator, clf: nfc.ContactlessFrontend) -> None:
    low, high = "04000000000001", "04010000000001"
    sim.place(low)
    sim.place(high)
    for _ in range(3):  # always the same winner
        target = clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1)
        assert target.sdd_res.hex().upper() == high
    wanted = nfc.clf.RemoteTarget("106A", sel_req=bytearray.fromhex(low))
    assert clf.sense(wanted, iterations=1).sdd_res.hex().upper() == low
    sim.remove(high)
    target = clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1)
    assert target.sdd_res.hex().upper() == low


def test_nfcpy_sees_corrupt_answers_as_io_errors(
    sim: Pn532Simulator, clf: nfc.ContactlessFrontend
) -> None:
    sim.corrupt_answers(1)
    with pytest.raises(OSError) as caught:
        clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1)
    assert caught.value.errno == errno.EIO
    assert clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1) is None


def test_nfcpy_sees_no_answer_as_io_error(
    sim: Pn532Simulator, clf: nfc.ContactlessFrontend
) -> None:
    sim.ignore_commands(1)
    with pytest.raises(OSError):
        clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1)
    assert clf.sense(nfc.clf.RemoteTarget("106A"), iterations=1) is None


def test_unplug_and_replug_behind_the_same_path(sim: Pn532Simulator) -> None:
    port = RawTty(sim.path)
    try:
        sim.unplug()
        assert not sim.plugged and not os.path.exists(sim.path)
        with pytest.raises(OSError) as caught:
            port.write(GET_FIRMWARE_VERSION)
            port.read(100)
        assert caught.value.errno == errno.EIO
        with pytest.raises(FileNotFoundError):
            RawTty(sim.path)
    finally:
        port.close()
    sim.replug()
    assert sim.plugged
    device = nfc.clf.pn532.init(RawTty(sim.path))
    device.close()


def _speed_the_pty_takes(path: str) -> int:
    """The serial speed nfcpy's init asks the chip for on ``path``: the first of its speeds that
    ``stty`` sets there (a pty takes 921,600 baud on Linux; one under qemu-user may refuse it)."""
    for baud in (921600, 460800, 230400):
        try:
            taken = subprocess.run(["stty", "-F", path, str(baud)], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return 115200  # no stty: nfcpy stays at 115200 too
        if taken.returncode == 0:
            subprocess.run(["stty", "-F", path, "115200"], capture_output=True, timeout=10, check=False)
            return baud
    return 115200


def test_paced_simulator_works_with_nfcpy() -> None:
    with Pn532Simulator(baud=115200) as paced:
        expected = _speed_the_pty_takes(paced.path)
        device = nfc.clf.pn532.init(RawTty(paced.path))
        try:
            assert paced.host_baud == expected  # nfcpy asked for more (where the pty takes it); pacing stays
        finally:
            device.close()


def test_close_twice_and_context_manager() -> None:
    sim = Pn532Simulator()
    path = sim.path
    with sim:
        assert os.path.islink(path)
    sim.close()
    assert not os.path.exists(os.path.dirname(path))
    assert not sim._thread.is_alive()
    sim.unplug()  # harmless once closed
