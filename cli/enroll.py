"""``ecarte-table enroll``: register a pack's tags on one pad of the table.

On a real table the operator lays the cards asked for on the OLED and the
console. On the simulated table a simulated operator lays the simulated pack's
stickers, so the whole walk (real nfcpy driver, real registry file) can be seen
and tested anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import queue
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from catalogue import say, say_n
from cli.args import language_option, sim_registry
from drivers.device_events import DeviceEvent
from firmware_host.cards.enroll import Originality, enroll

logger = logging.getLogger(__name__)

READER_WAIT_S = 15.0
"""Seconds to wait for the pad's reader to answer before giving up."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``enroll`` to the ``ecarte-table`` sub-commands."""
    enroll: argparse.ArgumentParser = sub.add_parser(
        "enroll", description=(
        "Walk through the 32 cards in order: place each on the pad, lift it, next. Writes the tag "
        "registry named in the table file."))
    enroll.add_argument("table", nargs="?", help="the table file (default: the simulated table)")
    enroll.add_argument("--pad", default=None, help="the pad to enroll on (default: the first)")
    enroll.add_argument("--pack", type=int, choices=(1, 2), default=1, help="which pack (1 or 2)")
    enroll.add_argument("--registry", type=Path, help="the registry file (default: the table file's)")
    enroll.add_argument("--write-ndef", action="store_true", help="also write 'ecarte:KS' on each tag")
    enroll.add_argument("--lock", action="store_true",
                        help="password-lock each tag against rewriting ([tags] lock_secret_file)")
    enroll.add_argument("--no-check", dest="check", action="store_false",
                        help="do not check the tags' originality signatures")
    enroll.add_argument("--badge", metavar="NAME",
                        help="enrol one badge instead of a pack: a player's name (player:NAME), or a rule "
                             "card (rules:NAME, option:NAME, target:N), written to the badges file "
                             "([table] badges, else badges.json beside the registry)")
    language_option(enroll, help="the console's and the OLED's language (default: the table file's language)")
    return enroll


