"""``ecarte-table doctor --probe``: the bring-up of a table's readers, frame by frame.

A maker runs it on the first real build, service stopped, each pad empty. For every pad's
reader it says, one line each (:class:`~firmware_host.checks.doctor.Check`, in the table's
language):

1. the firmware (GetFirmwareVersion: ``PN532 v1.6``) and the serial link's speed;
2. a poll of the empty pad (what it lists: nothing, or what lies on it already);
3. one card laid: first asked as a game asks it, the path the pads take (the poll that lists it
   asks its ``READ_SIG`` first, while its listing holds it; a card laid on an empty pad is listed
   alone, as a pad waiting for a card lists it); then the tags a few polls list, and each tag's
   ``GET_VERSION`` and ``READ_SIG`` asked apart, with the verdict of the table's trusted key
   (:func:`hardware.ntag_signature.judge`);
4. a second card laid on it, then a third: the new card asked as a game asks a card laid on a pad
   that already holds cards (the listing may halt it to find another: it is then selected again,
   by InSelect, else by a listing with its UID; the line says how), then what the pad lists of a
   stack of two and of three (a pad reads only so deep: the table file's ``depth``), and each
   listed tag's answers.

Before each of steps 3 and 4 the maker is asked (``ask``) to lay the cards; skipping a step
is allowed. Every PN532 frame of these exchanges, both ways, is written down
(:class:`~drivers.nfc.frame_log.FrameLog`) to a file the maker can attach to a bug report.

On the simulated table each simulated pad gets a simulated PN532 for the probe and a simulated
maker lays genuine cards (signed with the TEST key) at each step: the same code, frames and
report as on a real table.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from catalogue import is_plural, os_reason, say, say_n
from drivers.device_events import Origin
from drivers.nfc.frame_log import FrameLog, RecordingTty
from drivers.nfc.pn532sim import tag_signer
from drivers.nfc.reader import READER_ERRORS, AskEvery
from firmware_host.checks.doctor import Check
from hardware import ntag_signature
from hardware.table_config import PadConfig, TableConfig

if TYPE_CHECKING:
    from drivers.nfc.pn532_reader import NfcpyReader

logger = logging.getLogger(__name__)

LAID = (1, 2, 3)
"""The cards the maker lays at the steps: one, then a second on it, then a third."""
POLLS = 5
"""Polls of each step: a tag of a stack may miss one (its tags are the union)."""
POLL_GAP = 0.02
"""Seconds between those polls (as the pads poll)."""

RETRIES = 2
"""Times an exchange of the probe is tried again after it failed (a PN532 ACK nfcpy missed: it waits
100 ms for it, which a busy host can miss, as the pads forgive a failed poll), the reader put back in
step first (:meth:`NfcpyReader.resync`); a reader that fails every try is a failing line."""

T = TypeVar("T")

Ask = Callable[[PadConfig, int], bool]
"""Asks the maker to lay ``n`` cards on the pad (one more than before): False to skip the step."""


def _say(lang: str, key: str, /, n: int | None = None, **values: object) -> str:
    msgid = "probe." + key
    if n is not None and is_plural(msgid):  # a count: the language's plural form for it
        return say_n(lang, msgid, n, **values)
    return say(lang, msgid, **({} if n is None else {"n": n}), **values)


def firmware_text(answer: bytes) -> str:
    """GetFirmwareVersion's answer as a maker reads it (UM0701-02, §7.2.2).

    >>> firmware_text(bytes.fromhex("32010607"))
    'PN532 v1.6 (32 01 06 07: ISO/IEC 14443 A, B, ISO 18092)'
    """
    if len(answer) != 4:
        return answer.hex(" ").upper() or "-"
    ic, version, revision, support = answer
    modes = [name for bit, name in ((1, "ISO/IEC 14443 A"), (2, "B"), (4, "ISO 18092")) if support & bit]
    chip = f"PN5{ic:02X}" if ic in (0x32, 0x33) else f"IC {ic:02X}"
    return f"{chip} v{version}.{revision} ({answer.hex(' ').upper()}: {', '.join(modes) or '-'})"


def probe_reader(pad: PadConfig, port: str, frames: FrameLog, ask: Ask, *, key: bytes,
                 lang: str = "en") -> list[Check]:
    """Probe the PN532 on serial ``port`` under ``pad``: the steps of the module's docstring.

    Never raises for a failing reader: a reader that cannot be opened or stops answering is a
    failing :class:`Check` and the probe goes on with the next.
    """
    from drivers.nfc.pn532_reader import NfcpyReader

    frames.comment(f"pad {pad.name}: {pad.device} ({port})")
    opened: list[RecordingTty] = []

    def transport(path: str) -> RecordingTty:
        tty = RecordingTty(path, frames, pad.name)
        opened.append(tty)
        return tty

    name = _say(lang, "firmware", pad=pad.name)
    retried = _Retried(pad, frames)
    try:
        reader = retried.opening(lambda: NfcpyReader(port, transport=transport), port)
    except READER_ERRORS as exc:
        logger.debug("probe %s: %r", pad.name, exc, exc_info=True)
        return [Check(name, False, f"{pad.device}: {exc}", say(lang, "doctor.pn532_silent"))]
    retried.reader = reader
    checks: list[Check] = []

    def add(*lines: Check) -> None:
        checks.extend(retried.told(line, lang) for line in lines)

    try:
        try:
            firmware = firmware_text(retried(reader.firmware))
            baud = opened[-1].baudrate if opened else 0
            add(Check(name, True, _say(lang, "firmware_ok", firmware=firmware, device=pad.device, baud=baud)))
            frames.comment(f"pad {pad.name}: a poll")
            listed = retried(reader.poll)
            add(Check(_say(lang, "poll", pad=pad.name), True, _listed(listed, lang)))
            known = set(listed)
            for laid in LAID:
                if not ask(pad, laid):
                    add(Check(_say(lang, "stack", pad=pad.name, n=laid), True, _say(lang, "skipped")))
                    continue
                frames.comment(f"pad {pad.name}: cards laid: {laid}")
                add(*_in_play(reader, retried, pad, known, key, lang))
                step, seen = _step(reader, retried, pad, laid, key, lang)
                add(*step)
                known |= set(seen)
        except READER_ERRORS as exc:
            logger.debug("probe %s: %r", pad.name, exc, exc_info=True)
            add(Check(name, False, f"{pad.device}: {exc}", say(lang, "doctor.pn532_silent")))
    finally:
        reader.close()
    return checks


class _Retried:
    """Tries an exchange of the probe again after it failed, :data:`RETRIES` times, the reader put back
    in step first; counts the tries, which the next line of the report says (:meth:`told`)."""

    def __init__(self, pad: PadConfig, frames: FrameLog) -> None:
        self.pad = pad
        self.frames = frames
        self.reader: NfcpyReader | None = None
        self.untold = 0

    def __call__(self, exchange: Callable[[], T]) -> T:
        for attempt in range(RETRIES + 1):
            try:
                return exchange()
            except READER_ERRORS as exc:
                if attempt == RETRIES or self.reader is None:
                    raise
                self._again(exc)
                self.reader.resync()
        raise AssertionError("unreachable")  # pragma: no cover

    def opening(self, open_reader: Callable[[], NfcpyReader], port: str) -> NfcpyReader:
        """The reader opened, tried again if no PN532 answered (a missed first ACK), not if the port
        is not there."""
        for attempt in range(RETRIES + 1):
            try:
                return open_reader()
            except READER_ERRORS as exc:
                if attempt == RETRIES or not os.path.exists(port):
                    raise
                self._again(exc)
        raise AssertionError("unreachable")  # pragma: no cover

    def _again(self, exc: BaseException) -> None:
        self.untold += 1
        logger.debug("probe %s: tried again after %r", self.pad.name, exc)
        self.frames.comment(f"pad {self.pad.name}: tried again after: {exc}")

    def told(self, line: Check, lang: str) -> Check:
        """``line`` saying the exchanges tried again since the last line, if any."""
        if not self.untold:
            return line
        detail = line.detail + "; " + _say(lang, "retried", n=self.untold)
        self.untold = 0
        return Check(line.name, line.ok, detail, line.fix)


def _listed(uids: tuple[str, ...] | list[str], lang: str) -> str:
    return _say(lang, "listed", n=len(uids), uids=" ".join(uids)) if uids else _say(lang, "nothing")



IN_PLAY_WAIT = 0.25
"""Seconds the first poll of a step lets the PN532 wait for a card on an empty pad (a pad's ``idle_wait``)."""


def _in_play(reader: NfcpyReader, retried: _Retried, pad: PadConfig,
             known: set[str], key: bytes, lang: str) -> list[Check]:
    """The cards just laid asked as a game asks them (:meth:`NfcpyReader.poll` with ``ask``: ``READ_SIG``
    first, while the listing that found each holds it; on an empty pad, the waiting poll of a pad that
    waits for a card, which lists one tag at a time): a line each, its answers, its verdict and how it
    was selected again if the listing had halted it (InSelect, a listing with its UID, a field reset)."""
    inquiry = AskEvery()
    before = reader.reselections
    for poll in range(POLLS):
        if poll:
            time.sleep(POLL_GAP)
        retried(lambda: reader.poll(wait=0.0 if known else IN_PLAY_WAIT, ask=inquiry))
        if set(inquiry.facts) - known:
            break
    after = reader.reselections
    again = (after.in_select - before.in_select, after.in_select_missed - before.in_select_missed,
             after.by_uid - before.by_uid, after.field_reset - before.field_reset)
    checks = []
    for uid, facts in inquiry.facts.items():
        if uid in known:
            continue  # laid at an earlier step: asked only to be selected again
        verdict = ntag_signature.judge(uid, facts, key)
        version = facts.version.hex(" ").upper() if facts.version else _say(lang, "not_asked")
        signature = facts.signature.hex().upper() if facts.signature else _say(lang, "no_answer")
        detail = _say(lang, "facts", get_version="GET_VERSION", version=version, read_sig="READ_SIG",
                      signature=signature, verdict=verdict)
        if any(again):
            detail += "; " + _say(lang, "selected_again", in_select=again[0], missed=again[1], by_uid=again[2],
                                  field_reset=again[3])
        name = _say(lang, "in_play", pad=pad.name, uid=uid, read_sig="READ_SIG")
        checks.append(Check(name, verdict == Origin.GENUINE, detail, _say(lang, "fix_card")))
    return checks


def _step(reader: NfcpyReader, retried: _Retried, pad: PadConfig, laid: int, key: bytes,
          lang: str) -> tuple[list[Check], list[str]]:
    """Poll a few times, then ask each listed tag its GET_VERSION and READ_SIG; the lines, and the
    tags listed."""
    seen: list[str] = []
    for poll in range(POLLS):
        if poll:
            time.sleep(POLL_GAP)
        seen += [uid for uid in retried(reader.poll) if uid not in seen]
    want = min(laid, pad.depth)
    name = _say(lang, "stack", pad=pad.name, n=laid)
    detail = _say(lang, "seen", listed=_listed(seen, lang), depth=pad.depth)
    checks = [Check(name, len(seen) >= want, detail,
                    _say(lang, "fix_depth", pad=pad.name, n=max(len(seen), 1)) if seen else _say(lang, "fix_nothing"))]
    for uid in seen:
        facts = retried(lambda: reader.read_facts(uid))  # noqa: B023 (called at once)
        verdict = ntag_signature.judge(uid, facts, key)
        version = facts.version.hex(" ").upper() if facts is not None and facts.version else _say(lang, "no_answer")
        signature = facts.signature.hex().upper() if facts is not None and facts.signature else _say(lang, "no_answer")
        checks.append(Check(_say(lang, "card", pad=pad.name, uid=uid), verdict == Origin.GENUINE,
                            _say(lang, "facts", get_version="GET_VERSION", version=version, read_sig="READ_SIG",
                                 signature=signature, verdict=verdict),
                            _say(lang, "fix_card")))
    return checks, seen


def ask_at_the_console(lang: str, read: Callable[[str], str] = input) -> Ask:
    """Ask the maker at the console: Enter once the cards lie on the pad, ``s`` Enter to skip."""

    def ask(pad: PadConfig, laid: int) -> bool:
        try:
            answer = read(_say(lang, f"lay.{laid}", pad=pad.name) + " ")
        except EOFError:
            return False
        return answer.strip().lower() not in ("s", "skip")

    return ask


@contextmanager
def simulated_readers(config: TableConfig) -> Iterator[tuple[dict[str, str], Ask]]:
    """A simulated PN532 for each simulated pad of ``config`` (as deep as the pad, as noisy), and a simulated
    maker who lays genuine cards, signed with the TEST key, as each step asks: the ports by pad
    name, and the maker."""
    from drivers.nfc.pn532sim import Pn532Simulator
    from drivers.nfc.pn532sim.noise import of_level

    with ExitStack() as stack:
        sims = {pad.name: stack.enter_context(Pn532Simulator(name=f"tty{pad.name}", depth=pad.depth, miss=0.0,
                                                             signer=tag_signer.sim_signer(),
                                                             noise=of_level(pad.noise)))
                for pad in config.pads if pad.simulated}

        def maker(pad: PadConfig, laid: int) -> bool:
            sims[pad.name].place(f"04{config.pads.index(pad):02X}B0C0D0E0{laid:02X}")
            return True

        yield {name: sim.path for name, sim in sims.items()}, maker


def run_probe(config: TableConfig, frames_path: Path, *, ask: Ask | None = None, lang: str | None = None,
              ports: dict[str, str] | None = None) -> list[Check]:
    """Probe every reader of ``config`` and write every PN532 frame to ``frames_path``.

    :param ask: asks the maker to lay cards (the console by default).
    :param ports: the serial port of each pad by name (default: the table file's ``device``).
    :returns: the probe's lines, the frames file's last.
    """
    lang = lang or config.language
    ask = ask or ask_at_the_console(lang)
    frames = FrameLog()
    try:
        key = ntag_signature.trusted_key(config.tags.key_name(config.simulated_pads))
    except ntag_signature.OriginalityError:
        key = ntag_signature.NXP_NTAG21X_KEY
    checks: list[Check] = []
    for pad in config.pads:
        port = (ports or {}).get(pad.name) or pad.serial_port
        if port is None:
            checks.append(Check(_say(lang, "firmware", pad=pad.name), False,
                                _say(lang, "not_serial", device=pad.device), say(lang, "doctor.check_usb")))
            continue
        # the /dev node a udev symlink names: nfcpy's pn532.init waits longer for a ttyUSB's first answer on a Pi
        checks += probe_reader(pad, os.path.realpath(port), frames, ask, key=key, lang=lang)
    header = [f"ecarte-table doctor --probe, {datetime.now(UTC).isoformat(timespec='seconds')}",
              f"table: {config.source or config.name}", *_versions(),
              "time (s), pad, > host to PN532 or < PN532 to host, the frame's bytes, what it is"]
    name = _say(lang, "frames_file")
    try:
        frames.write(frames_path, header)
    except OSError as exc:
        checks.append(Check(name, False, f"{frames_path}: {os_reason(lang, exc)}", _say(lang, "fix_frames")))
    else:
        checks.append(Check(name, True, _say(lang, "frames", path=frames_path, n=len(frames.lines))))
    return checks


def _versions() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in ("nfcpy",):
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} not installed")
    return found
