"""The radio's noise: a tag's answer garbled or lost, a listing garbled by a collision.

A real link is not perfect, least of all when a card is being laid: it comes in at the edge of
the field, still in the hand, often onto a stack, beside a neighbouring pad's field. The
simulated field (:mod:`~drivers.nfc.pn532sim.field`) draws, with a seeded generator, what
:class:`Noise` says for each answer a tag gives and each activation a listing makes:

* **an answer garbled** (:attr:`Noise.garble`): bit errors in a tag's answer to a Type 2
  command. Most single errors break a byte's odd parity, and the PN532 reports status ``03``
  (parity error; UM0701-02, §7.1, the error table); an error in two bits of one byte keeps the
  parity and the CRC_A catches it: status ``02`` (CRC error) with the receive CRC on, or an
  answer whose CRC_A the host finds wrong with it off (nfcpy's ``_tt2_send_cmd_recv_rsp``:
  ``crc_a check error``). :data:`CRC_SHARE` of garbles are the latter. A 4-bit NAK or ACK carries
  neither parity nor CRC: a garbled one is taken as lost (below);
* **an answer lost** (:attr:`Noise.lost`): the command or the answer did not come through; the
  PN532 waits its response timeout (RFConfiguration item 02) and reports status ``01``;
* **a listing garbled by a collision** (:attr:`Noise.collision`): with two tags or more in the
  field, one activation attempt of InListPassiveTarget (REQA, anticollision, SELECT) fails: the
  tags go back to IDLE, and the chip tries again if MxRtyPassiveActivation lets it.

Garbles and losses are more likely in a card's first :attr:`Noise.settling` seconds on the pad
(× :attr:`Noise.settling_factor`) and further from the antenna: × :attr:`Noise.depth_factor` for
each tag below it in the stack (the bottom card lies nearest the antenna). A probability never
goes above :data:`MOST`.

Sources: nfcpy sends every Type 2 command again after a ``TransmissionError`` or a timeout
(``nfc/tag/tt2.py``, ``transceive(..., retries=2)``), as a real link needs; the PN532's error
table lists timeout, CRC and parity errors for a target's answer (UM0701-02, §7.1); public
reports show them on real PN532 pads: libnfc issue 550 (``Chip error: "Timeout" (01)``,
``RF Transmission Error``), ESPEasy issue 2632 (a PN532 "Read error" 0.2 s after a card was first
seen, the reads of the same card after it good). Assumptions, not measured (no public figure
gives a rate): the default rates (:data:`DEFAULT`: 0.5 % of answers garbled and 0.2 % lost for a
settled card at the bottom, 1 % of stacked activations garbled), the settling time (50 ms) and
factor (10), the depth factor (3), and that the draws are independent. Measure a real pad's with
``ecarte-table doctor --probe``; turn them up with :meth:`Noise.scaled` (``ecarte-table chips
--noise``, a simulated pad's ``noise`` in the table file).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from enum import Enum

MOST = 0.9
"""The highest any probability of the model goes (a card is never wholly deaf)."""
CRC_SHARE = 0.1
"""Share of garbled answers with two bit errors in one byte (parity kept, the CRC_A wrong);
the rest break a parity bit (an assumption: one error is likelier than two)."""


class Garble(Enum):
    """What the noise did to one answer."""

    PARITY = "parity"
    """A parity error: the PN532 reports status 03."""
    CRC = "crc"
    """Two errors in one byte: the CRC_A is wrong (status 02 with the receive CRC on)."""
    LOST = "lost"
    """No answer: the PN532 waits its timeout and reports status 01."""


@dataclass(frozen=True, slots=True)
class Noise:
    """The noise model's rates (probabilities, 0 to :data:`MOST`), for a settled card at the bottom
    of the stack (see the module's docstring).

    :raises ValueError: a rate outside 0..1, a settling time or factor below 0 or 1.
    """

    garble: float = 0.0
    lost: float = 0.0
    collision: float = 0.0
    settling: float = 0.05
    settling_factor: float = 10.0
    depth_factor: float = 3.0

    def __post_init__(self) -> None:
        for name in ("garble", "lost", "collision"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"noise {name} is a probability (0 to 1), not {value}")
        if self.settling < 0 or self.settling_factor < 1 or self.depth_factor < 1:
            raise ValueError("noise settling must be >= 0 s and its factors >= 1")

    @property
    def quiet(self) -> bool:
        """Whether the model adds no noise at all."""
        return not (self.garble or self.lost or self.collision)

    def scaled(self, level: float) -> Noise:
        """These rates times ``level`` (0: none; each at most :data:`MOST`).

        >>> DEFAULT.scaled(2).garble
        0.01

        :raises ValueError: ``level`` below 0.
        """
        if level < 0:
            raise ValueError(f"a noise level is 0 or more, not {level}")
        return dataclasses.replace(self, garble=min(self.garble * level, MOST), lost=min(self.lost * level, MOST),
                                   collision=min(self.collision * level, MOST))

    def answer_odds(self, *, below: int, settling: bool) -> tuple[float, float]:
        """The probabilities that an answer is garbled and that it is lost, for a tag with ``below``
        tags under it, ``settling`` if it was laid less than :attr:`settling` seconds ago."""
        factor = self.depth_factor ** below * (self.settling_factor if settling else 1.0)
        return min(self.garble * factor, MOST), min(self.lost * factor, MOST)


DEFAULT = Noise(garble=0.005, lost=0.002, collision=0.01)
"""The model's rates at level 1 (assumptions: see the module's docstring)."""
QUIET = Noise()
"""No noise: a perfect link."""


def of_level(level: float) -> Noise:
    """The default rates at ``level`` (0: a perfect link; 1: :data:`DEFAULT`).

    :raises ValueError: ``level`` below 0.
    """
    return DEFAULT.scaled(level) if level else QUIET


class NoiseDraws:
    """The seeded draws of one field's noise, and their counts.

    :param noise: the rates.
    :param seed: seeds the draws (the same commands give the same noise).
    """

    def __init__(self, noise: Noise = QUIET, *, seed: int = 0) -> None:
        self.noise = noise
        self._rng = random.Random(seed ^ 0x5EED)
        self.garbled = 0
        """Answers garbled so far (parity or CRC)."""
        self.lost = 0
        """Answers lost so far."""
        self.collisions = 0
        """Activations garbled by a collision so far."""

    def answer(self, *, below: int, settling: bool) -> Garble | None:
        """What the noise does to one answer of a tag (``None``: nothing)."""
        if self.noise.quiet:
            return None
        garble, lost = self.noise.answer_odds(below=below, settling=settling)
        draw = self._rng.random()
        if draw < lost:
            self.lost += 1
            return Garble.LOST
        if draw < lost + garble * (1 - lost):
            self.garbled += 1
            return Garble.CRC if self._rng.random() < CRC_SHARE else Garble.PARITY
        return None

    def collides(self, answering: int) -> bool:
        """Whether one activation among ``answering`` tags is garbled by a collision."""
        if answering < 2 or not self.noise.collision:
            return False
        if self._rng.random() < self.noise.collision:
            self.collisions += 1
            return True
        return False

    def flip(self, answer: bytes) -> bytes:
        """``answer`` with two bits of one byte flipped (its parity kept, its CRC_A wrong)."""
        at = self._rng.randrange(len(answer))
        first = self._rng.randrange(8)
        second = (first + 1 + self._rng.randrange(7)) % 8
        out = bytearray(answer)
        out[at] ^= (1 << first) | (1 << second)
        return bytes(out)
