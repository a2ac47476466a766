"""The venue: two programs above the table service, each in its room.

- ``venue.table``: the table's own page and MQTT feed, outputs of ``ecarte-table run``.
- ``venue.hub``: the venue's hub, ``ecarte-table hub`` (the scoreboard, the session, the broker).

The modules here are what both share (the web server's guard, Server-Sent Events, the table file's
``[web]`` and ``[mqtt]``, the static files, the clock, the MQTT client); they import neither room,
and the rooms never import each other (``LAYERS`` in tests/test_layering.py; docs/architecture.md).
"""
