"""The doctor: what passes, what fails, and that every failure says how to fix it."""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from device_cgroup import refusing

from drivers.nfc.pn532sim import Pn532Simulator
from drivers.pin_backends import BackendChoice, PinBackendError, board_model, choose_backend
from firmware_host.checks.doctor import Check, all_ok, format_checks, run_checks
from hardware.table import PadConfig, shipped_table_path, simulated_table

TABLE = """
[table]
name = "Bench"
registry = "tags.json"

[pads]
"hand.A" = "tty:USB0:pn532"
"hand.B" = "tty:USB9:pn532"
turnup = "/dev/no-such-reader"
discard = "sim"
"play.A" = "sim"
"play.B" = "usb:054c:06c1"

[buttons]
backend = "lgpio"

[buttons.A]
yes = 5
no = 6
king = 13
led = 12

[buttons.B]
yes = 17
no = 27
king = 22
led = 23

[[displays]]
bus = 1
address = 0x3C
chip = "sh1106"
"""


def never(*args: object) -> None:
    raise AssertionError(f"should not be called: {args}")


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


@pytest.fixture
def fake_dev(tmp_path: Path) -> Path:
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "ttyUSB0").touch()
    (dev / "i2c-1").touch()
    return dev


@pytest.fixture
def table_file(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(TABLE)
    return path


def test_simulated_table_passes_without_touching_hardware() -> None:
    checks = run_checks(
        simulated_table(), read_reader=never, probe_i2c=never, groups=set, is_root=lambda: False
    )
    assert all_ok(checks), format_checks(checks)
    names = [check.name for check in checks]
    assert names[:2] == ["table file", "tag registry"]
    assert "reader turnup" in names and "display 0" in names and "buttons" in names
    assert format_checks(checks).endswith("all checks passed")


def test_reports_each_pads_depth_and_the_tables_sight(table_file: Path, fake_dev: Path) -> None:
    text = table_file.read_text().replace('"tty:USB9:pn532"', '"sim"').replace('"/dev/no-such-reader"', '"sim"')
    text = text.replace('[table]', '[table]\nsight = "partial"', 1)
    text = text.replace('"hand.A" = "tty:USB0:pn532"', '"hand.A" = { device = "tty:USB0:pn532", depth = 3 }')
    table_file.write_text(text)
    checks = by_name(run_checks(table_file, read_reader=lambda pad: "PN532v1.6", probe_i2c=lambda b, a: None,
                                make_factory=lambda backend: None, groups=lambda: {"i2c", "gpio", "dialout"},
                                is_root=lambda: False, dev=fake_dev))
    assert "partial sight" in checks["table file"].detail
    assert checks["reader hand.A"].detail.endswith("reads 3 cards of a stack")
    assert checks["reader hand.B"].detail.endswith("simulated PN532, reads 2 cards of a stack: nothing to open")


def test_simulated_table_by_path() -> None:
    checks = run_checks(shipped_table_path("simulated"), read_reader=never, probe_i2c=never)
    assert all_ok(checks)
    assert str(shipped_table_path("simulated")) in checks[0].detail


def test_bad_device_paths_fail_with_fixes(table_file: Path, fake_dev: Path) -> None:
    def reader(pad: PadConfig) -> str:
        raise OSError(errno.ENODEV, "No such device")

    def backend(name: str) -> object:
        raise PinBackendError("the lgpio backend needs the lgpio module: `pip install lgpio`")

    checks = by_name(
        run_checks(
            table_file,
            read_reader=reader,
            probe_i2c=lambda bus, address: None,
            make_factory=backend,
            groups=lambda: {"users"},
            user=lambda: "dealer",
            is_root=lambda: False,
            dev=fake_dev,
        )
    )
    failing = {name for name, check in checks.items() if not check.ok}
    assert failing == {
        "tag registry",
        "reader hand.A",
        "reader hand.B",
        "reader turnup",
        "reader play.B",
        "buttons",
        "permissions",
    }
    for name in failing:
        assert checks[name].fix, name
    assert "DIP switches to HSU" in checks["reader hand.A"].fix
    assert "/dev/ttyUSB9 does not exist" in checks["reader hand.B"].detail
    assert "stable names" in checks["reader hand.B"].fix
    assert "/dev/no-such-reader does not exist" in checks["reader turnup"].detail
    assert "lsusb" in checks["reader play.B"].fix
    assert checks["reader discard"].ok and "simulated" in checks["reader discard"].detail
    assert checks["display 0"].ok
    assert "pip install lgpio" in checks["buttons"].fix
    assert checks["permissions"].detail == (
        "dealer is not in dialout for the serial readers, gpio for the buttons, "
        "i2c for the displays"
    )
    assert "sudo usermod -aG dialout,gpio,i2c dealer" in checks["permissions"].fix
    assert "enrol the cards" in checks["tag registry"].fix


def test_everything_answers(table_file: Path, fake_dev: Path) -> None:
    tags = {"format": "ecarte-tags", "version": 1,
            "tags": [{"uid": "04A224B2C31D80", "card": "KS", "pack": 1}]}
    (table_file.parent / "tags.json").write_text(json.dumps(tags))
    text = table_file.read_text()
    text = text.replace('"tty:USB9:pn532"', '"sim"').replace('"/dev/no-such-reader"', '"sim"')
    table_file.write_text(text)
    probed: list[tuple[int, int]] = []

    class Factory:
        closed = False

        def close(self) -> None:
            Factory.closed = True

    checks = run_checks(
        table_file,
        read_reader=lambda pad: "PN532v1.6",
        probe_i2c=lambda bus, address: probed.append((bus, address)),
        make_factory=lambda backend: Factory(),
        groups=lambda: {"i2c", "gpio", "dialout"},
        is_root=lambda: False,
        dev=fake_dev,
    )
    assert all_ok(checks), format_checks(checks)
    assert probed == [(1, 0x3C)]
    assert Factory.closed
    assert by_name(checks)["reader hand.A"].detail == "tty:USB0:pn532: PN532v1.6, reads 1 card of a stack"
    assert "1 tags" in by_name(checks)["tag registry"].detail


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (OSError(errno.EREMOTEIO, "Remote I/O error"), "i2cdetect -y 1"),
        (OSError(errno.EACCES, "Permission denied"), "usermod -aG i2c"),
        (ImportError("No module named 'smbus2'"), "pip install smbus2"),
    ],
)
def test_display_failures(
    table_file: Path, fake_dev: Path, error: BaseException, fragment: str
) -> None:
    def probe(bus: int, address: int) -> None:
        raise error

    check = by_name(run_checks(table_file, read_reader=lambda pad: "PN532v1.6",
                               probe_i2c=probe, dev=fake_dev))["display 0"]
    assert not check.ok and fragment in check.fix


