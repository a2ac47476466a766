"""The venue's hub, ``ecarte-table hub``: the scoreboard from every table's MQTT messages, the
session and its results, the Swiss evening and the broker it runs.

May import: ``engine``, ``catalogue``, ``hardware``, the service's ``journal`` (a boot's id) and
``errors``, and ``venue``'s shared modules. Never the table's page: it knows a table only by what
the table publishes.
"""
