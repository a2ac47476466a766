"""``Closing``: every device is a context manager whose exit closes it (gpiozero's way).

    >>> class Lamp(Closing):
    ...     closed = 0
    ...     def close(self) -> None:
    ...         self.closed += 1
    >>> with Lamp() as lamp:
    ...     pass
    >>> lamp.closed
    1
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """Mixin: ``with device:`` closes the device at the end. ``close()`` must be safe twice."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        self.close()
