"""Which sound card an ALSA device name plays on: two names of one card are one device.

A seat's earpiece must be its own sound card: ``plughw:2,0`` given to both seats, or the table's
speaker given again under another name (``default`` and ``sysdefault``, ``plughw:1,0`` and
``hw:1,0``), would let a seat hear the other's cards. The names are compared by the card they
resolve to, as ALSA's own configuration resolves them (``/usr/share/alsa/alsa.conf``, alsa-lib 1.2):

- ``hw:X,Y``, ``plughw:X,Y``, ``hw:X``, and the ``CARD=`` form of every PCM (``sysdefault:CARD=X``,
  ``front:CARD=X,DEV=0``, ``plughw:CARD=X,DEV=0``, ``dmix:CARD=X``...) name card ``X``, an index or a
  card's id (``/proc/asound/cardN/id``, read where it exists, maps an id to its index);
- ``default`` and ``sysdefault`` (and ``plug:default``...) are the default card: ``defaults.pcm.card``,
  which alsa.conf takes from ``$ALSA_PCM_CARD`` or ``$ALSA_CARD``, else card 0. An assumption: no
  ``~/.asoundrc`` or ``/etc/asound.conf`` sends ``default`` elsewhere (a sound server's ``pulse``, a
  ``dmix`` of another card), which this module does not read.

A name it cannot resolve (a PCM defined in an ``.asoundrc``) is its own card, compared as written::

    >>> card_of("plughw:1,0") == card_of("hw:1,0"), card_of("default", env={}) == card_of("sysdefault", env={})
    (True, True)
    >>> card_of("plughw:2,0") == card_of("plughw:1,0"), card_of("default", env={"ALSA_CARD": "2"})
    (False, '2')
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["card_of"]

_DEFAULTS = ("default", "sysdefault")
_CARD_FIELD = re.compile(r"(?:^|[:,])CARD=([^,]+)")
_HW = re.compile(r"^(?:plug)?hw:([^,=]+)(?:,\d+)*$")
ASOUND = Path("/proc/asound")


def card_of(device: str, env: Mapping[str, str] | None = None, asound: Path = ASOUND) -> str:
    """The card ``device`` plays on: its index as a string where ALSA's names give one, else the
    name as written (see the module)."""
    env = os.environ if env is None else env
    name = device.strip()
    if name.startswith("plug:"):
        name = name.removeprefix("plug:").strip("'\"")
    if name in _DEFAULTS:
        return _index(env.get("ALSA_PCM_CARD") or env.get("ALSA_CARD") or "0", asound)
    field = _CARD_FIELD.search(name)
    if field is not None:
        return _index(field.group(1), asound)
    hw = _HW.match(name)
    if hw is not None:
        return _index(hw.group(1), asound)
    return name


def _index(card: str, asound: Path) -> str:
    """A card's index (``"1"``) for its index or its id (``"Headset"``), where /proc says."""
    card = card.strip("'\"")
    if card.isdigit():
        return str(int(card))
    try:
        for folder in sorted(asound.glob("card[0-9]*")):
            if (folder / "id").read_text(encoding="ascii", errors="replace").strip() == card:
                return folder.name.removeprefix("card")
    except OSError:
        pass
    return card
