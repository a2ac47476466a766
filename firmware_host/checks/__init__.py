"""``ecarte-table doctor``'s checks: what is wrong with this table and how to fix it.

Owns the checks of a table file, the tag registry, each reader, display and button backend,
and the user's groups (``doctor``), each a value with its fix.

May import: ``hardware``, ``drivers`` (probes imported late). Knows no referee.
"""
