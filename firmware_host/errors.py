"""The service's errors."""

from __future__ import annotations

from typing import Any

from catalogue import os_reason

__all__ = ["BadInput", "Said", "os_reason"]


class BadInput(Exception):
    """Input the table cannot use: the message names the file, the line and what was expected.

    The command line prints it and exits with status 2, in the language asked (``--language``, else
    the environment's ``LANG``) where the message is the catalogue's: ``msgid`` and its ``values``
    (then its English, ``str()``, is the catalogue's too, unless ``message`` is given), an
    :class:`OSError` among them said in words with :func:`os_reason`, a word of the catalogue given as
    :class:`Said` said in the language too::

        >>> BadInput(msgid="error.no_journal", path="/x/j.sqlite").said("es")
        'no hay ningún diario en /x/j.sqlite'
        >>> str(BadInput(msgid="error.no_journal", path="/x/j.sqlite"))
        'no journal at /x/j.sqlite'
    """

    def __init__(self, message: str | None = None, *, msgid: str | None = None, **values: Any) -> None:
        if message is None:
            if msgid is None:
                raise TypeError("BadInput needs its message, or its message id")
            message = _said("en", msgid, values)
        super().__init__(message)
        self.msgid = msgid
        self.values = values

    @classmethod
    def of(cls, exc: BaseException) -> BadInput:
        """``exc`` refused as input: in words where it carries them (a ``msgid`` and ``values``, as a
        BadInput does), else its English as it is."""
        msgid, values = getattr(exc, "msgid", None), getattr(exc, "values", None)
        if isinstance(msgid, str) and isinstance(values, dict):
            return cls(str(exc), msgid=msgid, **values)
        return cls(str(exc))

    def said(self, lang: str) -> str:
        """The message in ``lang`` (as raised where it has no message id)."""
        from catalogue import has

        if self.msgid is None or not has(self.msgid):
            return str(self)
        return _said(lang, self.msgid, self.values)


class Said:
    """A message of the catalogue put in another's values, said in the same language::

        >>> BadInput(msgid="error.tag_registry", path="r.json", reason=Said("error.no_folder", folder="/x")).said("fr")
        "registre des puces r.json : le dossier /x n'existe pas"
    """

    def __init__(self, msgid: str, **values: Any) -> None:
        self.msgid = msgid
        self.values = values

    @classmethod
    def of(cls, exc: BaseException) -> Said | str:
        """``exc``'s words where it carries them (a ``msgid`` and ``values``), else its English as it is."""
        msgid, values = getattr(exc, "msgid", None), getattr(exc, "values", None)
        return cls(msgid, **values) if isinstance(msgid, str) and isinstance(values, dict) else str(exc)

    def said(self, lang: str) -> str:
        """The words in ``lang``."""
        return _said(lang, self.msgid, self.values)

    def __str__(self) -> str:
        return self.said("en")


def _said(lang: str, msgid: str, values: dict[str, Any]) -> str:
    """``msgid`` in ``lang`` with ``values`` in words (a message with plural forms in the form for ``n``)."""
    from catalogue import is_plural, say, say_n

    def word(value: Any) -> Any:
        if isinstance(value, OSError):
            return os_reason(lang, value)
        if callable(getattr(value, "said", None)):  # a Said, a BadInput, a doctor's refusal...
            return value.said(lang)
        return value

    worded = {k: word(v) for k, v in values.items()}
    if is_plural(msgid) and isinstance(worded.get("n"), int):
        return say_n(lang, msgid, worded.pop("n"), **worded)
    return say(lang, msgid, **worded)
