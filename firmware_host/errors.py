"""The service's errors."""

from __future__ import annotations

import errno
from typing import Any


class BadInput(Exception):
    """Input the table cannot use: the message names the file, the line and what was expected.

    The command line prints it and exits with status 2, in the language asked (``--language``, else
    the environment's ``LANG``) where the message is the catalogue's: ``msgid`` and its ``values``,
    an :class:`OSError` among them said in words (:func:`os_reason`).
    """

    def __init__(self, message: str, *, msgid: str | None = None, **values: Any) -> None:
        super().__init__(message)
        self.msgid = msgid
        self.values = values

    def said(self, lang: str) -> str:
        """The message in ``lang`` (as raised where it has no message id)."""
        if self.msgid is None:
            return str(self)
        from catalogue import has, say

        if not has(self.msgid):
            return str(self)
        values = {k: os_reason(lang, v) if isinstance(v, OSError) else v for k, v in self.values.items()}
        return say(lang, self.msgid, **values)


_REASONS = {errno.ENOENT: "ENOENT", errno.EACCES: "EACCES", errno.EPERM: "EACCES", errno.EISDIR: "EISDIR",
            errno.ENOTDIR: "ENOTDIR", errno.ENOSPC: "ENOSPC", errno.EROFS: "EROFS", errno.EBUSY: "EBUSY"}


def os_reason(lang: str, exc: OSError) -> str:
    """Why the system refused, in ``lang``'s words (``os.ENOENT``: "no existe"), else the system's own."""
    from catalogue import has, say

    name = _REASONS.get(exc.errno or 0)
    if name is not None and has("os." + name):
        return say(lang, "os." + name)
    return exc.strerror or str(exc)
