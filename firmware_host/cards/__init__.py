"""The cards' tags at the table: enrolment, the deck check, and naming tags at run time.

Owns enrolling a pack (``enroll``: reading, signing checks, locking), checking a pack on one pad
(``deck_check``), the deck check before the first deal (``deck_gate``: the pads' events held back
until a pack passes), a table waiting for its cards to be enrolled (``enrolment``) and the table's
tag wiring (``table_tags``: the registry and pack guard in front of the referee).

May import: ``hardware`` (registry, originality, table files), ``drivers.nfc``,
``firmware_host.referee`` (pack guard, transcript events), ``firmware_host.errors``.
"""
