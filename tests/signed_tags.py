"""What the tests of the tags' security share: the simulator's TEST key and signer, both simulated
packs enrolled genuine, a registry that counts its lookups, the pads' fast timing, and a table file
with a registry (``tests/hardware``, ``tests/firmware_host/cards``, ``tests/firmware_host/referee``,
``tests/firmware_host/checks``, ``tests/cli``)."""

from __future__ import annotations

from pathlib import Path

from waiting import HANG_S

from drivers.nfc.pad import PadTiming
from drivers.nfc.pn532sim import tag_signer
from firmware_host.players.simtable import sim_uid
from hardware.tag_registry import CARDS, TagEntry, TagRegistry

WAIT = HANG_S  # a hang's limit: a wait ends as soon as what it waits for comes
FAST = PadTiming(poll_interval=0.005, leave_after=2, reopen_first=0.02, reopen_max=0.2)
KEY = tag_signer.sim_public_key()
SIGNER = tag_signer.sim_signer()


class CountedRegistry(TagRegistry):
    """A tag registry that counts its lookups (``card_for``, ``pack_of`` and ``in`` ask ``entry`` too)."""

    def __init__(self) -> None:
        super().__init__()
        self.lookups = 0

    def entry(self, uid: str) -> TagEntry | None:
        self.lookups += 1
        return super().entry(uid)


def signed_registry(packs: tuple[int, ...] = (1, 2)) -> TagRegistry:
    """Both simulated packs, enrolled genuine with their TEST signatures."""
    registry = TagRegistry()
    for pack in packs:
        for card in CARDS:
            uid = sim_uid(card, pack)
            registry.add(uid, card, pack, origin="genuine", signature=SIGNER(bytes.fromhex(uid)).hex())
    return registry


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


def write_table(tmp_path: Path, registry: TagRegistry, extra: str = "") -> Path:
    """:data:`TABLE` (``extra`` in its ``[tags]``) and ``registry`` written in ``tmp_path``: the table file."""
    path = tmp_path / "table.toml"
    path.write_text(TABLE.format(extra=extra))
    registry.save(tmp_path / "tags.json")
    return path
