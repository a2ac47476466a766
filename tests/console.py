"""The lines a command's console says at INFO, found by their words.

A console in a language (:class:`catalogue.phrase.SaidFormatter`: ``run``, ``demo``, ``sim``) prints a line
logged with words at INFO as those words alone, with no level and no logger before them (a warning or
worse keeps both): a test that set aside "the start's and the stop's lines at INFO" by their ``INFO ``
prefix finds them here by the catalogue's ``log.*`` messages in that language instead, a placeholder
standing for any text::

    >>> said_at_info("fr", "table en pause : la partie reprendra où elle s'est arrêtée")
    True
    >>> said_at_info("en", "WARNING drivers.nfc.hsu: pad hand.A: reader on /dev/ttyUSB0 lost: EIO")
    False
"""

from __future__ import annotations

import functools
import re

import catalogue

PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


@functools.cache
def _info_lines(lang: str) -> re.Pattern[str]:
    forms: set[str] = set()
    for msgid in catalogue.ids():
        if msgid.startswith("log."):
            if catalogue.is_plural(msgid):
                forms |= {catalogue.template_n(lang, msgid, n) for n in (0, 1, 2, 5, 21, 1000)}
            else:
                forms.add(catalogue.template(lang, msgid))
    worded = sorted(form for form in forms if PLACEHOLDER.sub("", form).strip())  # some words of its own
    return re.compile("|".join(
        "(?:" + ".+".join(re.escape(part) for part in PLACEHOLDER.split(form)) + ")" for form in worded))


def said_at_info(lang: str, line: str | bytes) -> bool:
    """Whether ``line`` (a console's line, its newline aside) is one of the catalogue's ``log.*`` messages
    in ``lang`` as :class:`catalogue.phrase.SaidFormatter` prints it at INFO: whole, no level before it."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return _info_lines(lang).fullmatch(text.rstrip("\r\n")) is not None
