"""Placeholder replaced when the display driver lands."""

from __future__ import annotations

from typing import Any


class _NoPanel:
    def show(self, controller: Any) -> None:
        pass

    def paused(self, message: str) -> None:
        pass

    def message(self, lines: Any) -> None:
        pass

    def close(self) -> None:
        pass


def open_panel(table: Any, *, png_dir: Any = None, terminal: Any = None, only_tricks: bool = False) -> _NoPanel:
    return _NoPanel()
