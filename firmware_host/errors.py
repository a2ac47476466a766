"""The service's errors."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Said(Protocol):
    """Words kept as data until printed (a :class:`~catalogue.phrase.Phrase`, a table file's problems)."""

    def said(self, lang: str) -> str:
        """The words in ``lang``."""
        ...


class BadInput(Exception):
    """Input the table cannot use: the message names the file, the line and what was expected.

    The command line prints it and exits with status 2, in the language asked (``--language``, else
    the environment's ``LANG``) where the message is the catalogue's: ``msgid`` and its ``values``,
    an :class:`OSError` among them said in words (:func:`os_reason`), a value that says itself (a tag
    registry's refusal) said in the language; or ``words`` that say themselves
    (a table file's problems). ``language``: the language of the input itself, where it names one (a
    table file's ``[table] language``), said in when no ``--language`` is given.
    """

    def __init__(self, message: str, *, msgid: str | None = None, words: Said | None = None,
                 language: str | None = None, **values: Any) -> None:
        super().__init__(message)
        self.msgid = msgid
        self.words = words
        self.language = language
        self.values = values

    def said(self, lang: str) -> str:
        """The message in ``lang`` (as raised where it has no message id nor ``words``)."""
        if self.words is not None:
            return self.words.said(lang)
        if self.msgid is None:
            return str(self)
        from catalogue import has, say

        if not has(self.msgid):
            return str(self)
        values = {k: os_reason(lang, v) if isinstance(v, OSError) else v.said(lang) if isinstance(v, Said) else v
                  for k, v in self.values.items()}
        return say(lang, self.msgid, **values)


def os_reason(lang: str, exc: OSError) -> str:
    """Why the system refused, in ``lang``'s words (``os.ENOENT``: "no existe"), else the system's own."""
    from catalogue.phrase import os_reason as said

    return said(lang, exc)
