"""What the OLED shows: which screen a snapshot calls for, in which words, drawn how.

Owns the choice of screen (``chooser``), the words in four languages (``i18n``), the 128×64
drawing with baked fonts (``drawing``, ``fonts/``), the panel output that puts frames on a
display (``panel``) and the coach's line at the table (``coaching``).

May import: ``firmware_host.referee``'s values (snapshot, outcome, events), ``engine.cards``
for suit glyphs, ``coach`` (the review, late), ``drivers.display``. Knows no journal and no
controller internals: a screen is chosen from a snapshot alone.
"""
