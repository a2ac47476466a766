"""The table's own page and MQTT feed: outputs of the table service (``wiring.VenueOutputs``),
the journal's games as hand records and the coach's reviews.

May import: ``engine``, ``catalogue``, ``hardware``, ``coach``, the service's ``referee``,
``outputs``, ``journal``, ``screens`` and ``errors``, and ``venue``'s shared modules. Never the hub.
"""
