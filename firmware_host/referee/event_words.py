"""A fault's and a notice's words, from the catalogue, at the edge: the referee's events carry what
they say as data (:class:`~engine.message.Phrase`), and the outputs that print words put them in here.

``--json`` (docs/transcript.md) prints a fault with its ``message`` and ``remedy`` and a notice with its
``message``, in English, as the table always has (:func:`contract_json`); the OLED, the voice and the
page word a fault their own way, in their language, from the same data.

    >>> from engine import Card
    >>> from engine.faults import revoke_fault
    >>> fault = revoke_fault("B", Card.parse("7S"), "H", True)
    >>> message(fault)
    'B must follow hearts and win the trick: take back the 7♠'
    >>> remedy(fault)
    'take the card back and follow suit (rule 39: no penalty)'
    >>> message(fault, "es")
    'B debe seguir el palo de corazones y ganar la baza: retire el 7♠'
    >>> list(contract_json(fault))
    ['event', 'code', 'seat', 'rule', 'message', 'remedy', 'card', 'detail']
"""

from __future__ import annotations

from typing import Any

from catalogue import has, said
from catalogue import prompt_words as _prompt_words
from engine import Event, Fault, Prompt
from engine.message import Phrase
from firmware_host.referee.table_events import Notice

__all__ = ["contract_json", "message", "prompt_words", "remedy", "said_in"]


def said_in(says: Phrase, lang: str = "en") -> str:
    """``says`` (a message's id and values: a fault's, what the table waits for) in ``lang`` (``""``:
    an id the catalogue does not hold)::

        >>> said_in(Phrase("prompt.draw", (("seat", "B"), ("n", "2"))), "fr")
        'B prend 2 au talon'
    """
    return said(lang, says.msgid, dict(says.values)) if has(says.msgid) else ""


def prompt_words(prompt: Prompt, lang: str = "en", name: str | None = None) -> dict[str, str]:
    """``prompt`` in ``lang``, in a few words (``short``) and in a sentence (``text``), ``name`` (a
    player's) for its seat (a prompt without a key: no words)."""
    if not prompt.key:
        return {"short": "", "text": ""}
    short, text = _prompt_words(lang, prompt.key, name if name is not None else prompt.seat, prompt.count)
    return {"short": short, "text": text}


def message(event: Fault | Notice, lang: str = "en") -> str:
    """What ``event`` tells the players, in ``lang`` (``""``: it says nothing the catalogue words)."""
    if event.says is None or not has(event.says.msgid):
        return ""
    return said(lang, event.says.msgid, event.values())


def remedy(fault: Fault, lang: str = "en") -> str:
    """How ``fault`` is put right, in ``lang``: the other seat's choice for a fault proven late, the
    point an italian revoke costs, else the code's remedy (``""``: a notice's code has none)."""
    values = fault.values()
    key = "remedy.late" if fault.late else "remedy.penalty" if "penalty" in values else "remedy." + fault.code
    return said(lang, key, values) if has(key) else ""


def contract_json(event: Event) -> dict[str, Any]:
    """``event`` as ``--json`` prints it: a fault with its ``message`` and ``remedy`` after its
    ``rule``, a notice with its ``message`` first, in English (docs/transcript.md); any other as it is."""
    data = event.to_json()
    if isinstance(event, Notice):
        return {"event": data.pop("event"), "message": message(event), **data}
    if not isinstance(event, Fault):
        return data
    out: dict[str, Any] = {}
    for name, value in data.items():
        out[name] = value
        if name == "rule":
            out["message"], out["remedy"] = message(event), remedy(event)
    return out
