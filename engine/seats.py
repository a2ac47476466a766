"""The two seats of an écarté table, named once: ``A`` and ``B``.

    >>> SEATS, OTHER["A"], INDEX["B"]
    (('A', 'B'), 'B', 1)

A value for each seat is written ``{"A": …, "B": …}`` in every JSON the table makes, the shape of
:class:`PerSeat`::

    >>> PerSeat.of((3, 2)).to_json(), PerSeat.from_json({"A": "KD", "B": "AD"})["B"]
    ({'A': 3, 'B': 2}, 'AD')

Every part of the table that names a seat (actions, the state, the journal's summaries, the
screens, the page) takes it from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")

SEATS = ("A", "B")
"""The seats, in the order of every pair the engine keeps (hands, scores, tricks)."""
OTHER = {"A": "B", "B": "A"}
"""Each seat's opponent."""
INDEX = {"A": 0, "B": 1}
"""Each seat's place in those pairs."""


@dataclass(frozen=True, slots=True)
class PerSeat(Generic[T]):
    """One value for each seat (A's, then B's), and its JSON shape ``{"A": a, "B": b}``, written once."""

    a: T
    b: T

    @classmethod
    def of(cls, pair: Sequence[T]) -> PerSeat[T]:
        """The values of ``pair``, in the seats' order (the engine's pairs: hands, scores, tricks).

        :raises ValueError: not two values.
        """
        if len(pair) != 2:
            raise ValueError(f"one value for each seat (A, B), got {len(pair)}")
        return cls(pair[0], pair[1])

    @classmethod
    def from_json(cls, data: object) -> PerSeat[Any]:
        """The values of a ``{"A": a, "B": b}`` object.

        :raises ValueError: not an object naming A and B, and nothing else.
        """
        if not isinstance(data, Mapping) or set(data) != set(SEATS):
            raise ValueError("must name A and B")
        return cls(data["A"], data["B"])

    def __getitem__(self, seat: str) -> T:
        """The value of ``seat`` (``"A"`` or ``"B"``).

        :raises KeyError: not a seat.
        """
        if seat == "A":
            return self.a
        if seat == "B":
            return self.b
        raise KeyError(seat)

    def __iter__(self) -> Iterator[T]:
        return iter((self.a, self.b))

    def map(self, f: Callable[[T], U]) -> PerSeat[U]:
        """``f`` of each seat's value."""
        return PerSeat(f(self.a), f(self.b))

    def to_json(self) -> dict[str, T]:
        """``{"A": a, "B": b}``."""
        return {"A": self.a, "B": self.b}
