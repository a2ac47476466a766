"""The two seats of an écarté table, named once: ``A`` and ``B``.

    >>> SEATS, OTHER["A"], INDEX["B"]
    (('A', 'B'), 'B', 1)

Every part of the table that names a seat (actions, the state, the journal's summaries, the
screens, the page) takes it from here.
"""

from __future__ import annotations

SEATS = ("A", "B")
"""The seats, in the order of every pair the engine keeps (hands, scores, tricks)."""
OTHER = {"A": "B", "B": "A"}
"""Each seat's opponent."""
INDEX = {"A": 0, "B": 1}
"""Each seat's place in those pairs."""