def test_missing_i2c_bus_says_enable_it(table_file: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-dev"
    empty.mkdir()
    check = by_name(run_checks(table_file, read_reader=never, probe_i2c=never,
                               dev=empty))["display 0"]
    assert not check.ok
    assert "/dev/i2c-1 does not exist" in check.detail
    assert "dtparam=i2c_arm=on" in check.fix


def test_busy_reader_says_stop_the_service(table_file: Path, fake_dev: Path) -> None:
    def busy(pad: PadConfig) -> str:
        raise OSError(errno.EBUSY, "Device or resource busy")

    check = by_name(run_checks(table_file, read_reader=busy, probe_i2c=lambda b, a: None,
                               dev=fake_dev))["reader hand.A"]
    assert not check.ok and "systemctl stop ecarte-table" in check.fix


def test_broken_table_file_is_one_failing_check(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(TABLE.replace('"play.A" =', '"play.a" ='))
    checks = run_checks(path, read_reader=never, probe_i2c=never)
    assert len(checks) == 1 and not checks[0].ok
    assert "did you mean `play.A`" in checks[0].detail
    assert "docs/hardware.md" in checks[0].fix


def test_missing_table_file(tmp_path: Path) -> None:
    (check,) = run_checks(tmp_path / "absent.toml", read_reader=never, probe_i2c=never)
    assert not check.ok and "reference.toml" in check.fix


def test_unreadable_registry(table_file: Path, fake_dev: Path) -> None:
    (table_file.parent / "tags.json").write_text("{not json")
    check = by_name(run_checks(table_file, read_reader=lambda pad: "x",
                               probe_i2c=lambda b, a: None, dev=fake_dev))["tag registry"]
    assert not check.ok and "docs/nfc.md" in check.fix


def test_real_reader_probe_on_a_missing_port_raises_os_error(tmp_path: Path) -> None:
    from firmware_host.checks.doctor import read_reader_firmware

    with pytest.raises(OSError):
        read_reader_firmware(PadConfig("turnup", str(tmp_path / "no-tty")))


def test_a_serial_readers_link_is_checked_and_its_retried_frames_said(sim: Pn532Simulator) -> None:
    """The pads count the frames they had to send again, which the doctor did not look at: it lists
    the tags on each serial reader as a pad does, and says how many frames were retried of how many
    (the real probe, nfcpy on an emulated PN532 that ignores two commands of its listings)."""
    from firmware_host.checks.doctor import read_reader_firmware

    sim.ignore_commands(2, after=40)  # once the reader is open twice (its firmware, then its listings)
    said = read_reader_firmware(PadConfig("turnup", sim.path))
    found = re.fullmatch(r"PN532v1\.6 \(2 frames retried of (\d+) in 40 listings\)", said)
    assert found and sim.stats.dropped == 2, said
    assert int(found.group(1)) > 40  # a frame a listing at least, and the reader's opening
    quiet = read_reader_firmware(PadConfig("turnup", sim.path))
    assert re.fullmatch(r"PN532v1\.6 \(0 frames retried of \d+ in 40 listings\)", quiet), quiet


def test_a_serial_reader_that_stops_answering_fails_its_check(sim: Pn532Simulator) -> None:
    from firmware_host.checks.doctor import read_reader_firmware

    sim.ignore_commands(3, after=40)  # three listings in a row: a pad would call it offline
    with pytest.raises(OSError, match="three listings in a row failed"):
        read_reader_firmware(PadConfig("turnup", sim.path))


def test_check_prints_its_fix() -> None:
    check = Check("reader turnup", False, "no answer", "set the DIP switches")
    assert str(check) == "[FAIL] reader turnup: no answer\n       fix: set the DIP switches"
    assert str(Check("buttons", True, "MockFactory")) == "[ok  ] buttons: MockFactory"


def test_doctests() -> None:
    import doctest

    import firmware_host.checks.doctor

    result = doctest.testmod(firmware_host.checks.doctor)
    assert result.attempted > 0 and result.failed == 0


def test_the_voice_is_checked_with_its_fixes() -> None:
    """``[voice]``: espeak-ng present, the speaker and each earpiece open, the audio group."""
    from dataclasses import replace

    from hardware.table_config import VoiceConfig

    voice = VoiceConfig(enabled=True, device="plughw:1,0", earpieces=(("A", "plughw:2,0"), ("B", "sim")))
    table = replace(simulated_table(), voice=voice)

    def play(device: str) -> None:
        if device == "plughw:2,0":
            raise OSError(errno.ENOENT, "audio open error: No such file or directory")

    checks = {c.name: c for c in run_checks(table, find_espeak=lambda: "eSpeak NG 1.51", play_sound=play,
                                            groups=lambda: set(), is_root=lambda: False, user=lambda: "pi")}
    assert checks["voice"].ok and "160 words a minute" in checks["voice"].detail
    assert checks["voice speaker"].ok
    assert not checks["voice earpiece A"].ok and "aplay -L" in checks["voice earpiece A"].fix
    assert checks["voice earpiece B"].ok
    assert not checks["permissions"].ok and "audio" in checks["permissions"].detail
    missing = {c.name: c for c in run_checks(table, find_espeak=lambda: None, play_sound=play)}
    assert not missing["voice"].ok and "apt-get install espeak-ng" in missing["voice"].fix
    # a table without a voice is not asked about one
    assert not any(c.name.startswith("voice") for c in run_checks(simulated_table()))


def test_the_real_sound_probe_says_why_a_device_does_not_open() -> None:
    import shutil

    from firmware_host.checks.doctor import probe_sound

    if shutil.which("aplay") is None:
        pytest.skip("alsa-utils is not installed")
    with pytest.raises(OSError) as caught:
        probe_sound("plughw:CARD=NoSuchCard,DEV=0")
    assert caught.value.strerror


ZONE = re.compile(r"\b(?:hand|play)\.[AB]\b|\bturnup\b|\bdiscard\b")
"""A pad's name in the table file (``hand.A``): the file's word, in every language (the OLED names a
reader so too)."""


@pytest.mark.parametrize("lang", ["es", "de"])
def test_the_report_and_its_advice_are_in_the_tables_language(table_file: Path, fake_dev: Path, lang: str) -> None:
    """Every check failing or passing, the voice's too, in ``lang``: no English word of the game left
    (a pad's name and a command to type are the table file's and the shell's)."""
    from dataclasses import replace

    from catalogue.english import english_words
    from hardware.table import load_table
    from hardware.table_config import VoiceConfig

    def reader(pad: PadConfig) -> str:
        raise OSError(errno.ENODEV, "No such device")

    def backend(name: str) -> object:
        raise ImportError("lgpio")

    def play(device: str) -> None:
        raise OSError(errno.ENOENT, "audio open error")

    table = replace(load_table(table_file), voice=VoiceConfig(enabled=True, device="plughw:1,0",
                                                              earpieces=(("A", "sim"),)))
    checks = run_checks(table, read_reader=reader, probe_i2c=lambda bus, address: None, make_factory=backend,
                        groups=lambda: {"users"}, user=lambda: "pi", is_root=lambda: False, dev=fake_dev,
                        find_espeak=lambda: None, play_sound=play, lang=lang)
    report = format_checks(checks, lang)
    english = format_checks(run_checks(table, read_reader=reader, probe_i2c=lambda bus, address: None,
                                       make_factory=backend, groups=lambda: {"users"}, user=lambda: "pi",
                                       is_root=lambda: False, dev=fake_dev, find_espeak=lambda: None,
                                       play_sound=play))
    assert len(report.splitlines()) == len(english.splitlines()) > 20  # every check, every fix
    assert {"the", "is", "not"} <= english_words(ZONE.sub("", english))
    assert english_words(ZONE.sub("", report)) == set(), report
    assert "sudo usermod -aG" in report and "`aplay -L`" in report  # the commands as typed
    simulated = format_checks(run_checks(simulated_table(), lang=lang), lang)
    assert english_words(ZONE.sub("", simulated)) == set(), simulated


def test_the_report_follows_the_table_files_language(tmp_path: Path) -> None:
    from firmware_host.checks.doctor import report_language

    path = tmp_path / "table.toml"
    path.write_text(shipped_table_path("simulated").read_text().replace("[table]\n", '[table]\nlanguage = "fr"\n', 1))

    assert report_language(path) == "fr" and report_language(path, "it") == "it"
    assert report_language(tmp_path / "missing.toml") == "en"
    assert "toutes les vérifications sont bonnes" in format_checks(run_checks(path), "fr")


# -- the buttons' backend: which, and why ---------------------------------------------------------


def test_the_buttons_line_says_the_backend_chosen_for_the_board_and_why(table_file: Path) -> None:
    table_file.write_text(TABLE.replace('backend = "lgpio"', 'backend = "auto"'))
    asked: list[str] = []

    class Factory:
        def close(self) -> None:
            pass

    def make(backend: str) -> Factory:
        asked.append(backend)
        return Factory()

    def zero_2_w(backend: str) -> BackendChoice:
        return choose_backend(backend, read_board=lambda: "Raspberry Pi Zero 2 W Rev 1.0")

    checks = run_checks(table_file, read_reader=lambda pad: "PN532v1.6", probe_i2c=lambda bus, address: None,
                        make_factory=make, choose_pins=zero_2_w)
    buttons = by_name(checks)["buttons"]
    assert buttons.ok and asked == ["lgpio"]
    assert buttons.detail.startswith(
        "Factory (lgpio, chosen for the Raspberry Pi Zero 2 W Rev 1.0: lgpio drives every Pi "
        "(RPi.GPIO 0.7.1 cannot detect edges on kernels since 6.6, nor drive a Pi 5)); A: ")
    french = by_name(run_checks(table_file, read_reader=lambda pad: "PN532v1.6", probe_i2c=lambda bus, address: None,
                                make_factory=make, choose_pins=zero_2_w, lang="fr"))["boutons"]
    assert "lgpio, choisi pour le Raspberry Pi Zero 2 W Rev 1.0 : lgpio pilote tous les Pi" in french.detail


def test_a_named_backend_is_said_to_be_the_table_files(table_file: Path) -> None:
    checks = run_checks(table_file, read_reader=lambda pad: "PN532v1.6", probe_i2c=lambda bus, address: None,
                        make_factory=lambda backend: object())
    assert "(lgpio, as the table file names it)" in by_name(checks)["buttons"].detail


def test_the_chosen_backend_that_cannot_start_says_so_through_gpiozero_and_lgpio(table_file: Path) -> None:
    """The real factory maker: gpiozero's LGPIOFactory on the real lgpio, off a Pi (no revision to read)."""
    pytest.importorskip("lgpio", reason="lgpio has no wheel for this Python")
    if board_model() is not None:
        pytest.skip("on a Pi the chip opens")
    table_file.write_text(TABLE.replace('backend = "lgpio"', 'backend = "auto"'))
    def pi_4(backend: str) -> BackendChoice:
        return choose_backend(backend, read_board=lambda: "Raspberry Pi 4 Model B")

    checks = run_checks(table_file, read_reader=lambda pad: "PN532v1.6", probe_i2c=lambda bus, address: None,
                        choose_pins=pi_4)
    buttons = by_name(checks)["buttons"]
    assert not buttons.ok
    assert buttons.detail.startswith("pin backend lgpio, chosen for the Raspberry Pi 4 Model B: ")
    assert buttons.fix.startswith("gpiozero finds no Raspberry Pi here (unable to locate Pi revision")


# -- a serial port the service's device policy refuses --------------------------------------------


def test_a_reader_the_device_policy_refuses_is_not_blamed_on_dialout(tmp_path: Path) -> None:
    """The doctor opens a reader's port from inside a device cgroup that refuses its class (what
    ``DevicePolicy=closed`` does when the USB-serial driver loaded after the unit): the kernel's EPERM
    is worded as the policy, with the modules to load at boot, not as a missing group."""
    master, slave = os.openpty()
    port = os.ttyname(slave)
    try:
        table = tmp_path / "table.toml"
        text = shipped_table_path("simulated").read_text(encoding="utf-8")
        table.write_text(text.replace('"hand.A" = "sim"', f'"hand.A" = "{port}"'))
        with refusing(os.major(os.stat(port).st_rdev)) as enter:
            done = subprocess.run([sys.executable, "-m", "cli.main", "doctor", str(table),
                                   "--language", "en"], capture_output=True, text=True, timeout=120,
                                  cwd=Path(__file__).resolve().parents[3], preexec_fn=enter, check=False)
    finally:
        os.close(slave)
        os.close(master)
    lines = done.stdout.splitlines()
    reader = next(i for i, line in enumerate(lines) if "reader hand.A" in line)
    assert "operation not permitted" in lines[reader], done.stdout
    fix = lines[reader + 1]
    assert "device policy refused the port, not its groups (EPERM" in fix
    assert "cp210x, ftdi_sio, ch341 and cdc_acm" in fix and "usermod" not in fix


def test_a_port_refused_by_the_policy_only_when_opened_is_the_policy_too(table_file: Path, fake_dev: Path) -> None:
    """access() let it pass (a driver loaded meanwhile), the open is refused with EPERM: the same cause."""
    def reader(pad: PadConfig) -> str:
        raise OSError(errno.EPERM, "Operation not permitted")

    check = by_name(run_checks(table_file, read_reader=reader, probe_i2c=lambda bus, address: None,
                               dev=fake_dev))["reader hand.A"]
    assert not check.ok and check.fix.startswith("the service's device policy refused the port")


PI4_HUB = "platform-fd500000.pcie-pci-0000:01:00.0-usb-0:1.3.{}:1.0-port0"


def _plug(dev: Path, node: str, port: int, by_id: str) -> None:
    """What udev's 60-serial.rules makes for an adapter on ``node`` in the hub's ``port``."""
    (dev / node).touch()
    for kind, name in (("by-path", PI4_HUB.format(port)), ("by-id", by_id)):
        (dev / "serial" / kind).mkdir(parents=True, exist_ok=True)
        (dev / "serial" / kind / name).symlink_to(f"../../{node}")


def test_each_pad_says_which_adapter_it_is_and_a_missing_one_lists_the_spare(table_file: Path, fake_dev: Path) -> None:
    _plug(fake_dev, "ttyUSB0", 1, "usb-1a86_USB_Serial-if00-port0")  # a CH340: no serial number
    _plug(fake_dev, "ttyUSB1", 4, "usb-Silicon_Labs_CP2102_USB_to_UART_Bridge_Controller_0001-if00-port0")
    text = table_file.read_text()
    text = text.replace('"tty:USB0:pn532"', f'"/dev/serial/by-path/{PI4_HUB.format(1)}"')
    text = text.replace('"tty:USB9:pn532"', f'"/dev/serial/by-path/{PI4_HUB.format(2)}"')
    table_file.write_text(text)
    opened: list[str] = []

    def reader(pad: PadConfig) -> str:
        opened.append(pad.name)
        return "PN532v1.6"

    checks = by_name(run_checks(table_file, read_reader=reader, probe_i2c=lambda bus, address: None,
                                groups=lambda: {"i2c", "gpio", "dialout"}, is_root=lambda: False, dev=fake_dev))
    hand_a, hand_b = checks["reader hand.A"], checks["reader hand.B"]
    assert hand_a.ok and hand_a.detail.endswith(
        "; adapter: /dev/ttyUSB0, USB port 1.3.1, usb-1a86_USB_Serial-if00-port0")
    assert not hand_b.ok and f"{PI4_HUB.format(2)} does not exist" in hand_b.detail
    assert "ls -l /dev/serial/by-path/" in hand_b.fix
    assert hand_b.fix.endswith(f"Plugged in and named by no pad: /dev/serial/by-path/{PI4_HUB.format(4)}")
    assert opened == ["hand.A", "play.B"]  # play.B: a USB reader, opened too
    french = by_name(run_checks(table_file, read_reader=reader, probe_i2c=lambda bus, address: None,
                                groups=lambda: {"i2c", "gpio", "dialout"}, is_root=lambda: False, dev=fake_dev,
                                lang="fr"))
    assert "adaptateur : /dev/ttyUSB0, port USB 1.3.1" in french["lecteur hand.A"].detail
