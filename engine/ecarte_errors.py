"""The engine's errors: one root, each also the matching builtin.

Faults of play are *not* errors: they are :class:`engine.faults.Fault` values
that the table shows. Errors are for input the engine cannot even read.
"""

from __future__ import annotations


class EcarteError(Exception):
    """Root of every error raised by ``engine``."""


class NotationError(EcarteError, ValueError):
    """Card, action or JSON notation that cannot be read. The message names the input."""


class UnknownRulesError(EcarteError, KeyError):
    """A rule set or option name that the registry does not know."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown rule set"