def run_enroll(args: argparse.Namespace) -> int:
    """``ecarte-table enroll``: returns the exit status."""
    from catalogue import card_words
    from firmware_host.app import load_table_or_exit
    from firmware_host.errors import BadInput
    from firmware_host.screens.panel import open_panel
    from hardware.tag_registry import TagRegistry, TagRegistryError

    table = load_table_or_exit(args.table)
    lang = args.language or table.language
    registry_path = args.registry or table.registry
    if registry_path is None:
        if not table.simulated:
            raise BadInput(msgid="error.registry_not_named")
        registry_path = sim_registry()
        registry_path.parent.mkdir(parents=True, exist_ok=True)
    registry_path = Path(registry_path)
    try:
        registry = TagRegistry.load(registry_path) if registry_path.exists() else TagRegistry()
    except (OSError, ValueError, TagRegistryError) as exc:
        raise BadInput(msgid="error.tag_registry", path=registry_path, reason=exc) from None
    _check_writable(registry_path)
    pad_config = the_pad(table, args.pad)
    if not pad_config.simulated and pad_config.serial_port and not os.path.exists(pad_config.serial_port):
        raise BadInput(msgid="error.no_reader", pad=pad_config.name, port=pad_config.serial_port)
    tag_options = _tag_options(table, args)
    if args.badge is not None:
        return _enroll_badge(args, table, registry, registry_path, pad_config, tag_options, lang)
    print(say(lang, "enrol_console.start", pack=args.pack, path=registry_path), flush=True)  # every check passed
    panel = open_panel(table, tolerant=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()

    def show(lines: list[str]) -> None:
        print(" | ".join(lines), flush=True)
        panel.message(lines)

    operator: threading.Thread | None = None
    try:
        with one_pad(pad_config, events, "enroll") as (pad, sim):
            if sim is not None:
                operator = threading.Thread(
                    target=_simulated_operator, args=(sim, pad, args.pack, registry), daemon=True,
                )
                operator.start()
            result = enroll(
                events, registry, show, pack=args.pack, save_to=registry_path, lang=lang,
                write_tag=_writer(pad, tag_options.get("secret")) if args.write_ndef else None,
                **_walk_options(pad, table, tag_options),
            )
    finally:
        panel.close()
    print(say_n(lang, "enrol_console.done" if result.complete else "enrol_console.incomplete", len(result.enrolled),
                pack=result.pack, path=registry_path))
    for flagged in result.flagged:
        print(say(lang, "enrol_console.flagged", card=card_words(lang, flagged.card), uid=flagged.uid,
                  why=say(lang, "origin." + flagged.origin)))
    return 0 if result.complete and not result.flagged else 1


def _enroll_badge(args: argparse.Namespace, table: Any, registry: Any, registry_path: Path, pad_config: Any,
                  tag_options: dict[str, Any], lang: str) -> int:
    """``enroll --badge NAME``: one badge's tag, checked and locked as a card's, into the badges file.

    :raises BadInput: a bad badge name, a badges file that cannot be read.
    """
    from firmware_host.cards.enroll import enroll_badge
    from firmware_host.errors import BadInput, words_of
    from firmware_host.screens.i18n import screen_name
    from firmware_host.screens.panel import open_panel
    from hardware.badges import KINDS, Badges, badges_path, check_tag
    from hardware.tag_registry import TagRegistryError

    text = args.badge if args.badge.partition(":")[0] in KINDS else f"player:{args.badge}"
    try:
        tag = check_tag(text)
    except TagRegistryError as exc:
        raise BadInput(msgid="error.option", option="--badge", why=words_of(exc)) from None
    path = badges_path(table) or registry_path.with_name("badges.json")
    try:
        Badges.load(path)
    except TagRegistryError as exc:
        raise BadInput.of(exc) from None
    panel = open_panel(table, tolerant=True)
    events: queue.Queue[DeviceEvent] = queue.Queue()

    def show(lines: list[str]) -> None:
        print(" | ".join(lines), flush=True)
        panel.message(lines)

    def save(uid: str, said: str) -> None:
        Badges.load(path).add(uid, said).save(path)

    try:
        with one_pad(pad_config, events, "enroll") as (pad, sim):
            options = _walk_options(pad, table, tag_options)
            if sim is not None:
                threading.Thread(target=_simulated_badge, args=(sim, pad, tag, path), daemon=True).start()
            result = enroll_badge(events, tag, registry, save, show, lang=lang, check=options.get("check"),
                                  refuse_flagged=options.get("refuse_flagged", False), lock=options.get("lock"),
                                  label=f"{say(lang, 'badge.kind.' + tag.partition(':')[0])}: "
                                        f"{screen_name(tag.partition(':')[2])}")
    finally:
        panel.close()
    if result.uid is None:
        return 1
    print(say(lang, "enrol_console.badge_locked" if result.locked else "enrol_console.badge", badge=tag, uid=result.uid,
              why=say(lang, "origin." + str(result.origin)), path=path))
    return 0


def _simulated_badge(sim: Any, pad: Any, tag: str, path: Path) -> None:
    """Lays a badge's sticker (a UID of its own, from the badge's words) until it is saved."""
    import hashlib

    from hardware.badges import Badges

    uid = "04" + hashlib.sha256(tag.encode()).hexdigest()[:12].upper()
    sim.place(uid)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if uid in Badges.load(path).tags:
                break
        except ValueError:
            pass
        time.sleep(0.01)
    sim.remove(uid)


def _tag_options(table: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The trusted key, the lock secret (``--lock``) and whether flagged tags are refused.

    :raises BadInput: a bad trusted key, or ``--lock`` without a readable secret.
    """
    from firmware_host.errors import BadInput
    from hardware import locks, ntag_signature

    options: dict[str, Any] = {"check": args.check, "refuse": table.tags.require_signature}
    try:
        options["key"] = ntag_signature.trusted_key(table.tags.key_name(table.simulated_pads))
    except ntag_signature.OriginalityError as exc:
        raise BadInput(msgid="error.trusted_key", why=exc) from None
    if args.lock and table.tags.lock_secret_file is None:
        raise BadInput(msgid="error.lock_needs_secret")
    if table.tags.lock_secret_file is not None:  # it seals every entry, locked or not
        try:
            options["seal"] = locks.load_secret(table.tags.lock_secret_file)
        except locks.LockSecretError as exc:
            raise BadInput.of(exc) from None
        if args.lock:
            options["secret"] = options["seal"]
    return options


def _walk_options(pad: Any, table: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``enroll``'s ``check``, ``refuse_flagged``, ``lock`` and ``lock_id`` for this pad."""
    from hardware import locks, ntag_signature

    walk: dict[str, Any] = {}
    if options["check"]:
        key = options["key"]

        def check(uid: str) -> Originality:
            facts = pad.read_facts(uid)
            signature = facts.signature.hex().upper() if facts is not None and facts.signature else None
            return Originality(ntag_signature.judge(uid, facts, key), signature)

        walk["check"] = check
        walk["refuse_flagged"] = options["refuse"]
    secret = options.get("secret")
    if secret is not None:
        walk["lock"] = lambda uid: pad.lock(uid, locks.tag_password(secret, uid), auth_limit=locks.AUTHLIM)
        walk["lock_id"] = locks.lock_id(secret)
        walk["auth_limit"] = locks.auth_attempts()
    walk["seal_secret"] = options.get("seal")
    return walk


def _writer(pad: Any, secret: bytes | None) -> Any:
    """``write_tag``: the NDEF record, with the tag's password if it is locked already."""
    from drivers.nfc.reader import TagWriteError
    from hardware import locks

    def write(uid: str, text: str) -> None:
        try:
            pad.write_text(uid, text)
        except TagWriteError:
            if secret is None:
                raise
            pad.write_text(uid, text, password=locks.tag_password(secret, uid))

    return write


def the_pad(table: Any, name: str | None) -> Any:
    """The pad ``name`` of ``table`` (None: its first).

    :raises BadInput: a pad the table does not have, the one meant or those it has.
    """
    from firmware_host.errors import BadInput
    from hardware.table_config import NoSuchPad

    if name is None:
        return table.pads[0]
    try:
        return table.pad(name)
    except NoSuchPad as exc:
        raise BadInput(msgid="error.option", option="--pad", why=exc.words) from None


def _check_writable(path: Path) -> None:
    """The registry is saved after every card: say now, not after the first, if it cannot be.

    :raises BadInput: naming the file and why.
    """
    from catalogue.phrase import Phrase
    from firmware_host.errors import BadInput

    if path.is_dir():
        raise BadInput(msgid="error.tag_registry", path=path, reason=Phrase.of("os.EISDIR"))
    if not path.parent.is_dir():
        raise BadInput(msgid="error.tag_registry", path=path, reason=Phrase.of("error.no_folder", folder=path.parent))
    try:
        if path.exists():
            with open(path, "ab"):
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".ecarte-enroll-"):
                pass
    except OSError as exc:
        raise BadInput(msgid="error.tag_registry", path=path,
                       reason=BadInput(msgid="error.cannot_write_it", reason=exc)) from None


@contextlib.contextmanager
def one_pad(pad_config: Any, events: queue.Queue[DeviceEvent], name: str, *,
            originality: Any = None) -> Iterator[tuple[Any, Any]]:
    """The pad of ``pad_config`` (a simulated PN532 for a ``sim`` pad, whose tags the simulator's
    TEST key signs), online, feeding ``events``: ``(pad, simulator or None)``; closed after.
    ``originality``: the check each arriving tag is put to (the deck check's, where the table
    requires signatures).

    :raises BadInput: the reader does not answer.
    """
    from drivers.nfc.pad import Pad

    sim: Any = None
    try:
        if pad_config.simulated:
            from drivers.nfc.pn532sim import Pn532Simulator
            from drivers.nfc.pn532sim.noise import of_level
            from drivers.nfc.pn532sim.tag_signer import sim_signer

            sim = Pn532Simulator(name=f"pn532-{name}", signer=sim_signer(), noise=of_level(pad_config.noise))
            path = sim.path
        else:
            path = pad_config.serial_port or pad_config.device
        with Pad(pad_config.name, path, events=events, card_for=None, read_ndef=False,
                 originality=originality) as pad:
            _wait_online(pad, path)
            yield pad, sim
    finally:
        if sim is not None:
            sim.close()


def _wait_online(pad: Any, path: str) -> None:
    """Give up with a clear message when the reader does not answer.

    :raises BadInput: after :data:`READER_WAIT_S` seconds without an answer.
    """
    from firmware_host.errors import BadInput

    deadline = time.monotonic() + READER_WAIT_S
    while not pad.online:
        if time.monotonic() > deadline:
            raise BadInput(msgid="error.reader_silent", pad=pad.zone, port=path, seconds=f"{READER_WAIT_S:.0f}")
        time.sleep(0.02)


def _simulated_operator(sim: Any, pad: Any, pack: int, registry: Any) -> None:
    """Lays the simulated pack's stickers in order, as the walk asks."""
    from firmware_host.players.simtable import sim_uid
    from hardware.tag_registry import CARDS

    for card in CARDS:
        if registry.uid_for(card, pack) is not None:
            continue
        uid = sim_uid(card, pack)
        sim.place(uid)
        deadline = time.monotonic() + 10
        while uid not in pad.present and time.monotonic() < deadline:
            time.sleep(0.005)
        while registry.uid_for(card, pack) is None and time.monotonic() < deadline:
            time.sleep(0.005)
        sim.remove(uid)
        while pad.present and time.monotonic() < deadline:
            time.sleep(0.005)


run = run_enroll
"""The command, as :mod:`cli.main` calls every command."""
